// Read-path benchmark: req/s of the cached-bytes GET routes of the REAL server against a bare
// Fastify route serving the very same bytes, measured in the same run (docs/bench-read-path.md).
//
//   npm run bench:read-path            (DURATION=3 ROUNDS=6 CONNECTIONS=32 to change)
//
// What runs: `startServer` as `npm start` runs it — the embedded store in a temporary data
// directory, the demo slate (static: DEMO_LIVE=false, so the bytes do not move under the load),
// the real bearer guard verifying a real JWT from the token endpoint, and logging at the shipped
// default (LOG_LEVEL=info: one access-log line per request, written to /dev/null). A second
// server runs with LOG_LEVEL=silent so the cost of the log line is visible. The baseline is a bare
// Fastify (logger off) in its own process serving, per route, the exact bytes the app answered.
//
// Fairness on 2 cores: each server is its own process (one event loop, like production) and
// autocannon runs in this process. Every round measures the three targets back to back, in a
// rotating order, so drift and noise from other processes hit them alike; ratios are per round
// and the median of those is reported beside the median req/s.

import { rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { fetchToken, httpCall } from '../test/helpers/child-server.ts';
import { BENCH_ADMIN, benchAppEnv, type Server, spawnServer } from './lib/app-children.ts';

const DURATION = Number(process.env.DURATION ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const ADMIN = BENCH_ADMIN;

async function readerToken(url: string): Promise<string> {
  const admin = await fetchToken(url, ADMIN.id, ADMIN.secret);
  const c = await httpCall(url, 'POST', '/admin/v1/clients', admin, {
    name: 'reader',
    scopes: ['read:tape'],
  });
  if (c.status !== 201) throw new Error(`create client: ${c.status} ${JSON.stringify(c.body)}`);
  return fetchToken(url, c.body.clientId, c.body.clientSecret);
}

/** The routes measured, resolved against the app's own demo data. */
async function scenarios(url: string, token: string) {
  const events = await httpCall(url, 'GET', '/nbx/v2/emm/events?type=Game&limit=100', token);
  if (events.status !== 200 || events.body.length === 0) throw new Error('no demo events');
  // The game with the most markets: the heaviest getMarketsByEvent of the slate.
  const big = [...events.body].sort((a, b) => b.marketIds.length - a.marketIds.length)[0];
  return [
    { name: 'GET /nbx/v2/emm/events (100/page)', path: '/nbx/v2/emm/events', goal: 0.7 },
    { name: 'GET /nbx/v2/emm/events/{id}', path: `/nbx/v2/emm/events/${events.body[7].id}`, goal: 0.8 },
    { name: 'GET /nbx/v2/emm/event-metadata/leagues', path: '/nbx/v2/emm/event-metadata/leagues', goal: 0.8 },
    {
      name: `GET getMarketsByEvent (${big.marketIds.length} markets)`,
      path: `/nbx/v2/emm/events/getMarketsByEvent/${big.id}?currency=CASH`,
      goal: 0.7,
    },
  ];
}

function run(url: string, headers: Record<string, string>): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION, pipelining: 1 }, (err, res) =>
      err ? reject(err) : resolve(res),
    );
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const dirs: string[] = [];
  const appEnv = (logLevel: string) => benchAppEnv(dirs, logLevel);
  // One at a time: creating the embedded store and the demo slate is CPU-heavy.
  const info = await spawnServer(appEnv('info'));
  const silent = await spawnServer(appEnv('silent'));
  const bare = await spawnServer({ ROLE: 'bare' });
  const servers = [info, silent, bare];
  try {
    const tokens = { info: await readerToken(info.url), silent: await readerToken(silent.url) };
    const list = await scenarios(info.url, tokens.info);
    // The silent server has its own demo ids (same seed, same slate, but minted ids differ): resolve
    // the same routes there by position.
    const listSilent = await scenarios(silent.url, tokens.silent);
    const sizes: number[] = [];
    for (const [i, s] of list.entries()) {
      const res = await fetch(info.url + s.path, { headers: { authorization: `Bearer ${tokens.info}` } });
      if (res.status !== 200) throw new Error(`${s.path}: ${res.status}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      sizes.push(bytes.length);
      await bare.store(String(i), bytes);
    }
    console.log(
      `read-path: real server (embedded store, demo slate, real bearer guard), ${ROUNDS} rounds × ${DURATION}s, ${CONNECTIONS} connections, node ${process.version}`,
    );
    const measure = async (srv: Server, url: string, headers: Record<string, string>) => {
      const c0 = await srv.cpu();
      const res = await run(url, headers);
      const c1 = await srv.cpu();
      if (res.non2xx > 0 || res.errors > 0)
        throw new Error(`${url}: ${res.non2xx} non-2xx, ${res.errors} errors`);
      return {
        rps: res.requests.average,
        p99: res.latency.p99,
        cpu: (c1 - c0) / Math.max(1, res.requests.total),
      };
    };
    const rows: string[] = [];
    for (const [i, s] of list.entries()) {
      const r = { info: [] as number[], silent: [] as number[], bare: [] as number[] };
      const ratio = { info: [] as number[], silent: [] as number[] };
      const p99: number[] = [];
      const cpu = { info: [] as number[], bare: [] as number[] };
      const targets = [
        async () => {
          const m = await measure(info, info.url + s.path, { authorization: `Bearer ${tokens.info}` });
          r.info.push(m.rps);
          p99.push(m.p99);
          cpu.info.push(m.cpu);
        },
        async () => {
          const m = await measure(silent, silent.url + listSilent[i]!.path, {
            authorization: `Bearer ${tokens.silent}`,
          });
          r.silent.push(m.rps);
        },
        async () => {
          const m = await measure(bare, `${bare.url}/bare/${i}`, {});
          r.bare.push(m.rps);
          cpu.bare.push(m.cpu);
        },
      ];
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < 3; k++) await targets[(round + k) % 3]!();
        ratio.info.push(r.info.at(-1)! / r.bare.at(-1)!);
        ratio.silent.push(r.silent.at(-1)! / r.bare.at(-1)!);
      }
      const ri = median(ratio.info);
      rows.push(
        `| ${s.name} | ${sizes[i]} | ${Math.round(median(r.info))} | ${Math.round(median(r.silent))} | ${Math.round(median(r.bare))} | **${(ri * 100).toFixed(0)}%** (${ratio.info.map((x) => (x * 100).toFixed(0)).join(' ')}) | ${(median(ratio.silent) * 100).toFixed(0)}% | ≥ ${s.goal * 100}% ${ri >= s.goal ? 'met' : 'MISSED'} | ${median(p99)} | ${median(cpu.info).toFixed(0)} / ${median(cpu.bare).toFixed(0)} |`,
      );
      console.log(rows.at(-1));
    }
    console.log(
      '\n| route | bytes | app req/s, LOG_LEVEL=info (shipped) | app req/s, silent | bare req/s | info ÷ bare: median (per round) | silent ÷ bare | goal (info) | app p99 ms | server CPU µs/req app / bare |',
    );
    console.log('|---|---:|---:|---:|---:|---|---:|---|---:|---|');
    for (const row of rows) console.log(row);
  } finally {
    for (const s of servers) s.proc.kill();
    await new Promise((r) => setTimeout(r, 500));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
