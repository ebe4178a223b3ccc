// The engine on exchange-core's published order mix: 9 % GTC, 3 % IOC, 6 % cancel, 82 % move, about
// 1,000 resting orders on one book, a move being an AmendOrder to a price a few ticks away (it
// re-queues). In process, `Exchange.apply` with events on (and off, replay mode). Baseline in the
// same run: the same operations with every move done as clients did before amends existed, a
// CancelOrder and a new PlaceOrder (two commands). Rounds interleave the two.
//
//   node --expose-gc --import tsx bench/engine-mix.ts [--ops 1000000] [--runs 3] [--rates 250000,500000,1000000]
//        [--before <checkout> [--ab-only]] [--consume]
//
// 1. Throughput: the whole pre-built stream back to back; operations/s (a move counts once) and
//    commands/s.
// 2. Latency at fixed offered rates, without coordinated omission: operation i is due at
//    t0 + i / rate; the loop waits (spinning) until it is due, or runs it at once when late, and its
//    latency is completion − due time, so a stall delays and counts every operation queued behind
//    it. p50 / p99 / p99.99 per rate; performance.now() around each (≈ 30–50 ns of its own). Beside
//    them the garbage collections Node reports inside the window (count, total and longest pause):
//    how much of the tail is GC. Another young generation: NODE_OPTIONS=--max-semi-space-size=<MB>.
// Streams are built before timing on a shadow exchange (so cancels and moves aim at orders that
// are really resting), then replayed into a fresh exchange restored from the same setup snapshot.
// `--before <checkout>`: the amend stream also runs through that checkout's engine in the same
// rounds (its src/exchange/exchange.ts, as bench/engine-ab.ts loads it), and each round prints
// this tree ÷ that engine; then both engines take the amend stream in lockstep, 1,000 operations
// at a time, the one going first alternating, CPU time per engine (bench/engine-ab.ts --lockstep:
// load that changes within a run hits both alike), the median of per-round ratios. The lockstep
// runs in a child process (bench/lib/engine-mix-lockstep.ts) that reads the stream from a file and
// loads both engines alike, neither having run anything else (in this process, two identical
// engines differed by 1.1–1.4×).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Exchange } from '../src/exchange/exchange.ts';
import { TICKS } from '../src/exchange/ticks.ts';
import type { Command, CommandResult } from '../src/exchange/types.ts';
import { HistoryBatch } from '../src/runtime/history.ts';
import { rng } from '../test/helpers/prng.ts';
import { arg, numArg } from './lib/args.ts';

const OPS = numArg('ops', 1_000_000);
const RUNS = numArg('runs', 3);
const RATES = (process.argv.find((a) => a.startsWith('--rates='))?.slice(8) ?? '250000,500000,1000000')
  .split(',')
  .map(Number);
const ACCOUNTS = 100;
const RESTING = 1_000;
/** Tick indexes of the best passive bid per side: 0.400 and 0.595 (their sum stays under 1). */
const A_TOP = 119;
const B_TOP = 158;
const gc = (globalThis as { gc?: () => void }).gc;
const beforeDir = arg('before');
/** `--ab-only`: with --before, only the lockstep A/B (no throughput table, no latency runs). */
const AB_ONLY = beforeDir !== undefined && process.argv.includes('--ab-only');
const Before =
  beforeDir === undefined
    ? undefined
    : (
        (await import(pathToFileURL(join(resolve(beforeDir), 'src/exchange/exchange.ts')).href)) as {
          Exchange: typeof Exchange;
        }
      ).Exchange;
const uuid = (i: number) =>
  Buffer.from(`0190f000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`, 'latin1').toString('latin1');

function setupState(): Uint8Array {
  const x = new Exchange({ events: false });
  const ts = 1_700_000_000_000;
  const ok = (c: Command) => {
    const r = x.apply(c);
    if (!r.ok) throw new Error(`setup: ${r.code}`);
  };
  ok({ type: 'CreateLeague', ts, code: 'NFL', name: 'NFL' });
  ok({
    type: 'CreateEvent',
    ts,
    event: {
      id: 'e',
      type: 'Game',
      status: 'OPEN_PREGAME',
      description: 'e',
      league: 'NFL',
      scheduledStart: ts,
    },
    game: null,
    markets: [
      {
        id: 'm',
        type: 'MONEY',
        strike: null,
        description: 'm',
        outcomes: [
          { id: 'm-a', description: 'a' },
          { id: 'm-b', description: 'b' },
        ],
      },
    ],
  });
  for (let a = 0; a < ACCOUNTS; a++) {
    ok({ type: 'CreateAccount', ts, accountId: `acct-${a}` });
    // 1e12 each: the currency's money in the exchange stays under MAX_MONEY (units.ts), and no
    // account runs short (an order reserves at most 0.6 × 6,000 MCU = 3.6e6)
    ok({ type: 'Deposit', ts, accountId: `acct-${a}`, currency: 'CASH', amount: 1e12 });
  }
  return x.snapshot();
}

/** An operation: one command, or a move's cancel + place (the baseline). */
type Op = Command[];

/** The stream of `OPS` operations after `RESTING` resting placements; `amend`: moves as AmendOrder. */
function buildStream(snap: Uint8Array, amend: boolean): { warm: Command[]; ops: Op[]; restingAtEnd: number } {
  const x = new Exchange({ events: false });
  x.restore(snap);
  const r = rng(20_261_126);
  let ts = 1_700_000_001_000;
  let n = 0;
  const live: { id: string; acct: string; side: number; level: number; qty: number }[] = [];
  const placeCmd = (acct: string, side: number, level: number, qty: number, tif: 'GTC' | 'IOC'): Command => ({
    type: 'PlaceOrder',
    ts,
    orderId: uuid(n++),
    accountId: acct,
    outcomeId: side === 0 ? 'm-a' : 'm-b',
    currency: 'CASH',
    price: TICKS[level]!,
    qty,
    tif,
  });
  // Passive levels: side 0 bids 0.365–0.400, side 1 bids 0.560–0.595 (never crossing each other).
  const passive = (side: number) => (side === 0 ? A_TOP : B_TOP) - Math.floor(r() * 8);
  const apply = (c: Command) => {
    x.apply(c);
  };
  const warm: Command[] = [];
  for (let i = 0; i < RESTING; i++) {
    const side = i & 1;
    const c = placeCmd(
      `acct-${Math.floor(r() * ACCOUNTS)}`,
      side,
      passive(side),
      100 * (1 + Math.floor(r() * 10)),
      'GTC',
    );
    apply(c);
    warm.push(c);
    live.push({
      id: (c as { orderId: string }).orderId,
      acct: (c as { accountId: string }).accountId,
      side,
      level: 0,
      qty: 0,
    });
  }
  const pickLive = () => {
    for (;;) {
      if (live.length === 0) return undefined;
      const k = Math.floor(r() * live.length);
      const o = live[k]!;
      const rec = x.order(o.id);
      if (rec) {
        o.qty = rec.qty;
        o.level = TICKS.indexOf(rec.price);
        return { o, k };
      }
      live[k] = live[live.length - 1]!;
      live.pop();
    }
  };
  const ops: Op[] = [];
  for (let i = 0; i < OPS; i++) {
    ts += 1;
    const y = r();
    const acct = `acct-${Math.floor(r() * ACCOUNTS)}`;
    let op: Op;
    if (y < 0.09 || live.length < 10) {
      const side = r() < 0.5 ? 0 : 1;
      const c = placeCmd(acct, side, passive(side), 100 * (1 + Math.floor(r() * 10)), 'GTC');
      live.push({ id: (c as { orderId: string }).orderId, acct, side, level: 0, qty: 0 });
      op = [c];
    } else if (y < 0.12) {
      // IOC: crosses the other side's best few levels (a third of them fill something)
      const side = r() < 0.5 ? 0 : 1;
      const lv = (side === 0 ? A_TOP + 1 : B_TOP + 1) + Math.floor(r() * 3);
      // larger while the book holds more than its target, so it stays near RESTING orders
      const size = 100 * (1 + Math.floor(r() * 5)) * (live.length > RESTING ? 12 : 1);
      op = [placeCmd(acct, side, lv, size, 'IOC')];
    } else if (y < 0.18) {
      const p = pickLive();
      if (!p) continue;
      live[p.k] = live[live.length - 1]!;
      live.pop();
      op = [{ type: 'CancelOrder', ts, accountId: p.o.acct, orderId: p.o.id }];
    } else {
      const p = pickLive();
      if (!p) continue;
      const to = passive(p.o.side);
      const level = to === p.o.level ? to - 1 : to;
      if (amend)
        op = [{ type: 'AmendOrder', ts, accountId: p.o.acct, orderId: p.o.id, price: TICKS[level]! }];
      else {
        const c = placeCmd(p.o.acct, p.o.side, level, p.o.qty, 'GTC');
        op = [{ type: 'CancelOrder', ts, accountId: p.o.acct, orderId: p.o.id }, c];
        p.o.id = (c as { orderId: string }).orderId;
      }
    }
    for (const c of op) apply(c);
    ops.push(op);
  }
  return { warm, ops, restingAtEnd: x.restingCount };
}

function fresh(snap: Uint8Array, warm: Command[], events: boolean, Ctor = Exchange): Exchange {
  const x = new Ctor({ events });
  x.restore(snap);
  for (const c of warm) x.apply(structuredClone(c));
  return x;
}

/** Commands are cloned before timing: an engine that records handles writes into them. */
const cloneOps = (ops: Op[]) => ops.map((op) => op.map((c) => ({ ...c })) as Op);

/**
 * `--consume`: each accepted result's events go into the history projection's batch
 * (src/runtime/history.ts `HistoryBatch`, which reads every event and keeps orders and fills) and
 * are held there for 1,000 operations, as the server holds a command's events until its group
 * commit is durable: they outlive young-generation collections there, where without it the bench
 * drops them at once. Off by default, so the figures compare with earlier ones.
 */
const CONSUME = process.argv.includes('--consume');
const HOLD = 1_000;
class Consumer {
  private batch = new HistoryBatch();
  private n = 0;
  private seq = 0;
  take(r: CommandResult, ts: number): void {
    this.seq++;
    if (r.ok && r.events.length > 0) this.batch.add(this.seq, r.events, ts);
  }
  /** After each operation: a new batch every HOLD operations (the old one is dropped). */
  next(): void {
    if (++this.n % HOLD === 0) this.batch = new HistoryBatch();
  }
}

function throughput(
  snap: Uint8Array,
  warm: Command[],
  ops: Op[],
  events: boolean,
  Ctor = Exchange,
): { opsPerSec: number; cmdsPerSec: number } {
  const x = fresh(snap, warm, events, Ctor);
  const todo = cloneOps(ops);
  const consumer = CONSUME ? new Consumer() : undefined;
  gc?.();
  let cmds = 0;
  const t0 = performance.now();
  for (const op of todo) {
    if (consumer === undefined) for (const c of op) x.apply(c);
    else {
      for (const c of op) consumer.take(x.apply(c), c.ts);
      consumer.next();
    }
    cmds += op.length;
  }
  const s = (performance.now() - t0) / 1000;
  return { opsPerSec: todo.length / s, cmdsPerSec: cmds / s };
}

/** Garbage collections as Node reports them (start on performance.now()'s clock, duration ms). */
const collections: { start: number; ms: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) collections.push({ start: e.startTime, ms: e.duration });
}).observe({ entryTypes: ['gc'] });

/** Collections that began inside [from, to], once Node has reported them (after a turn). */
async function collectionsIn(from: number, to: number): Promise<{ n: number; total: number; max: number }> {
  await new Promise((r) => setTimeout(r, 20)); // one turn is not enough for Node to deliver them
  const inside = collections.filter((g) => g.start >= from && g.start <= to);
  return {
    n: inside.length,
    total: inside.reduce((a, g) => a + g.ms, 0),
    max: inside.reduce((a, g) => Math.max(a, g.ms), 0),
  };
}

function latency(
  snap: Uint8Array,
  warm: Command[],
  ops: Op[],
  rate: number,
): { p50: number; p99: number; p9999: number; max: number; from: number; to: number } {
  const x = fresh(snap, warm, true);
  const todo = cloneOps(ops);
  const consumer = CONSUME ? new Consumer() : undefined;
  const lat = new Float64Array(todo.length);
  gc?.();
  const interval = 1000 / rate; // ms
  const t0 = performance.now() + 1;
  for (let i = 0; i < todo.length; i++) {
    const due = t0 + i * interval;
    while (performance.now() < due) {
      /* spin: the offered rate, not the engine, sets the pace */
    }
    if (consumer === undefined) for (const c of todo[i]!) x.apply(c);
    else {
      for (const c of todo[i]!) consumer.take(x.apply(c), c.ts);
      consumer.next();
    }
    lat[i] = (performance.now() - due) * 1000; // µs
  }
  const to = performance.now();
  lat.sort();
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))]!;
  return { p50: q(0.5), p99: q(0.99), p9999: q(0.9999), max: lat[lat.length - 1]!, from: t0, to };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const snap = setupState();
const amends = buildStream(snap, true);
const variants = [
  { label: 'moves as CancelOrder + PlaceOrder (baseline)', Ctor: Exchange, ...buildStream(snap, false) },
  { label: 'moves as AmendOrder', Ctor: Exchange, ...amends },
  ...(Before === undefined
    ? []
    : [{ label: `moves as AmendOrder, engine of ${beforeDir}`, Ctor: Before, ...amends }]),
];
/** Per round and events mode: this tree's amend stream ÷ the --before engine's (operations/s). */
const vsBefore: Record<string, number[]> = {};
console.log(
  `\nexchange-core mix (9 % GTC, 3 % IOC, 6 % cancel, 82 % move), ${OPS} operations, ${RESTING} resting at start, ${RUNS} rounds`,
);
console.log(
  `load average at start: ${loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')}`,
);
for (const v of variants) console.log(`  ${v.label}: ${v.restingAtEnd} resting at the end`);
console.log('\n| round | variant | events | operations/s | commands/s | vs baseline (same round) |');
console.log('|---:|---|---|---:|---:|---:|');
const tp: Record<string, number[]> = {};
const ratio: Record<string, number[]> = {};
for (let round = 0; round < (AB_ONLY ? 0 : RUNS); round++) {
  for (const events of [true, false]) {
    let base = 0;
    const rates: number[] = [];
    // the baseline first; this tree's amends and the --before engine's alternate which goes first
    const order = round % 2 === 0 ? [0, 1, 2] : [0, 2, 1];
    for (const i of order) {
      const v = variants[i];
      if (v === undefined) continue;
      const r = throughput(snap, v.warm, v.ops, events, v.Ctor);
      rates[i] = r.opsPerSec;
      const key = `${v.label}|${events}`;
      tp[key] = [...(tp[key] ?? []), r.opsPerSec];
      if (i === 0) base = r.opsPerSec;
      else ratio[key] = [...(ratio[key] ?? []), r.opsPerSec / base];
      console.log(
        `| ${round + 1} | ${v.label} | ${events ? 'on' : 'off'} | ${Math.round(r.opsPerSec)} | ${Math.round(r.cmdsPerSec)} | ${i === 0 ? '—' : (r.opsPerSec / base).toFixed(2)} |`,
      );
    }
    if (rates[2] !== undefined)
      vsBefore[String(events)] = [...(vsBefore[String(events)] ?? []), rates[1]! / rates[2]];
  }
}
console.log(
  '\nMedians (operations/s)\n\n| variant | events | operations/s | median per-round ratio |\n|---|---|---:|---:|',
);
for (const [key, xs] of Object.entries(tp)) {
  const [label, events] = key.split('|');
  console.log(
    `| ${label} | ${events === 'true' ? 'on' : 'off'} | ${Math.round(median(xs))} | ${ratio[key] ? median(ratio[key]!).toFixed(2) : '—'} |`,
  );
}
for (const [events, xs] of Object.entries(vsBefore)) {
  console.log(
    `\nthis tree ÷ ${beforeDir}, amends, events ${events === 'true' ? 'on' : 'off'}: per round ${xs.map((x) => x.toFixed(3)).join(' ')}, median ${median(xs).toFixed(3)}`,
  );
}
if (Before !== undefined) {
  console.log(`\nLockstep A/B of the amend stream, this tree ÷ ${beforeDir} (CPU time, lower is faster)\n`);
  console.log(
    '| events | this tree median CPU ms | before median CPU ms | median ratio of pairs of rounds | per pair | per round |',
  );
  console.log('|---|---:|---:|---:|---|---|');
  // `--stream-file <path>`: kept there, to run the lockstep script again on the same stream
  const keep = arg('stream-file');
  const dir = keep === undefined ? mkdtempSync(join(tmpdir(), 'engine-mix-')) : undefined;
  const file = keep ?? join(dir!, 'stream.json');
  writeFileSync(
    file,
    JSON.stringify({ snap: Buffer.from(snap).toString('base64'), warm: amends.warm, ops: amends.ops }),
  );
  const lockstepScript = fileURLToPath(new URL('./lib/engine-mix-lockstep.ts', import.meta.url));
  const here = fileURLToPath(new URL('..', import.meta.url));
  const args = ['--after', here, '--before', beforeDir!, '--file', file, '--runs', String(RUNS)];
  const r = spawnSync(process.execPath, [...process.execArgv, lockstepScript, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (dir !== undefined) rmSync(dir, { recursive: true });
  if (r.status !== 0) throw new Error('lockstep child failed');
  process.stdout.write(r.stdout);
}
console.log('\nLatency per operation at fixed offered rates, events on (µs, completion − due time)\n');
// The collections inside each window: how many, their total and longest pause (ms). A pause delays
// every operation due during it and the backlog behind it, so they say how much of the tail is GC.
console.log(
  '| rate (ops/s) | variant | p50 | p99 | p99.99 | max | collections in the window (n, total ms, longest ms) |\n|---:|---|---:|---:|---:|---:|---|',
);
for (const rate of AB_ONLY ? [] : RATES) {
  for (const v of variants.slice(0, 2)) {
    const l = latency(snap, v.warm, v.ops.slice(0, Math.min(v.ops.length, rate * 2)), rate);
    const g = await collectionsIn(l.from, l.to);
    console.log(
      `| ${rate} | ${v.label} | ${l.p50.toFixed(2)} | ${l.p99.toFixed(2)} | ${l.p9999.toFixed(1)} | ${l.max.toFixed(0)} | ${g.n}, ${g.total.toFixed(1)}, ${g.max.toFixed(1)} |`,
    );
  }
}
console.log(
  `\nload average at the end: ${loadavg()
    .map((v) => v.toFixed(2))
    .join(' ')}`,
);
console.log('targets: ≥ 2,000,000 commands/s with events on; p99 ≤ 5 µs at 1,000,000/s');
