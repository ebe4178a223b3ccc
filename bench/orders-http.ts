// Durable order placement over HTTP (issue 4): POST /nbx/v2/emm/orders/place against the real
// server on the embedded store (and on PostgreSQL when DATABASE_URL is set), 32 connections,
// every 201 acknowledged only after its group commit. Baseline in the same run: a bare Fastify
// route parsing the same body and answering fixed bytes. Goal: ≥ 5,000 orders/s, p99 ≤ 25 ms.
//
//   node --import tsx bench/orders-http.ts [--seconds 10] [--runs 3] [--connections 32]

import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { PostgresStore } from '../src/store/postgres-store.ts';
import { bootChild, createGame, fetchToken, httpCall } from '../test/helpers/child-server.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
  },
});
const SECONDS = Number(values.seconds);
const RUNS = Number(values.runs);
const CONNECTIONS = Number(values.connections);
const child = fileURLToPath(new URL('./lib/server-child.ts', import.meta.url));
const ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789abcdefghijklmnopqrstu' };

const boot = (env: Record<string, string>) => bootChild(child, env);

async function call(url: string, method: string, path: string, token: string | null, body?: unknown) {
  const r = await httpCall(url, method, path, token, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
const token = fetchToken;

/** A game with 10 moneyline markets and two richly funded traders. */
async function setup(url: string) {
  const admin = await token(url, ADMIN.id, ADMIN.secret);
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
    tokens.push(await token(url, c.clientId, c.clientSecret));
  }
  return { outcomes, tokens };
}

interface Row {
  target: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(url: string, ctx: { outcomes: string[][]; tokens: string[] } | null): Promise<Row> {
  let n = 0;
  // Prices around 0.5 on both outcomes: roughly a third of the orders cross and trade.
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
          const m = ctx ? ctx.outcomes[k % ctx.outcomes.length]! : ['x', 'y'];
          const side = (k >> 3) & 1;
          return {
            ...req,
            headers: {
              'content-type': 'application/json',
              ...(ctx ? { authorization: `Bearer ${ctx.tokens[side]}` } : {}),
            },
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
    target: '',
    reqPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Median over RUNS runs, each on a fresh server: `prepare` gives the run its environment (a new
 * data directory or schema, so every run starts from an empty book) and a cleanup.
 */
async function measure(
  label: string,
  prepare: (run: number) => Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>,
  real: boolean,
): Promise<Row> {
  const rows: Row[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { env, cleanup } = await prepare(i);
    const { proc, url, exited } = await boot(env);
    try {
      rows.push(await load(url, real ? await setup(url) : null));
    } finally {
      proc.kill('SIGTERM');
      await exited;
      await cleanup();
    }
  }
  return {
    target: label,
    reqPerSec: median(rows.map((r) => r.reqPerSec)),
    p50: median(rows.map((r) => r.p50)),
    p99: median(rows.map((r) => r.p99)),
    non2xx: rows.reduce((s, r) => s + r.non2xx, 0),
  };
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
const tmp = fileURLToPath(new URL(`../.tmp/bench-orders-${randomBytes(4).toString('hex')}`, import.meta.url));
const freshDir = (i: number) => {
  const d = `${tmp}/${i}`;
  mkdirSync(d, { recursive: true });
  return d;
};
const noCleanup = async () => {};

const results: Row[] = [];
results.push(
  await measure(
    'bare Fastify route (baseline)',
    async () => ({ env: { ...base, BARE: '1' }, cleanup: noCleanup }),
    false,
  ),
);
results.push(
  await measure(
    'Tickbook, embedded store (PGlite)',
    async (i) => {
      const d = freshDir(i);
      return {
        env: { ...base, DATA_DIR: d },
        cleanup: async () => rmSync(d, { recursive: true, force: true }),
      };
    },
    true,
  ),
);
if (process.env.DATABASE_URL) {
  const pgUrl = process.env.DATABASE_URL;
  results.push(
    await measure(
      'Tickbook, PostgreSQL',
      async (i) => {
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
      true,
    ),
  );
}
rmSync(tmp, { recursive: true, force: true });

const bare = results[0]!.reqPerSec;
console.log(`\nDurable order placement, ${CONNECTIONS} connections, ${SECONDS} s × ${RUNS} runs (medians)\n`);
console.log('| target | orders/s | p50 ms | p99 ms | non-2xx | vs bare |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.target} | ${Math.round(r.reqPerSec)} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${((100 * r.reqPerSec) / bare).toFixed(0)}% |`,
  );
}
console.log('\ngoal: ≥ 5,000 orders/s and p99 ≤ 25 ms on the embedded store');
