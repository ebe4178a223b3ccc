// What holds the event loop of the living demo (docs/stream.md "Long-running memory"): runs the
// server in this process with the living demo, snapshots every --snapshot-every commands and the
// shipped disk-retention pass, and records side by side: event-loop pauses over --pause-ms (a 5 ms
// timer that notes how late it runs), store calls over 20 ms (with their SQL), state snapshots, and
// GC pauses over 20 ms (PerformanceObserver). Prints each pause with what overlapped it.
//
//   node --import tsx bench/loop-pauses.ts [--minutes 4] [--snapshot-every 20000] [--pause-ms 100]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { startServer } from '../src/main.ts';
import { numArg } from './lib/args.ts';

const MINUTES = numArg('minutes', 4);
const SNAPSHOT_EVERY = numArg('snapshot-every', 20_000);
const PAUSE_MS = numArg('pause-ms', 100);

interface Span {
  start: number;
  ms: number;
  what: string;
}
const pauses: Span[] = [];
const calls: Span[] = [];
const gcs: Span[] = [];
const snapshots: Span[] = [];

const dir = mkdtempSync(join(tmpdir(), 'tickbook-pauses-'));
const srv = await startServer({
  env: {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
    TICKBOOK_DEMO: 'true',
    DEMO_LIVE: 'true',
    SNAPSHOT_EVERY: String(SNAPSHOT_EVERY),
    KEY_ENCRYPTION_SECRET: 'bench',
  },
});
const t0 = performance.now();
const at = (t: number) => ((t - t0) / 1000).toFixed(1);

// Store calls: their wall time from call to answer (PGlite runs the SQL on this thread).
const store = srv.store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
for (const name of ['query', 'exec'] as const) {
  const orig = store[name]!.bind(srv.store);
  store[name] = async (...args: unknown[]) => {
    const s = performance.now();
    try {
      return await orig(...args);
    } finally {
      const ms = performance.now() - s;
      if (ms > 20)
        calls.push({ start: s, ms, what: `${name} ${String(args[0]).replace(/\s+/g, ' ').slice(0, 60)}` });
    }
  };
}
srv.runtime.sequencer.on('snapshot', (st: { seq: number; heldMs: number; bytes?: number }) => {
  // What the server's thread spent on it: 0 when the snapshot thread serialized it.
  snapshots.push({ start: performance.now(), ms: st.heldMs, what: `snapshot at seq ${st.seq}` });
});
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if (e.duration > 20) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      gcs.push({ start: e.startTime, ms: e.duration, what: `gc kind ${kind}` });
    }
  }
}).observe({ entryTypes: ['gc'] });
let last = performance.now();
const lag = setInterval(() => {
  const t = performance.now();
  if (t - last - 5 > PAUSE_MS) pauses.push({ start: last, ms: t - last, what: 'pause' });
  last = t;
}, 5);

await new Promise((r) => setTimeout(r, MINUTES * 60_000));
clearInterval(lag);

const overlaps = (p: Span, s: Span) => s.start < p.start + p.ms && s.start + s.ms > p.start;
console.log(
  `\nLiving demo, ${MINUTES} min, snapshot every ${SNAPSHOT_EVERY} commands; ${snapshots.length} snapshots at ${snapshots.map((s) => `${at(s.start)} s`).join(', ')}\n`,
);
console.log(
  '| pause at s | pause ms | store calls overlapping (ms) | GC overlapping (ms) | last snapshot before |',
);
console.log('|--:|--:|---|---|---|');
for (const p of pauses) {
  const c = calls.filter((s) => overlaps(p, s)).map((s) => `${s.what} (${s.ms.toFixed(0)})`);
  const g = gcs.filter((s) => overlaps(p, s)).map((s) => `${s.what} (${s.ms.toFixed(0)})`);
  const snap = snapshots.filter((s) => s.start <= p.start).at(-1);
  console.log(
    `| ${at(p.start)} | ${p.ms.toFixed(0)} | ${c.join('; ') || '-'} | ${g.join('; ') || '-'} | ${snap ? `${((p.start - snap.start) / 1000).toFixed(0)} s before` : '-'} |`,
  );
}
const slow = [...calls].sort((a, b) => b.ms - a.ms).slice(0, 8);
console.log('\nSlowest store calls:');
for (const s of slow) console.log(`  ${at(s.start)} s  ${s.ms.toFixed(0)} ms  ${s.what}`);
await srv.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
