// Durable mass quotes (5 levels × 2 outcomes per set) against the built server on the embedded
// store, every answer sent only after its group commit (the fdatasync of the journal segment), over
// both transports a market maker has (docs/bench-mass-quote.md):
//   REST  POST /nbx/v2/emm/quotes, autocannon, 32 connections
//   WS    the `/trade` socket's `massQuote` message (docs/order-entry.md), 32 sockets in a client
//         process of their own (bench/lib/trade-clients.mjs), each keeping --window sets in flight
// Baseline in the same rounds: single-order placement over REST (POST /nbx/v2/emm/orders/place, the
// load of bench/orders-http.ts). Every target runs on a fresh server and data directory; per-round
// ratios are quote sets/s over the same round's placements/s.
//
//   node --import tsx bench/mass-quote.ts [--seconds 10] [--runs 3] [--connections 32]
//     [--window 16] [--only rest|ws] [--cpu-prof DIR] [--ab CHECKOUT] [--node-options=FLAGS[,FLAGS…]]
//
// --only rest|ws: the placement baseline and one transport's mass quote (with --ab, and its twin).
// --node-options (not with --ab): the mass-quote targets once per value (comma-separated; an empty
// value: none, as `npm start`) with NODE_OPTIONS set to it, interleaved, so V8 flags (another young
// generation, say) are compared in the same rounds.
// Each quote set moves its quantities a little (qty cycles per request), so most sets shrink,
// grow or keep levels: a mix of in-place reductions, re-queues and unchanged levels; quotes never
// cross (0.40–0.44 on outcome 0, 0.50–0.54 on outcome 1). Eight quoting accounts over ten markets
// (socket i quotes as account i mod 8, starting at market i).
// Server CPU per set (user + system of all the server's threads, /proc) and its main thread's share
// are printed beside the rate, and for WS the client process's CPU per set (it shares the cores).
// The set-up (server, game, traders, placement bodies) is bench/lib/order-servers.ts's. --cpu-prof
// writes a V8 profile of each server to DIR. --ab runs both mass-quote targets on another
// checkout's built server too (a clone of the base commit), each next to its twin (the two swap
// places every other round); the A/B rows give this checkout over the base, per round, for sets/s,
// server CPU per set and main-thread CPU per set.

import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  BASE_ENV,
  bootBuilt,
  cpuSeconds,
  type Game,
  LOAD_OPTIONS,
  median,
  placeBody,
  setupGame,
} from './lib/order-servers.ts';

const { values } = parseArgs({
  options: {
    ...LOAD_OPTIONS,
    window: { type: 'string', default: '16' },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
    ab: { type: 'string' },
    'node-options': { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const RUNS = Number(values.runs);
const CONNECTIONS = Number(values.connections);
const WINDOW = Number(values.window);
const root = fileURLToPath(new URL('..', import.meta.url));
const clientsScript = fileURLToPath(new URL('./lib/trade-clients.mjs', import.meta.url));
const QUOTERS = 8;
const profDir = values['cpu-prof'];
const abCheckout = values.ab;

interface Row {
  perSec: number;
  p50: number;
  p99: number;
  /** Requests not answered with a success (non-2xx, error frames, unanswered). */
  failed: number;
  cpuUs: number;
  mainCpuUs: number;
  /** WS: the client process's CPU per set sent, µs. */
  clientCpuUs?: number;
}

type Ctx = Game;

/** The `data` of a mass quote on market `mi` in qty phase `phase` (the REST body is the same). */
function quoteData(ctx: Ctx, mi: number, phase: number): string {
  const m = ctx.outcomes[mi]!;
  const level = (base: number) =>
    Array.from({ length: 5 }, (_, j) => ({
      price: Number((base + j / 100).toFixed(2)),
      qty: 100 * (1 + ((phase + j) % 3)),
    }));
  return JSON.stringify({
    marketId: ctx.markets[mi],
    currency: 'CASH',
    quotes: [
      { outcomeId: m[0], levels: level(0.4) },
      { outcomeId: m[1], levels: level(0.5) },
    ],
  });
}

/** The k-th REST mass quote: markets in turn, the account and the qty phase moving every lap. */
function quoteBody(ctx: Ctx, k: number): { token: string; body: string } {
  const lap = Math.floor(k / ctx.markets.length);
  return {
    token: ctx.tokens[lap % ctx.tokens.length]!,
    body: quoteData(ctx, k % ctx.markets.length, lap),
  };
}

/**
 * Per socket, the data of its sets in turn: socket i starts at market i, the qty phase moving every
 * lap of the markets (the cycle repeats after three laps).
 */
function socketDatas(ctx: Ctx): string[][] {
  const M = ctx.markets.length;
  return Array.from({ length: CONNECTIONS }, (_, i) =>
    Array.from({ length: 3 * M }, (_, n) => quoteData(ctx, (n + i) % M, Math.floor(n / M))),
  );
}

type Load = Omit<Row, 'cpuUs' | 'mainCpuUs'> & { n: number };

async function rest(
  url: string,
  path: string,
  make: (k: number) => { token: string; body: string },
): Promise<Load> {
  let n = 0;
  const r = await autocannon({
    url: `${url}${path}`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    requests: [
      {
        setupRequest: (req) => {
          const { token, body } = make(n++);
          return {
            ...req,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body,
          };
        },
      },
    ],
  });
  return {
    perSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failed: r.non2xx,
    n: r.requests.total,
  };
}

async function ws(url: string, ctx: Ctx): Promise<Load> {
  const child = fork(clientsScript, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise((res) => child.once('exit', res));
  try {
    const answer = await new Promise<{ ok: boolean; error?: string; result?: unknown }>((res, rej) => {
      child.once('message', res);
      child.once('exit', (code) => rej(new Error(`the client process exited with ${code}`)));
      child.send({
        url: `${url.replace('http', 'ws')}/trade`,
        tokens: ctx.tokens,
        outcomes: ctx.outcomes,
        connections: CONNECTIONS,
        seconds: SECONDS,
        mode: 'max',
        window: WINDOW,
        type: 'massQuote',
        datas: socketDatas(ctx),
      });
    });
    if (!answer.ok) throw new Error(answer.error);
    const r = answer.result as {
      acked: number;
      seconds: number;
      missing: number;
      errors: Record<string, number>;
      p50: number;
      p99: number;
      cpuUsPerOrder: number;
    };
    const errors = Object.values(r.errors).reduce((a, b) => a + b, 0);
    if (errors > 0) console.error(`WS errors: ${JSON.stringify(r.errors)}`);
    return {
      perSec: r.acked / r.seconds,
      p50: r.p50,
      p99: r.p99,
      failed: errors + r.missing,
      n: r.acked,
      clientCpuUs: r.cpuUsPerOrder,
    };
  } finally {
    child.kill();
    await exited;
  }
}

const tmp = join(tmpdir(), `tickbook-bench-quotes-${randomBytes(4).toString('hex')}`);

interface Target {
  label: string;
  checkout: string;
  traders: number;
  /** NODE_OPTIONS of its server (--node-options); unset: the environment's. */
  nodeOptions?: string;
  /** The target of the A/B base this one is compared with (an index into targets). */
  base?: number;
  run: (url: string, ctx: Ctx) => Promise<Load>;
}
const placement: Target = {
  label: 'placement, REST (baseline)',
  checkout: root,
  traders: 2,
  run: (u, c) => rest(u, '/nbx/v2/emm/orders/place', (k) => placeBody(c, k)),
};
const quoteRest: Target = {
  label: 'mass quote, REST',
  checkout: root,
  traders: QUOTERS,
  run: (u, c) => rest(u, '/nbx/v2/emm/quotes', (k) => quoteBody(c, k)),
};
const quoteWs: Target = {
  label: `mass quote, WS /trade (${WINDOW} in flight per socket)`,
  checkout: root,
  traders: QUOTERS,
  run: (u, c) => ws(u, c),
};
// --only rest|ws: the placement baseline and that transport's mass quote alone.
const only = values.only;
if (only !== undefined && only !== 'rest' && only !== 'ws') throw new Error('--only rest or --only ws');
const targets: Target[] = [
  placement,
  ...(only === 'ws' ? [] : [quoteRest]),
  ...(only === 'rest' ? [] : [quoteWs]),
];
/** Per round, the order targets run in (pairs of A/B twins side by side, swapping every other round). */
let orderOf = (_round: number): number[] => targets.map((_, i) => i);
if (abCheckout !== undefined) {
  const quotes = targets.length - 1;
  for (let i = 1; i <= quotes; i++) {
    const t = targets[i]!;
    targets.push({ ...t, label: `${t.label} [A/B base]`, checkout: abCheckout });
    t.base = i + quotes;
  }
  orderOf =
    quotes === 2
      ? (round) => (round % 2 === 0 ? [0, 1, 3, 4, 2] : [0, 3, 1, 2, 4])
      : (round) => (round % 2 === 0 ? [0, 1, 2] : [0, 2, 1]);
  execFileSync(process.execPath, [join(abCheckout, 'scripts/ensure-build.mjs')], {
    stdio: 'inherit',
    cwd: abCheckout,
  });
}

const nodeOptions = values['node-options']?.split(',');
if (nodeOptions !== undefined) {
  if (abCheckout !== undefined) throw new Error('--node-options and --ab: one at a time');
  const quotes = targets.splice(1);
  for (const opt of nodeOptions)
    for (const q of quotes)
      targets.push({ ...q, label: `${q.label}, NODE_OPTIONS="${opt}"`, nodeOptions: opt });
}

async function runOnce(t: Target, round: number, index: number): Promise<Row> {
  const dir = join(tmp, `${round}-${index}`);
  mkdirSync(dir, { recursive: true });
  const { proc, url, exited } = await bootBuilt(
    t.checkout,
    { ...BASE_ENV, DATA_DIR: dir, ...(t.nodeOptions === undefined ? {} : { NODE_OPTIONS: t.nodeOptions }) },
    profDir,
  );
  try {
    const ctx = await setupGame(url, t.traders);
    const cpu0 = cpuSeconds(proc.pid);
    const main0 = cpuSeconds(proc.pid, true);
    const r = await t.run(url, ctx);
    const n = Math.max(1, r.n);
    return {
      ...r,
      cpuUs: ((cpuSeconds(proc.pid) - cpu0) * 1e6) / n,
      mainCpuUs: ((cpuSeconds(proc.pid, true) - main0) * 1e6) / n,
    };
  } finally {
    proc.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '—');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '—');
execFileSync(process.execPath, [join(root, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
console.log(
  `\nDurable requests on the embedded store, ${CONNECTIONS} connections (WS: ${WINDOW} sets in flight each), ${SECONDS} s per target, ${RUNS} rounds`,
);
console.log(`load average at start: ${load()}\n`);
const AB = abCheckout !== undefined;
console.log(
  `| round | target | sets or orders/s | p50 ms | p99 ms | failed | server CPU µs/request | main thread µs/request | client CPU µs/request | vs placement (same round) |${AB ? ' this ÷ base (same round): sets/s, server CPU/set, main thread/set |' : ''}`,
);
console.log(`|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|${AB ? '---|' : ''}`);
const rows: Row[][] = targets.map(() => []);
/** Per target, per round: requests/s over the same round's placement. */
const ratios: number[][] = targets.map(() => []);
/** Per target with a base, per round: this over the base, for sets/s, server CPU and main thread CPU per set. */
const abRatios: { rate: number; cpu: number; main: number }[][] = targets.map(() => []);
const abText = (r: { rate: number; cpu: number; main: number }) =>
  `${f2(r.rate)}, ${f2(r.cpu)}, ${f2(r.main)}`;
try {
  for (let round = 0; round < RUNS; round++) {
    for (const t of orderOf(round)) rows[t]!.push(await runOnce(targets[t]!, round, t));
    const baseline = rows[0]![round]!.perSec;
    targets.forEach((target, t) => {
      const r = rows[t]![round]!;
      if (t > 0) ratios[t]!.push(r.perSec / baseline);
      if (target.base !== undefined) {
        const b = rows[target.base]![round]!;
        abRatios[t]!.push({
          rate: r.perSec / b.perSec,
          cpu: r.cpuUs / b.cpuUs,
          main: r.mainCpuUs / b.mainCpuUs,
        });
      }
      const ab = !AB ? '' : target.base !== undefined ? ` ${abText(abRatios[t]!.at(-1)!)} |` : ' — |';
      console.log(
        `| ${round + 1} | ${target.label} | ${Math.round(r.perSec)} | ${f1(r.p50)} | ${f1(r.p99)} | ${r.failed} | ${Math.round(r.cpuUs)} | ${Math.round(r.mainCpuUs)} | ${r.clientCpuUs === undefined ? '—' : Math.round(r.clientCpuUs)} | ${t === 0 ? '—' : f2(ratios[t]!.at(-1)!)} |${ab}`,
      );
    });
    console.log(`|  | load average after round ${round + 1}: ${load()} | | | | | | | | |${AB ? ' |' : ''}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`\nMedians over ${RUNS} rounds (load average now: ${load()})\n`);
console.log(
  `| target | sets or orders/s | p50 ms | p99 ms | failed | server CPU µs/request | main thread µs/request | client CPU µs/request | median per-round ratio to placement |${AB ? ' median per-round this ÷ base: sets/s, server CPU/set, main thread/set |' : ''}`,
);
console.log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|${AB ? '---|' : ''}`);
targets.forEach((t, i) => {
  const rs = rows[i]!;
  const ab = abRatios[i]!;
  const abCell = !AB
    ? ''
    : t.base !== undefined
      ? ` ${abText({ rate: median(ab.map((x) => x.rate)), cpu: median(ab.map((x) => x.cpu)), main: median(ab.map((x) => x.main)) })} |`
      : ' — |';
  const client = rs.map((r) => r.clientCpuUs).filter((x): x is number => x !== undefined);
  console.log(
    `| ${t.label} | ${Math.round(median(rs.map((r) => r.perSec)))} | ${f1(median(rs.map((r) => r.p50)))} | ${f1(median(rs.map((r) => r.p99)))} | ${rs.reduce((s, r) => s + r.failed, 0)} | ${Math.round(median(rs.map((r) => r.cpuUs)))} | ${Math.round(median(rs.map((r) => r.mainCpuUs)))} | ${client.length === 0 ? '—' : Math.round(median(client))} | ${i === 0 ? '—' : f2(median(ratios[i]!))} |${abCell}`,
  );
});
console.log('\ngoal: ≥ 10,000 durable quote sets/s (5 levels × 2 outcomes) on the embedded store');
