// Bearer verification under attack, plus the verification cache,
// key rotation and client-secret rotation with grace.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { calculateJwkThumbprint, exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { KeyDecryptionError } from '../../src/auth/keys.ts';
import { AuthService, type CreatedClient } from '../../src/auth/service.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import type { Store } from '../../src/store/types.ts';
import { MemoryAccounts, openStore, silentLog, startServer, type TestServer, testConfig } from './helpers.ts';

let store: Store;
let srv: TestServer;
let trader: CreatedClient;

before(async () => {
  store = await openStore();
  srv = await startServer(store);
  trader = await srv.auth.createClient({ name: 'trader' });
});
after(async () => {
  await srv.close();
  await store.close();
});

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

async function issue(c: CreatedClient = trader, scope?: string): Promise<string> {
  const r = await srv.app.inject({
    method: 'POST',
    url: '/nbx/v1/auth/emm-token',
    payload: {
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: c.clientSecret,
      ...(scope ? { scope } : {}),
    },
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().access_token;
}

function claims(over: Record<string, unknown> = {}): Record<string, unknown> {
  const base = srv.config.publicBaseUrl;
  return {
    iss: base,
    sub: trader.clientId,
    aud: [base, 'urn:tickbook:env:production'],
    client_id: trader.clientId,
    scope: 'execute:trader read:trader read:tape',
    iat: now(),
    exp: now() + 600,
    jti: `t-${Math.random()}`,
    ...over,
  };
}

const header = (over: Record<string, unknown> = {}) => ({
  alg: 'RS256',
  typ: 'at+jwt',
  kid: srv.auth.keys.current().kid,
  ...over,
});

function call(token: string | undefined, path = '/test/protected/read-tape', scheme = 'Bearer') {
  return srv.app.inject({
    url: path,
    headers: token === undefined ? {} : { authorization: `${scheme} ${token}` },
  });
}

async function expectInvalid(token: string, why: string) {
  const r = await call(token);
  assert.equal(r.statusCode, 401, `${why}: ${r.body}`);
  const b = r.json();
  assert.equal(b.code, 'INVALID_TOKEN', why);
  assert.equal(b.statusCode, 401);
  assert.match(String(r.headers['www-authenticate']), /^Bearer realm="tickbook", error="invalid_token"/, why);
}

describe('the bearer guard (RFC 6750)', () => {
  test('a valid token passes and sets the principal (client, account, scopes)', async () => {
    const r = await call(await issue());
    assert.equal(r.statusCode, 200, r.body);
    const b = r.json();
    assert.equal(b.clientId, trader.clientId);
    assert.equal(b.accountId, trader.accountId);
    assert.deepEqual(b.scopes.sort(), ['execute:trader', 'read:tape', 'read:trader']);
  });

  test('no Authorization header: 401 UNAUTHORIZED with a bare Bearer challenge', async () => {
    for (const r of [await call(undefined), await call('abc', undefined, 'Basic')]) {
      assert.equal(r.statusCode, 401);
      assert.equal(r.json().code, 'UNAUTHORIZED');
      assert.equal(r.headers['www-authenticate'], 'Bearer realm="tickbook"');
    }
  });

  test('missing scope: 403 INSUFFICIENT_SCOPE naming the scope', async () => {
    const r = await call(await issue(), '/test/protected/admin');
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().code, 'INSUFFICIENT_SCOPE');
    assert.match(String(r.headers['www-authenticate']), /error="insufficient_scope"/);
    assert.match(String(r.headers['www-authenticate']), /scope="admin"/);
  });

  test('a repeat verification is a cache hit', async () => {
    const t = await srv.auth.signRaw(claims(), header());
    assert.equal(srv.auth.verifyCached(t), undefined);
    assert.equal((await call(t)).statusCode, 200);
    const p = srv.auth.verifyCached(t);
    assert.equal(p?.clientId, trader.clientId);
  });
});

describe('JWT attack table: each is 401 invalid_token', () => {
  const attacks: [string, () => Promise<string>][] = [
    ['alg none', async () => `${b64(header({ alg: 'none' }))}.${b64(claims())}.`],
    [
      'HS256 signed with the public key (algorithm confusion)',
      async () => {
        const pem = await exportSPKI(srv.auth.keys.current().publicKey);
        const input = `${b64(header({ alg: 'HS256' }))}.${b64(claims())}`;
        return `${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`;
      },
    ],
    ['expired', () => srv.auth.signRaw(claims({ iat: now() - 7200, exp: now() - 3600 }), header())],
    ['nbf in the future', () => srv.auth.signRaw(claims({ nbf: now() + 3600 }), header())],
    ['wrong iss', () => srv.auth.signRaw(claims({ iss: 'https://evil.example' }), header())],
    [
      'wrong aud',
      () =>
        srv.auth.signRaw(
          claims({ aud: ['https://other-api.example', 'urn:tickbook:env:production'] }),
          header(),
        ),
    ],
    [
      'aud missing the environment',
      () => srv.auth.signRaw(claims({ aud: srv.config.publicBaseUrl }), header()),
    ],
    [
      'token of the other environment (qa)',
      () => srv.auth.signRaw(claims({ aud: [srv.config.publicBaseUrl, 'urn:tickbook:env:qa'] }), header()),
    ],
    ['typ is not at+jwt (RFC 9068 §4)', () => srv.auth.signRaw(claims(), header({ typ: 'JWT' }))],
    [
      'alg not the key’s (RS512 header on the RS256 key)',
      () => srv.auth.signRaw(claims(), header({ alg: 'RS512' })),
    ],
    ['missing jti', () => srv.auth.signRaw(claims({ jti: undefined }), header())],
    ['client_id differs from sub', () => srv.auth.signRaw(claims({ client_id: 'someone-else' }), header())],
    [
      'tampered payload (scope raised to admin)',
      async () => {
        const [h, p, s] = (await issue()).split('.');
        const body = JSON.parse(Buffer.from(p!, 'base64url').toString());
        body.scope = `${body.scope} admin`;
        return `${h}.${b64(body)}.${s}`;
      },
    ],
    ['unknown kid', () => srv.auth.signRaw(claims(), header({ kid: 'no-such-kid' }))],
    ['no kid', () => srv.auth.signRaw(claims(), header({ kid: undefined }))],
    [
      'minted by another server (its own key and kid)',
      async () => {
        const { privateKey, publicKey } = await generateKeyPair('RS256');
        const kid = await calculateJwkThumbprint(await exportJWK(publicKey));
        return new SignJWT(claims())
          .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
          .sign(privateKey);
      },
    ],
    [
      'minted by another key claiming our kid',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT(claims()).setProtectedHeader(header()).sign(privateKey);
      },
    ],
    ['garbage', async () => 'not.a.jwt'],
    ['two segments', async () => 'abc.def'],
  ];
  for (const [name, make] of attacks) {
    test(name, async () => expectInvalid(await make(), name));
  }

  test('revoked token (revocation applies to a cached token at once)', async () => {
    const t = await issue();
    assert.equal((await call(t)).statusCode, 200);
    const client = srv.auth.clients.get(trader.clientId)!;
    assert.equal(await srv.auth.revokeToken(t, client), true);
    await expectInvalid(t, 'revoked');
  });

  test('token of a revoked client', async () => {
    const c = await srv.auth.createClient({ name: 'doomed' });
    const t = await issue(c);
    assert.equal((await call(t)).statusCode, 200);
    await srv.auth.revokeClient(c.clientId);
    await expectInvalid(t, 'revoked client');
  });

  test('token of a disabled client, still invalid once re-enabled (its not-before)', async () => {
    const c = await srv.auth.createClient({ name: 'paused' });
    const t = await issue(c);
    await srv.auth.setClientStatus(c.clientId, 'disabled');
    await expectInvalid(t, 'disabled client');
    await srv.auth.setClientStatus(c.clientId, 'active');
    await expectInvalid(t, 're-enabled client, token issued before');
    assert.equal((await call(await issue(c))).statusCode, 200);
  });

  test('token from a qa server sharing the store and keys is rejected by production', async () => {
    const qa = await AuthService.create({
      config: testConfig({ PUBLIC_BASE_URL: srv.config.publicBaseUrl, TICKBOOK_ENV: 'qa' }),
      store,
      metrics: new Metrics(false),
      log: silentLog,
      accounts: new MemoryAccounts(),
      signingThreads: 0,
      keyRefreshSeconds: 0,
    });
    try {
      await qa.clients.load();
      const qaToken = (await qa.issueToken(qa.clients.get(trader.clientId)!, undefined, 'test')).access_token;
      assert.equal((await qa.verifyAccessToken(qaToken)).clientId, trader.clientId, 'valid in qa');
      await expectInvalid(qaToken, 'qa token in production');
    } finally {
      await qa.close();
    }
  });

  test('rejections are counted in the auth failure metric', async () => {
    const m = await srv.metrics.authFailures.get();
    const reasons = new Set(m.values.map((v) => v.labels.reason));
    for (const r of ['token_alg', 'token_expired', 'token_unknown_kid', 'token_revoked', 'token_signature'])
      assert.ok(reasons.has(r), r);
  });
});

describe('key rotation', () => {
  test('old tokens still verify, new ones carry the new kid, JWKS publishes both; persisted encrypted', async () => {
    const oldKid = srv.auth.keys.current().kid;
    const oldToken = await issue();
    const info = await srv.auth.rotateKeys();
    assert.notEqual(info.kid, oldKid);
    assert.equal(info.current, true);
    const newToken = await issue();
    const kidOf = (t: string) => JSON.parse(Buffer.from(t.split('.')[0]!, 'base64url').toString()).kid;
    assert.equal(kidOf(oldToken), oldKid);
    assert.equal(kidOf(newToken), info.kid);
    assert.equal((await call(oldToken)).statusCode, 200);
    assert.equal((await call(newToken)).statusCode, 200);
    const jwks = (await srv.app.inject({ url: '/.well-known/jwks.json' })).json();
    assert.deepEqual(jwks.keys.map((k: { kid: string }) => k.kid).slice(0, 2), [info.kid, oldKid]);
    const retired = srv.auth.listKeys().find((k) => k.kid === oldKid)!;
    assert.ok(retired.retiredAt !== null && retired.publishUntil !== null);
    assert.ok(Date.parse(retired.publishUntil) >= Date.now() + srv.config.tokenTtlSeconds * 1000 - 5000);

    // A restarted server (new service, same store) verifies both without having seen them.
    const again = await AuthService.create({
      config: srv.config,
      store,
      metrics: new Metrics(false),
      log: silentLog,
      accounts: new MemoryAccounts(),
      signingThreads: 0,
      keyRefreshSeconds: 0,
    });
    try {
      assert.equal(again.keys.current().kid, info.kid);
      assert.equal((await again.verifyAccessToken(oldToken)).clientId, trader.clientId);
      assert.equal((await again.verifyAccessToken(newToken)).clientId, trader.clientId);
    } finally {
      await again.close();
    }
    const rows = await store.query<{ private_key_enc: string }>(
      'SELECT private_key_enc FROM auth_signing_keys',
    );
    for (const r of rows.rows) {
      assert.match(r.private_key_enc, /^v1\./);
      assert.ok(!r.private_key_enc.includes('"d"'));
    }
  });

  test('a wrong KEY_ENCRYPTION_SECRET stops the start with a clear error', async () => {
    await assert.rejects(
      AuthService.create({
        config: testConfig({ KEY_ENCRYPTION_SECRET: 'not-the-right-one' }),
        store,
        metrics: new Metrics(false),
        log: silentLog,
        accounts: new MemoryAccounts(),
        signingThreads: 0,
        keyRefreshSeconds: 0,
      }),
      (err: unknown) => err instanceof KeyDecryptionError && /KEY_ENCRYPTION_SECRET/.test(err.message),
    );
  });

  test('the worker-pool signer issues tokens that verify', async () => {
    const pooled = await AuthService.create({
      config: srv.config,
      store,
      metrics: new Metrics(false),
      log: silentLog,
      accounts: new MemoryAccounts(),
      signingThreads: 2,
      keyRefreshSeconds: 0,
      tokenReuseSeconds: 0,
    });
    // The pool's threads are unref'd, and so is the embedded store's SQL thread when the store runs
    // on one (EMBEDDED_SQL_THREAD=worker): hold the event loop open while the signatures are made.
    const alive = setInterval(() => {}, 1000);
    try {
      const client = pooled.clients.get(trader.clientId)!;
      const tokens = await Promise.all(
        Array.from({ length: 8 }, () => pooled.issueToken(client, 'read:tape', 'test')),
      );
      assert.equal(new Set(tokens.map((t) => t.access_token)).size, 8);
      for (const t of tokens) assert.equal((await call(t.access_token)).statusCode, 200);
    } finally {
      clearInterval(alive);
      await pooled.close();
    }
  });
});

describe('client secret rotation', () => {
  const tokenWith = (id: string, secret: string) =>
    srv.app.inject({
      method: 'POST',
      url: '/nbx/v1/auth/emm-token',
      payload: { grant_type: 'client_credentials', client_id: id, client_secret: secret },
    });

  test('with grace both secrets work until the grace ends; without grace the old one stops at once', async () => {
    const c = await srv.auth.createClient({ name: 'rotating', scopes: ['read:tape'] });
    const r1 = await srv.auth.rotateSecret(c.clientId, 60);
    assert.notEqual(r1.clientSecret, c.clientSecret);
    assert.ok(r1.oldSecretExpiresAt !== null);
    assert.equal((await tokenWith(c.clientId, c.clientSecret)).statusCode, 200, 'old within grace');
    assert.equal((await tokenWith(c.clientId, r1.clientSecret)).statusCode, 200, 'new');
    const rec = srv.auth.clients.get(c.clientId)!;
    assert.equal(
      srv.auth.clients.secretMatches(rec, c.clientSecret, Date.now() + 61_000),
      false,
      'old after grace',
    );
    assert.equal(srv.auth.clients.secretMatches(rec, r1.clientSecret, Date.now() + 61_000), true);

    const r2 = await srv.auth.rotateSecret(c.clientId);
    assert.equal(r2.oldSecretExpiresAt, null);
    assert.equal((await tokenWith(c.clientId, r1.clientSecret)).statusCode, 401);
    assert.equal((await tokenWith(c.clientId, c.clientSecret)).statusCode, 401);
    assert.equal((await tokenWith(c.clientId, r2.clientSecret)).statusCode, 200);
    const row = await store.query<{ secret_hash: string }>(
      'SELECT secret_hash FROM auth_clients WHERE client_id = $1',
      [c.clientId],
    );
    assert.ok(!row.rows[0]!.secret_hash.includes(r2.clientSecret), 'only a hash is stored');
  });
});
