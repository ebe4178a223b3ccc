// What the demo knows of one game it listed (its ids, schedule, rating-model line, status, score and
// markets with their fair prices): the slate builds it, the futures add theirs, the living demo and
// the market maker read it. Its own module so the slate and the futures share it without importing
// each other (docs/architecture.md "The import rule": no cycles).

import type { EventStatus, Id } from '../exchange/types.ts';
import type { DemoMarketInfo } from './game-markets.ts';
import type { FinalScore, GameLine } from './rating-model.ts';

export interface DemoGameInfo {
  /** Fixture key every id of the event derives from. */
  key: string;
  eventId: Id;
  gameId: Id | null;
  type: 'Game' | 'Future';
  league: string;
  description: string;
  scheduledStart: number;
  /** League-typical wall-clock length of the game, ms (0 for futures). */
  durationMs: number;
  homeTeamId: Id | null;
  awayTeamId: Id | null;
  /** Rating-model line of the game (null for futures). */
  line: GameLine | null;
  /** Status once the slate's commands are applied. */
  status: EventStatus;
  /** Final score of FINAL games. */
  score: FinalScore | null;
  /** Markets with their fair probability of outcome 0 (pregame fair; for live games, at kickoff). */
  markets: DemoMarketInfo[];
}
