// Settling a market that 100,000 open parlays share (docs/bench-parlay-trading.md), in two parts.
//
// 1. Engine, in process, events on: 100,000 two-leg parlays (legs on M1 and M2 of one game, every
//    one a ParlayRequest, a ParlayQuote and a ParlayWager) are built once and snapshotted; each
//    round restores two copies and settles M1 with the result that makes every parlay's M1 leg
//    lose (so every parlay settles and pays its maker): once as ONE SettleMarket with no budget
//    (the baseline, how the engine settled before chunks), once in chunks as the runtime issues
//    them (a SettleMarket with parlayBudget = the chunk, then SettleParlays of `chunk` until none
//    is due, back to back). Wall, CPU and the longest single command of each.
// 2. The real server, in this process (startServer on the embedded store, its journal, history
//    projector and stream), with a probe in another process (bench/lib/probe-child.mjs): four
//    lanes that each GET a book every 20 ms (one read due every 5 ms) and one that places a resting
//    order every 20 ms; a request's wait runs from when it was due to its answer. Each round builds
//    100,000 open parlays on a fresh game through the runtime, then
//    probes two windows of the same length, in alternating order: one with nothing else running
//    (the baseline) and one in which the market's SettleMarket is submitted, which the runtime
//    settles in chunks (docs/parlays.md "Settlement in chunks"). Reports each window's max and p99
//    wait and the settlement's wall (SettleMarket submitted → no parlay due) and process CPU.
//    The machine is shared, so it also separates the server's own stalls from the machine's: each
//    request's answer time less the probe's own lateness in sending it, the event-loop delay of
//    the server and of the probe, the most CPU the server spent in one event-loop turn, and the
//    main thread's time on a core and waiting for one during the settlement (bench/lib/gap-trace.ts).
//
//   node --import tsx --expose-gc bench/parlay-settle.ts [--parlays 100000] [--runs 3]
//     [--server-runs 3] [--chunk 500] [--server-chunk 500] [--window-ms 3000]
//     [--trace] [--cpu-prof DIR] [--ab CHECKOUT [--pairs 2] [--ab-branch DIR]]
//   --chunk sets the engine half's chunk; --server-chunk the server's (its PARLAY_SETTLE_CHUNK);
//   both default to that variable's default.
//   --trace prints the worst read wait per 100 ms of each settlement window, and the server's
//   event-loop gaps over 30 ms and GC pauses of both windows, with the longest journal append →
//   durable and the longest other command's (the probe's orders) submit → durable.
//   Every server round also reports each thread's time on a core during the settlement
//   (bench/lib/thread-cpu.ts) and when the history projection caught up with it.
//   --ab CHECKOUT [--pairs 2] [--ab-branch DIR]: runs the same command (less these options) as
//   fresh processes from this checkout (or --ab-branch) and from CHECKOUT (its own bench file and
//   src/), interleaved, the side that goes first alternating by pair, and compares them
//   (bench/lib/settle-ab.ts).
//   --cpu-prof writes a V8 CPU profile of the server's main thread (this process) from the
//   SettleMarket's submit to the last chunk's apply, one file per server round, into DIR.

import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Exchange } from '../src/exchange/exchange.ts';
import type { Command, CommandInput, CommandResult, Currency, MarketSpec } from '../src/exchange/types.ts';
import type { RunningServer } from '../src/main.ts';
import { PARLAY_SETTLE_CHUNK } from '../src/runtime/scheduler.ts';
import { ADMIN_ID, ADMIN_SECRET, Api, serverPlace, start } from '../test/helpers/server.ts';
import { arg, numArg } from './lib/args.ts';
import { schedstat, startGapTrace } from './lib/gap-trace.ts';
import { settleAb } from './lib/settle-ab.ts';
import { startThreadCpu } from './lib/thread-cpu.ts';

const N = numArg('parlays', 100_000);
const RUNS = numArg('runs', 3);
const SERVER_RUNS = numArg('server-runs', 3);
const CHUNK = numArg('chunk', PARLAY_SETTLE_CHUNK);
const SERVER_CHUNK = numArg('server-chunk', PARLAY_SETTLE_CHUNK);
const WINDOW_MS = numArg('window-ms', 3_000);
const TRACE = process.argv.includes('--trace');
const PROF_DIR = arg('cpu-prof');
const T0 = 1_700_000_000_000;
const ACCOUNTS = 1_000;
const load = () => loadavg()[0]!.toFixed(1);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

function ok(r: CommandResult): CommandResult {
  if (!r.ok) throw new Error(`rejected ${r.code}: ${r.message}`);
  return r;
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f1 = (x: number) => x.toFixed(1);

/** Market `id` with outcomes `${id}-a`, `${id}-b` (the history tables want UUIDs: `uuid` maps). */
const market = (id: string, uuid?: (outcome: string) => string): MarketSpec => ({
  id,
  type: 'MONEY',
  strike: null,
  description: id,
  outcomes: [
    { id: uuid?.(`${id}-a`) ?? `${id}-a`, description: `${id} home` },
    { id: uuid?.(`${id}-b`) ?? `${id}-b`, description: `${id} away` },
  ],
});

/** The catalog (league, teams) and `accounts`, each well funded, as commands without ts. */
function baseCommands(accounts: string[]): CommandInput[] {
  const team = (id: string) => ({ id, league: 'NFL', name: id, shortName: id, symbol: id, mascot: id });
  const cmds: CommandInput[] = [
    { type: 'CreateLeague', code: 'NFL', name: 'National Football League' },
    { type: 'CreateTeam', team: team('H') },
    { type: 'CreateTeam', team: team('A') },
  ];
  for (const a of accounts) {
    cmds.push({ type: 'CreateAccount', accountId: a });
    for (const currency of ['CASH', 'COIN'] as Currency[])
      cmds.push({ type: 'Deposit', accountId: a, currency, amount: 1e11 });
  }
  return cmds;
}

/** A game `ev` with two MONEY markets `m1`, `m2` (ids given), open pregame. */
function gameCommand(
  ev: string,
  m1: string,
  m2: string,
  scheduledStart: number,
  uuid?: (outcome: string) => string,
): CommandInput {
  return {
    type: 'CreateEvent',
    event: {
      id: ev,
      type: 'Game',
      status: 'OPEN_PREGAME',
      description: 'A @ H',
      league: 'NFL',
      scheduledStart,
    },
    game: { id: `G-${ev}`, homeTeamId: 'H', awayTeamId: 'A' },
    markets: [market(m1, uuid), market(m2, uuid)],
  };
}

/** Parlay i on legs `leg1`, `leg2` (outcome ids): a request by a taker, a maker's quote, the taker's wager. */
function parlayCommands(
  i: number,
  accounts: string[],
  leg1: string,
  leg2: string,
  expiresAt: number,
  tag: string,
): CommandInput[] {
  const requestId = `${tag}R${i}`;
  const taker = accounts[i % accounts.length]!;
  const maker = accounts[(i + 1 + (i % 7)) % accounts.length]!;
  return [
    {
      type: 'ParlayRequest',
      requestId,
      accountId: taker,
      currency: 'CASH',
      legs: [
        { outcomeId: leg1, price: 500_000 },
        { outcomeId: leg2, price: 400_000 },
      ],
      refPrice: 220_000,
      stake: null,
      expiresAt,
    },
    {
      type: 'ParlayQuote',
      quoteId: `${tag}q${i}`,
      requestId,
      accountId: maker,
      price: 250_000,
      maxQty: 100_000,
      expiresAt,
    },
    {
      type: 'ParlayWager',
      requestId,
      accountId: taker,
      stake: 250_000,
      maxPrice: 300_000,
      clientOrderId: null,
    },
  ];
}

// ------------------------------------------------------------------ 1. engine

interface EngineRun {
  ms: number;
  cpuMs: number;
  /** Longest single command (wall), ms, and the most CPU one command took, ms. */
  maxCmdMs: number;
  maxCmdCpuMs: number;
  /** Which command (0 = the SettleMarket) took the most CPU. */
  maxCmdAt: number;
  commands: number;
  events: number;
}

function engineSettle(bytes: Uint8Array, chunked: boolean): EngineRun {
  const x = new Exchange();
  x.restore(bytes);
  const ts = T0 + 1e9;
  ok(x.apply({ type: 'SetMarketStatus', ts, marketId: 'M1', status: 'CLOSED' }));
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let maxCmdMs = 0;
  let maxCmdCpuMs = 0;
  let maxCmdAt = 0;
  let events = 0;
  let commands = 0;
  const run = (c: Command) => {
    const t = performance.now();
    const cc = process.cpuUsage();
    const r = ok(x.apply(c));
    const cpu = process.cpuUsage(cc);
    maxCmdMs = Math.max(maxCmdMs, performance.now() - t);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    if (cpuMs > maxCmdCpuMs) {
      maxCmdCpuMs = cpuMs;
      maxCmdAt = commands;
    }
    events += r.ok ? r.events.length : 0;
    commands++;
  };
  run({
    type: 'SettleMarket',
    ts: ts + 1,
    marketId: 'M1',
    result: 'M1-b',
    ...(chunked ? { parlayBudget: CHUNK } : {}),
  });
  while (x.parlaySettlementsDue().length > 0)
    run({ type: 'SettleParlays', ts: ts + 2, marketId: 'M1', max: CHUNK });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const open = x.parlays('a0', { status: 'OPEN' }).length;
  if (open !== 0) throw new Error(`${open} parlays of a0 left unsettled`);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, maxCmdMs, maxCmdCpuMs, maxCmdAt, commands, events };
}

function enginePart(): void {
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => `a${i}`);
  const tb = performance.now();
  const x = new Exchange();
  let ts = T0;
  for (const c of [...baseCommands(accounts), gameCommand('E1', 'M1', 'M2', T0 + 3_600_000)])
    ok(x.apply({ ...c, ts } as Command));
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++) {
    ts = T0 + 10 + i;
    for (const c of parlayCommands(i, accounts, 'M1-a', 'M2-b', ts + 600_000, ''))
      ok(x.apply({ ...c, ts } as Command));
  }
  gc();
  const perParlay = (process.memoryUsage().heapUsed - heap0) / N;
  const bytes = x.snapshot();
  console.log(
    `engine: ${N} open parlays built in ${f1((performance.now() - tb) / 1000)} s; heap ${Math.round(perParlay)} B per open parlay (its request, quote and indexes); snapshot ${(bytes.length / 1e6).toFixed(1)} MB`,
  );
  const rows: { one: EngineRun; chunks: EngineRun }[] = [];
  for (let round = 1; round <= RUNS; round++) {
    const first = round % 2 === 1;
    const a = engineSettle(bytes, !first);
    const b = engineSettle(bytes, first);
    const row = first ? { one: a, chunks: b } : { one: b, chunks: a };
    rows.push(row);
    const f = (r: EngineRun) =>
      `${f1(r.ms)} ms wall, ${f1(r.cpuMs)} ms CPU, longest command ${f1(r.maxCmdMs)} ms wall / ${f1(r.maxCmdCpuMs)} ms CPU (command #${r.maxCmdAt}; ${r.commands} commands, ${r.events} events)`;
    console.log(
      `round ${round}: one command ${f(row.one)} | chunks of ${CHUNK} ${f(row.chunks)} | load ${load()}`,
    );
  }
  const med = (g: (r: { one: EngineRun; chunks: EngineRun }) => number) => f1(median(rows.map(g)));
  console.table({
    [`${N} parlays, one SettleMarket (baseline)`]: {
      wallMs: med((r) => r.one.ms),
      cpuMs: med((r) => r.one.cpuMs),
      longestCommandMs: med((r) => r.one.maxCmdMs),
      longestCommandCpuMs: med((r) => r.one.maxCmdCpuMs),
    },
    [`${N} parlays, chunks of ${CHUNK}`]: {
      wallMs: med((r) => r.chunks.ms),
      cpuMs: med((r) => r.chunks.cpuMs),
      longestCommandMs: med((r) => r.chunks.maxCmdMs),
      longestCommandCpuMs: med((r) => r.chunks.maxCmdCpuMs),
    },
  });
  console.log(
    `per-round ratio chunks ÷ one command, wall: ${rows.map((r) => (r.chunks.ms / r.one.ms).toFixed(2)).join(', ')}`,
  );
}

// ------------------------------------------------------------------ 2. the server, probed

interface Window {
  /** Each request's wait (due → answered), ms, and when it was due from the window's start. */
  read: number[];
  order: number[];
  readAt: number[];
  orderAt: number[];
  /** How late the probe sent each request (due → sent), ms: the probe's own lateness. */
  readLate: number[];
  orderLate: number[];
  errors: number;
  /** The probe process's own worst event-loop delay in the window, ms. */
  probeDelayMs: number;
  /** The server process's worst event-loop delay in the window, ms (monitorEventLoopDelay). */
  serverDelayMs: number;
  /** The server's event-loop gaps over 30 ms and GC pauses (gap-trace.ts; printed with --trace). */
  gaps: string[];
  /** The most CPU the server's main thread spent in one event-loop turn, ms (gap-trace.ts). */
  serverTurnCpuMs: number;
}

/** Each request's answer time (sent → answered), ms: its wait less the probe's own lateness. */
const answered = (waits: number[], late: number[]) => waits.map((w, i) => w - late[i]!);

/** The worst read wait per 100 ms of the window, by when the read was due (--trace). */
function trace(w: Window): string {
  const worst: number[] = [];
  w.readAt.forEach((at, i) => {
    const k = Math.floor(at / 100);
    worst[k] = Math.max(worst[k] ?? 0, w.read[i]!);
  });
  return Array.from(worst, (x) => Math.round(x ?? 0)).join(' ');
}
interface Settled {
  /** SettleMarket submitted → no parlay due (every chunk applied), ms. */
  appliedMs: number;
  /** The longest synchronous apply of one settling command (engine + the stream's frames), wall
   * and CPU, ms: how long one chunk holds the event loop. */
  maxApplyMs: number;
  maxApplyCpuMs: number;
  /** Median CPU of one settling command's synchronous apply, and all of them together. */
  medApplyCpuMs: number;
  sumApplyCpuMs: number;
  /** → every chunk durable. */
  durableMs: number;
  /** → every chunk's history rows written (the projector's watermark; awaited after the window). */
  projectedMs: Promise<number>;
  cpuMs: number;
  /** Until applied: the main thread's time on a core, and runnable but waiting for one (the
   * machine's other processes), ms (schedstat; NaN elsewhere). */
  mainCpuMs: number;
  mainWaitMs: number;
  /** → every chunk durable: each thread's time on a core, by thread name (bench/lib/thread-cpu.ts). */
  threads: string;
  chunks: number;
}

async function serverPart(): Promise<void> {
  const place = await serverPlace('pglite', {
    LOG_LEVEL: 'warn',
    // snapshots are their own stall (bench:snapshot-stall); none falls into a window here
    SNAPSHOT_EVERY: '1000000000',
    PARLAY_SETTLE_CHUNK: String(SERVER_CHUNK),
  });
  const srv: RunningServer = await start(place);
  const rt = srv.runtime;
  // Time the synchronous part of each settling command's submit (the sequencer applies it, and the
  // stream builds its frames, before submit returns its promise): its wall, and the main thread's
  // time on a core (schedstat; where there is none, the process's CPU, every thread's).
  let applies: { ms: number; cpuMs: number }[] = [];
  const submit = rt.submit.bind(rt);
  const threadCpu = (): number => {
    const st = schedstat();
    if (st !== undefined) return st[0];
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  // With --trace: each journal append's time to durable (write + fdatasync), and each other
  // command's submit → durable (the probe's orders), the longest of each per window.
  let syncMaxMs = 0;
  let otherMaxMs = 0;
  if (TRACE) {
    const append = rt.journal.append.bind(rt.journal);
    rt.journal.append = (firstSeq, cmds) => {
      const t = performance.now();
      const p = append(firstSeq, cmds);
      void p.then(() => {
        syncMaxMs = Math.max(syncMaxMs, performance.now() - t);
      });
      return p;
    };
  }
  rt.submit = (cmd, seqs) => {
    if (cmd.type !== 'SettleParlays' && cmd.type !== 'SettleMarket') {
      if (!TRACE) return submit(cmd, seqs);
      const t = performance.now();
      const p = submit(cmd, seqs);
      void p.then(() => {
        otherMaxMs = Math.max(otherMaxMs, performance.now() - t);
      });
      return p;
    }
    const c0 = threadCpu();
    const t = performance.now();
    const r = submit(cmd, seqs);
    applies.push({ ms: performance.now() - t, cpuMs: threadCpu() - c0 });
    return r;
  };
  const admin = new Api(srv);
  admin.token = await admin.tokenFor(ADMIN_ID, ADMIN_SECRET);
  const accounts = Array.from({ length: ACCOUNTS }, () => rt.newId());
  const submitAll = async (cmds: CommandInput[]) => {
    for (let i = 0; i < cmds.length; i += 3_000)
      for (const r of await rt.submitMany(cmds.slice(i, i + 3_000))) ok(r);
  };
  await submitAll(baseCommands(accounts));
  // the probe's market and account (a client with a token, as any trader)
  const probeEv = rt.newId();
  const [p1, p2] = [rt.newId(), rt.newId()];
  const outcomes = new Map<string, string>();
  const uuid = (o: string) => {
    if (!outcomes.has(o)) outcomes.set(o, rt.newId());
    return outcomes.get(o)!;
  };
  await submitAll([gameCommand(probeEv, p1, p2, Date.now() + 86_400_000, uuid)]);
  const c = await admin.call('POST', '/admin/v1/clients', { name: 'probe' });
  ok(await rt.submit({ type: 'Deposit', accountId: c.body.accountId, currency: 'CASH', amount: 1e10 }));
  const token = await admin.tokenFor(c.body.clientId, c.body.clientSecret);

  const probe = fork(new URL('./lib/probe-child.mjs', import.meta.url));
  const ask = (m: object) =>
    new Promise<Record<string, unknown>>((resolve) => {
      probe.once('message', (r) => resolve(r as Record<string, unknown>));
      probe.send(m);
    });
  await ask({
    type: 'config',
    url: srv.url,
    token,
    marketId: p1,
    outcomeIds: [uuid(`${p1}-a`), uuid(`${p1}-b`)],
    readLanes: 4,
    readEveryMs: 20,
    orderEveryMs: 20,
  });

  const window = async (during?: () => Promise<Settled>): Promise<{ w: Window; s?: Settled }> => {
    await ask({ type: 'start' });
    const t0 = performance.now();
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const gaps = startGapTrace();
    syncMaxMs = 0;
    otherMaxMs = 0;
    await new Promise((r) => setTimeout(r, 300));
    const s = during === undefined ? undefined : await during();
    const left = WINDOW_MS - (performance.now() - t0);
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    delay.disable();
    const w = (await ask({ type: 'stop' })) as unknown as Window;
    w.serverDelayMs = delay.max / 1e6;
    const g = gaps.stop();
    w.gaps = g.lines;
    if (TRACE)
      w.gaps.push(
        `longest journal append → durable ${f1(syncMaxMs)} ms, other command submit → durable ${f1(otherMaxMs)} ms`,
      );
    w.serverTurnCpuMs = g.maxOnCoreMs;
    return s === undefined ? { w } : { w, s };
  };

  console.log(
    `server: ${N} open parlays per round, chunk ${SERVER_CHUNK}, probe: 4 lanes GET book every 20 ms + 1 lane order every 20 ms, window ${WINDOW_MS} ms`,
  );
  const rows: { base: Window; settle: Window; s: Settled }[] = [];
  for (let round = 1; round <= SERVER_RUNS; round++) {
    const ev = rt.newId();
    const [m1, m2] = [rt.newId(), rt.newId()];
    const tb = performance.now();
    await submitAll([gameCommand(ev, m1, m2, Date.now() + 86_400_000, uuid)]);
    const cmds: CommandInput[] = [];
    const expiresAt = Date.now() + 3_600_000;
    for (let i = 0; i < N; i++)
      cmds.push(...parlayCommands(i, accounts, uuid(`${m1}-a`), uuid(`${m2}-b`), expiresAt, `${round}:`));
    await submitAll(cmds);
    ok(await rt.submit({ type: 'SetMarketStatus', marketId: m1, status: 'CLOSED' }));
    await rt.projector.drain();
    const buildS = (performance.now() - tb) / 1000;
    gc();
    const settle = async (): Promise<Settled> => {
      const c0 = process.cpuUsage();
      applies = [];
      const seq0 = rt.sequencer.appliedSeq;
      const st0 = schedstat() ?? [Number.NaN, Number.NaN];
      const threads = startThreadCpu();
      const prof = PROF_DIR === undefined ? undefined : new Session();
      if (prof !== undefined) {
        prof.connect();
        await prof.post('Profiler.enable');
        await prof.post('Profiler.setSamplingInterval', { interval: 200 });
        await prof.post('Profiler.start');
      }
      const t0 = performance.now();
      const done = rt.submit({ type: 'SettleMarket', marketId: m1, result: uuid(`${m1}-b`) });
      while (rt.reader().parlaySettlementsDue().length > 0) await new Promise((r) => setImmediate(r));
      const appliedMs = performance.now() - t0;
      if (prof !== undefined && PROF_DIR !== undefined) {
        const { profile } = await prof.post('Profiler.stop');
        prof.disconnect();
        mkdirSync(PROF_DIR, { recursive: true });
        const file = `${PROF_DIR}/settle-${process.pid}-${round}.cpuprofile`;
        writeFileSync(file, JSON.stringify(profile));
        console.log(`CPU profile of the main thread, SettleMarket submitted → no parlay due: ${file}`);
      }
      const st1 = schedstat() ?? [Number.NaN, Number.NaN];
      const open = rt.reader().parlays(accounts[0]!, { status: 'OPEN' }).length;
      if (open !== 0) throw new Error(`${open} parlays left open after the settlement`);
      ok(await done);
      await rt.sequencer.flush();
      const durableMs = performance.now() - t0;
      const projectedMs = rt.projector.drain().then(() => performance.now() - t0);
      const cpu = process.cpuUsage(c0);
      const byThread = threads.stop().line;
      return {
        appliedMs,
        maxApplyMs: Math.max(...applies.map((a) => a.ms)),
        maxApplyCpuMs: Math.max(...applies.map((a) => a.cpuMs)),
        medApplyCpuMs: median(applies.map((a) => a.cpuMs)),
        sumApplyCpuMs: applies.reduce((n, a) => n + a.cpuMs, 0),
        durableMs,
        projectedMs,
        cpuMs: (cpu.user + cpu.system) / 1000,
        mainCpuMs: st1[0] - st0[0],
        mainWaitMs: st1[1] - st0[1],
        threads: byThread,
        chunks: rt.sequencer.appliedSeq - seq0,
      };
    };
    let base: Window;
    let set: { w: Window; s?: Settled };
    if (round % 2 === 1) {
      base = (await window()).w;
      set = await window(settle);
    } else {
      set = await window(settle);
      base = (await window()).w;
    }
    const s = set.s!;
    const projectedMs = await s.projectedMs;
    rows.push({ base, settle: set.w, s });
    if (TRACE) {
      console.log(`worst read wait per 100 ms, settlement window: ${trace(set.w)}`);
      console.log(
        `server loop gaps and GC pauses, settlement window (from its start):\n  ${set.w.gaps.join('\n  ')}`,
      );
      console.log(`server loop gaps and GC pauses, baseline window:\n  ${base.gaps.join('\n  ')}`);
    }
    const f = (w: Window) =>
      `read max ${f1(Math.max(...w.read))} p99 ${f1(pct(w.read, 99))} ms (answered max ${f1(Math.max(...answered(w.read, w.readLate)))}), order max ${f1(Math.max(...w.order))} p99 ${f1(pct(w.order, 99))} ms (answered max ${f1(Math.max(...answered(w.order, w.orderLate)))}); loop delay server ${f1(w.serverDelayMs)} probe ${f1(w.probeDelayMs)} ms, server's longest turn ${f1(w.serverTurnCpuMs)} ms CPU (${w.read.length}+${w.order.length}, ${w.errors} errors)`;
    console.log(
      `round ${round}: built in ${f1(buildS)} s | settle: applied ${f1(s.appliedMs)} ms (main thread on a core ${f1(s.mainCpuMs)}, waiting for one ${f1(s.mainWaitMs)}), durable ${f1(s.durableMs)} ms, history projected ${f1(projectedMs)} ms, CPU ${f1(s.cpuMs)} ms (threads on a core, ms: ${s.threads}), ${s.chunks} commands (incl. probe orders); longest chunk apply ${f1(s.maxApplyMs)} ms wall / ${f1(s.maxApplyCpuMs)} ms CPU, median ${f1(s.medApplyCpuMs)} ms CPU, all applies ${f1(s.sumApplyCpuMs)} ms CPU (${f1((s.sumApplyCpuMs * 1000) / N)} µs a parlay) | during: ${f(set.w)} | baseline: ${f(base)} | load ${load()}`,
    );
  }
  const med = (g: (r: (typeof rows)[number]) => number) => f1(median(rows.map(g)));
  // wait: due → answered, as the probe saw it; answered: sent → answered (less the probe's own
  // lateness in sending); loop delay: the server's worst event-loop delay, and the probe's own
  const waitColumns = (w: (r: (typeof rows)[number]) => Window) => ({
    readMaxMs: med((r) => Math.max(...w(r).read)),
    readP99Ms: med((r) => pct(w(r).read, 99)),
    readAnsweredMaxMs: med((r) => Math.max(...answered(w(r).read, w(r).readLate))),
    orderMaxMs: med((r) => Math.max(...w(r).order)),
    orderP99Ms: med((r) => pct(w(r).order, 99)),
    orderAnsweredMaxMs: med((r) => Math.max(...answered(w(r).order, w(r).orderLate))),
    serverLoopDelayMaxMs: med((r) => w(r).serverDelayMs),
    serverTurnCpuMaxMs: med((r) => w(r).serverTurnCpuMs),
    probeLoopDelayMaxMs: med((r) => w(r).probeDelayMs),
  });
  console.table({
    'settlement window': {
      settleAppliedMs: med((r) => r.s.appliedMs),
      settleDurableMs: med((r) => r.s.durableMs),
      mainCpuMs: med((r) => r.s.mainCpuMs),
      mainWaitMs: med((r) => r.s.mainWaitMs),
      cpuMs: med((r) => r.s.cpuMs),
      longestChunkCpuMs: med((r) => r.s.maxApplyCpuMs),
      ...waitColumns((r) => r.settle),
    },
    'baseline window (no settlement)': waitColumns((r) => r.base),
  });
  console.log(
    `per-round ratio of max wait, settlement ÷ baseline (read, order): ${rows
      .map(
        (r) =>
          `${(Math.max(...r.settle.read) / Math.max(...r.base.read)).toFixed(1)}/${(Math.max(...r.settle.order) / Math.max(...r.base.order)).toFixed(1)}`,
      )
      .join(', ')}`,
  );
  const exited = new Promise((r) => probe.once('exit', r));
  probe.send({ type: 'exit' });
  await exited;
  await srv.close();
  await place.destroy();
}

const AB = arg('ab');
if (AB !== undefined) {
  // the child processes get the same options, less the A/B's own
  const own = new Set(['--ab', '--pairs', '--ab-branch']);
  const args = process.argv.slice(2).filter((a, i, all) => !own.has(a) && !own.has(all[i - 1] ?? ''));
  const branch = arg('ab-branch') ?? new URL('..', import.meta.url).pathname;
  await settleAb(branch, AB, numArg('pairs', 2), args, N);
} else {
  console.log(`parlay settle: ${N} parlays; load ${load()}`);
  if (RUNS > 0) enginePart();
  if (SERVER_RUNS > 0) await serverPart();
}
