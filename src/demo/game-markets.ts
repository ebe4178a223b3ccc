// The markets of one demo game: a MONEY line, three SPREAD strikes and three
// TOTAL strikes around the fair line, each with its fair probability of outcome 0 from the rating
// model, and the CreateEvent command that lists them. Every id derives from (seed, fixture key),
// so the same fixture always yields the same event, game, market and outcome ids.

import { gameDescription, signed } from '../catalog/descriptions.ts';
import type { CommandInput } from '../catalog/types.ts';
import type { EventStatus, Id, MarketSpec, MarketType, Team } from '../exchange/types.ts';
import { uuidFor } from '../ids.ts';
import { type GameLine, pMoney, pSpread, pTotal, strikesFor } from './rating-model.ts';

export interface DemoMarketInfo {
  marketId: Id;
  type: MarketType;
  strike: number | null;
  outcomeIds: [Id, Id];
  /** Fair probability that outcome 0 (home/over/yes) wins, in (0, 1). */
  fair: number;
}

export interface GameIds {
  eventId: Id;
  gameId: Id;
}

export function gameIds(seed: string, key: string): GameIds {
  return { eventId: uuidFor(seed, 'event', key), gameId: uuidFor(seed, 'game', key) };
}

/** Fair probability of outcome 0 for a game market of the given type and strike. */
export function fairFor(line: GameLine, type: MarketType, strike: number | null): number {
  switch (type) {
    case 'MONEY':
      return pMoney(line);
    case 'SPREAD':
      return pSpread(line, strike ?? 0);
    case 'TOTAL':
      return pTotal(line, strike ?? 0);
    default:
      return 0.5;
  }
}

export function gameMarkets(
  seed: string,
  key: string,
  league: string,
  home: Team,
  away: Team,
  line: GameLine,
): { specs: MarketSpec[]; infos: DemoMarketInfo[] } {
  const { spreads, totals } = strikesFor(league, line);
  const prefix = `${away.symbol} @ ${home.symbol}`;
  const specs: MarketSpec[] = [];
  const infos: DemoMarketInfo[] = [];
  const add = (type: MarketType, strike: number | null, description: string, o0: string, o1: string) => {
    const id = uuidFor(seed, 'market', key, type, strike ?? '');
    const outcomeIds: [Id, Id] = [
      uuidFor(seed, 'outcome', key, type, strike ?? '', 0),
      uuidFor(seed, 'outcome', key, type, strike ?? '', 1),
    ];
    const competitors = type === 'TOTAL' ? [null, null] : [home.id, away.id];
    specs.push({
      id,
      type,
      strike,
      description,
      outcomes: [
        { id: outcomeIds[0], description: o0, competitorTeamId: competitors[0] },
        { id: outcomeIds[1], description: o1, competitorTeamId: competitors[1] },
      ],
    });
    infos.push({ marketId: id, type, strike, outcomeIds, fair: fairFor(line, type, strike) });
  };
  add('MONEY', null, `${prefix} Moneyline`, home.symbol, away.symbol);
  for (const s of spreads) {
    add(
      'SPREAD',
      s,
      `${prefix} Spread ${home.symbol} ${signed(s)}`,
      `${home.symbol} ${signed(s)}`,
      `${away.symbol} ${signed(-s)}`,
    );
  }
  for (const t of totals) add('TOTAL', t, `${prefix} Total ${t}`, `Over ${t}`, `Under ${t}`);
  return { specs, infos };
}

export function createGameEvent(
  ids: GameIds,
  league: string,
  home: Team,
  away: Team,
  scheduledStart: number,
  status: EventStatus,
  markets: MarketSpec[],
): CommandInput {
  return {
    type: 'CreateEvent',
    event: {
      id: ids.eventId,
      type: 'Game',
      status,
      description: gameDescription(home, away),
      league,
      scheduledStart,
      pregameVisible: true,
      liveVisible: true,
    },
    game: { id: ids.gameId, homeTeamId: home.id, awayTeamId: away.id },
    markets,
  };
}
