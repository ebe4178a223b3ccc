// Matching-engine benchmark (docs/bench-engine.md). A deterministic stream of commands (bids on both
// outcomes of a handful of markets around a mid price, about a third of them crossing, some cancels,
// accounts funded first) runs through `Exchange.apply` with accounts, collateral and risk checks; the
// equivalent stream (bid on A at p = buy at p, bid on B at q = sell A at 1 − q) runs through
// nodejs-order-book in the same process as the baseline, on the same full stream (and, for comparison
// with earlier reports, on its first 50,000 commands), interleaved run by run. Then memory per resting order with 1,000,000
// resting orders, and snapshot/restore/hash time of that state.
//
//   node --expose-gc --import tsx bench/engine.ts [--n 1000000] [--runs 3] [--baseline 50000] [--resting 1000000]

import { availableParallelism, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { OrderBook } from 'nodejs-order-book';
import { Exchange } from '../src/exchange/exchange.ts';
import { IdIndex } from '../src/exchange/id-index.ts';
import { I_TIF, IW, OrderPool } from '../src/exchange/order-pool.ts';
import { TICK_INDEX, TICKS } from '../src/exchange/ticks.ts';
import type { Command, MarketSpec } from '../src/exchange/types.ts';
import { rng } from '../test/helpers/prng.ts';
import { numArg } from './lib/args.ts';

const N = numArg('n', 1_000_000);
const RUNS = numArg('runs', 3);
const BASELINE_N = numArg('baseline', 50_000);
const RESTING = numArg('resting', 1_000_000);
const MARKETS = 8;
const ACCOUNTS = 1_000;
/** Commands generated per batch between timed sections (see Stream for why 1,000). */
export const CHUNK = 1_000;
const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Order ids as flat strings, as the server hands them to the engine: `uuidv7()` decodes one buffer
 * and replayed commands come out of JSON.parse. A template literal would build a cons string whose
 * first hash has to flatten it (~25% of the engine's time per order when the bench did that).
 */
const uuid = (i: number) =>
  Buffer.from(`0190f000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`, 'latin1').toString('latin1');
const accountId = (i: number) => `acct-${i}`;

export function setupCommands(): Command[] {
  const ts = 1_700_000_000_000;
  const markets: MarketSpec[] = Array.from({ length: MARKETS }, (_, m) => ({
    id: `m${m}`,
    type: 'MONEY',
    strike: null,
    description: `market ${m}`,
    outcomes: [
      { id: `m${m}-a`, description: 'home' },
      { id: `m${m}-b`, description: 'away' },
    ],
  }));
  const out: Command[] = [
    { type: 'CreateLeague', ts, code: 'NFL', name: 'NFL' },
    {
      type: 'CreateEvent',
      ts,
      event: {
        id: 'e',
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'bench',
        league: 'NFL',
        scheduledStart: ts,
      },
      game: null,
      markets,
    },
  ];
  for (let a = 0; a < ACCOUNTS; a++) {
    out.push({ type: 'CreateAccount', ts, accountId: accountId(a) });
    out.push({ type: 'Deposit', ts, accountId: accountId(a), currency: 'CASH', amount: 1e11 });
  }
  return out;
}

/**
 * The stream: 88% bids, 12% cancels of an earlier order (some already filled: rejected, as in
 * life). A bid's price is mid − d levels (d in −4..7, tick steps of 0.005) on either outcome, so the
 * books settle just under 1 with a spread, and bids reaching past the other side's best cross.
 *
 * Commands are produced in chunks of CHUNK (`next(k)`), not all at once: a million pre-built
 * command objects kept alive for the whole run made every major GC of the timed loop mark ~250 MB
 * of bench data (one mark-compact cost ~0.4 s of a ~2.4 s run), and 10k-command chunks still lived
 * long enough to be promoted and collected by major GCs (~15% of the events-mode time). A server's
 * commands are parsed, applied and dropped; a 1,000-command batch is what a sequencer hands over at
 * once. Chunk generation is outside the timed region. The stream itself (same seed) is unchanged.
 */
export class Stream {
  private readonly r: () => number;
  private readonly placed: string[] = [];
  private readonly owner: number[] = [];
  private i = 0;
  bids = 0;
  /**
   * `handles`: commands carry the account and outcome handles (`ah`, `oh`) as the journal records
   * them (docs/journal.md), i.e. what replay reads; without, they carry ids only, as the edge
   * submits them and as journals written before handles hold them.
   */
  constructor(
    readonly n: number,
    private readonly seed: number,
    readonly handles = false,
  ) {
    this.r = rng(seed);
  }
  /** A fresh stream with the same seed (the same commands again), with or without handles. */
  again(handles = this.handles): Stream {
    return new Stream(this.n, this.seed, handles);
  }
  /** The next up to `k` commands (empty at the end). */
  next(k: number): Command[] {
    const r = this.r;
    const mid = TICK_INDEX[500]!;
    const end = Math.min(this.n, this.i + k);
    const cmds: Command[] = new Array(end - this.i);
    for (let j = 0; this.i < end; this.i++, j++) {
      const i = this.i;
      const ts = 1_700_000_001_000 + i;
      if (r() < 0.12 && this.placed.length > 0) {
        const k = Math.floor(r() * this.placed.length);
        const owner = this.owner[k]!;
        cmds[j] = this.handles
          ? { type: 'CancelOrder', ts, accountId: accountId(owner), ah: owner, orderId: this.placed[k]! }
          : { type: 'CancelOrder', ts, accountId: accountId(owner), orderId: this.placed[k]! };
        continue;
      }
      const m = Math.floor(r() * MARKETS);
      const side = r() < 0.5 ? 'a' : 'b';
      const d = Math.floor(r() * 12) - 4;
      const a = Math.floor(r() * ACCOUNTS);
      const id = uuid(i);
      this.placed.push(id);
      this.owner.push(a);
      this.bids++;
      const price = TICKS[mid - d]!;
      const qty = 1 + Math.floor(r() * 1000);
      // Accounts and markets are created in order (setupCommands), so their handles are their numbers.
      cmds[j] = this.handles
        ? {
            type: 'PlaceOrder',
            ts,
            orderId: id,
            accountId: accountId(a),
            ah: a,
            outcomeId: `m${m}-${side}`,
            oh: m * 2 + (side === 'a' ? 0 : 1),
            currency: 'CASH',
            price,
            qty,
            tif: 'GTC',
          }
        : {
            type: 'PlaceOrder',
            ts,
            orderId: id,
            accountId: accountId(a),
            outcomeId: `m${m}-${side}`,
            currency: 'CASH',
            price,
            qty,
            tif: 'GTC',
          };
    }
    return cmds;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** CPU milliseconds of this process (user + system): steadier than wall time on a shared machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * The stream through one Exchange. `handles`: the commands carry handles (journal replay); the
 * engine records handles on commands that come without (as the server's does, for its journal).
 */
function runEngine(
  stream: Stream,
  events: boolean,
  handles: boolean,
): {
  ms: number;
  cpu: number;
  accepted: number;
  fills: number;
  resting: number;
  crossing: number;
  bids: number;
} {
  const x = new Exchange({ events, recordHandles: true });
  for (const c of setupCommands()) if (!x.apply(c).ok) throw new Error('setup failed');
  gc?.();
  let accepted = 0;
  let fills = 0;
  let crossing = 0;
  const s = stream.again(handles);
  let ms = 0;
  let cpu = 0;
  for (let chunk = s.next(CHUNK); chunk.length > 0; chunk = s.next(CHUNK)) {
    const c0 = cpuMs();
    const t0 = performance.now();
    for (let i = 0; i < chunk.length; i++) {
      const res = x.apply(chunk[i]!);
      if (res.ok) {
        accepted++;
        let f = 0;
        const evs = res.events;
        for (let j = 0; j < evs.length; j++) if (evs[j]!.kind === 'OrderFilled') f++;
        if (f > 0) crossing++;
        fills += f >> 1;
      }
    }
    ms += performance.now() - t0;
    cpu += cpuMs() - c0;
  }
  if (x.totals().CASH.imbalance !== 0) throw new Error('money not conserved');
  return { ms, cpu, accepted, fills, resting: x.restingCount, crossing, bids: s.bids };
}

/**
 * The floor under any engine that takes this stream's commands as they are: only the lookups of a
 * command's string ids (account Map.get, outcome Map.get, order-id hash and probe of an id table
 * holding ~300k live ids, as the engine's does by the end), no matching, money or positions.
 */
function runLookupFloor(stream: Stream): { ms: number; cpu: number } {
  const accounts = new Map<string, number>();
  for (let a = 0; a < ACCOUNTS; a++) accounts.set(accountId(a), a);
  const outcomes = new Map<string, number>();
  for (let m = 0; m < MARKETS; m++) {
    outcomes.set(`m${m}-a`, m * 2);
    outcomes.set(`m${m}-b`, m * 2 + 1);
  }
  const pool = new OrderPool(1024);
  const index = new IdIndex(pool);
  for (let i = 0; i < 300_000; i++) {
    const hash = index.key(uuid(N + i));
    const h = pool.alloc();
    pool.i32[h * IW + I_TIF] = 0;
    index.insertKey(hash, h);
  }
  const s = stream.again();
  let ms = 0;
  let cpu = 0;
  let sink = 0;
  for (let chunk = s.next(CHUNK); chunk.length > 0; chunk = s.next(CHUNK)) {
    const c0 = cpuMs();
    const t0 = performance.now();
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c.type !== 'PlaceOrder' && c.type !== 'CancelOrder') continue;
      sink += accounts.get(c.accountId) ?? 0;
      if (c.type === 'PlaceOrder') sink += outcomes.get(c.outcomeId) ?? 0;
      sink += index.get(c.orderId);
    }
    ms += performance.now() - t0;
    cpu += cpuMs() - c0;
  }
  if (sink === Number.MIN_SAFE_INTEGER) console.log(sink); // keep the loop observable
  return { ms, cpu };
}

/**
 * The same stream through nodejs-order-book: `n` commands, handed over in the engine's batches
 * (generation untimed), so the prefix and the full stream are the same work the engine does.
 */
function runBaseline(stream: Stream, n: number): { ms: number; cpu: number; trades: number } {
  const s = stream.again();
  const books = Array.from({ length: MARKETS }, () => new OrderBook());
  let trades = 0;
  let done = 0;
  let ms = 0;
  let cpu = 0;
  const bookOf = new Map<string, OrderBook>();
  for (
    let cmds = s.next(Math.min(CHUNK, n));
    cmds.length > 0 && done < n;
    cmds = s.next(Math.min(CHUNK, n - done))
  ) {
    const c0 = cpuMs();
    const t0 = performance.now();
    for (let i = 0; i < cmds.length; i++) {
      const c = cmds[i]!;
      if (c.type === 'PlaceOrder') {
        const m = Number(c.outcomeId.slice(1, c.outcomeId.indexOf('-')));
        const ob = books[m]!;
        const isA = c.outcomeId.endsWith('-a');
        const res = ob.limit({
          id: c.orderId,
          side: isA ? ('buy' as never) : ('sell' as never),
          size: c.qty,
          price: isA ? c.price : 1000 - c.price,
        });
        trades += res.done.length;
        bookOf.set(c.orderId, ob);
      } else if (c.type === 'CancelOrder') {
        bookOf.get(c.orderId)?.cancel(c.orderId);
      }
    }
    ms += performance.now() - t0;
    cpu += cpuMs() - c0;
    done += cmds.length;
  }
  return { ms, cpu, trades };
}

function memoryAndSnapshot(n: number): Record<string, string> {
  gc?.();
  gc?.();
  // Typed-array backing stores (order pool, id table, wallets) live outside the V8 heap:
  // arrayBuffers counts them, heapUsed does not.
  const heap0 = process.memoryUsage().heapUsed;
  const ab0 = process.memoryUsage().arrayBuffers;
  const rss0 = process.memoryUsage().rss;
  const x = new Exchange();
  for (const c of setupCommands()) x.apply(c);
  // Non-crossing bids (both outcomes at ≤ 0.495, so p + q < 1), applied in chunks so the commands
  // never all exist at once: what remains is the engine's state, order-id strings included.
  const r = rng(7);
  const CHUNK = 10_000;
  const low = TICK_INDEX[495]!;
  for (let base = 0; base < n; base += CHUNK) {
    const chunk: Command[] = [];
    for (let i = base; i < Math.min(n, base + CHUNK); i++) {
      chunk.push({
        type: 'PlaceOrder',
        ts: 1_700_000_001_000 + i,
        orderId: uuid(i),
        accountId: accountId(Math.floor(r() * ACCOUNTS)),
        outcomeId: `m${Math.floor(r() * MARKETS)}-${r() < 0.5 ? 'a' : 'b'}`,
        currency: 'CASH',
        price: TICKS[low - Math.floor(r() * 40)]!,
        qty: 1 + Math.floor(r() * 1000),
        tif: 'GTC',
      });
    }
    for (const c of chunk) if (!x.apply(c).ok) throw new Error('resting order rejected');
  }
  gc?.();
  gc?.();
  const heap1 = process.memoryUsage().heapUsed;
  const ab1 = process.memoryUsage().arrayBuffers;
  const rss1 = process.memoryUsage().rss;
  let t = performance.now();
  const snap = x.snapshot();
  const snapMs = performance.now() - t;
  t = performance.now();
  const y = new Exchange();
  y.restore(snap);
  const restoreMs = performance.now() - t;
  t = performance.now();
  const h1 = x.hash();
  const hashMs = performance.now() - t;
  const same = y.hash() === h1;
  return {
    'resting orders': String(x.restingCount),
    'heap + array buffers / order (B)': ((heap1 - heap0 + ab1 - ab0) / n).toFixed(0),
    'of which array buffers (B)': ((ab1 - ab0) / n).toFixed(0),
    'RSS delta / order (B)': ((rss1 - rss0) / n).toFixed(0),
    'snapshot size (MB)': (snap.byteLength / 1e6).toFixed(1),
    'snapshot (ms)': snapMs.toFixed(0),
    'restore (ms)': restoreMs.toFixed(0),
    'hash (ms)': hashMs.toFixed(0),
    'restored hash equal': String(same),
  };
}

function main(): void {
  if (!gc) console.log('(run with --expose-gc for stable memory figures)');
  const stream = new Stream(N, 42);
  console.log(
    `engine: ${N} commands x ${RUNS} runs; nodejs-order-book: the same ${N} and the first ${BASELINE_N}, x ${RUNS} runs`,
  );
  const eng: number[] = [];
  const engCpu: number[] = [];
  const quiet: number[] = [];
  const quietCpu: number[] = [];
  const old: number[] = [];
  const oldCpu: number[] = [];
  const full: number[] = [];
  const fullCpu: number[] = [];
  const ratios: number[] = [];
  let info = { accepted: 0, fills: 0, resting: 0, crossing: 0, bids: 0 };
  let fullTrades = 0;
  // Each run measures the engine (live path, replay of a journal with handles, replay of one
  // without) and nodejs-order-book on the same full stream back to back, so the per-run ratio
  // compares the same machine state.
  for (let i = 0; i < RUNS; i++) {
    gc?.();
    const r = runEngine(stream, true, false);
    eng.push(r.ms);
    engCpu.push(r.cpu);
    info = r;
    gc?.();
    const q = runEngine(stream, false, true);
    quiet.push(q.ms);
    quietCpu.push(q.cpu);
    gc?.();
    const o = runEngine(stream, false, false);
    old.push(o.ms);
    oldCpu.push(o.cpu);
    gc?.();
    const b = runBaseline(stream, N);
    full.push(b.ms);
    fullCpu.push(b.cpu);
    fullTrades = b.trades;
    ratios.push(b.ms / r.ms);
  }
  const floor: number[] = [];
  const floorCpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    gc?.();
    const r = runLookupFloor(stream);
    floor.push(r.ms);
    floorCpu.push(r.cpu);
  }
  const base: number[] = [];
  const baseCpu: number[] = [];
  let trades = 0;
  for (let i = 0; i < RUNS; i++) {
    gc?.();
    const r = runBaseline(stream, Math.min(BASELINE_N, N));
    base.push(r.ms);
    baseCpu.push(r.cpu);
    trades = r.trades;
  }
  const places = info.bids;
  const baseN = Math.min(BASELINE_N, N);
  // Ratios are against nodejs-order-book on the same full stream (the prefix row is shown for
  // comparison with earlier reports: its books are shallow, so it runs faster per command).
  const baseRate = N / (median(full) / 1000);
  const baseCpuRate = N / (median(fullCpu) / 1000);
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  /** One table row: rates from the median wall and CPU times, ratios against the baseline's. */
  const row = (engine: string, n: number, wall: number[], cpu: number[]) => {
    const rate = n / (median(wall) / 1000);
    const cpuRate = n / (median(cpu) / 1000);
    return {
      engine,
      commands: n,
      'median ms': median(wall).toFixed(0),
      'commands/s': fmt(rate),
      ratio: (rate / baseRate).toFixed(1),
      'commands/CPU-s': fmt(cpuRate),
      'CPU ratio': (cpuRate / baseCpuRate).toFixed(1),
    };
  };
  console.log(
    `stream: ${places} bids (${((info.crossing / places) * 100).toFixed(1)}% crossing), ${N - places} cancels; ` +
      `${info.accepted} accepted, ${info.fills} matches, ${info.resting} resting at the end`,
  );
  console.table([
    row('Tickbook Exchange.apply (accounts, collateral, events; ids as the edge sends them)', N, eng, engCpu),
    row('Tickbook Exchange.apply, replay mode (no events; journal with handles)', N, quiet, quietCpu),
    row('Tickbook Exchange.apply, replay mode, journal records without handles', N, old, oldCpu),
    row('floor: only the string-id lookups of each command', N, floor, floorCpu),
    row('nodejs-order-book limit/cancel (no accounts), full stream', N, full, fullCpu),
    row(`nodejs-order-book, first ${baseN} commands only`, baseN, base, baseCpu),
  ]);
  console.log(
    `engine (events) ÷ nodejs-order-book on the full stream, per run: ${ratios.map((x) => x.toFixed(1)).join(' ')} (median ${median(ratios).toFixed(1)})`,
  );
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  console.log(
    `(baseline trades: ${fullTrades} on the full stream, ${trades} on its prefix; load average ${load} on ${availableParallelism()} cores)`,
  );
  if (RESTING > 0) console.table([memoryAndSnapshot(RESTING)]);
}

// Run only as a script: bench/engine-ab.ts imports the stream from here.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
