// A small but complete catalog for the HTTP tests: leagues created out of production order (plus
// one league outside the production list), teams, 130 game events spread over leagues, statuses
// and start times (some sharing a start, so the id tie-break matters), each with MONEY, SPREAD and
// TOTAL markets, two Future events with a YES_NO market, and funded trader accounts.

import assert from 'node:assert/strict';
import type { EventStatus, MarketSpec } from '../../src/exchange/types.ts';
import { uuidFor } from '../../src/ids.ts';
import type { MemoryPort } from '../helpers/memory-port.ts';

export const LEAGUE_CODES = ['XFL', 'NHL', 'NBA', 'NFL', 'MLB'] as const;
export const GAME_LEAGUES = ['NFL', 'NBA', 'MLB', 'NHL', 'XFL'] as const;
export const STATUSES: EventStatus[] = ['OPEN_PREGAME', 'CLOSED_PREGAME', 'OPEN_INGAME', 'FINAL', 'DELAYED'];
export const GAME_COUNT = 130;
export const BASE_START = Date.UTC(2026, 10, 22, 18, 0, 0);

export const ACCOUNT_A = uuidFor('test', 'account', 'A');
export const ACCOUNT_B = uuidFor('test', 'account', 'B');
export const ACCOUNT_MM = uuidFor('test', 'account', 'MM');

export const eventId = (i: number) => uuidFor('test', 'event', i);
export const marketId = (i: number, kind: string) => uuidFor('test', 'market', i, kind);
export const outcomeId = (i: number, kind: string, side: 0 | 1) => uuidFor('test', 'outcome', i, kind, side);
export const teamId = (league: string, n: number) => uuidFor('test', 'team', league, n);
export const futureId = (n: number) => uuidFor('test', 'future', n);

/** Game i: league, status and start (every 7th game shares its start with the previous one). */
export function gameSpec(i: number): { league: string; status: EventStatus; start: number } {
  const league = GAME_LEAGUES[i % GAME_LEAGUES.length]!;
  const status = STATUSES[i % STATUSES.length]!;
  const slot = i % 7 === 6 ? i - 1 : i;
  const start = BASE_START + ((slot * 7919) % 131) * 3_600_000;
  return { league, status, start };
}

function ok(r: { ok: boolean; code?: string; message?: string }): void {
  assert.ok(r.ok, `fixture command rejected: ${r.code} ${r.message}`);
}

function gameMarkets(i: number, home: string, away: string): MarketSpec[] {
  const m = (
    kind: 'MONEY' | 'SPREAD' | 'TOTAL',
    strike: number | null,
    d0: string,
    d1: string,
  ): MarketSpec => ({
    id: marketId(i, kind),
    type: kind,
    strike,
    description: `${away} @ ${home} ${kind === 'MONEY' ? 'Moneyline' : kind === 'SPREAD' ? `Spread ${strike}` : `Total ${strike}`}`,
    outcomes: [
      { id: outcomeId(i, kind, 0), description: d0, competitorTeamId: kind === 'TOTAL' ? null : undefined },
      { id: outcomeId(i, kind, 1), description: d1 },
    ],
  });
  return [
    m('MONEY', null, home, away),
    m('SPREAD', -2.5, `${home} -2.5`, `${away} +2.5`),
    m('TOTAL', 47.5, 'Over 47.5', 'Under 47.5'),
  ];
}

export function seedCatalog(port: MemoryPort): void {
  for (const code of LEAGUE_CODES) ok(port.applyNow({ type: 'CreateLeague', code, name: `${code} league` }));
  for (const league of GAME_LEAGUES) {
    for (let n = 0; n < 4; n++) {
      ok(
        port.applyNow({
          type: 'CreateTeam',
          team: {
            id: teamId(league, n),
            league,
            name: `${league} City Team${n}`,
            shortName: `Team${n}`,
            symbol: `${league.slice(0, 2)}${n}`,
            mascot: `Mascot${n}`,
          },
        }),
      );
    }
  }
  for (let i = 0; i < GAME_COUNT; i++) {
    const { league, status, start } = gameSpec(i);
    const home = teamId(league, i % 4);
    const away = teamId(league, (i + 1) % 4);
    const markets = gameMarkets(i, `H${i}`, `A${i}`);
    markets[0]!.outcomes[0].competitorTeamId = home;
    markets[0]!.outcomes[1].competitorTeamId = away;
    ok(
      port.applyNow({
        type: 'CreateEvent',
        event: {
          id: eventId(i),
          type: 'Game',
          status,
          description: `A${i} @ H${i}`,
          league,
          scheduledStart: start,
          pregameVisible: i % 2 === 0,
          liveVisible: i % 3 === 0,
        },
        game: { id: uuidFor('test', 'game', i), homeTeamId: home, awayTeamId: away },
        markets,
      }),
    );
  }
  for (let n = 0; n < 2; n++) {
    ok(
      port.applyNow({
        type: 'CreateEvent',
        event: {
          id: futureId(n),
          type: 'Future',
          status: 'OPEN_PREGAME',
          description: `Future ${n}`,
          league: 'NFL',
          scheduledStart: BASE_START + 30 * 86_400_000 + n,
        },
        game: null,
        markets: [
          {
            id: uuidFor('test', 'future-market', n),
            type: 'YES_NO',
            strike: null,
            description: `Future ${n} yes/no`,
            outcomes: [
              { id: uuidFor('test', 'future-outcome', n, 0), description: 'Yes' },
              { id: uuidFor('test', 'future-outcome', n, 1), description: 'No' },
            ],
          },
        ],
      }),
    );
  }
}

/** An extra OPEN_PREGAME NFL game with index `i` (use i ≥ 1000 to stay clear of the seeded ones). */
export function addOpenGame(port: MemoryPort, i: number): void {
  ok(
    port.applyNow({
      type: 'CreateEvent',
      event: {
        id: eventId(i),
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: `A${i} @ H${i}`,
        league: 'NFL',
        scheduledStart: BASE_START + i * 60_000,
      },
      game: { id: uuidFor('test', 'game', i), homeTeamId: teamId('NFL', 0), awayTeamId: teamId('NFL', 1) },
      markets: gameMarkets(i, `H${i}`, `A${i}`),
    }),
  );
}

/** Accounts A, B and a market maker, each with 10,000 CASH and 1,000,000 COIN (Money = 1e-5 unit). */
export function seedAccounts(port: MemoryPort): void {
  for (const id of [ACCOUNT_A, ACCOUNT_B, ACCOUNT_MM]) {
    ok(port.applyNow({ type: 'CreateAccount', accountId: id }));
    ok(port.applyNow({ type: 'Deposit', accountId: id, currency: 'CASH', amount: 10_000 * 100_000 }));
    ok(port.applyNow({ type: 'Deposit', accountId: id, currency: 'COIN', amount: 1_000_000 * 100_000 }));
  }
}

/** The market maker rests bids on both outcomes of every market of game `i` (index 0 is OPEN_PREGAME). */
export function seedLiquidity(port: MemoryPort, i: number, currency: 'CASH' | 'COIN' = 'CASH'): void {
  for (const kind of ['MONEY', 'SPREAD', 'TOTAL']) {
    for (const [side, ticks] of [
      [0, [480, 470, 460]],
      [1, [490, 480]],
    ] as const) {
      for (const price of ticks) {
        ok(
          port.applyNow({
            type: 'PlaceOrder',
            orderId: port.newId(),
            accountId: ACCOUNT_MM,
            outcomeId: outcomeId(i, kind, side),
            currency,
            price,
            qty: 100 + price,
            tif: 'GTC',
          }),
        );
      }
    }
  }
}
