// Two batches appended to one file, each needing an fdatasync that starts after its write: the
// second sync started only after the first returned (the segment journal before) against both
// in flight at once (FileJournal now, docs/journal.md "Group commit, pipelined"). Prints the time
// until both are done, interleaved pairs, in a scratch file under the OS temp dir.
//
//   node bench/fsync-overlap.mjs [pairs=300] [bytes=2048]
import { fdatasync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const pairs = Number(process.argv[2] ?? 300);
const buf = Buffer.alloc(Number(process.argv[3] ?? 2048), 1);
const dir = mkdtempSync(join(tmpdir(), 'fsync-overlap-'));
const fd = openSync(join(dir, 'segment'), 'a');
const sync = () => new Promise((res, rej) => fdatasync(fd, (e) => (e ? rej(e) : res())));
const ms = { 'one after the other': [], overlapping: [] };
for (let i = 0; i < pairs; i++) {
  for (const mode of i % 2
    ? ['one after the other', 'overlapping']
    : ['overlapping', 'one after the other']) {
    const t = performance.now();
    writeSync(fd, buf);
    const first = sync();
    writeSync(fd, buf);
    if (mode === 'overlapping') await Promise.all([first, sync()]);
    else {
      await first;
      await sync();
    }
    ms[mode].push(performance.now() - t);
  }
}
rmSync(dir, { recursive: true, force: true });
const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)].toFixed(2);
console.log('| two syncs | p50 ms | p90 ms | p99 ms |\n|---|---:|---:|---:|');
for (const [m, xs] of Object.entries(ms))
  console.log(`| ${m} | ${q(xs, 0.5)} | ${q(xs, 0.9)} | ${q(xs, 0.99)} |`);
