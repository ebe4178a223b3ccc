// Durable order entry over the `/trade` WebSocket against HTTP placement, in the same run
// (docs/bench-orders-ws.md). The built server (dist/main.js, as `npm start`) on the embedded store,
// a fresh data directory per target and round; rounds interleave the targets:
//   HTTP     POST /nbx/v2/emm/orders/place, autocannon, 32 connections (as bench/orders-http.ts)
//   WS max   32 sockets, each keeping --window place requests in flight
//   WS rate  32 sockets, --rate orders a second in all on a fixed schedule (one target per rate of
//            a comma-separated list); latency from each order's scheduled send time (no
//            coordinated omission)
// Every answer counted is a durable acknowledgement (after the journal's fdatasync). The sockets run
// in a worker thread (bench/lib/trade-clients.mjs). Server CPU per order, and its main thread's
// share, from /proc. The set-up (server, game, traders, bodies) is bench/lib/order-servers.ts's.
//
// No per-account limit applies on /trade: the only RATE_LIMITED there is the per-connection bound
// of requests in flight (TRADE_MAX_IN_FLIGHT, 256). At an offered rate above what the server
// acknowledges the backlog grows until every socket reaches it; those answers are printed as "over
// the in-flight bound", a sign the rate is above capacity, not a limiter to tune away.
// --max-in-flight N starts the server with TRADE_MAX_IN_FLIGHT=N (bench use: a deeper backlog).
// --ab CHECKOUT runs every WS target on that checkout's built server too, interleaved;
// --cpu-prof DIR writes a V8 profile of each server there. --node-options runs every WS target
// once per value (comma-separated; an empty value: none, as `npm start`) with NODE_OPTIONS set to
// it, interleaved, so V8 flags (another young generation, say) are compared in the same rounds.
//
//   node --import tsx bench/orders-ws.ts [--seconds 10] [--runs 3] [--connections 32]
//     [--window 64] [--rate 20000[,10000…]] [--max-in-flight 256] [--ab CHECKOUT] [--cpu-prof DIR]
//     [--node-options=FLAGS[,FLAGS…]]

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
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
    window: { type: 'string', default: '64' },
    rate: { type: 'string', default: '20000' },
    'max-in-flight': { type: 'string' },
    'cpu-prof': { type: 'string' },
    ab: { type: 'string' },
    'node-options': { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const RUNS = Number(values.runs);
const CONNECTIONS = Number(values.connections);
const WINDOW = Number(values.window);
const RATES = values.rate.split(',').map(Number);
const root = fileURLToPath(new URL('..', import.meta.url));
const clientsWorker = fileURLToPath(new URL('./lib/trade-clients.mjs', import.meta.url));

type Ctx = Game;
const setup = (url: string) => setupGame(url, 2);

interface Row {
  ordersPerSec: number;
  p50: number;
  p99: number;
  errors: string;
  cpuUs: number;
  /** Server main thread (event loop) CPU per order, µs. */
  mainCpuUs: number;
}

async function http(url: string, ctx: Ctx): Promise<Omit<Row, 'cpuUs' | 'mainCpuUs'> & { n: number }> {
  let n = 0;
  const r = await autocannon({
    url: `${url}/nbx/v2/emm/orders/place`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    requests: [
      {
        setupRequest: (req) => {
          const { token, body } = placeBody(ctx, n++);
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
    ordersPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx > 0 ? `${r.non2xx} non-2xx` : '',
    n: r.requests.total,
  };
}

async function ws(
  url: string,
  ctx: Ctx,
  mode: 'max' | 'rate',
  rate = 0,
): Promise<Omit<Row, 'cpuUs' | 'mainCpuUs'> & { n: number }> {
  const worker = new Worker(clientsWorker);
  try {
    const answer = await new Promise<{ ok: boolean; error?: string; result?: Record<string, never> }>(
      (res) => {
        worker.once('message', res);
        worker.postMessage({
          url: `${url.replace('http', 'ws')}/trade`,
          tokens: ctx.tokens,
          outcomes: ctx.outcomes,
          connections: CONNECTIONS,
          seconds: SECONDS,
          mode,
          window: WINDOW,
          rate,
        });
      },
    );
    if (!answer.ok) throw new Error(answer.error);
    const r = answer.result as unknown as {
      acked: number;
      seconds: number;
      missing: number;
      errors: Record<string, number>;
      p50: number;
      p99: number;
    };
    // RATE_LIMITED on /trade is the per-connection bound of requests in flight (TRADE_MAX_IN_FLIGHT):
    // at a fixed offered rate above what the server acknowledges, the backlog reaches it.
    const errs = Object.entries(r.errors).map(([c, k]) =>
      c === 'RATE_LIMITED' ? `${k} over the in-flight bound (offered > capacity)` : `${k} ${c}`,
    );
    if (r.missing > 0) errs.push(`${r.missing} unanswered`);
    return {
      ordersPerSec: r.acked / r.seconds,
      p50: r.p50,
      p99: r.p99,
      errors: errs.join(', '),
      n: r.acked,
    };
  } finally {
    await worker.terminate();
  }
}

const tmp = join(tmpdir(), `tickbook-bench-orders-ws-${randomBytes(4).toString('hex')}`);
const env: Record<string, string> = {
  ...BASE_ENV,
  ...(values['max-in-flight'] !== undefined ? { TRADE_MAX_IN_FLIGHT: values['max-in-flight'] } : {}),
};

interface Target {
  label: string;
  /** The checkout whose built server runs (another one for --ab). */
  checkout: string;
  /** NODE_OPTIONS of its server (--node-options); unset: the environment's. */
  nodeOptions?: string;
  run: (u: string, c: Ctx) => Promise<Omit<Row, 'cpuUs' | 'mainCpuUs'> & { n: number }>;
}
const TARGETS: Target[] = [
  { label: 'HTTP POST /orders/place (autocannon)', checkout: root, run: (u, c) => http(u, c) },
  { label: `WS /trade, ${WINDOW} in flight per socket`, checkout: root, run: (u, c) => ws(u, c, 'max') },
  ...RATES.map((rate) => ({
    label: `WS /trade at ${rate}/s offered`,
    checkout: root,
    run: (u: string, c: Ctx) => ws(u, c, 'rate', rate),
  })),
];
// --ab: every WS target again on another checkout's built server (a clone of the base commit),
// interleaved in the same rounds.
for (const dir of values.ab?.split(',') ?? []) {
  for (const t of TARGETS.filter((x) => x.checkout === root && x.label.startsWith('WS'))) {
    TARGETS.push({ ...t, label: `${t.label} [${dir}]`, checkout: dir });
  }
}

// --node-options: the WS targets once per value instead of once.
const nodeOptions = values['node-options']?.split(',');
if (nodeOptions !== undefined) {
  const ws = TARGETS.filter((x) => x.checkout === root && x.label.startsWith('WS'));
  for (const t of ws) TARGETS.splice(TARGETS.indexOf(t), 1);
  for (const opt of nodeOptions)
    for (const t of ws) TARGETS.push({ ...t, label: `${t.label}, NODE_OPTIONS="${opt}"`, nodeOptions: opt });
}

async function runOnce(t: number, round: number): Promise<Row> {
  const dir = join(tmp, `${round}-${t}`);
  mkdirSync(dir, { recursive: true });
  const t0 = TARGETS[t]!;
  const { proc, url, exited } = await bootBuilt(
    t0.checkout,
    { ...env, DATA_DIR: dir, ...(t0.nodeOptions === undefined ? {} : { NODE_OPTIONS: t0.nodeOptions }) },
    values['cpu-prof'],
  );
  try {
    const ctx = await setup(url);
    const cpu0 = cpuSeconds(proc.pid);
    const main0 = cpuSeconds(proc.pid, true);
    const r = await t0.run(url, ctx);
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

execFileSync(process.execPath, [join(root, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '—');

console.log(
  `\nDurable order entry, embedded store, ${CONNECTIONS} connections, ${SECONDS} s per target, ${RUNS} rounds; load average at start ${loadavg()
    .map((x) => x.toFixed(1))
    .join(
      ' ',
    )} on ${cpus().length} cores${values['max-in-flight'] !== undefined ? `; TRADE_MAX_IN_FLIGHT=${values['max-in-flight']}` : ''}\n`,
);
console.log(
  '| round | target | durable orders/s | ack p50 ms | ack p99 ms | server CPU µs/order | main thread µs/order | errors | vs HTTP (same round) |',
);
console.log('|---:|---|---:|---:|---:|---:|---:|---|---:|');
const rows: Row[][] = TARGETS.map(() => []);
const ratios: number[][] = TARGETS.map(() => []);
try {
  for (let round = 0; round < RUNS; round++) {
    let httpRate = 0;
    for (let t = 0; t < TARGETS.length; t++) {
      const r = await runOnce(t, round);
      rows[t]!.push(r);
      if (t === 0) httpRate = r.ordersPerSec;
      ratios[t]!.push(r.ordersPerSec / httpRate);
      console.log(
        `| ${round + 1} | ${TARGETS[t]!.label} | ${Math.round(r.ordersPerSec)} | ${f1(r.p50)} | ${f1(r.p99)} | ${Math.round(r.cpuUs)} | ${Math.round(r.mainCpuUs)} | ${r.errors} | ${t === 0 ? '—' : ratios[t]!.at(-1)!.toFixed(2)} |`,
      );
    }
    console.log(`|  | load average after round ${round + 1}: ${loadavg()[0]!.toFixed(1)} | | | | | | | |`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`\nMedians over ${RUNS} rounds\n`);
console.log(
  '| target | durable orders/s | ack p50 ms | ack p99 ms | server CPU µs/order | main thread µs/order | median per-round ratio vs HTTP |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
TARGETS.forEach((t, i) => {
  const rs = rows[i]!;
  console.log(
    `| ${t.label} | ${Math.round(median(rs.map((r) => r.ordersPerSec)))} | ${f1(median(rs.map((r) => r.p50)))} | ${f1(median(rs.map((r) => r.p99)))} | ${Math.round(median(rs.map((r) => r.cpuUs)))} | ${Math.round(median(rs.map((r) => r.mainCpuUs)))} | ${i === 0 ? '—' : median(ratios[i]!).toFixed(2)} |`,
  );
});
console.log(
  '\ngoal: WS ≥ 40,000 durable orders/s and ≥ 3× HTTP in the same run; p99 ack ≤ 10 ms at 20,000/s offered',
);
