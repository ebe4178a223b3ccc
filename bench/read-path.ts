// Read-path benchmark (issue 3 "Performance", issue 4 "getMarketsByEvent"): req/s of the cached-bytes
// GET routes against a bare Fastify route serving the very same bytes, measured in the same run.
//
//   node --import tsx bench/read-path.ts            (DURATION=3 ROUNDS=6 CONNECTIONS=32 to change)
//
// Fairness on 2 cores: the servers run in ONE child process (one event loop, like production) and
// autocannon runs in this parent process, so server and load generator each get a core. Each round
// measures app and bare back to back (the order flips every round), so drift and noise from other
// processes hit both sides alike; the ratio reported is the median of the per-round ratios, next to
// the median req/s of each side. Both servers listen on real TCP ports on 127.0.0.1.
//
// The app is buildApp() (error handler, request-id and metrics hooks, swagger) with the exchange
// routes over a MemoryPort holding 300 games × 3 markets plus one event with 10 two-sided markets.
// The bearer guard is a stand-in that looks the token up in a Map — what the real guard costs on a
// token it has seen before (AuthService.verifyCached); no JWT verification happens per request.

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { buildApp } from '../src/app.ts';
import type { Principal } from '../src/auth/scopes.ts';
import { uuidFor } from '../src/catalog/ids.ts';
import { loadConfig } from '../src/config.ts';
import { ApiError } from '../src/errors.ts';
import type { MarketSpec } from '../src/exchange/types.ts';
import exchangeApi from '../src/http/routes/exchange-api.ts';
import { MemoryPort } from '../test/helpers/memory-port.ts';
import { nullStore } from '../test/http/harness.ts';

const TOKEN = 'bench-token';
const DURATION = Number(process.env.DURATION ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);

const LEAGUES = ['NFL', 'NBA', 'MLB', 'NHL', 'NCAAF', 'NCAAB', 'MLS', 'EPL', 'UFC', 'PGA'];
const BIG_EVENT = uuidFor('bench', 'big-event');

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
            id: uuidFor('bench', code, n),
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
    id: uuidFor('bench', 'm', key),
    type,
    strike,
    description: `${key} ${type} ${strike ?? ''}`,
    outcomes: [
      { id: uuidFor('bench', 'o', key, 0), description: `${key} side 0` },
      { id: uuidFor('bench', 'o', key, 1), description: `${key} side 1` },
    ],
  });
  for (let i = 0; i < 300; i++) {
    const league = LEAGUES[i % LEAGUES.length]!;
    must(
      port.applyNow({
        type: 'CreateEvent',
        event: {
          id: uuidFor('bench', 'event', i),
          type: 'Game',
          status: 'OPEN_PREGAME',
          description: `${league} Team ${(i + 1) % 8} @ ${league} Team ${i % 8}`,
          league,
          scheduledStart: start + i * 1_800_000,
        },
        game: {
          id: uuidFor('bench', 'game', i),
          homeTeamId: uuidFor('bench', league, i % 8),
          awayTeamId: uuidFor('bench', league, (i + 1) % 8),
        },
        markets: [
          market(`g${i}m`, 'MONEY', null),
          market(`g${i}s`, 'SPREAD', -3.5),
          market(`g${i}t`, 'TOTAL', 44.5),
        ],
      }),
    );
  }
  const big: MarketSpec[] = [];
  for (let k = 0; k < 10; k++)
    big.push(market(`big${k}`, k < 2 ? 'MONEY' : k < 6 ? 'SPREAD' : 'TOTAL', k < 2 ? null : k + 0.5));
  must(
    port.applyNow({
      type: 'CreateEvent',
      event: {
        id: BIG_EVENT,
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'Big event',
        league: 'NFL',
        scheduledStart: start,
      },
      game: {
        id: uuidFor('bench', 'big-game'),
        homeTeamId: uuidFor('bench', 'NFL', 0),
        awayTeamId: uuidFor('bench', 'NFL', 1),
      },
      markets: big,
    }),
  );
  const mm = uuidFor('bench', 'mm');
  must(port.applyNow({ type: 'CreateAccount', accountId: mm }));
  must(port.applyNow({ type: 'Deposit', accountId: mm, currency: 'CASH', amount: 1e9 * 100_000 }));
  // Two-sided books, 5 levels a side, 2 orders per level.
  for (let k = 0; k < 10; k++) {
    for (const side of [0, 1] as const) {
      for (let lvl = 0; lvl < 5; lvl++) {
        for (let n = 0; n < 2; n++) {
          must(
            port.applyNow({
              type: 'PlaceOrder',
              orderId: port.newId(),
              accountId: mm,
              outcomeId: uuidFor('bench', 'o', `big${k}`, side),
              currency: 'CASH',
              price: 480 - lvl * 5 - (side === 1 ? 10 : 0),
              qty: 100 * (lvl + 1) + n * 7,
              tif: 'GTC',
            }),
          );
        }
      }
    }
  }
}

const SCENARIOS = [
  { name: 'GET /nbx/v2/emm/events (100/page)', path: '/nbx/v2/emm/events', goal: 0.7 },
  {
    name: 'GET /nbx/v2/emm/events/{id}',
    path: `/nbx/v2/emm/events/${uuidFor('bench', 'event', 42)}`,
    goal: 0.8,
  },
  { name: 'GET /nbx/v2/emm/event-metadata/leagues', path: '/nbx/v2/emm/event-metadata/leagues', goal: 0.8 },
  {
    name: 'GET getMarketsByEvent (10 two-sided markets)',
    path: `/nbx/v2/emm/events/getMarketsByEvent/${BIG_EVENT}?currency=CASH`,
    goal: 0.7,
  },
];

async function server(): Promise<void> {
  const port = new MemoryPort();
  seed(port);
  const principal: Principal = {
    clientId: 'bench',
    accountId: null,
    scopes: new Set(['read:tape']),
    tokenId: 't',
  };
  const tokens = new Map([[TOKEN, principal]]);
  const plainBytes: Buffer[] = [];
  const app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    store: nullStore,
    features: async (instance) => {
      instance.decorateRequest('principal', undefined);
      instance.decorate(
        'requireScope',
        // Callback style with a synchronous hit, as the real guard (src/http/plugins/bearer.ts).
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
      // The same bytes from a plain route inside the app (its hooks, no guard, no cache lookup):
      // separates what the app-wide hooks cost from what the exchange routes themselves cost.
      instance.get('/bench/plain/:i', (request, reply) => {
        const i = Number((request.params as { i: string }).i);
        reply.header('content-type', 'application/json; charset=utf-8').send(plainBytes[i]);
      });
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  // The bare baseline: a plain Fastify route per scenario answering the app's own bytes.
  const bare = Fastify({ logger: false });
  const sizes: number[] = [];
  for (const [i, s] of SCENARIOS.entries()) {
    const res = await app.inject({
      method: 'GET',
      url: s.path,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    if (res.statusCode !== 200) throw new Error(`${s.path}: ${res.statusCode} ${res.body}`);
    const bytes = res.rawPayload;
    sizes.push(bytes.length);
    plainBytes[i] = bytes;
    bare.get(`/bare/${i}`, (_req, reply) => {
      reply.header('content-type', 'application/json; charset=utf-8').send(bytes);
    });
  }
  await bare.listen({ port: 0, host: '127.0.0.1' });
  // CPU the server process spent, on request: per-request CPU is less sensitive to the other
  // processes sharing the machine than req/s is (though not immune: caches and SMT siblings).
  // The parent going away (or disconnecting on purpose, e.g. to let --cpu-prof write its file)
  // ends this process.
  process.on('disconnect', () => process.exit(0));
  process.on('message', () => {
    const u = process.cpuUsage();
    process.send?.({ cpu: u.user + u.system });
  });
  const addr = (a: ReturnType<typeof app.server.address>) => (typeof a === 'object' && a ? a.port : 0);
  process.send?.({ app: addr(app.server.address()), bare: addr(bare.server.address()), sizes });
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
  const child = fork(fileURLToPath(import.meta.url), ['--server'], { execArgv: ['--import', 'tsx'] });
  const ports = await new Promise<{ app: number; bare: number; sizes: number[] }>((resolve) =>
    child.once('message', resolve as never),
  );
  const headers = { authorization: `Bearer ${TOKEN}` };
  const serverCpu = () =>
    new Promise<number>((resolve) => {
      child.once('message', (m: { cpu: number }) => resolve(m.cpu));
      child.send('cpu');
    });
  /** One autocannon run with the server CPU it cost: req/s and server CPU µs per request. */
  const measure = async (url: string) => {
    const c0 = await serverCpu();
    const res = await run(url, headers);
    const c1 = await serverCpu();
    return { res, rps: res.requests.average, cpuPerReq: (c1 - c0) / Math.max(1, res.requests.total) };
  };
  const rows: string[] = [];
  console.log(
    `read-path: ${ROUNDS} rounds × ${DURATION}s, ${CONNECTIONS} connections, node ${process.version}`,
  );
  try {
    for (const [i, s] of SCENARIOS.entries()) {
      const app: number[] = [];
      const bare: number[] = [];
      const ratios: number[] = [];
      const p99: number[] = [];
      const appCpu: number[] = [];
      const bareCpu: number[] = [];
      const runApp = async () => {
        const m = await measure(`http://127.0.0.1:${ports.app}${s.path}`);
        if (m.res.non2xx > 0 || m.res.errors > 0) {
          throw new Error(`${s.name}: ${m.res.non2xx} non-2xx, ${m.res.errors} errors`);
        }
        p99.push(m.res.latency.p99);
        appCpu.push(m.cpuPerReq);
        return m.rps;
      };
      const runBare = async () => {
        const m = await measure(`http://127.0.0.1:${ports.bare}/bare/${i}`);
        bareCpu.push(m.cpuPerReq);
        return m.rps;
      };
      const plain: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        let a: number;
        let b: number;
        if (r % 2 === 0) {
          a = await runApp();
          b = await runBare();
        } else {
          b = await runBare();
          a = await runApp();
        }
        app.push(a);
        bare.push(b);
        ratios.push(a / b);
        if (r < 2)
          plain.push((await run(`http://127.0.0.1:${ports.app}/bench/plain/${i}`, headers)).requests.average);
      }
      const ratio = median(ratios);
      rows.push(
        `| ${s.name} | ${ports.sizes[i]} | ${Math.round(median(app))} | ${Math.round(median(bare))} | ${(ratio * 100).toFixed(0)}% | ≥ ${s.goal * 100}% ${ratio >= s.goal ? 'met' : 'MISSED'} | ${median(p99)} | ${Math.round(median(plain))} | ${median(appCpu).toFixed(0)} / ${median(bareCpu).toFixed(0)} = ${((median(bareCpu) / median(appCpu)) * 100).toFixed(0)}% |`,
      );
      console.log(rows.at(-1));
    }
  } finally {
    child.kill();
  }
  console.log(
    '\n| route | bytes | app req/s (median) | bare req/s (median) | ratio (median of rounds) | goal | app p99 ms | app plain route req/s | server CPU µs/req app / bare (bare÷app) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
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
