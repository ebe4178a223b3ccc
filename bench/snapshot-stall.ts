// Event-loop delay across a state snapshot (docs/journal.md, "Snapshots"). Builds an Exchange
// state of a realistic size by journaling `orders` trading commands, then takes snapshots through
// the sequencer while a read probe, a command stream and perf_hooks.monitorEventLoopDelay watch:
//   - sliced (chosen): Exchange.snapshotSlices() with event-loop turns between slices, commands
//     held meanwhile;
//   - baseline in the same run, interleaved: the same sequencer serializing with the synchronous
//     Exchange.snapshot() (as before), the same file write after it;
//   - thread (chosen since): a second sequencer, over a copy of the same state on a journal of its
//     own, whose snapshots are serialized on the snapshot thread (src/journal/shadow-snapshots.ts)
//     while commands go on; the in-line sliced rows are the base's behaviour in the same run.
// Reads: a small in-memory read (one wallet) due every 2 ms on a fixed schedule; its latency is
// measured from when it was due (a stall delays every read due during it). Commands: a trading
// command every 10 ms; its latency includes any time held plus its commit.
// Goal: event-loop delay never over 100 ms during a snapshot, p99 of a small read <= 20 ms.
//
//   node --import tsx bench/snapshot-stall.ts [orders=300000] [rounds=3] [--ab CHECKOUT]
//
// --ab CHECKOUT: the in-line rows (sliced, synchronous) run the other checkout's sequencer and
// segment journal (its src/journal/, e.g. the base commit's), so the base is its own code.

import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Exchange } from '../src/exchange/exchange.ts';
import type { Command, CommandResult, StateMachine } from '../src/exchange/types.ts';
import { FileJournal } from '../src/journal/file-journal.ts';
import { Sequencer, type SnapshotStats } from '../src/journal/sequencer.ts';
import { ShadowSnapshots } from '../src/journal/shadow-snapshots.ts';
import { spawnSnapshotThread } from '../src/runtime/snapshot-thread.ts';
import { PgliteStore } from '../src/store/pglite-store.ts';
import { pgliteTemplate } from '../test/helpers/store.ts';
import { setupCommands, take, tradingCommands } from '../test/journal/workload.ts';

const abAt = process.argv.indexOf('--ab');
const AB = abAt > 0 ? process.argv[abAt + 1] : undefined;
const positional = process.argv.slice(2).filter((_, i, a) => a[i] !== '--ab' && a[i - 1] !== '--ab');
const ORDERS = Number(positional[0] ?? 300_000);
const ROUNDS = Number(positional[1] ?? 3);
// The in-line side's sequencer and journal: this checkout's, or the --ab checkout's.
const InlineSequencer: typeof Sequencer =
  AB === undefined
    ? Sequencer
    : (
        (await import(pathToFileURL(join(AB, 'src/journal/sequencer.ts')).href)) as {
          Sequencer: typeof Sequencer;
        }
      ).Sequencer;
const InlineJournal: typeof FileJournal =
  AB === undefined
    ? FileJournal
    : (
        (await import(pathToFileURL(join(AB, 'src/journal/file-journal.ts')).href)) as {
          FileJournal: typeof FileJournal;
        }
      ).FileJournal;
const SHAPE = { events: 20, marketsPerEvent: 5, accounts: 500 };
const accepted = (r: CommandResult) => r.ok;

const dir = join(tmpdir(), `tickbook-bench-snapshot-${process.pid}`);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
cpSync(await pgliteTemplate(), join(dir, 'pg'), { recursive: true });
const store = await PgliteStore.open(join(dir, 'pg'));
await store.migrate();

/** Runs fn while watching the event loop, serving reads and sending commands. */
async function watch(
  live: Exchange,
  seqr: Sequencer<Command, CommandResult>,
  round: number,
  fn: () => Promise<void>,
): Promise<{
  maxMs: number;
  probeMaxMs: number;
  readP99: number;
  readMax: number;
  cmdMax: number;
  ms: number;
}> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let probeMax = 0;
  const reads: number[] = [];
  const t0 = performance.now();
  let nextRead = t0;
  const probe = setInterval(() => {
    const now = performance.now();
    probeMax = Math.max(probeMax, now - last);
    last = now;
    while (nextRead <= now) {
      live.wallet('w-acct-1', 'CASH');
      reads.push(performance.now() - nextRead);
      nextRead += 2;
    }
  }, 1);
  const cmdLat: Promise<number>[] = [];
  const gen = tradingCommands(SHAPE, 1000 + round);
  const sender = setInterval(() => {
    const c0 = performance.now();
    cmdLat.push(seqr.submit(gen.next().value as never).then(() => performance.now() - c0));
  }, 10);
  h.enable();
  await fn();
  const ms = performance.now() - t0;
  h.disable();
  clearInterval(probe);
  clearInterval(sender);
  const cmds = await Promise.all(cmdLat);
  reads.sort((x, y) => x - y);
  return {
    maxMs: h.max / 1e6,
    probeMaxMs: probeMax,
    readP99: reads[Math.floor(reads.length * 0.99)] ?? 0,
    readMax: reads[reads.length - 1] ?? 0,
    cmdMax: Math.max(0, ...cmds),
    ms,
  };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;

try {
  const live = new Exchange();
  // The baseline hides snapshotSlices, so the sequencer falls back to snapshot() (as before).
  const machine: StateMachine<Command, CommandResult> & { lastSeq: number } = {
    apply: (c) => live.apply(c),
    hash: () => live.hash(),
    snapshot: () => live.snapshot(),
    restore: (b) => live.restore(b),
    get lastSeq() {
      return live.lastSeq;
    },
  };
  const journal = await InlineJournal.open(join(dir, 'journal'));
  let clock = 1_800_000_000_000;
  const seqr = new InlineSequencer<Command, CommandResult>(machine, accepted, store, () => (clock += 1), {
    snapshotEvery: Number.MAX_SAFE_INTEGER,
    journal,
  });
  const stats: SnapshotStats[] = [];
  seqr.on('snapshot', (st: SnapshotStats) => stats.push(st));
  const cmds = [...setupCommands(SHAPE), ...take(tradingCommands(SHAPE, 1), ORDERS)];
  for (let i = 0; i < cmds.length; i += 10_000) await seqr.submitMany(cmds.slice(i, i + 10_000));
  // The thread's side: the same state restored into a second exchange, on a journal of its own.
  const other = new Exchange();
  other.restore(live.snapshot());
  // Its journal starts after the restored seq: an empty segment named for the next seq.
  mkdirSync(join(dir, 'journal-thread'));
  writeFileSync(
    join(dir, 'journal-thread', `journal-${String(other.lastSeq + 1).padStart(20, '0')}.seg`),
    '',
  );
  const otherJournal = await FileJournal.open(join(dir, 'journal-thread'));
  const seqThread = new Sequencer<Command, CommandResult>(
    {
      apply: (c) => other.apply(c),
      hash: () => other.hash(),
      snapshot: () => other.snapshot(),
      snapshotSlices: () => other.snapshotSlices(),
      restore: (b) => other.restore(b),
      get lastSeq() {
        return other.lastSeq;
      },
    } as StateMachine<Command, CommandResult>,
    accepted,
    store,
    () => (clock += 1),
    {
      snapshotEvery: Number.MAX_SAFE_INTEGER,
      journal: otherJournal,
      lastSeq: other.lastSeq,
      lastSnapshotSeq: other.lastSeq,
      shadow: new ShadowSnapshots(spawnSnapshotThread, (err) => console.error('snapshot thread failed', err)),
    },
  );
  seqThread.on('snapshot', (st: SnapshotStats) => stats.push(st));
  const t0 = performance.now();
  const bytes = live.snapshot();
  const serializeMs = performance.now() - t0;
  console.log(
    `\nState after ${seqr.committedSeq} commands: snapshot ${(bytes.byteLength / 1e6).toFixed(1)} MB, serialize (synchronous, Exchange.snapshot()) ${serializeMs.toFixed(0)} ms\n`,
  );
  console.log(
    '| round | serialization | wall ms | commands held ms | slices (longest ms) | event-loop max ms | 1 ms probe max gap ms | read p99 ms | read max ms | command max ms |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  const rows: Record<string, { gap: number[]; p99: number[]; held: number[] }> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    const modes = ['thread', 'sliced', 'synchronous'];
    for (let k = 0; k < modes.length; k++) {
      // Rotated from round to round, so no mode always runs first.
      const mode = modes[(k + round - 1) % modes.length]!;
      if (mode === 'sliced') machine.snapshotSlices = () => live.snapshotSlices();
      else delete machine.snapshotSlices;
      const [x, q] = mode === 'thread' ? [other, seqThread] : [live, seqr];
      await q.submit(take(tradingCommands(SHAPE, 100 + round), 1)[0] as never);
      const n = stats.length;
      const r = await watch(x, q, round, () => q.snapshotNow());
      const st = stats[n]!;
      // A base's sequencer reports no heldMs: there, `ms` is the time commands were held.
      const held = (st as Partial<SnapshotStats>).heldMs ?? st.ms;
      const label =
        mode === 'thread'
          ? 'snapshot thread (chosen)'
          : mode === 'sliced'
            ? `sliced in line (base${AB === undefined ? "'s behaviour" : `: ${AB}`})`
            : `synchronous (before that${AB === undefined ? '' : `: ${AB}`})`;
      rows[label] ??= { gap: [], p99: [], held: [] };
      const row = rows[label];
      row.gap.push(r.probeMaxMs);
      row.p99.push(r.readP99);
      row.held.push(held);
      console.log(
        `| ${round} | ${label} | ${r.ms.toFixed(0)} | ${held.toFixed(0)} | ${st.slices} (${st.sliceMaxMs.toFixed(1)}) | ${r.maxMs.toFixed(1)} | ${r.probeMaxMs.toFixed(1)} | ${r.readP99.toFixed(1)} | ${r.readMax.toFixed(1)} | ${r.cmdMax.toFixed(0)} |`,
      );
    }
  }
  console.log('\n| serialization | median longest gap ms | median read p99 ms | median commands held ms |');
  console.log('|---|---:|---:|---:|');
  for (const [label, r] of Object.entries(rows)) {
    console.log(
      `| ${label} | ${median(r.gap).toFixed(1)} | ${median(r.p99).toFixed(1)} | ${median(r.held).toFixed(0)} |`,
    );
  }
  await seqThread.close();
  await otherJournal.close();
  await journal.close();
  console.log('\ngoal: event-loop delay never over 100 ms during a snapshot; read p99 <= 20 ms');
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
