// Parlay pricing benchmark (docs/bench-parlay.md).
//
//   node --import tsx bench/parlay.ts [--seconds 1] [--runs 5] [--http-seconds 10] [--http-runs 3]
//
// 1. In-process: priceParlay over a real Exchange built through commands, for 3-leg same-game
//    parlays (the bivariate-normal model) against 3-leg parlays on three games (the plain product)
//    as the baseline, each measured `runs` times for `seconds`; the table shows medians.
// 2. Over HTTP: the real server (startServer with every hook, shipped logging, the demo slate;
//    rate limit lifted) in a child process on a real port, loaded by autocannon from this process
//    with 64 connections, against a bare Fastify route in its own child returning the same
//    response bytes, alternating run by run with per-run ratios. Two cores: the server gets one,
//    autocannon the other.

import { rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import autocannon from 'autocannon';
import { PARLAY_PATH } from '../src/http/routes/parlay.ts';
import { pricingParams } from '../src/pricing/league-models.ts';
import { priceParlay } from '../src/pricing/parlay.ts';
import { fetchToken, httpCall } from '../test/helpers/child-server.ts';
import { buildRealSlate, type RealGame } from '../test/pricing/real-exchange.ts';
import { BENCH_ADMIN, benchAppEnv, type Server, spawnServer } from './lib/app-children.ts';
import { numArg } from './lib/args.ts';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Same-game 3-leg combinations: moneyline or spread, plus a total, plus another spread. */
function sameGameSets(g: RealGame): string[][] {
  const o = g.outcomes;
  return [
    [o.ML![0], o['SP-3.5']![0], o['TOT47.5']![0]],
    [o.ML![1], o['SP3.5']![1], o['TOT44.5']![1]],
    [o['SP-2.5']![0], o['TOT41.5']![0], o['SP-7.5']![1]],
    [o.ML![0], o['TOT51.5']![1], o['SP3.5']![0]],
  ];
}

function crossGameSets(games: RealGame[]): string[][] {
  return [
    [games[0]!.outcomes.ML![0], games[1]!.outcomes['TOT47.5']![0], games[2]!.outcomes['SP-3.5']![1]],
    [games[1]!.outcomes.ML![1], games[2]!.outcomes['TOT44.5']![1], games[0]!.outcomes['SP-2.5']![0]],
  ];
}

// ---------------------------------------------------------------- HTTP: the real app

const ADMIN = BENCH_ADMIN;

/**
 * 3-leg same-game sets from the demo slate as the REST API shows it: per game, a moneyline outcome,
 * a spread outcome and a total outcome, kept when the real route prices them (201).
 */
async function demoSets(url: string, admin: string): Promise<string[][]> {
  const events = await httpCall(url, 'GET', '/nbx/v2/emm/events?type=Game&limit=100', admin);
  const sets: string[][] = [];
  for (const ev of events.body as { id: string }[]) {
    if (sets.length >= 8) break;
    const markets = await httpCall(
      url,
      'GET',
      `/nbx/v2/emm/events/getMarketsByEvent/${ev.id}?currency=CASH`,
      admin,
    );
    if (markets.status !== 200) continue;
    const pick = (re: RegExp, side: number) =>
      (markets.body as { type: string; outcomeIds: string[] }[]).find((m) => re.test(m.type))?.outcomeIds[
        side
      ];
    const legs = [pick(/^money/i, sets.length % 2), pick(/^spread/i, 0), pick(/^total/i, 1)];
    if (legs.some((l) => l === undefined)) continue;
    const q = await httpCall(url, 'POST', PARLAY_PATH, null, {
      outcomes: legs.map((id) => ({ id })),
      boostId: null,
    });
    if (q.status === 201) sets.push(legs as string[]);
  }
  if (sets.length === 0) throw new Error('no priceable same-game parlay in the demo slate');
  return sets;
}

async function load(server: Server, path: string, sets: string[][], seconds: number) {
  const cpu0 = await server.cpu();
  const result = await autocannon({
    url: server.url,
    connections: 64,
    duration: seconds,
    requests: sets.map((ids) => ({
      method: 'POST' as const,
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcomes: ids.map((id) => ({ id })), boostId: null }),
    })),
  });
  const cpu = ((await server.cpu()) - cpu0) / 1e6;
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
  const seconds = numArg('seconds', 1);
  const runs = numArg('runs', 5);
  const httpSeconds = numArg('http-seconds', 10);
  const httpRuns = numArg('http-runs', 3);

  // In-process.
  const { exchange, games } = buildRealSlate(4);
  const params = pricingParams({ margin: 0.05 });
  const measure = (sets: string[][]) => {
    const reqs = sets.map((outcomeIds) => ({ outcomeIds, currency: 'CASH' as const }));
    for (let i = 0; i < 20_000; i++) priceParlay(exchange, reqs[i % reqs.length]!, params); // warm-up
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
          const q = priceParlay(exchange, reqs[(n + i) % reqs.length]!, params);
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
  const sgp = measure([...sameGameSets(games[0]!), ...sameGameSets(games[1]!)]);
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

  // Over HTTP: the real server (startServer, as `npm start` runs it: embedded store, static demo
  // slate, every hook, LOG_LEVEL=info to /dev/null, the parlay rate limit lifted) and a bare Fastify
  // answering a parlay's bytes, both up at once and loaded in alternation.
  const dirs: string[] = [];
  const app = await spawnServer(benchAppEnv(dirs));
  const bare = await spawnServer({ ROLE: 'bare' });
  const rows: Record<'parlay' | 'bare', Awaited<ReturnType<typeof load>>[]> = { parlay: [], bare: [] };
  const ratios: number[] = [];
  try {
    const sets = await demoSets(app.url, await fetchToken(app.url, ADMIN.id, ADMIN.secret));
    const sample = await fetch(app.url + PARLAY_PATH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcomes: sets[0]!.map((id) => ({ id })), boostId: null }),
    });
    await bare.store('p', Buffer.from(await sample.arrayBuffer()));
    const targets = {
      parlay: () => load(app, PARLAY_PATH, sets, httpSeconds),
      bare: () => load(bare, '/bare/p', sets, httpSeconds),
    };
    await load(app, PARLAY_PATH, sets, 3); // warm-up
    await load(bare, '/bare/p', sets, 3);
    for (let r = 0; r < httpRuns; r++) {
      const order = r % 2 === 0 ? (['parlay', 'bare'] as const) : (['bare', 'parlay'] as const);
      for (const kind of order) rows[kind].push(await targets[kind]());
      ratios.push(rows.parlay.at(-1)!.rps / rows.bare.at(-1)!.rps);
    }
  } finally {
    app.proc.kill();
    bare.proc.kill();
    await new Promise((r) => setTimeout(r, 500));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
  console.log(
    `\nHTTP, autocannon 64 connections, ${httpRuns} runs × ${httpSeconds}s each, alternating, 3-leg same-game bodies\n`,
  );
  console.log(
    '| server | req/s (median) | req/s per run | p50 ms | p99 ms (median) | non-2xx/errors | req per server CPU-second (median) | vs bare (req/s, median of medians) |',
  );
  console.log('|---|---:|---|---:|---:|---:|---:|---:|');
  const bareRps = median(rows.bare.map((x) => x.rps));
  for (const kind of ['parlay', 'bare'] as const) {
    const rs = rows[kind];
    const rps = median(rs.map((x) => x.rps));
    console.log(
      `| ${kind === 'parlay' ? 'real app, parlay route (rate limit lifted, LOG_LEVEL=info)' : 'bare Fastify route, same bytes'} | ${fmt(rps)} | ${rs.map((x) => fmt(x.rps)).join(' / ')} | ${median(rs.map((x) => x.p50))} | ${median(rs.map((x) => x.p99))} | ${rs.reduce((s, x) => s + x.bad, 0)} | ${fmt(median(rs.map((x) => x.perCpu)))} | ${(rps / bareRps).toFixed(2)}× |`,
    );
  }
  console.log(
    `\nreal app ÷ bare, per run: ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)}; goal ≥ 0.80)`,
  );
  console.log(
    `\nload average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (${cpus().length} CPUs)`,
  );
}

await main();
