// The exchange's vocabulary (docs/exchange.md): the scalar units and the closed sets of names the
// records and commands use (statuses, market types, times in force, self-trade prevention modes),
// and the catalog's leaf records (league, team, game).
// Re-exported by types.ts, the domain contract; on its own (no imports) so that file keeps to the
// size rule and the parlay and protection parts can share it without a cycle.

export type Currency = 'CASH' | 'COIN';
export const CURRENCIES: readonly Currency[] = ['CASH', 'COIN'];

export type Tick = number;
export type Qty = number;
export type Money = number;
export type Millis = number;
export type Id = string;

export const EVENT_TYPES = ['Game', 'Future', 'Tournament'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_STATUSES = [
  'INITIAL',
  'OPEN_PREGAME',
  'CLOSED_PREGAME',
  'OPEN_INGAME',
  'FINAL',
  'DELAYED',
  'CANCELED',
] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** Statuses in which orders are accepted (docs/lifecycle.md). */
export const TRADABLE_EVENT_STATUSES: readonly EventStatus[] = ['OPEN_PREGAME', 'OPEN_INGAME'];

export const GAME_STATUSES = ['SCHEDULED', 'IN_PROGRESS', 'DELAYED', 'FINAL', 'CANCELED'] as const;
export type GameStatus = (typeof GAME_STATUSES)[number];

/** Upper-case market codes (docs/exchange.md). YES_NO is the two-outcome market of a Future. */
export const MARKET_TYPES = [
  'MONEY',
  'SPREAD',
  'TOTAL',
  'TEAM_TOTAL',
  'MONEY_1H',
  'SPREAD_1H',
  'TOTAL_1H',
  'YES_NO',
] as const;
export type MarketType = (typeof MARKET_TYPES)[number];

export const MARKET_STATUSES = ['OPEN', 'CLOSED', 'SETTLED'] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

export const OUTCOME_STATUSES = ['TBD', 'WIN', 'LOSS', 'PUSH'] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

export const TIFS = ['GTC', 'GTT', 'IOC', 'FOK', 'PO'] as const;
export type TimeInForce = (typeof TIFS)[number];
/** Times in force whose unfilled remainder rests on the book; an IOC or FOK remainder is cancelled. */
export const RESTING_TIFS: ReadonlySet<TimeInForce> = new Set(['GTC', 'GTT', 'PO']);

/** Self-trade prevention modes of a PlaceOrder, CANCEL_BOTH the default (docs/exchange.md). */
export const STP_MODES = ['CANCEL_BOTH', 'CANCEL_TAKER', 'CANCEL_MAKER'] as const;
export type StpMode = (typeof STP_MODES)[number];
/** Price levels per outcome in one MassQuote (docs/exchange.md "Mass quotes"). */
export const MAX_QUOTE_LEVELS = 10;

export const ORDER_STATUSES = ['RESTING', 'FILLED', 'CANCELED', 'REJECTED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

// ---------------------------------------------------------------- catalog leaf records

export interface League {
  code: string; // 'NFL'
  name: string; // 'National Football League'
}

export interface Team {
  id: Id;
  league: string;
  name: string; // 'Buffalo Bills'
  shortName: string; // 'Bills'
  symbol: string; // 'BUF'
  mascot: string; // 'Bills'
}

export interface Game {
  id: Id;
  league: string;
  status: GameStatus;
  scheduledStart: Millis;
  homeTeamId: Id;
  awayTeamId: Id;
  /** Final or running score, once known. */
  homeScore: number | null;
  awayScore: number | null;
  /** The running period (1-based) and the time left in it (`m:ss`), once `SetGameScore` gave them. */
  period?: number;
  timeRemaining?: string;
}
