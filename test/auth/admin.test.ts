// The operator bootstrap and the admin API, and the LEGACY_AUTH_PORT app.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AuthService } from '../../src/auth/service.ts';
import { buildLegacyAuthApp } from '../../src/http/routes/oauth.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import type { Store } from '../../src/store/types.ts';
import { MemoryAccounts, openStore, startServer, type TestServer, testConfig } from './helpers.ts';

let store: Store;
let srv: TestServer;
let dataDir: string;

before(async () => {
  store = await openStore();
  dataDir = mkdtempSync(join(tmpdir(), 'tickbook-admin-'));
  srv = await startServer(store, { env: { DATA_DIR: dataDir } });
});
after(async () => {
  await srv.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function capturingLog() {
  const lines: string[] = [];
  const rec = (level: string) => (obj: object, msg?: string) =>
    lines.push(JSON.stringify({ level, ...obj, msg }));
  return { log: { info: rec('info'), warn: rec('warn'), error: rec('error') }, lines };
}

async function tokenFor(id: string, secret: string, scope?: string): Promise<string> {
  const r = await srv.app.inject({
    method: 'POST',
    url: '/nbx/v1/auth/emm-token',
    payload: {
      grant_type: 'client_credentials',
      client_id: id,
      client_secret: secret,
      ...(scope ? { scope } : {}),
    },
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().access_token;
}

let adminToken: string;

describe('operator bootstrap', () => {
  test('first start without TICKBOOK_ADMIN_*: generates an admin client into admin-credentials.json (0600); logs the path, not the secret', async () => {
    const { log, lines } = capturingLog();
    const svc = await AuthService.create({
      config: srv.config,
      store,
      metrics: new Metrics(false),
      log,
      accounts: new MemoryAccounts(),
      signingThreads: 0,
      keyRefreshSeconds: 0,
    });
    try {
      const boot = await svc.ensureAdminClient();
      assert.equal(boot.created, true);
      const file = join(dataDir, 'admin-credentials.json');
      assert.equal(boot.credentialsFile, file);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const creds = JSON.parse(readFileSync(file, 'utf8'));
      assert.equal(creds.clientId, boot.clientId);
      assert.equal(creds.clientSecret.length, 43);
      assert.ok(
        lines.some((l) => l.includes(file)),
        'path logged',
      );
      assert.ok(!lines.some((l) => l.includes(creds.clientSecret)), 'secret never logged');
      assert.ok(
        lines.some((l) => l.includes('KEY_ENCRYPTION_SECRET')) === false,
        'no key warning: a secret is configured',
      );
      // A second start finds the admin client and generates nothing.
      const again = await svc.ensureAdminClient();
      assert.deepEqual(again, { clientId: boot.clientId, created: false });
      // The running server sees it after a reload (same store).
      await srv.auth.clients.load();
      adminToken = await tokenFor(creds.clientId, creds.clientSecret);
      const scopes = JSON.parse(Buffer.from(adminToken.split('.')[1]!, 'base64url').toString()).scope.split(
        ' ',
      );
      assert.deepEqual(scopes.sort(), ['admin', 'execute:trader', 'read:tape', 'read:trader']);
    } finally {
      await svc.close();
    }
  });

  test('TICKBOOK_ADMIN_CLIENT_ID/_SECRET: that client exists with admin scope; a changed secret takes over', async () => {
    const make = (secret: string) =>
      AuthService.create({
        config: testConfig({
          TICKBOOK_ADMIN_CLIENT_ID: 'ops',
          TICKBOOK_ADMIN_CLIENT_SECRET: secret,
          DATA_DIR: dataDir,
        }),
        store,
        metrics: new Metrics(false),
        log: capturingLog().log,
        accounts: new MemoryAccounts(),
        signingThreads: 0,
        keyRefreshSeconds: 0,
      });
    const a = await make('first-operator-secret-0123456789abcdef');
    assert.deepEqual(await a.ensureAdminClient(), { clientId: 'ops', created: true });
    await a.close();
    const b = await make('second-operator-secret-0123456789abcdef');
    assert.deepEqual(await b.ensureAdminClient(), { clientId: 'ops', created: false });
    const rec = b.clients.get('ops')!;
    assert.ok(rec.scopes.includes('admin'));
    assert.equal(b.clients.secretMatches(rec, 'second-operator-secret-0123456789abcdef', Date.now()), true);
    assert.equal(b.clients.secretMatches(rec, 'first-operator-secret-0123456789abcdef', Date.now()), false);
    await b.close();
  });

  test('without KEY_ENCRYPTION_SECRET the start warns loudly (and refuses encrypted keys)', async () => {
    const { log, lines } = capturingLog();
    const result = await AuthService.create({
      config: { ...testConfig(), keyEncryptionSecret: undefined },
      store,
      metrics: new Metrics(false),
      log,
      accounts: new MemoryAccounts(),
      signingThreads: 0,
      keyRefreshSeconds: 0,
    }).catch((e: unknown) => e);
    // This store's keys are encrypted, so the start fails rather than run without them…
    assert.ok(result instanceof Error && /KEY_ENCRYPTION_SECRET/.test(result.message));
    // …and the warning came first.
    assert.ok(
      lines.some((l) => l.includes('"level":"warn"') && l.includes('KEY_ENCRYPTION_SECRET is not set')),
    );
  });
});

describe('admin API', () => {
  const call = (
    method: 'GET' | 'POST' | 'DELETE' | 'PATCH',
    url: string,
    payload?: unknown,
    token = adminToken,
  ) =>
    srv.app.inject({
      method,
      url,
      payload: payload as never,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  test('POST /admin/v1/clients: 201 with the secret once, default trader scopes, a new account', async () => {
    const r = await call('POST', '/admin/v1/clients', { name: 'desk one' });
    assert.equal(r.statusCode, 201, r.body);
    const b = r.json();
    assert.deepEqual(Object.keys(b).sort(), ['accountId', 'clientId', 'clientSecret', 'scopes']);
    assert.deepEqual(b.scopes, ['execute:trader', 'read:trader', 'read:tape']);
    assert.ok(srv.accounts.exists(b.accountId));
    const t = await tokenFor(b.clientId, b.clientSecret);
    const me = await srv.app.inject({
      url: '/test/protected/read-trader',
      headers: { authorization: `Bearer ${t}` },
    });
    assert.equal(me.json().accountId, b.accountId);
  });

  test('an existing accountId is reused; an unknown one is 404 ACCOUNT_NOT_FOUND', async () => {
    const acct = await srv.accounts.create();
    const r = await call('POST', '/admin/v1/clients', {
      name: 'second key',
      accountId: acct,
      scopes: ['read:trader'],
    });
    assert.equal(r.statusCode, 201);
    assert.equal(r.json().accountId, acct);
    const bad = await call('POST', '/admin/v1/clients', { name: 'x', accountId: 'nope' });
    assert.equal(bad.statusCode, 404);
    assert.equal(bad.json().code, 'ACCOUNT_NOT_FOUND');
  });

  test('validation: unknown scope, empty name, extra fields are 400 VALIDATION_FAILED', async () => {
    for (const body of [
      { name: 'x', scopes: ['root'] },
      { name: '' },
      { name: 'x', extra: 1 },
      { scopes: ['read:tape'] },
      {},
    ]) {
      const r = await call('POST', '/admin/v1/clients', body);
      assert.equal(r.statusCode, 400, JSON.stringify(body));
      assert.equal(r.json().code, 'VALIDATION_FAILED');
    }
  });

  // A client id that is not a valid URL component (a broken percent-escape) is refused by the
  // router before the handler: the 400 both routes declare, in the one error envelope. (An id past
  // maxParamLength is refused earlier still, 414, by the router.)
  test('GET and DELETE of a malformed client id are 400 in the error envelope', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const r = await call(method, '/admin/v1/clients/%E0%A4%A');
      assert.equal(r.statusCode, 400, method);
      const body = r.json();
      assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'statusCode'], method);
      assert.equal(body.statusCode, 400);
      assert.equal(body.code, 'FST_ERR_BAD_URL');
    }
  });

  test('GET lists clients without secrets or hashes', async () => {
    const r = await call('GET', '/admin/v1/clients');
    assert.equal(r.statusCode, 200);
    const { clients } = r.json();
    assert.ok(clients.length >= 3);
    assert.ok(!r.body.includes('hs256$'));
    assert.ok(!r.body.toLowerCase().includes('secret"'));
    for (const c of clients) assert.ok(['active', 'disabled', 'revoked'].includes(c.status));
  });

  test('DELETE a client with a JSON content type and an empty body (what httpx sessions send)', async () => {
    const c = (await call('POST', '/admin/v1/clients', { name: 'bodyless', scopes: ['read:tape'] })).json();
    const del = await srv.app.inject({
      method: 'DELETE',
      url: `/admin/v1/clients/${c.clientId}`,
      headers: {
        authorization: `Bearer ${adminToken}`,
        'content-type': 'application/json',
        'content-length': '0',
      },
      payload: '',
    });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(del.json().status, 'revoked');
  });

  test('rotate-secret with grace, then DELETE revokes the client and its tokens', async () => {
    const c = (await call('POST', '/admin/v1/clients', { name: 'rotor', scopes: ['read:tape'] })).json();
    const t = await tokenFor(c.clientId, c.clientSecret);
    const rot = await call('POST', `/admin/v1/clients/${encodeURIComponent(c.clientId)}/rotate-secret`, {
      graceSeconds: 300,
    });
    assert.equal(rot.statusCode, 200, rot.body);
    const { clientSecret, oldSecretExpiresAt } = rot.json();
    assert.notEqual(clientSecret, c.clientSecret);
    assert.ok(Date.parse(oldSecretExpiresAt) > Date.now() + 290_000);
    await tokenFor(c.clientId, c.clientSecret); // old still works within grace
    await tokenFor(c.clientId, clientSecret);
    const view = (await call('GET', `/admin/v1/clients/${c.clientId}`)).json();
    assert.equal(view.oldSecretExpiresAt, oldSecretExpiresAt);

    const noGrace = await srv.app.inject({
      method: 'POST',
      url: `/admin/v1/clients/${c.clientId}/rotate-secret`,
      headers: { authorization: `Bearer ${adminToken}` },
    });
    assert.equal(noGrace.statusCode, 200, noGrace.body);
    assert.equal(noGrace.json().oldSecretExpiresAt, null);

    const del = await call('DELETE', `/admin/v1/clients/${c.clientId}`);
    assert.equal(del.statusCode, 200);
    assert.equal(del.json().status, 'revoked');
    const use = await srv.app.inject({
      url: '/test/protected/read-tape',
      headers: { authorization: `Bearer ${t}` },
    });
    assert.equal(use.statusCode, 401);
    const again = await srv.app.inject({
      method: 'POST',
      url: '/nbx/v1/auth/emm-token',
      payload: {
        grant_type: 'client_credentials',
        client_id: c.clientId,
        client_secret: noGrace.json().clientSecret,
      },
    });
    assert.equal(again.statusCode, 401);
  });

  test('PATCH disables and re-enables', async () => {
    const c = (await call('POST', '/admin/v1/clients', { name: 'pausable', scopes: ['read:tape'] })).json();
    const r = await call('PATCH', `/admin/v1/clients/${c.clientId}`, { status: 'disabled' });
    assert.equal(r.json().status, 'disabled');
    const denied = await srv.app.inject({
      method: 'POST',
      url: '/nbx/v1/auth/emm-token',
      payload: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret },
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(
      (await call('PATCH', `/admin/v1/clients/${c.clientId}`, { status: 'active' })).json().status,
      'active',
    );
    assert.equal(
      (await call('PATCH', `/admin/v1/clients/${c.clientId}`, { status: 'revoked' })).statusCode,
      400,
    );
  });

  test('unknown client ids are 404 CLIENT_NOT_FOUND', async () => {
    for (const [m, u] of [
      ['GET', '/admin/v1/clients/ghost'],
      ['DELETE', '/admin/v1/clients/ghost'],
      ['POST', '/admin/v1/clients/ghost/rotate-secret'],
    ] as const) {
      const r = await call(m, u, m === 'POST' ? {} : undefined);
      assert.equal(r.statusCode, 404, `${m} ${u}`);
      assert.equal(r.json().code, 'CLIENT_NOT_FOUND');
    }
  });

  test('scope admin is required: trader token 403, no token 401', async () => {
    const c = (await call('POST', '/admin/v1/clients', { name: 'nosy' })).json();
    const t = await tokenFor(c.clientId, c.clientSecret);
    const r = await call('GET', '/admin/v1/clients', undefined, t);
    assert.equal(r.statusCode, 403);
    assert.equal(r.json().code, 'INSUFFICIENT_SCOPE');
    const none = await call('GET', '/admin/v1/clients', undefined, '');
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().code, 'UNAUTHORIZED');
  });
});

describe('legacy auth host (LEGACY_AUTH_PORT)', () => {
  test('serves only POST /oauth/token with the same AuthService', async () => {
    const app = await buildLegacyAuthApp({ config: srv.config, auth: srv.auth });
    try {
      const c = await srv.auth.createClient({ name: 'old client', scopes: ['read:tape'] });
      const r = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: {
          grant_type: 'client_credentials',
          client_id: c.clientId,
          client_secret: c.clientSecret,
          audience: srv.config.publicBaseUrl,
        },
      });
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.headers.deprecation, 'true');
      const use = await srv.app.inject({
        url: '/test/protected/read-tape',
        headers: { authorization: `Bearer ${r.json().access_token}` },
      });
      assert.equal(use.statusCode, 200);
      for (const url of ['/nbx/v1/auth/emm-token', '/admin/v1/clients', '/.well-known/jwks.json']) {
        const n = await app.inject({ method: url.startsWith('/nbx') ? 'POST' : 'GET', url });
        assert.equal(n.statusCode, 404, url);
      }
      const bad = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/json' },
        payload: '{',
      });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().error, 'invalid_request');
    } finally {
      await app.close();
    }
  });
});
