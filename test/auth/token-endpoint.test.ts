// The token endpoints: success shapes for JSON, form and HTTP Basic on both
// endpoints, the legacy audience rule and headers, scope narrowing, and a table of bad inputs —
// each with its RFC 6749 §5.2 error and never a 5xx. Also revocation and introspection
// (throttling: secret-throttle.test.ts).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CreatedClient } from '../../src/auth/service.ts';
import type { Store } from '../../src/store/types.ts';
import { basic, form, openStore, startServer, type TestServer, testConfig } from './helpers.ts';

const TOKEN = '/nbx/v1/auth/emm-token';
const LEGACY = '/oauth/token';

let store: Store;
let srv: TestServer;
let trader: CreatedClient;
let other: CreatedClient;

before(async () => {
  store = await openStore();
  srv = await startServer(store, { env: { AUTH_FAILURE_LIMIT: '1000' } });
  trader = await srv.auth.createClient({ name: 'trader' });
  other = await srv.auth.createClient({ name: 'other', scopes: ['read:tape'] });
});
after(async () => {
  await srv.close();
  await store.close();
});

const json = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  srv.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
const formPost = (url: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  srv.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: form(body),
  });
const creds = () => ({
  grant_type: 'client_credentials',
  client_id: trader.clientId,
  client_secret: trader.clientSecret,
});

function assertTokenResponse(
  r: Awaited<ReturnType<typeof json>>,
  scope = 'execute:trader read:trader read:tape',
) {
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-type']), /^application\/json(;|$)/);
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.equal(r.headers.pragma, 'no-cache');
  const b = r.json();
  assert.deepEqual(Object.keys(b).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
  assert.equal(b.token_type, 'Bearer');
  // 86400, or a little less when a token issued moments ago is handed out again (reuse window).
  assert.ok(
    Number.isInteger(b.expires_in) && b.expires_in <= 86400 && b.expires_in > 86400 - 60,
    String(b.expires_in),
  );
  assert.equal(b.scope, scope);
  assert.equal(b.access_token.split('.').length, 3);
  return b.access_token as string;
}

describe('successful issuance', () => {
  test('JSON body (hand-written clients), the production response shape', async () => {
    const token = assertTokenResponse(await json(TOKEN, creds()));
    const [h, p] = token
      .split('.')
      .slice(0, 2)
      .map((s) => JSON.parse(Buffer.from(s, 'base64url').toString()));
    assert.equal(h.alg, 'RS256');
    assert.equal(h.typ, 'at+jwt');
    assert.equal(h.kid, srv.auth.keys.current().kid);
    assert.equal(p.iss, srv.config.publicBaseUrl);
    assert.equal(p.sub, trader.clientId);
    assert.equal(p.client_id, trader.clientId);
    assert.deepEqual(p.aud, [srv.config.publicBaseUrl, 'urn:tickbook:env:production']);
    assert.equal(p.exp - p.iat, 86400);
    assert.equal(typeof p.jti, 'string');
  });

  test('form body, and audience is ignored on the new endpoint', async () => {
    assertTokenResponse(await formPost(TOKEN, { ...creds(), audience: 'https://elsewhere.example' }));
  });

  test('HTTP Basic with form-urlencoded id and secret (RFC 6749 §2.3.1)', async () => {
    const r = await formPost(
      TOKEN,
      { grant_type: 'client_credentials' },
      { authorization: basic(trader.clientId, trader.clientSecret) },
    );
    assertTokenResponse(r);
  });

  test('scope narrows the grant; repeated names collapse', async () => {
    const r = await json(TOKEN, { ...creds(), scope: 'read:tape read:tape' });
    const token = assertTokenResponse(r, 'read:tape');
    const ok = await srv.app.inject({
      url: '/test/protected/read-tape',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(ok.statusCode, 200);
    const no = await srv.app.inject({
      url: '/test/protected/read-trader',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(no.statusCode, 403);
  });

  test('legacy endpoint: audience = PUBLIC_BASE_URL, Deprecation and successor Link', async () => {
    const r = await json(LEGACY, { ...creds(), audience: srv.config.publicBaseUrl });
    assertTokenResponse(r);
    assert.equal(r.headers.deprecation, 'true');
    assert.equal(r.headers.link, `<${srv.config.publicBaseUrl}${TOKEN}>; rel="successor-version"`);
    assertTokenResponse(await formPost(LEGACY, { ...creds(), audience: srv.config.publicBaseUrl }));
  });

  test('tokens issued are counted in /metrics', async () => {
    const before = (await srv.metrics.tokensIssued.get()).values.reduce((a, v) => a + v.value, 0);
    await json(TOKEN, creds());
    const after = (await srv.metrics.tokensIssued.get()).values.reduce((a, v) => a + v.value, 0);
    assert.equal(after, before + 1);
  });
});

describe('bad inputs get their RFC 6749 error, never a 5xx', () => {
  type Case = {
    name: string;
    url?: string;
    contentType?: string;
    payload?: string;
    headers?: Record<string, string>;
    status: number;
    error: string;
  };
  const good = () => creds();
  const cases: (() => Case)[] = [
    () => ({
      name: 'missing grant_type',
      payload: JSON.stringify({ client_id: trader.clientId, client_secret: trader.clientSecret }),
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'grant_type not a string',
      payload: JSON.stringify({ ...good(), grant_type: 1 }),
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'client_id a number',
      payload: JSON.stringify({ ...good(), client_id: 123 }),
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'client_secret an object',
      payload: JSON.stringify({ ...good(), client_secret: { a: 1 } }),
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'scope an array',
      payload: JSON.stringify({ ...good(), scope: ['read:tape'] }),
      status: 400,
      error: 'invalid_request',
    }),
    () => ({ name: 'body is a JSON array', payload: '[1,2]', status: 400, error: 'invalid_request' }),
    () => ({ name: 'body is JSON null', payload: 'null', status: 400, error: 'invalid_request' }),
    () => ({
      name: 'body is a JSON string',
      payload: '"client_credentials"',
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'malformed JSON',
      payload: '{"grant_type": "client_credentials",',
      status: 400,
      error: 'invalid_request',
    }),
    () => ({ name: 'empty JSON body', payload: '', status: 400, error: 'invalid_request' }),
    () => ({
      name: 'prototype poisoning',
      payload: '{"__proto__": {"x": 1}, "grant_type": "client_credentials"}',
      status: 400,
      error: 'invalid_request',
    }),
    () => ({ name: 'form body labelled JSON', payload: form(good()), status: 400, error: 'invalid_request' }),
    () => ({
      name: 'JSON body labelled form',
      contentType: 'application/x-www-form-urlencoded',
      payload: JSON.stringify(good()),
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'repeated form parameter',
      contentType: 'application/x-www-form-urlencoded',
      payload: `${form(good())}&grant_type=client_credentials`,
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'unexpected content type',
      contentType: 'text/plain',
      payload: form(good()),
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'multipart content type',
      contentType: 'multipart/form-data; boundary=x',
      payload: '--x--',
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'oversized body',
      payload: JSON.stringify({ ...good(), pad: 'x'.repeat(64 * 1024) }),
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'unknown grant',
      payload: JSON.stringify({ ...good(), grant_type: 'password' }),
      status: 400,
      error: 'unsupported_grant_type',
    }),
    () => ({
      name: 'authorization_code grant',
      payload: JSON.stringify({ ...good(), grant_type: 'authorization_code' }),
      status: 400,
      error: 'unsupported_grant_type',
    }),
    () => ({
      name: 'wrong secret',
      payload: JSON.stringify({ ...good(), client_secret: other.clientSecret }),
      status: 401,
      error: 'invalid_client',
    }),
    () => ({
      name: 'empty secret',
      payload: JSON.stringify({ ...good(), client_secret: '' }),
      status: 401,
      error: 'invalid_client',
    }),
    () => ({
      name: 'unknown client',
      payload: JSON.stringify({ ...good(), client_id: 'no-such-client' }),
      status: 401,
      error: 'invalid_client',
    }),
    () => ({
      name: 'no client authentication',
      payload: JSON.stringify({ grant_type: 'client_credentials' }),
      status: 401,
      error: 'invalid_client',
    }),
    () => ({
      name: 'client_id without secret',
      payload: JSON.stringify({ grant_type: 'client_credentials', client_id: trader.clientId }),
      status: 401,
      error: 'invalid_client',
    }),
    () => ({
      name: 'scope unknown',
      payload: JSON.stringify({ ...good(), scope: 'read:tape superuser' }),
      status: 400,
      error: 'invalid_scope',
    }),
    () => ({
      name: 'scope beyond the client',
      payload: JSON.stringify({ ...good(), scope: 'admin' }),
      status: 400,
      error: 'invalid_scope',
    }),
    () => ({
      name: 'Basic and body secret together',
      contentType: 'application/x-www-form-urlencoded',
      payload: form(good()),
      headers: { authorization: basic(trader.clientId, trader.clientSecret) },
      status: 400,
      error: 'invalid_request',
    }),
    () => ({
      name: 'Bearer instead of Basic',
      contentType: 'application/x-www-form-urlencoded',
      payload: form({ grant_type: 'client_credentials' }),
      headers: { authorization: 'Bearer abc' },
      status: 401,
      error: 'invalid_client',
    }),
    () => ({
      name: 'Basic without colon',
      contentType: 'application/x-www-form-urlencoded',
      payload: form({ grant_type: 'client_credentials' }),
      headers: { authorization: `Basic ${Buffer.from('nocolon').toString('base64')}` },
      status: 401,
      error: 'invalid_client',
    }),
    () => ({
      name: 'Basic with bad percent-encoding',
      contentType: 'application/x-www-form-urlencoded',
      payload: form({ grant_type: 'client_credentials' }),
      headers: { authorization: `Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}` },
      status: 401,
      error: 'invalid_client',
    }),
  ];

  for (const url of [TOKEN, LEGACY]) {
    for (const make of cases) {
      // The name is static per case; build the case lazily (clients exist only after before()).
      test(`${url}: ${make.toString().match(/name: '([^']+)'/)?.[1]}`, async () => {
        const c = make();
        let payload = c.payload;
        // The legacy endpoint also needs the right audience for the failure to be the one under test.
        if (
          url === LEGACY &&
          payload !== undefined &&
          c.contentType === undefined &&
          payload.startsWith('{"') &&
          !payload.includes('__proto__')
        ) {
          try {
            payload = JSON.stringify({ ...JSON.parse(payload), audience: srv.config.publicBaseUrl });
          } catch {
            // malformed on purpose
          }
        }
        const r = await srv.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': c.contentType ?? 'application/json', ...c.headers },
          payload,
        });
        assert.ok(r.statusCode < 500, `5xx for ${c.name}: ${r.body}`);
        assert.equal(r.statusCode, c.status, `${c.name}: ${r.body}`);
        const b = r.json();
        assert.equal(b.error, c.error, c.name);
        assert.equal(typeof b.error_description, 'string');
        assert.equal(r.headers['cache-control'], 'no-store');
        if (c.status === 401 && c.headers?.authorization)
          assert.match(String(r.headers['www-authenticate']), /^Basic realm=/);
        if (url === LEGACY) assert.equal(r.headers.deprecation, 'true');
      });
    }
  }

  test('wrong secret over HTTP Basic: 401 with WWW-Authenticate: Basic', async () => {
    const r = await formPost(
      TOKEN,
      { grant_type: 'client_credentials' },
      { authorization: basic(trader.clientId, 'wrong') },
    );
    assert.equal(r.statusCode, 401);
    assert.equal(r.json().error, 'invalid_client');
    assert.match(String(r.headers['www-authenticate']), /^Basic realm="tickbook"/);
  });

  test('wrong secret in the body: 401 without a Basic challenge', async () => {
    const r = await json(TOKEN, { ...creds(), client_secret: 'wrong' });
    assert.equal(r.statusCode, 401);
    assert.equal(r.headers['www-authenticate'], undefined);
  });

  test('no body at all', async () => {
    const r = await srv.app.inject({ method: 'POST', url: TOKEN });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().error, 'invalid_request');
  });

  test('legacy: missing or wrong audience is 403 access_denied naming the accepted audience', async () => {
    const base = srv.config.publicBaseUrl;
    for (const audience of [undefined, 'https://api.example.com', `${base}/`]) {
      const r = await json(LEGACY, { ...creds(), ...(audience === undefined ? {} : { audience }) });
      assert.equal(r.statusCode, 403, String(audience));
      assert.equal(r.json().error, 'access_denied');
      assert.equal(
        r.json().error_description,
        audience === undefined
          ? `audience is required on this endpoint; accepted: '${base}'`
          : `Unknown audience '${audience}'; accepted: '${base}'`,
      );
    }
    // error_description stays within RFC 6749 §5.2's characters whatever the client sent.
    const odd = await json(LEGACY, { ...creds(), audience: 'x"\\\né' });
    assert.equal(odd.statusCode, 403);
    assert.equal(odd.json().error_description, `Unknown audience 'x????'; accepted: '${base}'`);
    assert.match(odd.json().error_description, /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/);
    const wrongType = await json(LEGACY, { ...creds(), audience: 42 });
    assert.equal(wrongType.statusCode, 400);
    assert.equal(wrongType.json().error, 'invalid_request');
  });

  test('LEGACY_TOKEN_AUDIENCES adds to the own address: all accepted, nothing else; tokens keep the API audience', async () => {
    const listed = ['https://api.prod.example.com', 'legacy-emm-api'];
    const other = await startServer(store, { env: { LEGACY_TOKEN_AUDIENCES: ` ${listed.join(' , ')} ,` } });
    try {
      const base = other.config.publicBaseUrl;
      assert.deepEqual(other.config.legacyTokenAudiences, [base, ...listed]);
      const c = await other.auth.createClient({ name: 'legacy-aud', scopes: ['read:tape'] });
      const body = { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret };
      // Listing the production audience never locks out the server's own address.
      for (const audience of [base, ...listed]) {
        const r = await other.app.inject({ method: 'POST', url: LEGACY, payload: { ...body, audience } });
        assertTokenResponse(r, 'read:tape');
        // The token is for this API whatever the client asked: aud is the API's, not the request's.
        const claims = JSON.parse(Buffer.from(r.json().access_token.split('.')[1], 'base64url').toString());
        assert.ok([claims.aud].flat().includes(base));
        if (audience !== base) assert.ok(![claims.aud].flat().includes(audience));
      }
      // Exact match; the refusal names every accepted audience, the own address first.
      for (const audience of [`${base}/`, 'legacy-emm-api/', 'LEGACY-EMM-API']) {
        const r = await other.app.inject({ method: 'POST', url: LEGACY, payload: { ...body, audience } });
        assert.equal(r.statusCode, 403, audience);
        assert.equal(r.json().error, 'access_denied');
        assert.equal(
          r.json().error_description,
          `Unknown audience '${audience}'; accepted: '${base}', 'https://api.prod.example.com', 'legacy-emm-api'`,
        );
      }
    } finally {
      await other.close();
    }
  });

  test('LEGACY_TOKEN_AUDIENCES: default is the public base URL, a list adds to it; a blank list is refused at start', () => {
    assert.deepEqual(testConfig({ PUBLIC_BASE_URL: 'https://x.example/' }).legacyTokenAudiences, [
      'https://x.example',
    ]);
    assert.deepEqual(
      testConfig({
        PUBLIC_BASE_URL: 'https://x.example/',
        LEGACY_TOKEN_AUDIENCES: 'https://api.prod.example, https://x.example',
      }).legacyTokenAudiences,
      ['https://x.example', 'https://api.prod.example'],
    );
    assert.throws(() => testConfig({ LEGACY_TOKEN_AUDIENCES: ' , ,' }), /LEGACY_TOKEN_AUDIENCES/);
  });

  test('a disabled client is 403 access_denied; re-enabled it gets tokens again', async () => {
    const c = await srv.auth.createClient({ name: 'to-disable', scopes: ['read:tape'] });
    const body = { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret };
    await srv.auth.setClientStatus(c.clientId, 'disabled');
    const r = await json(TOKEN, body);
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().error, 'access_denied');
    await srv.auth.setClientStatus(c.clientId, 'active');
    assertTokenResponse(await json(TOKEN, body), 'read:tape');
  });

  test('a revoked client is 401 invalid_client', async () => {
    const c = await srv.auth.createClient({ name: 'to-revoke', scopes: ['read:tape'] });
    await srv.auth.revokeClient(c.clientId);
    const r = await json(TOKEN, {
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: c.clientSecret,
    });
    assert.equal(r.statusCode, 401);
    assert.equal(r.json().error, 'invalid_client');
  });

  test('wrong methods on the token path answer 405, unknown paths 404 (envelope)', async () => {
    const r = await srv.app.inject({ method: 'GET', url: TOKEN });
    assert.equal(r.statusCode, 405);
    assert.equal(r.json().code, 'METHOD_NOT_ALLOWED');
  });
});

describe('token reuse window', () => {
  test('the same client and scope within the window get the same token, with the remaining lifetime', async () => {
    const a = (await json(TOKEN, { ...creds(), scope: 'read:trader' })).json();
    const b = (await json(TOKEN, { ...creds(), scope: 'read:trader' })).json();
    assert.equal(b.access_token, a.access_token);
    assert.ok(b.expires_in <= a.expires_in && b.expires_in > 86400 - 60);
    const other = (await json(TOKEN, { ...creds(), scope: 'read:tape' })).json();
    assert.notEqual(other.access_token, a.access_token);
    // Revoking it ends the reuse: the next request is a fresh token.
    await srv.auth.revokeToken(a.access_token, srv.auth.clients.get(trader.clientId)!);
    const c = (await json(TOKEN, { ...creds(), scope: 'read:trader' })).json();
    assert.notEqual(c.access_token, a.access_token);
    const ok = await srv.app.inject({
      url: '/test/protected/read-trader',
      headers: { authorization: `Bearer ${c.access_token}` },
    });
    assert.equal(ok.statusCode, 200);
  });

  test('concurrent requests share one signature; a key rotation ends the reuse', async () => {
    const rs = await Promise.all(
      Array.from({ length: 5 }, () => json(TOKEN, { ...creds(), scope: 'execute:trader' })),
    );
    assert.equal(new Set(rs.map((r) => r.json().access_token)).size, 1);
    const s2 = await startServer(store, { env: { AUTH_FAILURE_LIMIT: '1000' } });
    try {
      const c = await s2.auth.createClient({ name: 'reuse-rotation', scopes: ['read:tape'] });
      const rec = s2.auth.clients.get(c.clientId)!;
      const t1 = await s2.auth.issueToken(rec, undefined, 'test');
      await s2.auth.rotateKeys();
      const t2 = await s2.auth.issueToken(rec, undefined, 'test');
      assert.notEqual(t2.access_token, t1.access_token);
    } finally {
      await s2.close();
    }
  });
});

describe('revocation (RFC 7009) and introspection (RFC 7662)', () => {
  const token = async (c: CreatedClient) =>
    (
      await json(TOKEN, {
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: c.clientSecret,
      })
    ).json().access_token as string;

  test('introspect own token: active with its claims; a foreign client sees active=false', async () => {
    const t = await token(trader);
    const r = await formPost(
      '/oauth/introspect',
      { token: t },
      { authorization: basic(trader.clientId, trader.clientSecret) },
    );
    assert.equal(r.statusCode, 200);
    const b = r.json();
    assert.equal(b.active, true);
    assert.equal(b.client_id, trader.clientId);
    assert.equal(b.scope, 'execute:trader read:trader read:tape');
    assert.equal(b.token_type, 'Bearer');
    const foreign = await json('/oauth/introspect', {
      token: t,
      client_id: other.clientId,
      client_secret: other.clientSecret,
    });
    assert.deepEqual(foreign.json(), { active: false });
    const garbage = await json('/oauth/introspect', {
      token: 'not-a-token',
      client_id: trader.clientId,
      client_secret: trader.clientSecret,
    });
    assert.deepEqual(garbage.json(), { active: false });
  });

  test('introspection and revocation require client authentication', async () => {
    const r = await json('/oauth/introspect', { token: 'x' });
    assert.equal(r.statusCode, 401);
    assert.equal(r.json().error, 'invalid_client');
    const v = await json('/oauth/revoke', { token: 'x', client_id: trader.clientId, client_secret: 'nope' });
    assert.equal(v.statusCode, 401);
    const missing = await json('/oauth/revoke', {
      client_id: trader.clientId,
      client_secret: trader.clientSecret,
    });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, 'invalid_request');
  });

  test('revoke: 200, the token stops working at once (even after being cached), persisted', async () => {
    const t = await token(trader);
    const use = () =>
      srv.app.inject({ url: '/test/protected/read-tape', headers: { authorization: `Bearer ${t}` } });
    assert.equal((await use()).statusCode, 200); // now cached
    // Another client cannot revoke it (RFC 7009 §2.1) but still gets 200.
    const foreign = await json('/oauth/revoke', {
      token: t,
      client_id: other.clientId,
      client_secret: other.clientSecret,
    });
    assert.equal(foreign.statusCode, 200);
    assert.equal((await use()).statusCode, 200);
    const r = await formPost(
      '/oauth/revoke',
      { token: t, token_type_hint: 'access_token' },
      { authorization: basic(trader.clientId, trader.clientSecret) },
    );
    assert.equal(r.statusCode, 200);
    const after = await use();
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().code, 'INVALID_TOKEN');
    const jti = JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()).jti;
    const row = await store.query('SELECT client_id FROM auth_revoked_tokens WHERE jti = $1', [jti]);
    assert.equal(row.rows.length, 1);
    const intro = await json('/oauth/introspect', {
      token: t,
      client_id: trader.clientId,
      client_secret: trader.clientSecret,
    });
    assert.deepEqual(intro.json(), { active: false });
    // Revoking garbage is fine too (§2.2).
    const junk = await json('/oauth/revoke', {
      token: 'junk',
      client_id: trader.clientId,
      client_secret: trader.clientSecret,
    });
    assert.equal(junk.statusCode, 200);
  });
});

describe('metadata', () => {
  test('RFC 8414 metadata and the JWKS', async () => {
    const m = (await srv.app.inject({ url: '/.well-known/oauth-authorization-server' })).json();
    assert.equal(m.issuer, srv.config.publicBaseUrl);
    assert.equal(m.token_endpoint, `${srv.config.publicBaseUrl}${TOKEN}`);
    assert.equal(m.jwks_uri, `${srv.config.publicBaseUrl}/.well-known/jwks.json`);
    assert.deepEqual(m.grant_types_supported, ['client_credentials']);
    assert.deepEqual(m.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post']);
    const jwks = (await srv.app.inject({ url: '/.well-known/jwks.json' })).json();
    assert.equal(jwks.keys[0].kid, srv.auth.keys.current().kid);
    assert.equal(jwks.keys[0].d, undefined, 'no private parts');
    assert.equal(jwks.keys[0].p, undefined);
  });

  test('the token routes are in the OpenAPI document', async () => {
    const doc = (await srv.app.inject({ url: '/openapi.json' })).json();
    assert.ok(doc.paths[TOKEN].post);
    assert.equal(doc.paths[LEGACY].post.deprecated, true);
    assert.ok(doc.paths['/admin/v1/clients'].post.responses['201']);
  });
});
