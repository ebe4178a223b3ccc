// What the server prints (src/http/access-log.ts, src/start/banner.ts): in pretty (terminal) mode
// no line per successful request — errors, slow requests and start-up lines stay; in JSON mode one
// access line per request; and with output redirected, stdout holds only JSON lines, the banner
// among them as a log record.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { SLOW_REQUEST_MS } from '../../src/http/access-log.ts';
import { freePort, LogCapture } from '../auth/helpers.ts';
import { serverPlace } from '../helpers/server.ts';
import { nullStore } from '../http/harness.ts';

const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const tick = () => new Promise((r) => setImmediate(r));

test('terminal mode: successful requests write no line; errors and slow requests do', async () => {
  const sink = new LogCapture();
  const app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'info' }),
    store: nullStore,
    logStream: sink,
    accessLog: 'errors-and-slow',
    features: async (a) => {
      a.get('/ok', async () => ({ ok: true }));
      a.get('/slow', async () => {
        await new Promise((r) => setTimeout(r, SLOW_REQUEST_MS + 50));
        return { ok: true };
      });
      a.get('/boom', async () => {
        throw new Error('kaboom');
      });
    },
  });
  try {
    const n0 = sink.lines.length;
    for (let i = 0; i < 5; i++)
      assert.equal((await app.inject({ method: 'GET', url: '/ok' })).statusCode, 200);
    await tick();
    assert.deepEqual(sink.lines.slice(n0), [], 'no line for a successful request');

    const n1 = sink.lines.length;
    assert.equal((await app.inject({ method: 'GET', url: '/nope' })).statusCode, 404);
    assert.equal((await app.inject({ method: 'GET', url: '/boom' })).statusCode, 500);
    assert.equal((await app.inject({ method: 'GET', url: '/slow' })).statusCode, 200);
    await tick();
    const lines = sink.lines.slice(n1).map((l) => JSON.parse(l));
    assert.ok(
      lines.some((l) => l.statusCode === 404 && l.msg === 'request completed'),
      JSON.stringify(lines),
    );
    assert.ok(
      lines.some((l) => l.level === 50 && /kaboom/.test(JSON.stringify(l))),
      JSON.stringify(lines),
    );
    const slow = lines.find((l) => l.msg === 'slow request');
    assert.ok(slow, JSON.stringify(lines));
    assert.equal(slow.level, 40);
    assert.equal(slow.url, '/slow');
    assert.ok(slow.ms >= SLOW_REQUEST_MS);
  } finally {
    await app.close();
  }
});

/** The real server as `npm start` runs it, stdout captured (redirected), until `done` resolves. */
async function serverOutput(
  logFormat: 'json' | 'pretty',
  requests: (url: string) => Promise<void>,
): Promise<string> {
  const place = await serverPlace('pglite');
  const port = await freePort();
  let proc: ChildProcess | undefined;
  try {
    proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root,
      env: { ...process.env, ...place.env, PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: logFormat },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    proc.stderr!.resume();
    const url = `http://127.0.0.1:${port}`;
    const end = Date.now() + 120_000;
    while (
      !(await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      assert.equal(proc.exitCode, null, `the server exited: ${out}`);
      assert.ok(Date.now() < end, 'not ready within 120 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    await requests(url);
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    return out;
  } finally {
    if (proc?.exitCode === null) proc.kill('SIGKILL');
    await place.destroy();
  }
}

const tenReads = async (url: string) => {
  for (let i = 0; i < 10; i++) assert.equal((await fetch(`${url}/.well-known/jwks.json`)).status, 200);
  assert.equal((await fetch(`${url}/nbx/v2/emm/no-such-route`)).status, 404);
};

test('redirected JSON output: only JSON lines, the banner one record, a line per request', async () => {
  const out = await serverOutput('json', tenReads);
  const lines = out.split('\n').filter((l) => l !== '');
  for (const l of lines) assert.doesNotThrow(() => JSON.parse(l), `a line on stdout is not JSON: ${l}`);
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const banner = records.filter((r) => String(r.msg).startsWith('tickbook ready at '));
  assert.equal(banner.length, 1, 'the banner is one log record');
  assert.equal(banner[0]!.role, 'embedded');
  assert.ok(Array.isArray(banner[0]!.banner));
  const access = records.filter((r) => r.msg === 'request completed' && r.url === '/.well-known/jwks.json');
  assert.equal(access.length, 10, 'one access line per request');
  assert.ok(records.some((r) => r.statusCode === 404));
});

test('pretty output: start-up, the banner and the error, but no line per successful request', async () => {
  const out = await serverOutput('pretty', tenReads);
  assert.match(out, /applying store migrations/);
  assert.match(out, /Tickbook \S+ is ready at http:\/\/127\.0\.0\.1:\d+/);
  assert.match(out, /Role +embedded store/);
  assert.doesNotMatch(out, /\/\.well-known\/jwks\.json/, 'no access line for the successful reads');
  assert.match(out, /no-such-route/, 'the 404 is still logged');
  assert.match(out, /shutting down/);
});
