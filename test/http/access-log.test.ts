// The access log (src/http/access-log.ts): at the shipped LOG_LEVEL=info a request writes exactly
// one line, with method, masked URL, status and time; errors are logged at error level; minted
// request ids are unique and a sane caller id is echoed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { LogCapture } from '../auth/helpers.ts';
import { nullStore } from './harness.ts';

async function app(logLevel: string) {
  const sink = new LogCapture();
  const a = await buildApp({
    config: loadConfig({ LOG_LEVEL: logLevel }),
    store: nullStore,
    logStream: sink,
    features: async (instance) => {
      instance.get('/ok', async () => ({ ok: true }));
      instance.get('/boom', async () => {
        throw new Error('kaboom');
      });
    },
  });
  return { a, sink };
}

test('one access-log line per request at info, none at warn', async () => {
  const { a, sink } = await app('info');
  const before = sink.lines.length;
  const res = await a.inject({ method: 'GET', url: '/ok?access_token=s3cret&x=1' });
  assert.equal(res.statusCode, 200);
  await new Promise((r) => setImmediate(r));
  const lines = sink.lines.slice(before).map((l) => JSON.parse(l));
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const [l] = lines;
  assert.equal(l.msg, 'request completed');
  assert.equal(l.method, 'GET');
  assert.equal(l.statusCode, 200);
  assert.equal(l.url, '/ok?access_token=[redacted]&x=1');
  assert.equal(typeof l.ms, 'number');
  assert.equal(l.reqId, res.headers['x-request-id']);
  // A rejected request (404 with the error envelope) is still one line.
  const n = sink.lines.length;
  assert.equal((await a.inject({ method: 'GET', url: '/nope' })).statusCode, 404);
  await new Promise((r) => setImmediate(r));
  assert.equal(sink.lines.length - n, 1);
  await a.close();

  const quiet = await app('warn');
  const q0 = quiet.sink.lines.length;
  await quiet.a.inject({ method: 'GET', url: '/ok' });
  await new Promise((r) => setImmediate(r));
  assert.equal(quiet.sink.lines.length, q0);
  await quiet.a.close();
});

test('a 500 is logged at error level with the error, once', async () => {
  const { a, sink } = await app('info');
  const before = sink.lines.length;
  const res = await a.inject({ method: 'GET', url: '/boom' });
  assert.equal(res.statusCode, 500);
  await new Promise((r) => setImmediate(r));
  const lines = sink.lines.slice(before).map((l) => JSON.parse(l));
  assert.ok(
    lines.some((l) => l.level === 50 && /kaboom/.test(JSON.stringify(l))),
    JSON.stringify(lines),
  );
  assert.equal(lines.filter((l) => l.msg === 'request completed').length, 1);
  await a.close();
});

test('request ids: minted ones are unique, a sane caller id is echoed, an insane one replaced', async () => {
  const { a } = await app('silent');
  const ids = new Set<string>();
  for (let i = 0; i < 200; i++)
    ids.add(String((await a.inject({ method: 'GET', url: '/ok' })).headers['x-request-id']));
  assert.equal(ids.size, 200);
  const echoed = await a.inject({ method: 'GET', url: '/ok', headers: { 'x-request-id': 'abc-123' } });
  assert.equal(echoed.headers['x-request-id'], 'abc-123');
  const replaced = await a.inject({ method: 'GET', url: '/ok', headers: { 'x-request-id': 'bad id\u0001' } });
  assert.notEqual(replaced.headers['x-request-id'], 'bad id\u0001');
  await a.close();
});

test('the access line is byte for byte the line pino writes, and stays one JSON object', async () => {
  const { accessLine } = await import('../../src/http/access-log.ts');
  const pino = (await import('pino')).default;
  const sink = new LogCapture();
  // A fixed clock so both lines carry the same time.
  const log = pino({ level: 'info', timestamp: () => ',"time":1700000000000' }, sink);
  const hostile = [
    '/ok',
    '/a?q="},"level":60,"x":"',
    '/back\\slash\\"',
    '/ctl\u0000\u0001\n\r\t\u001f',
    '/latin1-\u00e9\u00ff and \u2028\u2029',
    `/${'long-'.repeat(40)}"end`,
  ];
  for (const url of hostile) {
    for (const id of ['abc-1', 'x"y\\z\n']) {
      log.child({ reqId: id }).info({ method: 'GET', url, statusCode: 404, ms: 0.25 }, 'request completed');
      await new Promise((r) => setImmediate(r));
      const expected = sink.lines.at(-1);
      const built = accessLine(log, 'reqId', id, 'GET', url, 404, 0.25);
      assert.equal(built, `${expected}\n`);
      const parsed = JSON.parse(built);
      assert.equal(parsed.url, url);
      assert.equal(parsed.reqId, id);
      assert.equal(parsed.level, 30);
      assert.equal(built.indexOf('\n'), built.length - 1, 'one line');
    }
  }
});

test('URL and request-id header cannot add fields or lines to the access log', async () => {
  const { a, sink } = await app('info');
  const before = sink.lines.length;
  const res = await a.inject({
    method: 'GET',
    url: '/ok?x=%22,%22level%22:60&token=t0p&y="},"statusCode":200,"z":"',
    headers: { 'x-request-id': 'evil","level":60,"x":"' },
  });
  assert.equal(res.statusCode, 200);
  await new Promise((r) => setImmediate(r));
  const lines = sink.lines.slice(before).map((l) => JSON.parse(l));
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const [l] = lines;
  assert.equal(l.level, 30);
  assert.equal(l.statusCode, 200);
  // light-my-request percent-encodes the quotes; the hostile raw bytes are covered above.
  assert.match(l.url, /^\/ok\?x=.*&token=\[redacted\]&y=/);
  assert.ok(!l.url.includes('t0p'));
  assert.notEqual(l.reqId, 'evil","level":60,"x":"');
  assert.equal(l.reqId, res.headers['x-request-id']);
  assert.deepEqual(Object.keys(l), [
    'level',
    'time',
    'pid',
    'hostname',
    'reqId',
    'method',
    'url',
    'statusCode',
    'ms',
    'msg',
  ]);
  await a.close();
});

test('a handler that logs gets a child with the request id; the access line follows it', async () => {
  const sink = new LogCapture();
  const a = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'info' }),
    store: nullStore,
    logStream: sink,
    features: async (instance) => {
      instance.get('/talk', async (request) => {
        request.log.debug('not written at info');
        request.log.info({ client_secret: 'hunter2' }, 'handler says');
        return { ok: true };
      });
    },
  });
  const res = await a.inject({ method: 'GET', url: '/talk' });
  await new Promise((r) => setImmediate(r));
  const lines = sink.lines.map((l) => JSON.parse(l));
  const said = lines.filter((l) => l.msg === 'handler says');
  assert.equal(said.length, 1);
  assert.equal(said[0].reqId, res.headers['x-request-id']);
  assert.equal(said[0].client_secret, '[redacted]', 'redaction still applies to what handlers log');
  assert.ok(!lines.some((l) => l.msg === 'not written at info'));
  const done = lines.filter((l) => l.msg === 'request completed');
  assert.equal(done.length, 1);
  assert.equal(done[0].reqId, res.headers['x-request-id']);
  await a.close();
});
