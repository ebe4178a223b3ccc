// Settling a market that 100,000 open parlays share (docs/bench-parlay-trading.md), in process on
// the engine (src/exchange/) with events on, as the runtime runs it. Each round builds two fresh
// exchanges through commands: one where 100,000 parlays (legs on M1 and M2, one game) are open —
// every one a ParlayRequest, a ParlayQuote and a ParlayWager — and one (the baseline) where
// 100,000 orders rest on market M3 across 1,000 accounts. It then times the one SettleMarket of M1
// (result M1-b: every parlay's M1 leg loses, so every parlay settles and pays its maker) and of M3
// (every resting order is released). Rounds alternate; medians and per-round ratios are printed.
//
//   node --import tsx bench/parlay-settle.ts [--parlays 100000] [--runs 3]

import { loadavg } from 'node:os';
import { Exchange } from '../src/exchange/exchange.ts';
import type { Command, CommandResult, Currency, MarketSpec } from '../src/exchange/types.ts';
import { priceToTick } from '../src/exchange/units.ts';
import { numArg } from './lib/args.ts';

const N = numArg('parlays', 100_000);
const RUNS = numArg('runs', 3);
const T0 = 1_700_000_000_000;
const ACCOUNTS = 1_000;

function ok(r: CommandResult): CommandResult {
  if (!r.ok) throw new Error(`rejected ${r.code}: ${r.message}`);
  return r;
}

const market = (id: string): MarketSpec => ({
  id,
  type: 'MONEY',
  strike: null,
  description: id,
  outcomes: [
    { id: `${id}-a`, description: `${id} home` },
    { id: `${id}-b`, description: `${id} away` },
  ],
});

/** League, teams, events E1 (M1, M2) and E2 (M3); accounts a0..a999, each well funded. */
function base(): Exchange {
  const x = new Exchange();
  const ts = T0;
  const team = (id: string) => ({ id, league: 'NFL', name: id, shortName: id, symbol: id, mascot: id });
  const cmds: Command[] = [
    { type: 'CreateLeague', ts, code: 'NFL', name: 'National Football League' },
    { type: 'CreateTeam', ts, team: team('H') },
    { type: 'CreateTeam', ts, team: team('A') },
  ];
  for (const [ev, markets] of [
    ['E1', [market('M1'), market('M2')]],
    ['E2', [market('M3')]],
  ] as const) {
    cmds.push({
      type: 'CreateEvent',
      ts,
      event: {
        id: ev,
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'A @ H',
        league: 'NFL',
        scheduledStart: T0 + 3_600_000,
      },
      game: { id: `G${ev}`, homeTeamId: 'H', awayTeamId: 'A' },
      markets: [...markets],
    });
  }
  for (const c of cmds) ok(x.apply(c));
  for (let i = 0; i < ACCOUNTS; i++) {
    ok(x.apply({ type: 'CreateAccount', ts, accountId: `a${i}` }));
    for (const currency of ['CASH', 'COIN'] as Currency[])
      ok(x.apply({ type: 'Deposit', ts, accountId: `a${i}`, currency, amount: 1e12 }));
  }
  return x;
}

function withParlays(): Exchange {
  const x = base();
  for (let i = 0; i < N; i++) {
    const ts = T0 + 10 + i;
    const requestId = `R${i}`;
    const taker = `a${i % ACCOUNTS}`;
    const maker = `a${(i + 1 + (i % 7)) % ACCOUNTS}`;
    ok(
      x.apply({
        type: 'ParlayRequest',
        ts,
        requestId,
        accountId: taker,
        currency: 'CASH',
        legs: [
          { outcomeId: 'M1-a', price: 500_000 },
          { outcomeId: 'M2-b', price: 400_000 },
        ],
        refPrice: 220_000,
        stake: null,
        expiresAt: ts + 600_000,
      }),
    );
    ok(
      x.apply({
        type: 'ParlayQuote',
        ts,
        quoteId: `q${i}`,
        requestId,
        accountId: maker,
        price: 250_000,
        maxQty: 100_000,
        expiresAt: ts + 600_000,
      }),
    );
    ok(
      x.apply({
        type: 'ParlayWager',
        ts,
        requestId,
        accountId: taker,
        stake: 250_000,
        maxPrice: 300_000,
        clientOrderId: null,
      }),
    );
  }
  return x;
}

/** Bid ticks of 0.10–0.40: bids on both outcomes never cross, so every order rests. */
const TICKS = Array.from({ length: 31 }, (_, k) => priceToTick((10 + k) / 100)!);

function withOrders(): Exchange {
  const x = base();
  for (let i = 0; i < N; i++) {
    ok(
      x.apply({
        type: 'PlaceOrder',
        ts: T0 + 10 + i,
        orderId: `o${i}`,
        accountId: `a${i % ACCOUNTS}`,
        outcomeId: i % 2 ? 'M3-a' : 'M3-b',
        currency: 'CASH',
        price: TICKS[i % TICKS.length]!,
        qty: 100,
        tif: 'GTC',
      }),
    );
  }
  return x;
}

interface Timed {
  /** SettleMarket wall time and CPU time of this process (user + system), ms. */
  ms: number;
  cpuMs: number;
  /** SetMarketStatus CLOSED before it (the close releases resting orders), wall ms. */
  closeMs: number;
  events: number;
}

/** Closes then settles `marketId`, timing each command. */
function settle(x: Exchange, marketId: string, result: string): Timed {
  const t0 = performance.now();
  ok(x.apply({ type: 'SetMarketStatus', ts: T0 + 1e9, marketId, status: 'CLOSED' }));
  const closeMs = performance.now() - t0;
  const c = process.cpuUsage();
  const t = performance.now();
  const r = ok(x.apply({ type: 'SettleMarket', ts: T0 + 1e9 + 1, marketId, result }));
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(c);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, closeMs, events: r.ok ? r.events.length : 0 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

console.log(
  `parlay settle: ${N} parlays vs ${N} resting orders, ${RUNS} rounds; load ${loadavg()[0]!.toFixed(1)}`,
);
const rows: { p: Timed; o: Timed }[] = [];
for (let round = 1; round <= RUNS; round++) {
  const tb = performance.now();
  const xp = withParlays();
  const parlayBuild = performance.now() - tb;
  const p = settle(xp, 'M1', 'M1-b');
  const open = xp.parlays('a0').filter((q) => q.status !== 'SETTLED').length;
  if (open !== 0) throw new Error(`${open} parlays of a0 left unsettled`);
  const xo = withOrders();
  const o = settle(xo, 'M3', 'M3-a');
  rows.push({ p, o });
  const f = (t: Timed) =>
    `settle ${t.ms.toFixed(1)} ms wall, ${t.cpuMs.toFixed(1)} ms CPU (${t.events} events; close ${t.closeMs.toFixed(1)} ms)`;
  console.log(
    `round ${round}: parlays ${f(p)}, build ${(parlayBuild / 1000).toFixed(1)} s | resting orders ${f(o)} | load ${loadavg()[0]!.toFixed(1)}`,
  );
}
const med = (g: (r: { p: Timed; o: Timed }) => number) => median(rows.map(g)).toFixed(1);
console.table({
  [`${N} parlays, SettleMarket`]: {
    wallMs: med((r) => r.p.ms),
    cpuMs: med((r) => r.p.cpuMs),
    closeMs: med((r) => r.p.closeMs),
  },
  [`${N} resting orders, SettleMarket`]: {
    wallMs: med((r) => r.o.ms),
    cpuMs: med((r) => r.o.cpuMs),
    closeMs: med((r) => r.o.closeMs),
  },
});
console.log(
  `per-round ratio (parlay settle + close) / (orders settle + close), wall: ${rows.map((r) => ((r.p.ms + r.p.closeMs) / (r.o.ms + r.o.closeMs)).toFixed(1)).join(', ')}`,
);
