// Token hygiene (docs/auth.md "Verification"): a token issued in the future beyond the clock skew
// is rejected; rotating a client's secret, or disabling it, sets the client's not-before, so tokens
// issued before stop verifying at once — also from the verified-token cache, also after a re-enable,
// also in a process started later on the same store.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AuthService, type CreatedClient } from '../../src/auth/service.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import type { Store } from '../../src/store/types.ts';
import { MemoryAccounts, openStore, silentLog, startServer, type TestServer } from './helpers.ts';

let store: Store;
let srv: TestServer;
before(async () => {
  store = await openStore();
  srv = await startServer(store);
});
after(async () => {
  await srv.close();
  await store.close();
});

const nowSec = () => Math.floor(Date.now() / 1000);

async function issue(c: { clientId: string; clientSecret: string }): Promise<string> {
  const r = await srv.app.inject({
    method: 'POST',
    url: '/nbx/v1/auth/emm-token',
    payload: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret },
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().access_token;
}

const call = (token: string) =>
  srv.app.inject({ url: '/test/protected/read-tape', headers: { authorization: `Bearer ${token}` } });

async function expectOk(token: string, why: string): Promise<void> {
  const r = await call(token);
  assert.equal(r.statusCode, 200, `${why}: ${r.body}`);
}

async function expectInvalid(token: string, why: string): Promise<void> {
  const r = await call(token);
  assert.equal(r.statusCode, 401, `${why}: ${r.body}`);
  assert.equal(r.json().code, 'INVALID_TOKEN', why);
  assert.match(String(r.headers['www-authenticate']), /error="invalid_token"/, why);
}

function claims(c: CreatedClient, over: Record<string, unknown> = {}): Record<string, unknown> {
  const base = srv.config.publicBaseUrl;
  return {
    iss: base,
    sub: c.clientId,
    aud: [base, 'urn:tickbook:env:production'],
    client_id: c.clientId,
    scope: 'read:tape',
    iat: nowSec(),
    exp: nowSec() + 600,
    jti: `h-${Math.random()}`,
    ...over,
  };
}

const header = () => ({ alg: 'RS256', typ: 'at+jwt', kid: srv.auth.keys.current().kid });

let n = 0;
const client = () => srv.auth.createClient({ name: `hygiene-${n++}`, scopes: ['read:tape'] });

describe('iat in the future', () => {
  test('beyond the 5 s skew → 401 invalid_token; within it → accepted', async () => {
    const c = await client();
    // +15 s, not +6: the machine may take seconds between signing and verifying under load.
    for (const ahead of [15, 60, 3600, 10 * 365 * 86400]) {
      const t = await srv.auth.signRaw(
        claims(c, { iat: nowSec() + ahead, exp: nowSec() + ahead + 600 }),
        header(),
      );
      await expectInvalid(t, `iat +${ahead} s`);
    }
    await expectOk(await srv.auth.signRaw(claims(c, { iat: nowSec() + 3 }), header()), 'iat +3 s');
    await expectOk(await srv.auth.signRaw(claims(c, { iat: nowSec() - 100 }), header()), 'iat in the past');
  });

  test('a non-numeric iat is rejected', async () => {
    const c = await client();
    await expectInvalid(await srv.auth.signRaw(claims(c, { iat: 'soon' }), header()), 'iat string');
  });
});

describe("a client's not-before", () => {
  test('rotating the secret ends the tokens issued before, at once (cached ones too)', async () => {
    const c = await client();
    const old = await issue(c);
    await expectOk(old, 'before rotation');
    await expectOk(old, 'cached');
    const rotated = await srv.auth.rotateSecret(c.clientId);
    await expectInvalid(old, 'cached token after rotation');
    // A token issued right after (same second) works, and is not the old one handed back.
    const fresh = await issue({ clientId: c.clientId, clientSecret: rotated.clientSecret });
    assert.notEqual(fresh, old);
    await expectOk(fresh, 'issued after rotation');
    const intro = await srv.auth.introspect(old, srv.auth.clients.get(c.clientId)!);
    assert.equal(intro.active, false);
  });

  test('a rotation with grace: old tokens end, the old secret still gets working tokens', async () => {
    const c = await client();
    const old = await issue(c);
    await expectOk(old, 'before');
    await srv.auth.rotateSecret(c.clientId, 60);
    await expectInvalid(old, 'after rotation with grace');
    const viaOldSecret = await issue(c);
    assert.notEqual(viaOldSecret, old);
    await expectOk(viaOldSecret, 'old secret within grace');
  });

  test('disabling and re-enabling does not revive tokens issued before', async () => {
    const c = await client();
    const old = await issue(c);
    await expectOk(old, 'before');
    await srv.auth.setClientStatus(c.clientId, 'disabled');
    await expectInvalid(old, 'disabled');
    await srv.auth.setClientStatus(c.clientId, 'active');
    await expectInvalid(old, 're-enabled: the old token stays dead');
    const fresh = await issue(c);
    await expectOk(fresh, 'a new token after re-enabling');
  });

  test('the not-before is stored: a process started later rejects the old token on first sight', async () => {
    const c = await client();
    const old = await issue(c);
    await expectOk(old, 'before');
    await srv.auth.rotateSecret(c.clientId);
    const later = await AuthService.create({
      config: srv.config,
      store,
      metrics: new Metrics(false),
      log: silentLog,
      accounts: new MemoryAccounts(),
      signingThreads: 0,
      keyRefreshSeconds: 0,
    });
    try {
      await assert.rejects(later.verifyAccessToken(old), /issued before/);
      const row = await store.query<{ tokens_not_before: string | number }>(
        'SELECT tokens_not_before FROM auth_clients WHERE client_id = $1',
        [c.clientId],
      );
      assert.ok(Number(row.rows[0]?.tokens_not_before) > 0);
    } finally {
      await later.close();
    }
  });

  test('the admin API rotation has the same effect', async () => {
    const admin = await srv.auth.createClient({ name: 'ops', scopes: ['admin'] });
    const adminToken = await issue(admin);
    const c = await client();
    const old = await issue(c);
    await expectOk(old, 'before');
    const r = await srv.app.inject({
      method: 'POST',
      url: `/admin/v1/clients/${c.clientId}/rotate-secret`,
      headers: { authorization: `Bearer ${adminToken}` },
      payload: {},
    });
    assert.equal(r.statusCode, 200, r.body);
    await expectInvalid(old, 'after admin rotation');
  });

  test('rejections are counted under token_superseded', async () => {
    const m = await srv.metrics.authFailures.get();
    const v = m.values.find((x) => x.labels.reason === 'token_superseded')?.value ?? 0;
    assert.ok(v >= 4, String(v));
  });
});
