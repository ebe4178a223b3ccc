// Durable order entry over the `/trade` WebSocket against HTTP placement, in the same run
// (docs/bench-orders-ws.md). The built server (dist/main.js, as `npm start`) on the embedded store,
// a fresh data directory per target and round; rounds interleave the targets:
//   HTTP     POST /nbx/v2/emm/orders/place, autocannon, 32 connections (as bench/orders-http.ts)
//   WS max   32 sockets, each keeping --window place requests in flight
//   WS rate  32 sockets, --rate orders a second in all on a fixed schedule (one target per rate of
//            a comma-separated list); latency from each order's scheduled send time (no
//            coordinated omission)
// Every answer counted is a durable acknowledgement (after the journal's fdatasync). The sockets run
// in a client process of their own (bench/lib/trade-clients.mjs), whose CPU per order is printed
// too: on a 2-core machine it shares the cores with the server. Server CPU per order, and its main
// thread's share, from /proc. The set-up (server, game, traders, bodies) is
// bench/lib/order-servers.ts's.
//
// No per-account limit applies on /trade: a socket at its bound of requests in flight
// (TRADE_MAX_IN_FLIGHT, 256) is not read until answers free a place (docs/order-entry.md), so at an
// offered rate above capacity the client's sends queue in its socket and show as latency.
// --max-in-flight N starts the server with TRADE_MAX_IN_FLIGHT=N.
// --ab CHECKOUT runs every WS target on that checkout's built server too, interleaved;
// --cpu-prof DIR writes a V8 profile of each server there; --diag prints a second table from inside
// each server during its load (bench/lib/server-diag.mjs): event-loop delay, GC pauses, group
// commits (fdatasync count and time, orders and bytes per commit) and CPU by thread group.
//
//   node --import tsx bench/orders-ws.ts [--seconds 10] [--runs 3] [--connections 32]
//     [--window 64] [--rate 20000[,10000…]] [--max-in-flight 256] [--ab CHECKOUT] [--cpu-prof DIR]
//     [--diag] [--heap-prof DIR] [--alloc] [--node-options=FLAGS[,FLAGS…]]
//
// --node-options runs every WS target once per value (comma-separated; an empty value: none, as
// `npm start`) with NODE_OPTIONS set to it, interleaved, so V8 flags (another young generation, say)
// are compared in the same rounds.

import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
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
    window: { type: 'string', default: '64' },
    rate: { type: 'string', default: '20000' },
    'max-in-flight': { type: 'string' },
    'cpu-prof': { type: 'string' },
    ab: { type: 'string' },
    diag: { type: 'boolean', default: false },
    'heap-prof': { type: 'string' },
    alloc: { type: 'boolean', default: false },
    'node-options': { type: 'string' },
  },
});
// --heap-prof DIR: a sampling heap profile of each server's load (collected objects included),
// taken by --diag's module, which it therefore implies.
// --alloc: bytes of JavaScript heap allocated per order, a count the machine's load does not move:
// each server starts with a young generation of 1 GiB, so that no collection runs while it is
// loaded, and --diag's module reports the heap used after the load minus before. A collection in
// the window voids the figure (printed as such); keep --seconds short enough. Its CPU figures are
// not comparable with a run without --alloc (no scavenges at all).
if (values['heap-prof'] !== undefined || values.alloc) values.diag = true;
const ALLOC_ARGS = values.alloc ? ['--max-semi-space-size=1024', '--min-semi-space-size=1024'] : [];
const SECONDS = Number(values.seconds);
const RUNS = Number(values.runs);
const CONNECTIONS = Number(values.connections);
const WINDOW = Number(values.window);
// --rate '' (empty): no fixed-rate target (the window target and HTTP only).
const RATES = values.rate === '' ? [] : values.rate.split(',').map(Number);
const root = fileURLToPath(new URL('..', import.meta.url));
const clientsScript = fileURLToPath(new URL('./lib/trade-clients.mjs', import.meta.url));

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
  /** The WS client process's CPU per order sent, µs (it shares the cores with the server). */
  clientCpuUs?: number;
  /** Rate mode: how late the client sent, p99 ms, against the schedule latency is measured from. */
  sendLagP99?: number;
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
  const child = fork(clientsScript, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise((res) => child.once('exit', res));
  try {
    const answer = await new Promise<{ ok: boolean; error?: string; result?: Record<string, never> }>(
      (res, rej) => {
        child.once('message', res);
        child.once('exit', (code) => rej(new Error(`the client process exited with ${code}`)));
        child.send({
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
      cpuUsPerOrder: number;
      lagP99: number;
    };
    const errs = Object.entries(r.errors).map(([c, k]) => `${k} ${c}`);
    // Over capacity, frames the server had not read when the client gave up waiting (10 s after
    // its last send): they waited in TCP behind the in-flight bound, never placed.
    if (r.missing > 0) errs.push(`${r.missing} unanswered`);
    return {
      ordersPerSec: r.acked / r.seconds,
      p50: r.p50,
      p99: r.p99,
      errors: errs.join(', '),
      n: r.acked,
      clientCpuUs: r.cpuUsPerOrder,
      ...(mode === 'rate' ? { sendLagP99: r.lagP99 } : {}),
    };
  } finally {
    child.kill();
    await exited;
  }
}

const tmp = join(tmpdir(), `tickbook-bench-orders-ws-${randomBytes(4).toString('hex')}`);
const env: Record<string, string> = {
  ...BASE_ENV,
  ...(values.diag ? { BENCH_DIAG: '1' } : {}),
  ...(values['heap-prof'] !== undefined ? { BENCH_HEAP_PROF: values['heap-prof'] } : {}),
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

interface Diag {
  loopDelayMs: { p50: number; p99: number; max: number };
  gc: {
    count: number;
    ms: number;
    maxMs: number;
    /** Scavenges and mark-compacts (the rest: incremental marking steps, weak callbacks). */
    minor: { count: number; ms: number };
    major: { count: number; ms: number };
  };
  fdatasync: { count: number; p50: number; p99: number; max: number };
  writes: number;
  writeBytes: number;
  cpuMs: { main: number; startThreads: number; laterThreads: number; largestLaterThread: number };
  /** JavaScript heap used after the load minus before (bytes): what it allocated, if no GC ran. */
  heapDelta: number;
}
const diags: { round: number; label: string; n: number; seconds: number; d: Diag }[] = [];

/** The server's DIAG line (server-diag.mjs) for the load just run. */
function readDiag(proc: import('node:child_process').ChildProcess): Promise<Diag> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('no DIAG line from the server')), 5000);
    const onData = (d: Buffer) => {
      buf += d.toString();
      const m = /DIAG (\{.*\})\n/.exec(buf);
      if (m) {
        clearTimeout(timer);
        proc.stdout?.off('data', onData);
        resolve(JSON.parse(m[1]!) as Diag);
      }
    };
    proc.stdout?.on('data', onData);
    proc.kill('SIGUSR1');
  });
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
    ALLOC_ARGS,
  );
  try {
    const ctx = await setup(url);
    if (values.diag) proc.kill('SIGUSR2');
    const cpu0 = cpuSeconds(proc.pid);
    const main0 = cpuSeconds(proc.pid, true);
    const w0 = performance.now();
    const r = await t0.run(url, ctx);
    const n = Math.max(1, r.n);
    if (values.diag) {
      const d = await readDiag(proc);
      diags.push({ round, label: t0.label, n, seconds: (performance.now() - w0) / 1000, d });
    }
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
  '| round | target | durable orders/s | ack p50 ms | ack p99 ms | server CPU µs/order | main thread µs/order | client CPU µs/order | client late p99 ms | errors | vs HTTP (same round) |',
);
console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|');
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
        `| ${round + 1} | ${TARGETS[t]!.label} | ${Math.round(r.ordersPerSec)} | ${f1(r.p50)} | ${f1(r.p99)} | ${Math.round(r.cpuUs)} | ${Math.round(r.mainCpuUs)} | ${r.clientCpuUs === undefined ? '—' : Math.round(r.clientCpuUs)} | ${r.sendLagP99 === undefined ? '—' : f1(r.sendLagP99)} | ${r.errors} | ${t === 0 ? '—' : ratios[t]!.at(-1)!.toFixed(2)} |`,
      );
    }
    console.log(
      `|  | load average after round ${round + 1}: ${loadavg()[0]!.toFixed(1)} | | | | | | | | | |`,
    );
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
if (values.diag) {
  console.log('\nInside the server during each load (--diag; bench/lib/server-diag.mjs)\n');
  console.log(
    `| round | target | loop delay p50 / p99 / max ms | GC pauses: count, total ms, longest ms (scavenges: count, ms; mark-compacts: count, ms) | fdatasync /s | fdatasync p50 / p99 ms | orders per commit | KB per commit | CPU µs/order: main thread, threads from the start (V8 GC helpers, libuv pool), later threads (largest: SQL worker) |${values.alloc ? ' heap KB allocated per order |' : ''}`,
  );
  console.log(`|---:|---|---|---|---:|---|---:|---:|---|${values.alloc ? '---:|' : ''}`);
  for (const { round, label, n, seconds, d } of diags) {
    const us = (ms: number) => Math.round((ms * 1000) / n);
    const commits = Math.max(1, d.fdatasync.count);
    console.log(
      `| ${round + 1} | ${label} | ${f1(d.loopDelayMs.p50)} / ${f1(d.loopDelayMs.p99)} / ${f1(d.loopDelayMs.max)} | ${d.gc.count}, ${Math.round(d.gc.ms)}, ${f1(d.gc.maxMs)} (${d.gc.minor.count}, ${Math.round(d.gc.minor.ms)}; ${d.gc.major.count}, ${Math.round(d.gc.major.ms)}) | ${Math.round(d.fdatasync.count / seconds)} | ${f1(d.fdatasync.p50)} / ${f1(d.fdatasync.p99)} | ${Math.round(n / commits)} | ${Math.round(d.writeBytes / Math.max(1, d.writes) / 1024)} | ${us(d.cpuMs.main)}, ${us(d.cpuMs.startThreads)}, ${us(d.cpuMs.laterThreads)} (${us(d.cpuMs.largestLaterThread)}) |${values.alloc ? ` ${d.gc.count === 0 ? (d.heapDelta / n / 1024).toFixed(2) : `— (${d.gc.count} GCs)`} |` : ''}`,
    );
  }
}
console.log(
  '\ngoal: WS ≥ 40,000 durable orders/s and ≥ 3× HTTP in the same run; p99 ack ≤ 10 ms at 20,000/s offered',
);
