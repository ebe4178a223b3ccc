// Durable order entry over the `/trade` WebSocket against HTTP placement, in the same run
// (docs/bench-orders-ws.md). The built server (dist/main.js, as `npm start`) on the embedded store,
// a fresh data directory per target and round; rounds interleave the targets:
//   HTTP     POST /nbx/v2/emm/orders/place, autocannon, 32 connections (as bench/orders-http.ts)
//   WS max   32 sockets, each keeping --window place requests in flight
//   WS rate  32 sockets, --rate orders a second in all on a fixed schedule; latency from each
//            order's scheduled send time (no coordinated omission)
// Every answer counted is a durable acknowledgement (after the journal's fdatasync). The sockets run
// in a worker thread (bench/lib/trade-clients.mjs). Server CPU per order from /proc.
//
//   node --import tsx bench/orders-ws.ts [--seconds 10] [--runs 3] [--connections 32]
//     [--window 64] [--rate 20000]

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { type Child, createGame, fetchToken, httpCall } from '../test/helpers/child-server.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    window: { type: 'string', default: '64' },
    rate: { type: 'string', default: '20000' },
  },
});
const SECONDS = Number(values.seconds);
const RUNS = Number(values.runs);
const CONNECTIONS = Number(values.connections);
const WINDOW = Number(values.window);
const RATE = Number(values.rate);
const root = fileURLToPath(new URL('..', import.meta.url));
const ordersChild = fileURLToPath(new URL('./lib/orders-child.mjs', import.meta.url));
const clientsWorker = fileURLToPath(new URL('./lib/trade-clients.mjs', import.meta.url));
const ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789abcdefghijklmnopqrstu' };

async function boot(env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, [ordersChild], {
    env: { ...process.env, ...env, MAIN_JS: join(root, 'dist/main.js') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((res) => proc.once('exit', res));
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\S+)/.exec(buf);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready`)));
  });
  return { proc, url, exited };
}

/** User + system CPU seconds of a process so far (Linux /proc; NaN elsewhere). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function call(url: string, method: string, path: string, token: string | null, body?: unknown) {
  const r = await httpCall(url, method, path, token, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A game with 10 markets and two richly funded traders (as bench/orders-http.ts). */
async function setup(url: string) {
  const admin = await fetchToken(url, ADMIN.id, ADMIN.secret);
  const outcomes = await createGame(
    url,
    admin,
    Array.from({ length: 10 }, (_, i) => ({ type: 'SPREAD', strike: -0.5 - i, description: `Spread ${i}` })),
  );
  const tokens: string[] = [];
  for (const name of ['maker', 'taker']) {
    const c = await call(url, 'POST', '/admin/v1/clients', admin, { name });
    await call(url, 'POST', `/admin/v1/accounts/${c.accountId}/deposits`, admin, {
      currency: 'CASH',
      amount: 1e9,
    });
    tokens.push(await fetchToken(url, c.clientId, c.clientSecret));
  }
  return { outcomes, tokens };
}

interface Row {
  ordersPerSec: number;
  p50: number;
  p99: number;
  errors: string;
  cpuUs: number;
}

type Ctx = Awaited<ReturnType<typeof setup>>;

async function http(url: string, ctx: Ctx): Promise<Omit<Row, 'cpuUs'> & { n: number }> {
  let n = 0;
  const prices = [0.46, 0.47, 0.48, 0.49, 0.5, 0.51, 0.52];
  const r = await autocannon({
    url: `${url}/nbx/v2/emm/orders/place`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    requests: [
      {
        setupRequest: (req) => {
          const k = n++;
          const m = ctx.outcomes[k % ctx.outcomes.length]!;
          const side = (k >> 3) & 1;
          return {
            ...req,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${ctx.tokens[side]}` },
            body: JSON.stringify({
              outcomeId: m[side],
              price: prices[(k * 7) % prices.length],
              qty: 100 * (1 + (k % 5)),
              currency: 'CASH',
              tif: 'GTC',
            }),
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

async function ws(url: string, ctx: Ctx, mode: 'max' | 'rate'): Promise<Omit<Row, 'cpuUs'> & { n: number }> {
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
          rate: RATE,
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
    const errs = Object.entries(r.errors).map(([c, k]) => `${k} ${c}`);
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

const base = {
  PORT: '0',
  LOG_LEVEL: 'silent',
  TICKBOOK_DEMO: 'false',
  DEMO_LIVE: 'false',
  TICKBOOK_ADMIN_CLIENT_ID: ADMIN.id,
  TICKBOOK_ADMIN_CLIENT_SECRET: ADMIN.secret,
  KEY_ENCRYPTION_SECRET: 'bench',
  DATABASE_URL: '',
};
const tmp = join(tmpdir(), `tickbook-bench-orders-ws-${randomBytes(4).toString('hex')}`);

const TARGETS = [
  { label: 'HTTP POST /orders/place (autocannon)', run: (u: string, c: Ctx) => http(u, c) },
  { label: `WS /trade, ${WINDOW} in flight per socket`, run: (u: string, c: Ctx) => ws(u, c, 'max') },
  { label: `WS /trade at ${RATE}/s offered`, run: (u: string, c: Ctx) => ws(u, c, 'rate') },
];

async function runOnce(t: number, round: number): Promise<Row> {
  const dir = join(tmp, `${round}-${t}`);
  mkdirSync(dir, { recursive: true });
  const { proc, url, exited } = await boot({ ...base, DATA_DIR: dir });
  try {
    const ctx = await setup(url);
    const cpu0 = cpuSeconds(proc.pid);
    const r = await TARGETS[t]!.run(url, ctx);
    const cpu = cpuSeconds(proc.pid) - cpu0;
    return { ...r, cpuUs: (cpu * 1e6) / Math.max(1, r.n) };
  } finally {
    proc.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

execFileSync(process.execPath, [join(root, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '—');

console.log(
  `\nDurable order entry, embedded store, ${CONNECTIONS} connections, ${SECONDS} s per target, ${RUNS} rounds; load average at start ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} on ${(await import('node:os')).cpus().length} cores\n`,
);
console.log(
  '| round | target | durable orders/s | ack p50 ms | ack p99 ms | server CPU µs/order | errors | vs HTTP (same round) |',
);
console.log('|---:|---|---:|---:|---:|---:|---|---:|');
const rows: Row[][] = TARGETS.map(() => []);
const ratios: number[] = [];
try {
  for (let round = 0; round < RUNS; round++) {
    let httpRate = 0;
    for (let t = 0; t < TARGETS.length; t++) {
      const r = await runOnce(t, round);
      rows[t]!.push(r);
      if (t === 0) httpRate = r.ordersPerSec;
      if (t === 1) ratios.push(r.ordersPerSec / httpRate);
      console.log(
        `| ${round + 1} | ${TARGETS[t]!.label} | ${Math.round(r.ordersPerSec)} | ${f1(r.p50)} | ${f1(r.p99)} | ${Math.round(r.cpuUs)} | ${r.errors} | ${t === 1 ? (r.ordersPerSec / httpRate).toFixed(2) : '—'} |`,
      );
    }
    console.log(`|  | load average after round ${round + 1}: ${loadavg()[0]!.toFixed(1)} | | | | | | |`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`\nMedians over ${RUNS} rounds\n`);
console.log(
  '| target | durable orders/s | ack p50 ms | ack p99 ms | server CPU µs/order | median per-round ratio vs HTTP |',
);
console.log('|---|---:|---:|---:|---:|---:|');
TARGETS.forEach((t, i) => {
  const rs = rows[i]!;
  console.log(
    `| ${t.label} | ${Math.round(median(rs.map((r) => r.ordersPerSec)))} | ${f1(median(rs.map((r) => r.p50)))} | ${f1(median(rs.map((r) => r.p99)))} | ${Math.round(median(rs.map((r) => r.cpuUs)))} | ${i === 1 ? median(ratios).toFixed(2) : '—'} |`,
  );
});
console.log(
  `\ngoal: WS ≥ 40,000 durable orders/s and ≥ 3× HTTP in the same run; p99 ack ≤ 10 ms at ${RATE}/s offered`,
);
