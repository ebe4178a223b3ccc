// Event-loop delay across a state snapshot (docs/journal.md, "Snapshots"). Builds an Exchange
// state of a realistic size by journaling `orders` trading commands, then takes snapshots while
// perf_hooks.monitorEventLoopDelay and a 1 ms interval probe watch the event loop:
//   - segment journal: the snapshot file is written beside the journal in chunks (chosen);
//   - baseline in the same run: the snapshot written into PGlite's snapshots table (as before).
// Goal: event-loop delay never over 100 ms during a snapshot.
//
//   node --import tsx bench/snapshot-stall.ts [orders=300000] [rounds=3]

import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Exchange } from '../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../src/exchange/types.ts';
import { FileJournal } from '../src/journal/file-journal.ts';
import { Sequencer } from '../src/journal/sequencer.ts';
import { PgliteStore } from '../src/store/pglite-store.ts';
import { pgliteTemplate } from '../test/helpers/store.ts';
import { setupCommands, take, tradingCommands } from '../test/journal/workload.ts';

const ORDERS = Number(process.argv[2] ?? 300_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const SHAPE = { events: 20, marketsPerEvent: 5, accounts: 500 };
const accepted = (r: CommandResult) => r.ok;

const dir = join(tmpdir(), `tickbook-bench-snapshot-${process.pid}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
cpSync(await pgliteTemplate(), join(dir, 'pg'), { recursive: true });
const store = await PgliteStore.open(join(dir, 'pg'));
await store.migrate();

/** Runs fn while watching the event loop; max and p99 delay in ms, and fn's wall time. */
async function watch(
  fn: () => Promise<void>,
): Promise<{ maxMs: number; p99Ms: number; probeMaxMs: number; ms: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let probeMax = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    probeMax = Math.max(probeMax, now - last);
    last = now;
  }, 1);
  h.enable();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  h.disable();
  clearInterval(probe);
  return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, probeMaxMs: probeMax, ms };
}

try {
  const live = new Exchange();
  const journal = await FileJournal.open(join(dir, 'journal'));
  let clock = 1_800_000_000_000;
  const seqr = new Sequencer<Command, CommandResult>(live, accepted, store, () => (clock += 1), {
    snapshotEvery: Number.MAX_SAFE_INTEGER,
    journal,
  });
  const cmds = [...setupCommands(SHAPE), ...take(tradingCommands(SHAPE, 1), ORDERS)];
  for (let i = 0; i < cmds.length; i += 10_000) await seqr.submitMany(cmds.slice(i, i + 10_000));
  const t0 = performance.now();
  const bytes = live.snapshot();
  const serializeMs = performance.now() - t0;
  console.log(
    `\nState after ${seqr.committedSeq} commands: snapshot ${(bytes.byteLength / 1e6).toFixed(1)} MB, serialize (synchronous, Exchange.snapshot()) ${serializeMs.toFixed(0)} ms\n`,
  );
  console.log(
    '| round | snapshot written to | wall ms | event-loop max ms | p99 ms | 1 ms probe max gap ms |',
  );
  console.log('|---:|---|---:|---:|---:|---:|');
  const sql = new (await import('../src/journal/backend.ts')).SqlJournal(store);
  const { sha256Chunked } = await import('../src/journal/file-journal.ts');
  for (let round = 1; round <= ROUNDS; round++) {
    // Chosen path: the sequencer's own snapshot (serialize, hash in chunks, file in chunks).
    const fileRun = await watch(async () => {
      clock += 1;
      await seqr.submit(take(tradingCommands(SHAPE, 100 + round), 1)[0] as never);
      await seqr.snapshotNow();
    });
    console.log(
      `| ${round} | file beside the journal (chosen) | ${fileRun.ms.toFixed(0)} | ${fileRun.maxMs.toFixed(1)} | ${fileRun.p99Ms.toFixed(1)} | ${fileRun.probeMaxMs.toFixed(1)} |`,
    );
    // Baseline: the same snapshot into PGlite's snapshots table (the path before segment files).
    const sqlRun = await watch(async () => {
      const b = live.snapshot();
      const hash = await sha256Chunked(b);
      await sql.writeSnapshot({ seq: seqr.committedSeq, hash, state: b });
    });
    console.log(
      `| ${round} | PGlite snapshots table (before) | ${sqlRun.ms.toFixed(0)} | ${sqlRun.maxMs.toFixed(1)} | ${sqlRun.p99Ms.toFixed(1)} | ${sqlRun.probeMaxMs.toFixed(1)} |`,
    );
  }
  await journal.close();
  console.log('\ngoal: event-loop delay never over 100 ms during a snapshot');
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
