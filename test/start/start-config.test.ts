// Start-up as a newcomer meets it (docs/operations.md): a bad HOST, PORT or DATABASE_URL names
// the variable and exits with a documented code and no stack; each store has its own operator
// credentials file; the banner says when the demo is off; --version and the clients group help.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { main } from '../../src/cli/main.ts';
import { adminCredentialsFile, type Config, ConfigError, loadConfig } from '../../src/config.ts';
import { PARLAY_SETTLE_CHUNK } from '../../src/runtime/scheduler.ts';
import { type BannerInput, bannerLines, demoText, writeBanner } from '../../src/start/banner.ts';
import { usePrettyLogs } from '../../src/start/log-output.ts';
import { databaseStartError, EXIT, listenStartError } from '../../src/start/start-error.ts';

const run = promisify(execFile);

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err;
  }
  assert.fail(`no ConfigError for ${JSON.stringify(env)}`);
}

describe('configuration of the start', () => {
  test('HOST: addresses and names pass, anything else names HOST', () => {
    for (const [raw, host] of [
      ['127.0.0.1', '127.0.0.1'],
      ['0.0.0.0', '0.0.0.0'],
      ['::', '::'],
      ['[::1]', '::1'],
      ['localhost', 'localhost'],
      ['api.example.com', 'api.example.com'],
    ]) {
      assert.equal(loadConfig({ HOST: raw }).host, host);
    }
    for (const bad of ['bad host!', 'http://127.0.0.1', '127.0.0.1:8080', '-x.example']) {
      assert.equal(configError({ HOST: bad }).variable, 'HOST');
    }
  });

  test('DATABASE_URL: not a postgres URL or no host names DATABASE_URL', () => {
    for (const bad of ['localhost:5432', 'mysql://u@h/db', 'postgres:///db', 'not a url']) {
      const e = configError({ DATABASE_URL: bad });
      assert.equal(e.variable, 'DATABASE_URL');
      assert.match(e.message, /DATABASE_URL/);
    }
    assert.ok(loadConfig({ DATABASE_URL: 'postgres:///db?host=/var/run/postgresql' }).databaseUrl);
    // With DATABASE_URL the demo is off unless asked for.
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).demo, false);
    assert.equal(configError({ LOG_FORMAT: 'xml' }).variable, 'LOG_FORMAT');
  });

  test('EMBEDDED_SQL_THREAD: worker by default, main on request, anything else names it', () => {
    assert.equal(loadConfig({}).embeddedSqlThread, 'worker');
    assert.equal(loadConfig({ EMBEDDED_SQL_THREAD: 'main' }).embeddedSqlThread, 'main');
    assert.equal(loadConfig({ EMBEDDED_SQL_THREAD: 'worker' }).embeddedSqlThread, 'worker');
    for (const bad of ['thread', 'Main', 'true']) {
      const e = configError({ EMBEDDED_SQL_THREAD: bad });
      assert.equal(e.variable, 'EMBEDDED_SQL_THREAD');
      assert.match(e.message, /expected one of main, worker/);
    }
  });

  test('TRADE_MAX_IN_FLIGHT and TRADE_HIGH_WATER_BYTES: defaults, good values, bad ones name the variable', () => {
    const d = loadConfig({});
    assert.equal(d.tradeMaxInFlight, 256);
    assert.equal(d.tradeHighWaterBytes, 1_048_576);
    assert.equal(loadConfig({ TRADE_MAX_IN_FLIGHT: '4096' }).tradeMaxInFlight, 4096);
    assert.equal(loadConfig({ TRADE_HIGH_WATER_BYTES: '65536' }).tradeHighWaterBytes, 65_536);
    for (const bad of ['0', '-1', 'many', '100000'])
      assert.equal(configError({ TRADE_MAX_IN_FLIGHT: bad }).variable, 'TRADE_MAX_IN_FLIGHT');
    for (const bad of ['1024', 'big', '1e12'])
      assert.equal(configError({ TRADE_HIGH_WATER_BYTES: bad }).variable, 'TRADE_HIGH_WATER_BYTES');
  });

  test('DEMO_PREGAME_MOVES: six an hour by default, 0 turns them off, anything else names it', () => {
    assert.equal(loadConfig({}).demoPregameMoves, 6);
    assert.equal(loadConfig({ DEMO_PREGAME_MOVES: '0' }).demoPregameMoves, 0);
    assert.equal(loadConfig({ DEMO_PREGAME_MOVES: '30' }).demoPregameMoves, 30);
    for (const bad of ['-1', 'many', '4000'])
      assert.equal(configError({ DEMO_PREGAME_MOVES: bad }).variable, 'DEMO_PREGAME_MOVES');
  });

  test('the idempotency window: 24 hours by default, 0 keeps keys, bad values name the variable', () => {
    assert.equal(loadConfig({}).clientOrderIdWindowMs, 24 * 3_600_000);
    assert.equal(loadConfig({ CLIENT_ORDER_ID_WINDOW_HOURS: '2' }).clientOrderIdWindowMs, 7_200_000);
    assert.equal(loadConfig({ CLIENT_ORDER_ID_WINDOW_HOURS: '0' }).clientOrderIdWindowMs, 0);
    for (const bad of ['-1', '1.5', 'day', '9000']) {
      assert.equal(
        configError({ CLIENT_ORDER_ID_WINDOW_HOURS: bad }).variable,
        'CLIENT_ORDER_ID_WINDOW_HOURS',
      );
    }
  });

  test('parlay trading limits: defaults, good values, bad ones name the variable', () => {
    const d = loadConfig({});
    assert.equal(d.parlayRequestTtlMs, 30_000);
    assert.equal(d.parlayMaxOpenRequests, 20);
    assert.equal(d.parlayMinStake, 1);
    assert.equal(d.parlayMaxStake, 10_000);
    assert.equal(d.parlayQuoteRate, 50);
    assert.equal(d.parlayHouseAccount, undefined);
    assert.equal(d.parlaySettleChunk, 500);
    assert.equal(d.parlaySettleChunk, PARLAY_SETTLE_CHUNK, "the default is the scheduler's");
    assert.equal(loadConfig({ PARLAY_SETTLE_CHUNK: '2000' }).parlaySettleChunk, 2000);
    assert.equal(loadConfig({ PARLAY_REQUEST_TTL_MS: '5000' }).parlayRequestTtlMs, 5000);
    assert.equal(loadConfig({ PARLAY_HOUSE_ACCOUNT: 'h' }).parlayHouseAccount, 'h');
    for (const [name, bad] of [
      ['PARLAY_REQUEST_TTL_MS', '10'],
      ['PARLAY_MAX_OPEN_REQUESTS', '0'],
      ['PARLAY_MIN_STAKE', '-1'],
      ['PARLAY_QUOTE_RATE', 'x'],
      ['PARLAY_SETTLE_CHUNK', '0'],
      ['PARLAY_SETTLE_CHUNK', '1.5'],
      ['PARLAY_SETTLE_CHUNK', 'many'],
    ] as const) {
      assert.equal(configError({ [name]: bad }).variable, name);
    }
  });

  test('each store has its own operator credentials file', () => {
    const embedded = adminCredentialsFile('data', undefined);
    const a = adminCredentialsFile('data', 'postgres://u:one@db1:5432/x');
    const aOtherPassword = adminCredentialsFile('data', 'postgres://u:two@db1:5432/x');
    const b = adminCredentialsFile('data', 'postgres://u:one@db2:5432/x');
    assert.equal(embedded, join('data', 'admin-credentials.json'));
    assert.match(a, /admin-credentials\.postgres-[0-9a-f]{12}\.json$/);
    assert.notEqual(a, embedded);
    assert.notEqual(a, b);
    assert.equal(a, aOtherPassword, 'the password is not part of the key');
    assert.equal(
      loadConfig({ DATA_DIR: 'd', DATABASE_URL: 'postgres://u@db1/x' }).adminCredentialsFile.startsWith('d'),
      true,
    );
  });

  test('start errors name the variable and carry the documented exit code', () => {
    const refused = databaseStartError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
      'postgres://u:secret@127.0.0.1:1/x',
    );
    assert.equal(refused.variable, 'DATABASE_URL');
    assert.equal(refused.exitCode, EXIT.unavailable);
    assert.doesNotMatch(refused.message, /secret/);
    const noDb = databaseStartError(
      Object.assign(new Error('database "x" does not exist'), { code: '3D000' }),
      'postgres://u@h/x',
    );
    assert.equal(noDb.exitCode, EXIT.config);
    assert.equal(listenStartError({ code: 'EADDRINUSE' }, '127.0.0.1', 8080)?.variable, 'PORT');
    assert.equal(listenStartError({ code: 'EADDRNOTAVAIL' }, '10.9.9.9', 8080)?.variable, 'HOST');
    assert.equal(listenStartError({ code: 'ENOTFOUND' }, 'nowhere.invalid', 8080)?.variable, 'HOST');
    assert.equal(listenStartError({ code: 'EOTHER' }, 'h', 1), undefined);
  });

  test('the banner says the demo is off on PostgreSQL and hides the password', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:secret@db:5432/x' });
    const text = bannerLines({
      config,
      url: 'http://127.0.0.1:8080',
      credentialsFile: '/d/admin-credentials.postgres-abc.json',
      role: 'leader',
      demo: { slate: false, living: false },
    }).join('\n');
    assert.match(text, /Demo +OFF — DATABASE_URL is set/);
    assert.doesNotMatch(text, /secret/);
    assert.match(text, /curl -s http:\/\/127\.0\.0\.1:8080\/nbx\/v1\/auth\/emm-token/);
    assert.match(text, /admin-credentials\.postgres-abc\.json/);
    // The browser UI is named while it is on, and not when UI=false.
    assert.match(text, /Browser UI +http:\/\/127\.0\.0\.1:8080\/ui\//);
    const off = bannerLines({
      config: loadConfig({ UI: 'false' }),
      url: 'http://127.0.0.1:8080',
      credentialsFile: '/d/admin-credentials.json',
      role: 'embedded',
      demo: { slate: true, living: true },
    }).join('\n');
    assert.doesNotMatch(off, /Browser UI/);
  });

  test('the banner names the role and the demo the store really holds', () => {
    const pg = loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x' });
    const line = (text: string, label: string) => text.split('\n').find((l) => l.trim().startsWith(label));
    const banner = (config: Config, input: Partial<BannerInput>) =>
      bannerLines({
        config,
        url: 'http://127.0.0.1:8081',
        credentialsFile: '/d/c.json',
        role: 'leader',
        demo: { slate: false, living: false },
        ...input,
      }).join('\n');
    assert.match(line(banner(pg, {}), 'Role') ?? '', /leader/);
    const replica = banner(pg, {
      role: 'replica',
      leaderUrl: 'http://127.0.0.1:8082',
      demo: { slate: true, living: false },
    });
    assert.match(line(replica, 'Role') ?? '', /replica .*http:\/\/127\.0\.0\.1:8082/);
    // A replica of a store the leader seeded with TICKBOOK_DEMO=true: the demo is on, whatever
    // this process's own DATABASE_URL default says.
    assert.match(line(replica, 'Demo') ?? '', /^ *Demo +on \(demo slate in the store; .*leader\)/);
    assert.match(line(banner(loadConfig({}), { role: 'embedded' }), 'Role') ?? '', /embedded store/);
    // The demo asked for on a store that already held data is not seeded: the banner says so.
    const asked = banner(loadConfig({ DATABASE_URL: 'postgres://u@db/x', TICKBOOK_DEMO: 'true' }), {});
    assert.match(line(asked, 'Demo') ?? '', /off — the store already held data/);
    assert.equal(
      demoText(loadConfig({ DEMO_LIVE: 'false' }), 'embedded', { slate: true, living: false }).startsWith(
        'on',
      ),
      true,
    );
  });

  test('with JSON logs the banner is one log record; plain text only on a terminal stderr', () => {
    const config = loadConfig({ LOG_FORMAT: 'json' });
    const records: { obj: Record<string, unknown>; msg: string }[] = [];
    const log = { info: (obj: Record<string, unknown>, msg: string) => records.push({ obj, msg }) };
    const written = { out: '', err: '' };
    const stream = (key: 'out' | 'err', isTTY: boolean) => ({
      isTTY,
      write: (t: string) => {
        written[key] += t;
        return true;
      },
    });
    const input: BannerInput = {
      config,
      url: 'http://127.0.0.1:18080',
      credentialsFile: '/d/c.json',
      role: 'embedded',
      demo: { slate: true, living: true },
    };
    writeBanner(input, log as never, 'json', stream('out', false), stream('err', false));
    assert.equal(written.out, '', 'nothing but log records on stdout');
    assert.equal(written.err, '');
    assert.equal(records.length, 1);
    assert.equal(records[0]!.obj.url, 'http://127.0.0.1:18080');
    assert.equal(records[0]!.obj.role, 'embedded');
    assert.match(String(records[0]!.msg), /ready at http:\/\/127\.0\.0\.1:18080/);
    writeBanner(input, log as never, 'json', stream('out', false), stream('err', true));
    assert.match(written.err, /is ready at http:\/\/127\.0\.0\.1:18080/);
    // On a terminal (pretty logs) the framed banner goes to stdout and no record is logged.
    writeBanner(input, log as never, 'auto', stream('out', true), stream('err', true));
    assert.match(written.out, /═+\n/);
    assert.equal(records.length, 2);
  });

  test('pretty logs on a terminal by default, JSON otherwise or when asked', () => {
    assert.equal(usePrettyLogs('auto', true), true);
    assert.equal(usePrettyLogs('auto', false), false);
    assert.equal(usePrettyLogs('auto', undefined), false);
    assert.equal(usePrettyLogs('json', true), false);
    assert.equal(usePrettyLogs('pretty', false), true);
  });

  test('a bad HOST or an unreachable DATABASE_URL stops npm start with a message, no stack', async () => {
    const cases = [
      { env: { HOST: 'bad host!' }, code: 2, variable: 'HOST' },
      { env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/x' }, code: 69, variable: 'DATABASE_URL' },
    ];
    for (const c of cases) {
      const r = await run(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { ...process.env, LOG_LEVEL: 'silent', ...c.env },
      }).then(
        () => assert.fail('started'),
        (err: { code: number; stderr: string }) => err,
      );
      assert.equal(r.code, c.code, r.stderr);
      assert.match(r.stderr, new RegExp(`${c.variable}: `));
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  });
});

describe('npm start', () => {
  test('caps glibc malloc arenas at 2 unless MALLOC_ARENA_MAX is set (docs/packaging.md)', async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const start = pkg.scripts.start!;
    assert.match(start, / node dist\/main\.js$/);
    // The script's shell prefix, with the server replaced by a print of what it would see.
    const probe = start.replace(
      /node dist\/main\.js$/,
      `"${process.execPath}" -p process.env.MALLOC_ARENA_MAX`,
    );
    const env = { ...process.env };
    delete env.MALLOC_ARENA_MAX;
    assert.equal((await run('sh', ['-c', probe], { env })).stdout.trim(), '2');
    assert.equal(
      (await run('sh', ['-c', probe], { env: { ...env, MALLOC_ARENA_MAX: '4' } })).stdout.trim(),
      '4',
    );
  });
});

describe('tickbook CLI', () => {
  const capture = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {} });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  test('--version prints the package version', async () => {
    const r = await capture(['--version']);
    assert.equal(r.code, 0);
    assert.match(r.out, /^tickbook \d+\.\d+\.\d+/);
  });

  test('a command group alone prints its commands (exit 0)', async () => {
    const r = await capture(['clients']);
    assert.equal(r.code, 0);
    assert.match(r.out, /usage: tickbook clients <command>/);
    assert.match(r.out, /clients create/);
    assert.match(r.out, /clients rotate/);
    const unknown = await capture(['nope']);
    assert.equal(unknown.code, 2);
  });
});
