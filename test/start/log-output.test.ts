// The JSON log destination (src/start/log-output.ts) gathers lines into batched writes: a line
// must still reach stdout within the flush interval while the process keeps running, and every
// line must be written when the process exits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { LOG_FLUSH_MS } from '../../src/start/log-output.ts';

const MODULE = new URL('../../src/start/log-output.ts', import.meta.url).href;

function child(script: string) {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((r) => proc.once('exit', r));
  return { proc, exited, out: () => out };
}

test('a lone line reaches stdout within the flush interval, before the process ends', async () => {
  const c = child(`
    import { createLogger } from ${JSON.stringify(MODULE)};
    const log = createLogger({ logLevel: 'info', logFormat: 'json' });
    log.info({ at: Date.now() }, 'lone line');
    setTimeout(() => {}, 5000);
  `);
  const t0 = Date.now();
  while (!c.out().includes('lone line') && Date.now() - t0 < 4000)
    await new Promise((r) => setTimeout(r, 20));
  const seen = Date.now();
  const alive = c.proc.exitCode === null;
  c.proc.kill();
  await c.exited;
  const line = JSON.parse(c.out().trim());
  assert.equal(line.msg, 'lone line');
  assert.ok(alive, 'the line arrived while the process was still running (not at its exit)');
  // Polled every 20 ms on a machine that may be loaded: generous slack over the interval.
  assert.ok(seen - line.at < LOG_FLUSH_MS + 1500, `line seen ${seen - line.at} ms after it was logged`);
});

test('every line of a burst is written by the time the process exits', async () => {
  const c = child(`
    import { createLogger } from ${JSON.stringify(MODULE)};
    const log = createLogger({ logLevel: 'info', logFormat: 'json' });
    for (let i = 0; i < 5000; i++) log.info({ i }, 'burst');
    process.exit(0);
  `);
  assert.equal(await c.exited, 0);
  const lines = c
    .out()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 5000);
  assert.deepEqual(
    lines.map((l) => l.i),
    Array.from({ length: 5000 }, (_, i) => i),
  );
});
