// Durable order placement over HTTP: POST /nbx/v2/emm/orders/place against the real
// server on the embedded store (and on PostgreSQL when DATABASE_URL is set), 32 connections,
// every 201 acknowledged only after its group commit (on the embedded store: after the fdatasync
// of the journal segment). Baseline in the same run: a bare Fastify route parsing the same body
// and answering fixed bytes. Rounds interleave bare / embedded / PostgreSQL and each is printed.
//
//   node --import tsx bench/orders-http.ts [--seconds 10] [--runs 3] [--connections 32]
//     [--only embedded|postgres] [--cpu-prof DIR] [--ab CHECKOUT[,CHECKOUT…]]
//     [--sql-thread worker|main[,…]] [--node-options FLAGS[,FLAGS…]]
//
// The real targets run the built server (dist/main.js, as `npm start`; rebuilt first when a
// source is newer) by plain node (bench/lib/orders-child.mjs); the bare route runs from
// bench/lib/server-child.ts. Server CPU per order (user + system time of the server process
// during the load, from /proc) is printed beside the rate: on a shared machine it is steadier
// than orders/s. The main thread's share (the event loop) is printed beside it. --ab runs every
// real target a second time per round on another checkout's built server (a clone of the base commit),
// interleaved, so a change is compared with its base in the same run.
// --cpu-prof writes a V8 profile of each real server to DIR. --sql-thread runs the embedded target
// once per value given with EMBEDDED_SQL_THREAD set to it (default: the server's own default), so
// the two placements of the embedded store's SQL are compared in the same rounds.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { PostgresStore } from '../src/store/postgres-store.ts';
import { bootChild, type Child } from '../test/helpers/child-server.ts';
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
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
    ab: { type: 'string' },
    'sql-thread': { type: 'string' },
    'node-options': { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const RUNS = Number(values.runs);
const CONNECTIONS = Number(values.connections);
const child = fileURLToPath(new URL('./lib/server-child.ts', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

const profDir = values['cpu-prof'];

/** The bare route (tsx), or a checkout's built server (plain node, see the header). */
async function boot(env: Record<string, string>, checkout: string | null): Promise<Child> {
  if (checkout === null) return bootChild(child, env);
  return bootBuilt(checkout, env, profDir);
}

interface Row {
  target: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Server CPU (user + system) per answered request, µs. */
  cpuUs: number;
  /** The same, of the server's main thread alone. */
  mainCpuUs: number;
}

async function load(url: string, pid: number | undefined, game: Game | null): Promise<Row> {
  let n = 0;
  const cpu0 = cpuSeconds(pid);
  const main0 = cpuSeconds(pid, true);
  const r = await autocannon({
    url: `${url}/nbx/v2/emm/orders/place`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    requests: [
      {
        setupRequest: (req) => {
          const k = n++;
          if (game === null) {
            // The bare route: the same body, no token.
            const body = placeBody({ markets: [], outcomes: [['x', 'y']], tokens: ['', ''] }, k).body;
            return { ...req, headers: { 'content-type': 'application/json' }, body };
          }
          const { token, body } = placeBody(game, k);
          return {
            ...req,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body,
          };
        },
      },
    ],
  });
  const cpu = cpuSeconds(pid) - cpu0;
  const mainCpu = cpuSeconds(pid, true) - main0;
  return {
    target: '',
    cpuUs: (cpu * 1e6) / Math.max(1, r.requests.total),
    mainCpuUs: (mainCpu * 1e6) / Math.max(1, r.requests.total),
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
  };
}

interface Target {
  label: string;
  real: boolean;
  /** The checkout whose built server runs (another one for --ab); null for the bare route. */
  checkout: string | null;
  /** Environment for one round (a new data directory or schema: every round starts empty). */
  prepare: (round: number) => Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>;
}

/** One round on a fresh server. */
async function runOnce(t: Target, round: number): Promise<Row> {
  const { env, cleanup } = await t.prepare(round);
  const { proc, url, exited } = await boot(env, t.checkout);
  try {
    return { ...(await load(url, proc.pid, t.real ? await setupGame(url, 2) : null)), target: t.label };
  } finally {
    proc.kill('SIGTERM');
    await exited;
    await cleanup();
  }
}

const base = BASE_ENV;
// Scratch data directories under the OS temp dir, never in the repository.
const tmp = join(tmpdir(), `tickbook-bench-orders-${randomBytes(4).toString('hex')}`);
const freshDir = (i: number) => {
  const d = `${tmp}/${i}`;
  mkdirSync(d, { recursive: true });
  return d;
};
const noCleanup = async () => {};

const targets: Target[] = [
  {
    label: 'bare Fastify route (baseline)',
    real: false,
    checkout: null,
    prepare: async () => ({ env: { ...base, BARE: '1' }, cleanup: noCleanup }),
  },
  {
    label: 'Tickbook, embedded store (segment journal, fdatasync)',
    real: true,
    checkout: root,
    prepare: async (i) => {
      const d = freshDir(i);
      return {
        env: { ...base, DATA_DIR: d },
        cleanup: async () => rmSync(d, { recursive: true, force: true }),
      };
    },
  },
];
const sqlThreads = values['sql-thread']?.split(',') ?? [];
if (sqlThreads.length > 0) {
  const embedded = targets.pop()!;
  for (const thread of sqlThreads) {
    if (thread !== 'main' && thread !== 'worker')
      throw new Error(`--sql-thread: ${thread} is not main or worker`);
    targets.push({
      ...embedded,
      label: `${embedded.label}, SQL thread ${thread}`,
      prepare: async (i) => {
        const p = await embedded.prepare(i);
        return { ...p, env: { ...p.env, EMBEDDED_SQL_THREAD: thread } };
      },
    });
  }
}
// --node-options: the embedded target once per value (comma-separated; an empty value: none), with
// NODE_OPTIONS set to it, so V8 flags (a larger young generation, say) are compared in the same rounds.
const nodeOptions = values['node-options']?.split(',') ?? [];
if (nodeOptions.length > 0) {
  const embedded = targets.pop()!;
  for (const opt of nodeOptions) {
    targets.push({
      ...embedded,
      label: `${embedded.label}, NODE_OPTIONS="${opt}"`,
      prepare: async (i) => {
        const p = await embedded.prepare(i);
        return { ...p, env: { ...p.env, NODE_OPTIONS: opt } };
      },
    });
  }
}
if (process.env.DATABASE_URL) {
  const pgUrl = process.env.DATABASE_URL;
  targets.push({
    label: 'Tickbook, PostgreSQL',
    real: true,
    checkout: root,
    prepare: async (i) => {
      const schema = `bench_${randomBytes(4).toString('hex')}`;
      const admin = await PostgresStore.open(pgUrl, 1);
      await admin.exec(`CREATE SCHEMA ${schema}`);
      const u = new URL(pgUrl);
      u.searchParams.set('options', `-c search_path=${schema}`);
      const d = freshDir(100 + i);
      return {
        env: { ...base, DATA_DIR: d, DATABASE_URL: u.toString() },
        cleanup: async () => {
          await admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await admin.close();
          rmSync(d, { recursive: true, force: true });
        },
      };
    },
  });
}

if (values.only !== undefined) {
  const keep = values.only === 'postgres' ? 'PostgreSQL' : 'embedded';
  for (let i = targets.length - 1; i > 0; i--) if (!targets[i]!.label.includes(keep)) targets.splice(i, 1);
}
for (const dir of values.ab?.split(',') ?? []) {
  for (const t of targets.filter((x) => x.real && x.checkout === root)) {
    targets.push({ ...t, label: `${t.label} [${dir}]`, checkout: dir });
  }
}
// As `npm start`: rebuild this checkout's dist/ when a source is newer (another checkout's build
// is taken as it is).
execFileSync(process.execPath, [join(root, 'scripts/ensure-build.mjs')], { stdio: 'inherit' });

// Rounds interleave the targets (A B C A B C ...), so a neighbour's load spike hits all of them
// alike; each round's ratio is against the bare route of the same round.
console.log(
  `\nDurable order placement, ${CONNECTIONS} connections, ${SECONDS} s per round, ${RUNS} rounds; load average at start ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}\n`,
);
console.log(
  '| round | target | orders/s | p50 ms | p99 ms | non-2xx | server CPU µs/order | main thread µs/order | vs bare (same round) |',
);
console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
const rows: Row[][] = targets.map(() => []);
const ratios: number[][] = targets.map(() => []);
try {
  for (let round = 0; round < RUNS; round++) {
    let bare = 0;
    for (let t = 0; t < targets.length; t++) {
      const r = await runOnce(targets[t]!, round);
      if (t === 0) bare = r.reqPerSec;
      rows[t]!.push(r);
      ratios[t]!.push(r.reqPerSec / bare);
      console.log(
        `| ${round + 1} | ${r.target} | ${Math.round(r.reqPerSec)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${Math.round(r.cpuUs)} | ${Math.round(r.mainCpuUs)} | ${r.reqPerSec === bare && t === 0 ? '—' : ratios[t]!.at(-1)!.toFixed(2)} |`,
      );
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

console.log(`\nMedians over ${RUNS} rounds\n`);
console.log(
  '| target | orders/s | p50 ms | p99 ms | non-2xx | server CPU µs/order | main thread µs/order | median per-round ratio vs bare |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
targets.forEach((t, i) => {
  const rs = rows[i]!;
  console.log(
    `| ${t.label} | ${Math.round(median(rs.map((r) => r.reqPerSec)))} | ${median(rs.map((r) => r.p50))} | ${median(rs.map((r) => r.p99))} | ${rs.reduce((s, r) => s + r.non2xx, 0)} | ${Math.round(median(rs.map((r) => r.cpuUs)))} | ${Math.round(median(rs.map((r) => r.mainCpuUs)))} | ${i === 0 ? '—' : median(ratios[i]!).toFixed(2)} |`,
  );
});
console.log(`\nload average at the end: ${loadavg()[0]!.toFixed(2)}`);
console.log(
  '\ngoal: embedded ≥ 10,000 orders/s, p99 ≤ 15 ms, ≤ 85 µs of main-thread CPU per order; PostgreSQL ≥ 8,000/s, p99 ≤ 20 ms',
);
