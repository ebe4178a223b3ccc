// The `tickbook` CLI: client commands against a listening server's admin API,
// key commands on the store, --json output, --help and usage errors; plus the bin shim itself.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { main } from '../../src/cli/main.ts';
import type { RunningServer } from '../../src/main.ts';
import type { Store } from '../../src/store/types.ts';
import { openStore, startServer, type TestServer } from '../auth/helpers.ts';
import { httpCall } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace, start } from '../helpers/server.ts';

const run = promisify(execFile);
const ADMIN = {
  TICKBOOK_ADMIN_CLIENT_ID: 'cli-operator',
  TICKBOOK_ADMIN_CLIENT_SECRET: 'cli-operator-secret-0123456789abcdefghij',
};

let store: Store;
let srv: TestServer;
let dataDir: string;

before(async () => {
  store = await openStore();
  dataDir = mkdtempSync(join(tmpdir(), 'tickbook-cli-'));
  srv = await startServer(store, { listen: true, env: { ...ADMIN, DATA_DIR: dataDir } });
  await srv.auth.ensureAdminClient();
});
after(async () => {
  await srv.close();
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string> = ADMIN) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: {
      LOG_LEVEL: 'silent',
      KEY_ENCRYPTION_SECRET: 'test-key-encryption-secret',
      DATA_DIR: dataDir,
      ...env,
    },
    store,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function token(id: string, secret: string) {
  return fetch(`${srv.url}/nbx/v1/auth/emm-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: id, client_secret: secret }),
  });
}

describe('clients commands (admin API over HTTP)', () => {
  test('create --json, then the new credentials get a token', async () => {
    const r = await cli([
      'clients',
      'create',
      '--name',
      'desk',
      '--scopes',
      'read:tape,read:trader',
      '--json',
      '--url',
      srv.url,
    ]);
    assert.equal(r.code, 0, r.err);
    const c = JSON.parse(r.out);
    assert.deepEqual(c.scopes, ['read:tape', 'read:trader']);
    assert.ok(srv.accounts.exists(c.accountId));
    assert.equal((await token(c.clientId, c.clientSecret)).status, 200);
  });

  test('create (human output) shows the secret once; list shows the client', async () => {
    const r = await cli(['clients', 'create', '--name', 'human', '--url', srv.url]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /client_secret: [A-Za-z0-9_-]{43}/);
    const id = /client_id: +(\S+)/.exec(r.out)![1]!;
    const list = await cli(['clients', 'list', '--url', srv.url]);
    assert.equal(list.code, 0);
    assert.match(list.out, /^clientId +name +status/);
    assert.ok(list.out.includes(id));
    const j = JSON.parse((await cli(['clients', 'list', '--json', '--url', srv.url])).out);
    assert.ok(j.some((c: { clientId: string; name: string }) => c.clientId === id && c.name === 'human'));
  });

  test('rotate --grace, disable, enable, revoke', async () => {
    const c = JSON.parse(
      (await cli(['clients', 'create', '--name', 'cycle', '--json', '--url', srv.url])).out,
    );
    const rot = JSON.parse(
      (await cli(['clients', 'rotate', c.clientId, '--grace', '120', '--json', '--url', srv.url])).out,
    );
    assert.ok(rot.oldSecretExpiresAt);
    assert.equal((await token(c.clientId, c.clientSecret)).status, 200);
    assert.equal((await token(c.clientId, rot.clientSecret)).status, 200);
    assert.equal(
      (await cli(['clients', 'disable', c.clientId, '--url', srv.url])).out,
      `${c.clientId}: disabled`,
    );
    assert.equal((await token(c.clientId, rot.clientSecret)).status, 403);
    assert.equal((await cli(['clients', 'enable', c.clientId, '--url', srv.url])).code, 0);
    const rev = await cli(['clients', 'revoke', c.clientId, '--json', '--url', srv.url]);
    assert.equal(JSON.parse(rev.out).status, 'revoked');
    assert.equal((await token(c.clientId, rot.clientSecret)).status, 401);
  });

  test('credentials from $DATA_DIR/admin-credentials.json when the environment has none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tickbook-cli-creds-'));
    try {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        join(dir, 'admin-credentials.json'),
        JSON.stringify({
          clientId: ADMIN.TICKBOOK_ADMIN_CLIENT_ID,
          clientSecret: ADMIN.TICKBOOK_ADMIN_CLIENT_SECRET,
        }),
      );
      const r = await cli(['clients', 'list', '--json', '--url', srv.url], { DATA_DIR: dir });
      assert.equal(r.code, 0, r.err);
      assert.ok(Array.isArray(JSON.parse(r.out)));
      const none = await cli(['clients', 'list', '--url', srv.url], { DATA_DIR: join(dir, 'empty') });
      assert.equal(none.code, 1);
      assert.match(none.err, /no operator credentials/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('errors: unknown client 404, wrong operator secret, unreachable server, usage', async () => {
    const ghost = await cli(['clients', 'revoke', 'ghost', '--url', srv.url]);
    assert.equal(ghost.code, 1);
    assert.match(ghost.err, /404 CLIENT_NOT_FOUND/);
    const wrong = await cli(['clients', 'list', '--url', srv.url], {
      ...ADMIN,
      TICKBOOK_ADMIN_CLIENT_SECRET: 'nope-nope-nope',
    });
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /operator authentication failed \(401 invalid_client/);
    const down = await cli(['clients', 'list', '--url', 'http://127.0.0.1:9']);
    assert.equal(down.code, 1);
    assert.match(down.err, /cannot reach the server/);
    const noName = await cli(['clients', 'create', '--url', srv.url]);
    assert.equal(noName.code, 2);
    const badFlag = await cli(['clients', 'list', '--bogus']);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.err, /usage: tickbook clients list/);
    const unknown = await cli(['frobnicate']);
    assert.equal(unknown.code, 2);
  });
});

describe('keys and migrate commands (store)', () => {
  test('keys list, keys rotate: the server picks the new key up, old tokens keep working', async () => {
    const before = JSON.parse((await cli(['keys', 'list', '--json'])).out);
    assert.equal(before.filter((k: { current: boolean }) => k.current).length, 1);
    const admin = (await (
      await token(ADMIN.TICKBOOK_ADMIN_CLIENT_ID, ADMIN.TICKBOOK_ADMIN_CLIENT_SECRET)
    ).json()) as { access_token: string };
    const r = await cli(['keys', 'rotate', '--json']);
    assert.equal(r.code, 0, r.err);
    const rotated = JSON.parse(r.out);
    assert.notEqual(rotated.kid, before.find((k: { current: boolean }) => k.current).kid);
    assert.equal(rotated.current, true);
    // What the periodic key refresh does in a running server:
    assert.equal(await srv.auth.keys.reload(), true);
    const fresh = (await (
      await token(ADMIN.TICKBOOK_ADMIN_CLIENT_ID, ADMIN.TICKBOOK_ADMIN_CLIENT_SECRET)
    ).json()) as { access_token: string };
    const kid = JSON.parse(Buffer.from(fresh.access_token.split('.')[0]!, 'base64url').toString()).kid;
    assert.equal(kid, rotated.kid);
    for (const t of [admin.access_token, fresh.access_token]) {
      const ok = await fetch(`${srv.url}/admin/v1/clients`, { headers: { authorization: `Bearer ${t}` } });
      assert.equal(ok.status, 200);
    }
    const human = await cli(['keys', 'list']);
    assert.match(human.out, /^kid +alg +current/);
    assert.ok(human.out.includes(rotated.kid));
  });

  test("issuer shows the store's token issuer; issuer set replaces it", async () => {
    const none = await cli(['issuer', '--json']);
    assert.equal(none.code, 0, none.err);
    assert.equal(JSON.parse(none.out).issuer, null);
    const set = await cli(['issuer', 'set', 'https://exchange.example/']);
    assert.equal(set.code, 0, set.err);
    assert.match(set.out, /token issuer is now https:\/\/exchange\.example; restart every process/);
    assert.equal((await cli(['issuer'])).out, 'https://exchange.example');
    const bad = await cli(['issuer', 'set', 'ftp://x']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /expected an http or https URL/);
  });

  test('migrate is a no-op on a migrated store', async () => {
    const r = await cli(['migrate', '--json']);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(j.applied, []);
    assert.ok(j.total.includes('002_auth'));
  });
});

describe('bin/tickbook.js', () => {
  test('--help through the shim', async () => {
    const { stdout } = await run(process.execPath, ['bin/tickbook.js', '--help']);
    assert.match(stdout, /usage: tickbook <command>/);
    assert.match(stdout, /clients create/);
    assert.match(stdout, /keys rotate/);
  });

  test('clients list --json against the listening server, and exit codes', async () => {
    const env = { ...process.env, ...ADMIN, LOG_LEVEL: 'silent' };
    const { stdout } = await run(
      process.execPath,
      ['bin/tickbook.js', 'clients', 'list', '--json', '--url', srv.url],
      { env },
    );
    const clients = JSON.parse(stdout);
    assert.ok(clients.some((c: { clientId: string }) => c.clientId === ADMIN.TICKBOOK_ADMIN_CLIENT_ID));
    await assert.rejects(
      run(process.execPath, ['bin/tickbook.js', 'nope'], { env }),
      (e: { code?: number }) => e.code === 2,
    );
  });
});

describe('exchange commands: a short line or a table by default, the whole object with --json', () => {
  // A full server (the exchange's admin routes) on the embedded store, on a port of its own.
  let place: ServerPlace;
  let full: RunningServer;
  let eventId: string;
  let marketId: string;
  let outcomeId: string;
  let accountId: string;
  const OP = { TICKBOOK_ADMIN_CLIENT_ID: ADMIN_ID, TICKBOOK_ADMIN_CLIENT_SECRET: ADMIN_SECRET };
  const on = (args: string[], env: Record<string, string> = OP) => cli([...args, '--url', full.url], env);

  before(async () => {
    place = await serverPlace('pglite');
    full = await start(place);
    const admin = (
      await httpCall(full.url, 'POST', '/nbx/v1/auth/emm-token', null, {
        grant_type: 'client_credentials',
        client_id: ADMIN_ID,
        client_secret: ADMIN_SECRET,
      })
    ).body.access_token as string;
    const ok = async (path: string, body: unknown) => {
      const r = await httpCall(full.url, 'POST', path, admin, body);
      assert.equal(r.status, 201, `${path}: ${JSON.stringify(r.body)}`);
      return r.body;
    };
    await ok('/admin/v1/leagues', { code: 'NBA', name: 'National Basketball Association' });
    const home = await ok('/admin/v1/teams', { league: 'NBA', name: 'Boston Celtics', symbol: 'BOS' });
    const away = await ok('/admin/v1/teams', { league: 'NBA', name: 'New York Knicks', symbol: 'NYK' });
    const ev = await ok('/admin/v1/events', {
      type: 'Game',
      status: 'OPEN_PREGAME',
      description: 'New York Knicks @ Boston Celtics',
      league: 'NBA',
      scheduledStart: '2031-01-01T00:00:00.000Z',
      game: { homeTeamId: home.id, awayTeamId: away.id },
      markets: [
        {
          type: 'MONEY',
          description: 'Moneyline',
          outcomes: [{ description: 'BOS' }, { description: 'NYK' }],
        },
      ],
    });
    eventId = ev.event.id;
    marketId = ev.markets[0].id;
    outcomeId = ev.markets[0].outcomeIds[0];
    accountId = (await ok('/admin/v1/clients', { name: 'cli-trader' })).accountId;
  });
  after(async () => {
    await full?.close();
    await place?.destroy();
  });

  test('accounts deposit and withdraw: one line, or the wallet with --json', async () => {
    const dep = await on(['accounts', 'deposit', accountId, 'CASH', '1000']);
    assert.equal(dep.code, 0, dep.err);
    assert.equal(dep.out, `deposited 1000 CASH: ${accountId} balance 1000, reserved 0`);
    const json = await on(['accounts', 'withdraw', accountId, 'CASH', '250', '--json']);
    assert.equal(json.code, 0, json.err);
    assert.deepEqual(JSON.parse(json.out), { accountId, currency: 'CASH', balance: 750, reserved: 0 });
  });

  test('boosts create prints the boost id; boosts list one line each; boosts end', async () => {
    const args = ['--kind', 'PERCENT', '--value', '0.1', '--funding', accountId, '--minutes', '60'];
    const created = await on(['boosts', 'create', ...args, '--leagues', 'NBA', '--claim-limit', '3']);
    assert.equal(created.code, 0, created.err);
    const boostId = created.out;
    assert.match(boostId, /^[0-9a-f-]{36}$/, 'the boost id alone, for BOOST=$(tickbook boosts create …)');
    const list = await on(['boosts', 'list']);
    assert.equal(list.code, 0, list.err);
    assert.ok(list.out.includes(`${boostId}  PERCENT 0.1  active`), list.out);
    const json = JSON.parse((await on(['boosts', 'list', '--json'])).out);
    const b = json.find((x: { id: string }) => x.id === boostId);
    assert.deepEqual([b.leagues, b.claimLimit, b.fundingAccountId], [['NBA'], 3, accountId]);
    assert.equal((await on(['boosts', 'end', boostId])).out, `ended boost ${boostId}`);
    const again = await on(['boosts', 'end', boostId]);
    assert.notEqual(again.code, 0);
    assert.match(again.err, /409 BOOST_EXPIRED/);
    const missing = await on([
      'boosts',
      'create',
      '--kind',
      'PERCENT',
      '--value',
      '0.1',
      '--funding',
      accountId,
    ]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.err, /--valid-to ISO or --minutes N/);
  });

  test('locks set prints the lock id; locks list is a table; locks clear one line', async () => {
    const set = await on(['locks', 'set', '--reason', 'maintenance', '--event', eventId, '--minutes', '10']);
    assert.equal(set.code, 0, set.err);
    const lockId = set.out;
    assert.match(lockId, /^[0-9a-f-]{36}$/, 'the lock id alone, for LOCK=$(tickbook locks set …)');
    const list = await on(['locks', 'list']);
    assert.equal(list.code, 0, list.err);
    const [head, row] = list.out.split('\n');
    assert.match(head ?? '', /^id +eventId +reason +createdAt +expiresAt$/);
    assert.ok(row?.startsWith(lockId) && row.includes(eventId) && row.includes('maintenance'), list.out);
    const json = JSON.parse((await on(['locks', 'list', '--json'])).out);
    assert.equal(json[0].id, lockId);
    assert.equal(json[0].minuteDuration, 10);
    const clear = await on(['locks', 'clear', lockId]);
    assert.equal(clear.out, `cleared lock ${lockId}`);
    assert.equal((await on(['locks', 'list'])).out, 'no active trading locks');
    const clearJson = await on(['locks', 'set', '--reason', 'system', '--json']);
    const sys = JSON.parse(clearJson.out);
    assert.equal(sys.eventId, null);
    assert.deepEqual(JSON.parse((await on(['locks', 'clear', sys.id, '--json'])).out), {
      ok: true,
      method: 'DELETE',
      path: `/admin/v1/locks/${sys.id}`,
    });
  });

  test('events status, markets status and settle: one line each, the object with --json', async () => {
    const ev = await on(['events', 'status', eventId, 'OPEN_INGAME']);
    assert.equal(ev.code, 0, ev.err);
    assert.equal(ev.out, `${eventId}: OPEN_INGAME (New York Knicks @ Boston Celtics)`);
    const closed = await on(['markets', 'status', marketId, 'CLOSED', '--json']);
    assert.equal(JSON.parse(closed.out).status, 'CLOSED');
    const settled = await on(['markets', 'settle', marketId, outcomeId]);
    assert.equal(settled.code, 0, settled.err);
    assert.match(settled.out, new RegExp(`^${marketId}: \\w+, won by ${outcomeId}$`));
  });

  test('the server is found from --url, then PORT/HOST, then the credentials file; never a guess', async () => {
    const port = new URL(full.url).port;
    const byPort = await cli(['locks', 'list', '--json'], { ...OP, PORT: port });
    assert.equal(byPort.code, 0, byPort.err);
    const dir = mkdtempSync(join(tmpdir(), 'tickbook-cli-url-'));
    try {
      // What a started server leaves in its generated credentials file: the address it listens on.
      writeFileSync(
        join(dir, 'admin-credentials.json'),
        JSON.stringify({ clientId: ADMIN_ID, clientSecret: ADMIN_SECRET, url: full.url }),
      );
      const byFile = await cli(['locks', 'list', '--json'], { DATA_DIR: dir });
      assert.equal(byFile.code, 0, byFile.err);
      assert.ok(Array.isArray(JSON.parse(byFile.out)));
      // No --url, no PORT/HOST, no recorded address: a usage error naming what to set.
      const none = await cli(['locks', 'list'], { ...OP, DATA_DIR: join(dir, 'empty') });
      assert.equal(none.code, 2);
      assert.match(none.err, /no server address: pass --url, or set PORT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a started server records its address in the generated credentials file', async () => {
    const own = await serverPlace('pglite', {
      TICKBOOK_ADMIN_CLIENT_ID: '',
      TICKBOOK_ADMIN_CLIENT_SECRET: '',
    });
    const srv2 = await start(own);
    try {
      const r = await cli(['clients', 'list'], { DATA_DIR: own.env.DATA_DIR! });
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /^clientId +name +status/);
    } finally {
      await srv2.close();
      await own.destroy();
    }
  });
});
