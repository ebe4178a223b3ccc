// Builds a real Exchange (src/exchange/exchange.ts) through commands only — league, teams, one NFL
// game with MONEY/SPREAD/TOTAL markets, a second game, funded market makers, resting bids — for
// the pricing tests and the benchmark. The bids follow a known normal model of the game so that
// the same-game prices have something to be checked against.

import { randomUUID } from 'node:crypto';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult, MarketSpec } from '../../src/exchange/types.ts';
import { normCdf } from '../../src/pricing/normal.ts';
import { tickAtOrBelow } from './fake-books.ts';

export const T0 = 1_800_000_000_000;

export interface RealGame {
  eventId: string;
  gameId: string;
  /** outcome ids by market label, [outcome 0, outcome 1]. */
  outcomes: Record<string, [string, string]>;
}

export interface RealSlate {
  exchange: Exchange;
  games: RealGame[];
  makerId: string;
}

function must(r: CommandResult): void {
  if (!r.ok) throw new Error(`command rejected: ${r.code} ${r.message}`);
}

function spec(label: string, type: MarketSpec['type'], strike: number | null, d0: string, d1: string) {
  const s: MarketSpec = {
    id: randomUUID(),
    type,
    strike,
    description: label,
    outcomes: [
      { id: randomUUID(), description: d0 },
      { id: randomUUID(), description: d1 },
    ],
  };
  return s;
}

/**
 * `games` NFL games; game i has home margin mean 3 + i and total mean 45 + i (σ 13.5 each); every
 * outcome of every market is bid 1 cent under its fair price with 5,000 MCU (50 Cash payout).
 */
export function buildRealSlate(games = 2): RealSlate {
  const x = new Exchange();
  let ts = T0;
  const run = (c: Command) => must(x.apply(c));
  run({ type: 'CreateLeague', ts, code: 'NFL', name: 'National Football League' });
  const makerId = randomUUID();
  run({ type: 'CreateAccount', ts, accountId: makerId });
  run({ type: 'Deposit', ts, accountId: makerId, currency: 'CASH', amount: 100_000_000_000_000 });
  run({ type: 'Deposit', ts, accountId: makerId, currency: 'COIN', amount: 100_000_000_000_000 });
  const out: RealGame[] = [];
  for (let g = 0; g < games; g++) {
    const home = randomUUID();
    const away = randomUUID();
    run({
      type: 'CreateTeam',
      ts,
      team: { id: home, league: 'NFL', name: `Home ${g}`, shortName: `H${g}`, symbol: `H${g}`, mascot: 'H' },
    });
    run({
      type: 'CreateTeam',
      ts,
      team: { id: away, league: 'NFL', name: `Away ${g}`, shortName: `A${g}`, symbol: `A${g}`, mascot: 'A' },
    });
    const muM = 3 + g;
    const muT = 45 + g;
    const markets: [string, MarketSpec, number][] = [
      ['ML', spec('Moneyline', 'MONEY', null, `H${g}`, `A${g}`), normCdf(muM / 13.5)],
    ];
    for (const s of [-2.5, -3.5, -7.5, 3.5]) {
      markets.push([
        `SP${s}`,
        spec(`Spread ${s}`, 'SPREAD', s, `H${g} ${s}`, `A${g} ${-s}`),
        normCdf((muM + s) / 13.5),
      ]);
    }
    for (const t of [41.5, 44.5, 47.5, 51.5]) {
      markets.push([
        `TOT${t}`,
        spec(`Total ${t}`, 'TOTAL', t, `Over ${t}`, `Under ${t}`),
        normCdf((muT - t) / 13.5),
      ]);
    }
    markets.push(['TT', spec('Home team total 24.5', 'TEAM_TOTAL', 24.5, 'Over', 'Under'), 0.5]);
    const eventId = randomUUID();
    const gameId = randomUUID();
    run({
      type: 'CreateEvent',
      ts,
      event: {
        id: eventId,
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: `Away ${g} @ Home ${g}`,
        league: 'NFL',
        scheduledStart: T0 + 86_400_000,
      },
      game: { id: gameId, homeTeamId: home, awayTeamId: away },
      markets: markets.map((m) => m[1]),
    });
    const outcomes: Record<string, [string, string]> = {};
    for (const [label, m, p0] of markets) {
      outcomes[label] = [m.outcomes[0].id, m.outcomes[1].id];
      for (const [i, p] of [p0, 1 - p0].entries()) {
        for (const currency of ['CASH', 'COIN'] as const) {
          ts++;
          run({
            type: 'PlaceOrder',
            ts,
            orderId: randomUUID(),
            accountId: makerId,
            outcomeId: m.outcomes[i]!.id,
            currency,
            price: tickAtOrBelow(p - 0.01),
            qty: 5_000,
            tif: 'GTC',
          });
        }
      }
    }
    out.push({ eventId, gameId, outcomes });
  }
  return { exchange: x, games: out, makerId };
}
