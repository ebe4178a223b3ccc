// Parlay pricing benchmark (issue 6, docs/bench-parlay.md).
//
//   node --import tsx bench/parlay.ts [--seconds 1] [--runs 5] [--http-seconds 10] [--http-runs 3]
//
// 1. In-process: priceParlay over a real Exchange built through commands, for 3-leg same-game
//    parlays (the bivariate-normal model) against 3-leg parlays on three games (the plain product)
//    as the baseline, each measured `runs` times for `seconds`; the table shows medians.
// 2. Over HTTP: the parlay route in a child process on a real port (rate limit lifted), loaded by
//    autocannon from this process with 64 connections, against a bare Fastify route in the same
//    kind of child returning the same response bytes. Two cores: the server gets one, autocannon
//    the other.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { loadConfig } from '../src/config.ts';
import parlayRoutes, { PARLAY_PATH } from '../src/http/routes/parlay.ts';
import { pricingParams } from '../src/pricing/league-models.ts';
import { priceParlay } from '../src/pricing/parlay.ts';
import { buildRealSlate, type RealGame } from '../test/pricing/real-exchange.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Same-game 3-leg combinations: moneyline or spread, plus a total, plus another spread. */
function sameGameSets(g: RealGame): string[][] {
  const o = g.outcomes;
  return [
    [o.ML[0], o['SP-3.5'][0], o['TOT47.5'][0]],
    [o.ML[1], o['SP3.5'][1], o['TOT44.5'][1]],
    [o['SP-2.5'][0], o['TOT41.5'][0], o['SP-7.5'][1]],
    [o.ML[0], o['TOT51.5'][1], o['SP3.5'][0]],
  ];
}

function crossGameSets(games: RealGame[]): string[][] {
  return [
    [games[0].outcomes.ML[0], games[1].outcomes['TOT47.5'][0], games[2].outcomes['SP-3.5'][1]],
    [games[1].outcomes.ML[1], games[2].outcomes['TOT44.5'][1], games[0].outcomes['SP-2.5'][0]],
  ];
}

// ---------------------------------------------------------------- child: one server

async function serve(kind: 'parlay' | 'bare'): Promise<void> {
  const { exchange, games } = buildRealSlate(4);
  const config = { ...loadConfig({}), parlayRateLimit: 0, logLevel: 'silent' };
  const parlayApp = Fastify({ logger: false });
  await parlayApp.register(parlayRoutes, { reader: () => exchange, config });
  let app = parlayApp;
  if (kind === 'bare') {
    // The bytes and headers a parlay request gets, served from a constant: the floor of what any
    // Fastify route answering this request can cost on this machine.
    const sample = await parlayApp.inject({
      method: 'POST',
      url: PARLAY_PATH,
      payload: { outcomes: sameGameSets(games[0])[0].map((id) => ({ id })) },
    });
    const bytes = sample.rawPayload;
    app = Fastify({ logger: false });
    app.post(PARLAY_PATH, async (_req, reply) =>
      reply
        .code(201)
        .header('content-type', 'application/json; charset=utf-8')
        .header('cache-control', 'max-age=5')
        .send(bytes),
    );
  }
  // Exit normally on SIGTERM so `node --cpu-prof` can write its profile of the server.
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
  // The server's own CPU time (user + system), so the parent can state requests per server
  // CPU-second: a capacity figure that other load on the machine does not distort much.
  app.get('/__cpu', async () => process.cpuUsage());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  process.stdout.write(
    `PORT ${port} ${JSON.stringify(sameGameSets(games[0]).concat(sameGameSets(games[1])))}\n`,
  );
}

async function startServer(
  kind: 'parlay' | 'bare',
): Promise<{ child: ChildProcess; port: number; sets: string[][] }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve', kind],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await once(rl, 'line')) as [string];
  const m = /^PORT (\d+) (.*)$/.exec(line);
  if (!m) throw new Error(`unexpected server output: ${line}`);
  return { child, port: Number(m[1]), sets: JSON.parse(m[2]) };
}

async function serverCpuSeconds(port: number): Promise<number> {
  const r = (await (await fetch(`http://127.0.0.1:${port}/__cpu`)).json()) as {
    user: number;
    system: number;
  };
  return (r.user + r.system) / 1e6;
}

async function load(port: number, sets: string[][], seconds: number) {
  const cpu0 = await serverCpuSeconds(port);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: 64,
    duration: seconds,
    requests: sets.map((ids) => ({
      method: 'POST' as const,
      path: PARLAY_PATH,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcomes: ids.map((id) => ({ id })), boostId: null }),
    })),
  });
  const cpu = (await serverCpuSeconds(port)) - cpu0;
  const bad = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result.requests.average,
    perCpu: result.requests.total / cpu,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad,
  };
}

// ---------------------------------------------------------------- parent

async function main(): Promise<void> {
  const seconds = arg('seconds', 1);
  const runs = arg('runs', 5);
  const httpSeconds = arg('http-seconds', 10);
  const httpRuns = arg('http-runs', 3);

  // In-process.
  const { exchange, games } = buildRealSlate(4);
  const params = pricingParams({ margin: 0.05 });
  const measure = (sets: string[][]) => {
    const reqs = sets.map((outcomeIds) => ({ outcomeIds, currency: 'CASH' as const }));
    for (let i = 0; i < 20_000; i++) priceParlay(exchange, reqs[i % reqs.length], params); // warm-up
    const out: number[] = [];
    const perCpu: number[] = [];
    for (let r = 0; r < runs; r++) {
      let n = 0;
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const end = t0 + BigInt(Math.round(seconds * 1e9));
      let now = t0;
      while (now < end) {
        for (let i = 0; i < 1000; i++) {
          const q = priceParlay(exchange, reqs[(n + i) % reqs.length], params);
          if (!q.ok) throw new Error(`declined: ${q.decline.code}`);
        }
        n += 1000;
        now = process.hrtime.bigint();
      }
      out.push(n / (Number(now - t0) / 1e9));
      const c = process.cpuUsage(c0);
      perCpu.push(n / ((c.user + c.system) / 1e6));
    }
    return { wall: out, cpu: perCpu };
  };
  const sgp = measure([...sameGameSets(games[0]), ...sameGameSets(games[1])]);
  const cross = measure(crossGameSets(games));
  console.log(`\nIn-process priceParlay (${runs} runs × ${seconds}s, real Exchange, median)\n`);
  console.log(
    '| scenario | quotes/s (median, wall) | min | max | quotes per CPU-second (median) | vs baseline |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, m] of [
    ['3 legs, one game (model)', sgp],
    ['baseline: 3 legs, three games (product)', cross],
  ] as const) {
    console.log(
      `| ${name} | ${fmt(median(m.wall))} | ${fmt(Math.min(...m.wall))} | ${fmt(Math.max(...m.wall))} | ${fmt(median(m.cpu))} | ${(median(m.wall) / median(cross.wall)).toFixed(2)}× |`,
    );
  }

  // Over HTTP: both servers up at once, loaded in alternation so that both see the same machine.
  const servers = { parlay: await startServer('parlay'), bare: await startServer('bare') };
  const rows: Record<'parlay' | 'bare', Awaited<ReturnType<typeof load>>[]> = { parlay: [], bare: [] };
  try {
    for (const kind of ['parlay', 'bare'] as const) await load(servers[kind].port, servers[kind].sets, 3); // warm-up
    for (let r = 0; r < httpRuns; r++) {
      for (const kind of ['parlay', 'bare'] as const) {
        rows[kind].push(await load(servers[kind].port, servers[kind].sets, httpSeconds));
      }
    }
  } finally {
    servers.parlay.child.kill();
    servers.bare.child.kill();
  }
  console.log(
    `\nHTTP, autocannon 64 connections, ${httpRuns} runs × ${httpSeconds}s each, alternating, 3-leg same-game bodies\n`,
  );
  console.log(
    '| server | req/s (median) | req/s per run | p50 ms | p99 ms (median) | non-2xx/errors | req per server CPU-second (median) | vs bare (req/s) |',
  );
  console.log('|---|---:|---|---:|---:|---:|---:|---:|');
  const bareRps = median(rows.bare.map((x) => x.rps));
  for (const kind of ['parlay', 'bare'] as const) {
    const rs = rows[kind];
    const rps = median(rs.map((x) => x.rps));
    console.log(
      `| ${kind === 'parlay' ? 'parlay route (rate limit lifted)' : 'bare Fastify route, same bytes'} | ${fmt(rps)} | ${rs.map((x) => fmt(x.rps)).join(' / ')} | ${median(rs.map((x) => x.p50))} | ${median(rs.map((x) => x.p99))} | ${rs.reduce((s, x) => s + x.bad, 0)} | ${fmt(median(rs.map((x) => x.perCpu)))} | ${(rps / bareRps).toFixed(2)}× |`,
    );
  }
  console.log(
    `\nload average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (${cpus().length} CPUs)`,
  );
}

if (process.argv.includes('--serve')) {
  await serve(process.argv[process.argv.indexOf('--serve') + 1] as 'parlay' | 'bare');
} else {
  await main();
}
