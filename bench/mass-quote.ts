// Durable mass quotes over HTTP: POST /nbx/v2/emm/quotes (5 levels × 2 outcomes per set) against
// the built server on the embedded store, 32 connections, every 200 answered only after its group
// commit (the fdatasync of the journal segment). Baseline in the same run: single-order placement
// (POST /nbx/v2/emm/orders/place, the load of bench/orders-http.ts) on a server of its own. Rounds
// interleave placement / mass quote, each on a fresh server and data directory; per-round ratios
// are quote sets/s over placements/s of the same round.
//
//   node --import tsx bench/mass-quote.ts [--seconds 10] [--runs 3] [--connections 32]
//     [--cpu-prof DIR] [--ab CHECKOUT] [--node-options=FLAGS[,FLAGS…]]
//
// --node-options (not with --ab): the mass-quote target once per value (comma-separated; an empty
// value: none, as `npm start`) with NODE_OPTIONS set to it, interleaved, so V8 flags (another young
// generation, say) are compared in the same rounds.
// Each quote set moves its quantities a little (qty cycles per request), so most sets shrink,
// grow or keep levels: a mix of in-place reductions, re-queues and unchanged levels; quotes never
// cross (0.40–0.44 on outcome 0, 0.50–0.54 on outcome 1). Eight quoting accounts over ten markets.
// Server CPU per request (user + system of the server process, /proc) and its main thread's share
// are printed beside the rate, as bench/orders-http.ts does. The set-up (server, game, traders,
// placement bodies) is bench/lib/order-servers.ts's. --cpu-prof writes a V8 profile of each server to
// DIR. --ab adds a third target per round, the mass quote on another checkout's built server (a
// clone of the base commit), so a change is compared with its base in the same rounds; its row says
// the A/B ratio (this checkout over the other) beside the ratio to placement.

import { execFileSync } from 'node:child_process';
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
    'cpu-prof': { type: 'string' },
    ab: { type: 'string' },
    'node-options': { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const RUNS = Number(values.runs);
const CONNECTIONS = Number(values.connections);
const root = fileURLToPath(new URL('..', import.meta.url));
const QUOTERS = 8;
const profDir = values['cpu-prof'];
const abCheckout = values.ab;

interface Row {
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  cpuUs: number;
  mainCpuUs: number;
}

type Ctx = Game;

function quoteBody(ctx: Ctx, k: number): { token: string; body: string } {
  const mi = k % ctx.markets.length;
  const m = ctx.outcomes[mi]!;
  const level = (base: number) =>
    Array.from({ length: 5 }, (_, j) => ({
      price: Number((base + j / 100).toFixed(2)),
      qty: 100 * (1 + ((Math.floor(k / ctx.markets.length) + j) % 3)),
    }));
  return {
    token: ctx.tokens[Math.floor(k / ctx.markets.length) % ctx.tokens.length]!,
    body: JSON.stringify({
      marketId: ctx.markets[mi],
      currency: 'CASH',
      quotes: [
        { outcomeId: m[0], levels: level(0.4) },
        { outcomeId: m[1], levels: level(0.5) },
      ],
    }),
  };
}

async function load(
  url: string,
  pid: number | undefined,
  path: string,
  make: (k: number) => { token: string; body: string },
): Promise<Row> {
  let n = 0;
  const cpu0 = cpuSeconds(pid);
  const main0 = cpuSeconds(pid, true);
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
  const total = Math.max(1, r.requests.total);
  return {
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    cpuUs: ((cpuSeconds(pid) - cpu0) * 1e6) / total,
    mainCpuUs: ((cpuSeconds(pid, true) - main0) * 1e6) / total,
  };
}

const base = BASE_ENV;
const tmp = join(tmpdir(), `tickbook-bench-quotes-${randomBytes(4).toString('hex')}`);

interface Target {
  label: string;
  checkout: string;
  path: string;
  traders: number;
  /** NODE_OPTIONS of its server (--node-options); unset: the environment's. */
  nodeOptions?: string;
  make: (ctx: Ctx) => (k: number) => { token: string; body: string };
}
const targets: Target[] = [
  {
    label: 'single-order placement (baseline)',
    checkout: root,
    path: '/nbx/v2/emm/orders/place',
    traders: 2,
    make: (ctx) => (k) => placeBody(ctx, k),
  },
  {
    label: 'mass quote, 5 levels × 2 outcomes',
    checkout: root,
    path: '/nbx/v2/emm/quotes',
    traders: QUOTERS,
    make: (ctx) => (k) => quoteBody(ctx, k),
  },
];
if (abCheckout !== undefined) {
  targets.push({ ...targets[1]!, label: `mass quote on ${abCheckout} (A/B base)`, checkout: abCheckout });
  execFileSync(process.execPath, [join(abCheckout, 'scripts/ensure-build.mjs')], {
    stdio: 'inherit',
    cwd: abCheckout,
  });
}

const nodeOptions = values['node-options']?.split(',');
if (nodeOptions !== undefined) {
  if (abCheckout !== undefined) throw new Error('--node-options and --ab: one at a time');
  const quote = targets.pop()!;
  for (const opt of nodeOptions)
    targets.push({ ...quote, label: `${quote.label}, NODE_OPTIONS="${opt}"`, nodeOptions: opt });
}

async function runOnce(t: Target, round: number, index: number): Promise<Row> {
  const dir = join(tmp, `${round}-${index}`);
  mkdirSync(dir, { recursive: true });
  const { proc, url, exited } = await bootBuilt(
    t.checkout,
    { ...base, DATA_DIR: dir, ...(t.nodeOptions === undefined ? {} : { NODE_OPTIONS: t.nodeOptions }) },
    profDir,
  );
  try {
    const ctx = await setupGame(url, t.traders);
    return await load(url, proc.pid, t.path, t.make(ctx));
  } finally {
    proc.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

execFileSync(process.execPath, [join(root, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });
console.log(
  `\nDurable requests on the embedded store, ${CONNECTIONS} connections, ${SECONDS} s per round, ${RUNS} rounds`,
);
console.log(
  `load average at start: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}\n`,
);
const AB = abCheckout !== undefined;
console.log(
  `| round | target | requests/s | p50 ms | p99 ms | non-2xx | server CPU µs/request | main thread µs/request | vs placement (same round) |${AB ? ' this checkout over the A/B base (same round) |' : ''}`,
);
console.log(`|---:|---|---:|---:|---:|---:|---:|---:|---:|${AB ? '---:|' : ''}`);
const rows: Row[][] = targets.map(() => []);
/** Per target, per round: requests/s over the same round's placement. */
const ratios: number[][] = targets.map(() => []);
/** Per round: this checkout's quote sets/s over the A/B base's, and its main thread's µs per set. */
const abRatios: number[] = [];
const abMainRatios: number[] = [];
try {
  for (let round = 0; round < RUNS; round++) {
    // The two mass-quote targets swap places every other round, so neither always runs second.
    const order = AB && round % 2 === 1 ? [0, 2, 1] : targets.map((_, i) => i);
    for (const t of order) {
      const r = await runOnce(targets[t]!, round, t);
      rows[t]!.push(r);
    }
    const baseline = rows[0]![round]!.reqPerSec;
    if (AB) {
      abRatios.push(rows[1]![round]!.reqPerSec / rows[2]![round]!.reqPerSec);
      abMainRatios.push(rows[1]![round]!.mainCpuUs / rows[2]![round]!.mainCpuUs);
    }
    targets.forEach((target, t) => {
      const r = rows[t]![round]!;
      if (t > 0) ratios[t]!.push(r.reqPerSec / baseline);
      const ab = !AB
        ? ''
        : t === 2
          ? ` ${abRatios.at(-1)!.toFixed(2)} (main thread µs ${abMainRatios.at(-1)!.toFixed(2)}) |`
          : ' — |';
      console.log(
        `| ${round + 1} | ${target.label} | ${Math.round(r.reqPerSec)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${Math.round(r.cpuUs)} | ${Math.round(r.mainCpuUs)} | ${t === 0 ? '—' : ratios[t]!.at(-1)!.toFixed(2)} |${ab}`,
      );
    });
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
console.log(
  `\nMedians over ${RUNS} rounds (load average now: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})\n`,
);
console.log(
  `| target | requests/s | p50 ms | p99 ms | non-2xx | server CPU µs/request | main thread µs/request | median per-round ratio to placement |${AB ? ' median per-round A/B ratio |' : ''}`,
);
console.log(`|---|---:|---:|---:|---:|---:|---:|---:|${AB ? '---:|' : ''}`);
targets.forEach((t, i) => {
  const rs = rows[i]!;
  const ab = !AB
    ? ''
    : i === 2
      ? ` ${median(abRatios).toFixed(2)} (main thread µs ${median(abMainRatios).toFixed(2)}) |`
      : ' — |';
  console.log(
    `| ${t.label} | ${Math.round(median(rs.map((r) => r.reqPerSec)))} | ${median(rs.map((r) => r.p50))} | ${median(rs.map((r) => r.p99))} | ${rs.reduce((s, r) => s + r.non2xx, 0)} | ${Math.round(median(rs.map((r) => r.cpuUs)))} | ${Math.round(median(rs.map((r) => r.mainCpuUs)))} | ${i === 0 ? '—' : median(ratios[i]!).toFixed(2)} |${ab}`,
  );
});
console.log('\ngoal: ≥ 10,000 durable quote sets/s (5 levels × 2 outcomes) on the embedded store');
