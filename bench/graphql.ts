// GraphQL odds-screen benchmark (docs/graphql.md): req/s of `/v1/graphql` answering the odds screen
// (the open events of one league with their markets, outcomes and open CASH orders) next to the REST
// route clients use for the same data (POST getMarketsByEvents with that league's event ids), in the
// same run, over HTTP.
//
//   npm run bench:graphql          (DURATION=3 ROUNDS=6 CONNECTIONS=32 to change)
//
// As bench/read-path.ts: the app runs in ONE child process (one event loop, like production) and
// autocannon in this process; each round measures both routes back to back, the order flipping
// every round, and the table shows medians and the median of the per-round ratios. The state:
// 300 games in 10 leagues (30 per league), 3 markets each, a market maker's 3 bids on every outcome.

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { Principal } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import { ApiError } from '../src/errors.ts';
import type { MarketSpec } from '../src/exchange/types.ts';
import exchangeApi from '../src/http/routes/exchange-api.ts';
import graphqlRoutes from '../src/http/routes/graphql.ts';
import { uuidFor } from '../src/ids.ts';
import { MemoryPort } from '../test/helpers/memory-port.ts';
import { nullStore } from '../test/http/harness.ts';

const TOKEN = 'bench-token';
const DURATION = Number(process.env.DURATION ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const GOAL_RPS = 2000;

const LEAGUES = ['NFL', 'NBA', 'MLB', 'NHL', 'NCAAF', 'NCAAB', 'MLS', 'EPL', 'UFC', 'PGA'];
const GAMES = 300;

export const ODDS_SCREEN = `query Odds($league: String!) {
  event(where: {league: {_eq: $league}, status: {_in: ["OPEN_PREGAME", "OPEN_INGAME"]}}, order_by: {scheduled_start: asc}) {
    id description status scheduled_start
    game { id homeTeam { name symbol } awayTeam { name symbol } }
    markets { id type description strike
      outcomes { id description index available last
        orders(where: {status: {_eq: "RESTING"}, currency: {_eq: "CASH"}}) { price qty } } }
  }
}`;

function must(r: { ok: boolean; code?: string }): void {
  if (!r.ok) throw new Error(`seed rejected: ${r.code}`);
}

function seed(port: MemoryPort): void {
  const start = Date.UTC(2026, 10, 22, 18);
  for (const code of LEAGUES) {
    must(port.applyNow({ type: 'CreateLeague', code, name: code }));
    for (let n = 0; n < 8; n++) {
      must(
        port.applyNow({
          type: 'CreateTeam',
          team: {
            id: uuidFor('bench-gql', code, n),
            league: code,
            name: `${code} Team ${n}`,
            shortName: `T${n}`,
            symbol: `${code.slice(0, 2)}${n}`,
            mascot: `M${n}`,
          },
        }),
      );
    }
  }
  const market = (key: string, type: MarketSpec['type'], strike: number | null): MarketSpec => ({
    id: uuidFor('bench-gql', 'm', key),
    type,
    strike,
    description: `${key} ${type} ${strike ?? ''}`,
    outcomes: [
      { id: uuidFor('bench-gql', 'o', key, 0), description: `${key} side 0` },
      { id: uuidFor('bench-gql', 'o', key, 1), description: `${key} side 1` },
    ],
  });
  const mm = uuidFor('bench-gql', 'mm');
  must(port.applyNow({ type: 'CreateAccount', accountId: mm }));
  must(port.applyNow({ type: 'Deposit', accountId: mm, currency: 'CASH', amount: 1e9 * 100_000 }));
  for (let i = 0; i < GAMES; i++) {
    const league = LEAGUES[i % LEAGUES.length]!;
    const keys = [`g${i}m`, `g${i}s`, `g${i}t`];
    must(
      port.applyNow({
        type: 'CreateEvent',
        event: {
          id: uuidFor('bench-gql', 'event', i),
          type: 'Game',
          status: 'OPEN_PREGAME',
          description: `${league} Team ${(i + 1) % 8} @ ${league} Team ${i % 8}`,
          league,
          scheduledStart: start + i * 1_800_000,
        },
        game: {
          id: uuidFor('bench-gql', 'game', i),
          homeTeamId: uuidFor('bench-gql', league, i % 8),
          awayTeamId: uuidFor('bench-gql', league, (i + 1) % 8),
        },
        markets: [
          market(keys[0]!, 'MONEY', null),
          market(keys[1]!, 'SPREAD', -3.5),
          market(keys[2]!, 'TOTAL', 44.5),
        ],
      }),
    );
    for (const key of keys) {
      for (const side of [0, 1] as const) {
        for (let lvl = 0; lvl < 3; lvl++) {
          must(
            port.applyNow({
              type: 'PlaceOrder',
              orderId: port.newId(),
              accountId: mm,
              outcomeId: uuidFor('bench-gql', 'o', key, side),
              currency: 'CASH',
              price: 480 - lvl * 10 - side * 10,
              qty: 100 * (lvl + 1),
              tif: 'GTC',
            }),
          );
        }
      }
    }
  }
}

/** The REST request body carrying the same data: the NFL events' ids (30 ≤ the 50 clients send). */
function restBody(): string {
  const ids: string[] = [];
  for (let i = 0; i < GAMES; i++)
    if (LEAGUES[i % LEAGUES.length] === 'NFL') ids.push(uuidFor('bench-gql', 'event', i));
  return JSON.stringify({ eventIds: ids, currency: 'CASH' });
}

const GQL_BODY = JSON.stringify({ query: ODDS_SCREEN, variables: { league: 'NFL' } });

/** The app as main.ts builds it (stand-in bearer guard), GraphQL with or without its result cache. */
async function buildBenchApp(port: MemoryPort, resultCache: number) {
  const principal: Principal = {
    clientId: 'bench',
    accountId: null,
    scopes: new Set(['read:tape']),
    tokenId: 't',
  };
  const tokens = new Map([[TOKEN, principal]]);
  const app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    store: nullStore,
    features: async (instance) => {
      instance.decorateRequest('principal', undefined);
      instance.decorate(
        'requireScope',
        (scope: string) => (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
          const h = request.headers.authorization;
          const p = h?.startsWith('Bearer ') ? tokens.get(h.slice(7)) : undefined;
          if (!p) return done(new ApiError('UNAUTHORIZED'));
          if (!p.scopes.has(scope as never)) return done(new ApiError('INSUFFICIENT_SCOPE'));
          request.principal = p;
          done();
        },
      );
      await instance.register(exchangeApi, { port });
      // The rate limit is lifted: the load generator is one client.
      await instance.register(graphqlRoutes, {
        reader: () => port.reader(),
        rateLimit: 0,
        graphiql: false,
        resultCache,
      });
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

async function server(): Promise<void> {
  const port = new MemoryPort();
  seed(port);
  // Both apps in this one process, over the same state: one event loop, like production.
  const cached = await buildBenchApp(port, 1024);
  const uncached = await buildBenchApp(port, 0);
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const gql = await uncached.inject({ method: 'POST', url: '/v1/graphql', headers, payload: GQL_BODY });
  const rest = await cached.inject({
    method: 'POST',
    url: '/nbx/v2/emm/events/getMarketsByEvents',
    headers,
    payload: restBody(),
  });
  if (gql.statusCode !== 200 || gql.body.includes('"errors"'))
    throw new Error(`graphql: ${gql.body.slice(0, 300)}`);
  if (rest.statusCode !== 200) throw new Error(`rest: ${rest.body.slice(0, 300)}`);
  const events = JSON.parse(gql.body).data.event.length;
  process.on('disconnect', () => process.exit(0));
  const portOf = (a: ReturnType<typeof cached.server.address>) => (typeof a === 'object' && a ? a.port : 0);
  process.send?.({
    port: portOf(cached.server.address()),
    uncachedPort: portOf(uncached.server.address()),
    sizes: { gql: gql.rawPayload.length, rest: rest.rawPayload.length },
    events,
  });
}

function run(url: string, body: string): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        connections: CONNECTIONS,
        duration: DURATION,
        pipelining: 1,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--server'], { execArgv: ['--import', 'tsx'] });
  const info = await new Promise<{
    port: number;
    uncachedPort: number;
    sizes: { gql: number; rest: number };
    events: number;
  }>((resolve) => child.once('message', resolve as never));
  const measure = async (port: number, path: string, body: string) => {
    const res = await run(`http://127.0.0.1:${port}${path}`, body);
    if (res.non2xx > 0 || res.errors > 0)
      throw new Error(`${path}: ${res.non2xx} non-2xx, ${res.errors} errors`);
    return { rps: res.requests.average, p99: res.latency.p99 };
  };
  console.log(
    `graphql odds screen: ${info.events} events, ${ROUNDS} rounds × ${DURATION}s, ${CONNECTIONS} connections, node ${process.version}`,
  );
  const sides = {
    cached: () => measure(info.port, '/v1/graphql', GQL_BODY),
    uncached: () => measure(info.uncachedPort, '/v1/graphql', GQL_BODY),
    rest: () => measure(info.port, '/nbx/v2/emm/events/getMarketsByEvents', restBody()),
  };
  type Side = keyof typeof sides;
  const rps: Record<Side, number[]> = { cached: [], uncached: [], rest: [] };
  const p99: Record<Side, number[]> = { cached: [], uncached: [], rest: [] };
  const ratio: Record<Side, number[]> = { cached: [], uncached: [], rest: [] };
  const order: Side[] = ['cached', 'uncached', 'rest'];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate which side goes first, so drift hits all three alike.
      const seq = [...order.slice(round % 3), ...order.slice(0, round % 3)];
      const got = {} as Record<Side, { rps: number; p99: number }>;
      for (const side of seq) got[side] = await sides[side]();
      for (const side of order) {
        rps[side].push(got[side].rps);
        p99[side].push(got[side].p99);
        ratio[side].push(got[side].rps / got.rest.rps);
      }
      console.log(
        `round ${round + 1}: graphql ${Math.round(got.cached.rps)} (uncached ${Math.round(got.uncached.rps)}) req/s, rest ${Math.round(got.rest.rps)} req/s`,
      );
    }
  } finally {
    child.kill();
  }
  const row = (name: string, side: Side, bytes: number, goal: string) =>
    `| ${name} | ${bytes} | ${Math.round(median(rps[side]))} | ${median(p99[side])} | ${side === 'rest' ? '—' : `${(median(ratio[side]) * 100).toFixed(0)}%`} | ${goal} |`;
  const met = (side: Side) => `≥ ${GOAL_RPS} req/s ${median(rps[side]) >= GOAL_RPS ? 'met' : 'MISSED'}`;
  console.log('\n| route | bytes | req/s (median) | p99 ms (median) | ÷ REST (median of rounds) | goal |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    row('POST /v1/graphql odds screen (result cache on, as served)', 'cached', info.sizes.gql, met('cached')),
  );
  console.log(
    row(
      'POST /v1/graphql odds screen (result cache off: executes every time)',
      'uncached',
      info.sizes.gql,
      met('uncached'),
    ),
  );
  console.log(
    row('POST getMarketsByEvents, same 30 events, CASH (REST)', 'rest', info.sizes.rest, 'baseline'),
  );
}

if (process.argv.includes('--server')) {
  server().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
