// Real OAuth client libraries against a listening server:
// openid-client v6 (form, client_secret_post), oauth4webapi (HTTP Basic), simple-oauth2 (its
// default: Basic + form). Each obtains a token, calls a protected route with it, and the token
// verifies with jose's remote JWKS against /.well-known/jwks.json. Also: the log redaction of
// secrets, tokens and Authorization headers on the same traffic.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { ClientCredentials } from 'simple-oauth2';
import type { CreatedClient } from '../../src/auth/service.ts';
import type { Store } from '../../src/store/types.ts';
import { LogCapture, openStore, startServer, type TestServer } from './helpers.ts';

let store: Store;
let srv: TestServer;
let postClient: CreatedClient;
let basicClient: CreatedClient;
let uniClient: CreatedClient;
const logs = new LogCapture();
const secretsSeen: string[] = [];

before(async () => {
  store = await openStore();
  srv = await startServer(store, { listen: true, logStream: logs });
  postClient = await srv.auth.createClient({ name: 'openid-client' });
  // Ids with a space, a colon, a plus and non-ASCII: HTTP Basic must form-urlencode them (RFC 6749
  // §2.3.1). simple-oauth2 only accepts printable ASCII ids.
  basicClient = await srv.auth.createClient({
    name: 'basic users',
    clientId: 'desk 7:b/c+d',
    scopes: ['read:tape', 'read:trader'],
  });
  uniClient = await srv.auth.createClient({
    name: 'unicode',
    clientId: 'desk 7:α/β',
    scopes: ['read:tape', 'read:trader'],
  });
  secretsSeen.push(postClient.clientSecret, basicClient.clientSecret, uniClient.clientSecret);
});
after(async () => {
  await srv.close();
  await store.close();
});

async function verifyRemotely(token: string): Promise<Record<string, unknown>> {
  const jwks = createRemoteJWKSet(new URL(`${srv.url}/.well-known/jwks.json`));
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer: srv.url,
    audience: srv.url,
    typ: 'at+jwt',
    algorithms: ['RS256'],
  });
  assert.equal(protectedHeader.kid, srv.auth.keys.current().kid);
  return payload;
}

async function callProtected(token: string, scope = 'read-tape'): Promise<Response> {
  return fetch(`${srv.url}/test/protected/${scope}`, { headers: { authorization: `Bearer ${token}` } });
}

describe('OAuth client libraries', () => {
  test('openid-client v6: discovery (RFC 8414), client_secret_post, form body', async () => {
    const config = await client.discovery(
      new URL(srv.url),
      postClient.clientId,
      undefined,
      client.ClientSecretPost(postClient.clientSecret),
      { execute: [client.allowInsecureRequests], algorithm: 'oauth2' },
    );
    assert.equal(config.serverMetadata().token_endpoint, `${srv.url}/nbx/v1/auth/emm-token`);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'read:tape read:trader' });
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    assert.equal(tokens.scope, 'read:tape read:trader');
    // expiresIn() counts down from the library's receipt of the answer in whole seconds, and the
    // server counts expires_in from its own clock second: a second boundary can pass in between.
    const left = tokens.expiresIn() ?? 0;
    assert.ok(left >= 86398 && left <= 86400, `expiresIn ${left}`);
    secretsSeen.push(tokens.access_token);
    const r = await callProtected(tokens.access_token, 'read-trader');
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { clientId: string }).clientId, postClient.clientId);
    const claims = await verifyRemotely(tokens.access_token);
    assert.equal(claims.client_id, postClient.clientId);
    assert.equal(claims.scope, 'read:tape read:trader');
  });

  test('oauth4webapi: HTTP Basic (client_secret_basic) with a form-encoded client id', async () => {
    const issuer = new URL(srv.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
    );
    const c: oauth.Client = { client_id: uniClient.clientId };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      c,
      oauth.ClientSecretBasic(uniClient.clientSecret),
      new URLSearchParams(),
      { [oauth.allowInsecureRequests]: true },
    );
    const result = await oauth.processClientCredentialsResponse(as, c, response);
    assert.equal(result.token_type, 'bearer');
    assert.equal(result.scope, 'read:tape read:trader');
    secretsSeen.push(result.access_token);
    const r = await callProtected(result.access_token);
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { clientId: string }).clientId, 'desk 7:α/β');
    const claims = await verifyRemotely(result.access_token);
    assert.equal(claims.sub, 'desk 7:α/β');

    // A wrong secret: the library surfaces the RFC 6749 error and the Basic challenge.
    const bad = await oauth.clientCredentialsGrantRequest(
      as,
      c,
      oauth.ClientSecretBasic('wrong'),
      new URLSearchParams(),
      {
        [oauth.allowInsecureRequests]: true,
      },
    );
    assert.equal(bad.status, 401);
    assert.match(String(bad.headers.get('www-authenticate')), /^Basic realm="tickbook"/);
    await assert.rejects(oauth.processClientCredentialsResponse(as, c, bad), (err: unknown) => {
      return err instanceof oauth.WWWAuthenticateChallengeError && err.cause[0]?.scheme === 'basic';
    });
  });

  test('simple-oauth2: its default (HTTP Basic, form body), also against the legacy path', async () => {
    assert.equal(basicClient.clientId, 'desk 7:b/c+d');
    const sc = new ClientCredentials({
      client: { id: basicClient.clientId, secret: basicClient.clientSecret },
      auth: { tokenHost: srv.url, tokenPath: '/nbx/v1/auth/emm-token' },
    });
    const at = await sc.getToken({ scope: 'read:tape' });
    const token = String(at.token.access_token);
    assert.equal(at.token.token_type, 'Bearer');
    assert.equal(at.token.scope, 'read:tape');
    assert.equal(at.expired(), false);
    secretsSeen.push(token);
    const r = await callProtected(token);
    assert.equal(r.status, 200);
    const claims = await verifyRemotely(token);
    assert.equal(claims.scope, 'read:tape');

    const legacy = new ClientCredentials({
      client: { id: basicClient.clientId, secret: basicClient.clientSecret },
      auth: { tokenHost: srv.url, tokenPath: '/oauth/token' },
    });
    const lt = await legacy.getToken({ audience: srv.url } as never);
    assert.equal((await callProtected(String(lt.token.access_token))).status, 200);
    secretsSeen.push(String(lt.token.access_token));
  });

  test('curl-style JSON request over the network (hand-written clients)', async () => {
    const r = await fetch(`${srv.url}/nbx/v1/auth/emm-token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: postClient.clientId,
        client_secret: postClient.clientSecret,
      }),
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const b = (await r.json()) as { access_token: string };
    secretsSeen.push(b.access_token);
    assert.equal((await callProtected(b.access_token)).status, 200);
  });
});

describe('log redaction', () => {
  test('no secret, token or Authorization header reaches the logs', async () => {
    // Failures and odd placements too: a token in the query string, a wrong Basic secret.
    const tok = secretsSeen[secretsSeen.length - 1];
    await fetch(`${srv.url}/test/protected/read-tape?access_token=${tok}`);
    await fetch(`${srv.url}/nbx/v1/auth/emm-token?client_secret=${postClient.clientSecret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type": "client_credentials", "client_secret": "oops", broken',
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(logs.lines.length > 10, 'requests were logged');
    assert.ok(logs.text.includes('request completed'));
    assert.ok(!logs.text.includes('incoming request'), 'one access-log line per request, not two');
    for (const s of secretsSeen) assert.ok(!logs.text.includes(s), `leaked ${s.slice(0, 12)}…`);
    assert.ok(!/authorization":\s*"(Bearer|Basic) /i.test(logs.text));
    assert.ok(logs.text.includes('access_token=[redacted]'), 'query-string token masked');
  });

  test('logging a request’s headers and body through the app logger redacts them', async () => {
    const lines: string[] = [];
    const sink = new LogCapture();
    const { buildApp } = await import('../../src/app.ts');
    const app = await buildApp({
      config: srv.config,
      store,
      logStream: sink,
      features: async (a) => {
        a.post('/echo', async (request) => {
          request.log.info({ headers: request.headers, body: request.body }, 'dump');
          return { ok: true };
        });
      },
    });
    try {
      const secret = 'S3cr3t-value-that-must-not-appear';
      await app.inject({
        method: 'POST',
        url: '/echo',
        headers: { authorization: `Bearer ${secret}-bearer`, 'content-type': 'application/json' },
        payload: {
          client_secret: secret,
          access_token: `${secret}-tok`,
          nested: { token: `${secret}-nested` },
        },
      });
      lines.push(...sink.lines);
      const text = lines.join('\n');
      assert.ok(text.includes('"dump"'));
      assert.ok(!text.includes(secret), text);
    } finally {
      await app.close();
    }
  });
});
