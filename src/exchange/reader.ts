// The read side of the exchange state machine: what the HTTP edge, the pricer, the demo market
// maker and the read-model caches may ask of the state. Reads never mutate; records returned are
// snapshots (or frozen views) that the caller must not modify.

import type { PlacedTerms } from './placed-terms.ts';
import type {
  BoostClaimRecord,
  BoostRecord,
  Currency,
  EventRecord,
  Game,
  Id,
  League,
  Level,
  MarketRecord,
  MmpView,
  OrderRecord,
  OutcomeRecord,
  ParlayPage,
  ParlayRecord,
  ParlayRequestRecord,
  Position,
  RequestPage,
  Team,
  Tick,
  TradingLock,
  Wallet,
} from './types.ts';
export interface ExchangeReader {
  /** Bumped by every command that changes the catalog (events, markets, statuses, scores, settlement). */
  readonly catalogVersion: number;
  /** Sequence number of the last applied command. */
  readonly lastSeq: number;
  readonly feeCoefficient: number;

  leagues(): readonly League[];
  team(id: Id): Team | undefined;
  teams(league?: string): readonly Team[];
  game(id: Id): Game | undefined;
  event(id: Id): EventRecord | undefined;
  /** Every event, ordered by scheduledStart then id (the listing order, stable across pages). */
  eventsSorted(): readonly EventRecord[];
  market(id: Id): MarketRecord | undefined;
  outcome(id: Id): OutcomeRecord | undefined;

  /** Changes whenever that book changes; cached bytes are keyed by it. */
  bookSeq(marketId: Id, currency: Currency): number;
  /** docs/exchange.md "Books and matching": bids on outcome 0 (highest first), asks = bids on outcome 1 at 1 − q (lowest first). */
  bookLevels(marketId: Id, currency: Currency): { bids: Level[]; asks: Level[] };
  /** Resting bids on one outcome in priority order (best price first, then time). */
  restingOrders(outcomeId: Id, currency: Currency): OrderRecord[];
  /** Best resting bid on an outcome, aggregated over that price level. */
  bestBid(outcomeId: Id, currency: Currency): { price: Tick; qty: number } | null;

  hasAccount(accountId: Id): boolean;
  wallet(accountId: Id, currency: Currency): Wallet | undefined;
  /** Orders the state still holds for the account (resting ones at least). */
  openOrders(accountId: Id, currency?: Currency): OrderRecord[];
  /** An order the state still holds (resting), or undefined. Closed orders live in SQL history. */
  order(orderId: Id): OrderRecord | undefined;
  /** Orders and quantity ahead of a resting order in its price level's queue, or undefined
   * (docs/exchange.md "Amend and queue priority"). */
  queuePosition(orderId: Id): { ordersAhead: number; qtyAhead: number } | undefined;
  /** Open positions of the account. */
  positions(accountId: Id, currency?: Currency): Position[];
  /** Result of an earlier placement with this clientOrderId, for idempotency. */
  orderIdForClientOrderId(accountId: Id, clientOrderId: string): Id | undefined;
  /**
   * The price and qty the order of this clientOrderId was placed with, when an amend, a mass quote
   * or a post-only reprice has left it showing others; undefined while it shows its own
   * (docs/exchange.md "Placed terms").
   */
  placedTerms(accountId: Id, clientOrderId: string): PlacedTerms | undefined;

  /** Earliest GTT expiry among resting orders, or null: when the scheduler must send `Expire`. */
  nextExpiry(): number | null;
  /** Whether ExpireClientOrderIds with this window has work at `now` (docs/exchange.md "Idempotency window"). */
  clientOrderIdsDue(now: number, windowMs: number): boolean;

  /** Active locks (expired ones are removed by the Expire command). */
  locks(): { system: TradingLock | null; events: TradingLock[] };

  /** The account's market-maker protection (configs and freezes), undefined for no such account. */
  mmp(accountId: Id): MmpView | undefined;
  // parlays (docs/parlays.md)
  parlayRequest(id: Id): ParlayRequestRecord | undefined;
  /** The account's parlay requests, newest first; `page` filters and pages before copying. */
  parlayRequests(accountId: Id, page?: RequestPage): ParlayRequestRecord[];
  /** Unfilled requests, oldest first (some may be past their deadline until the next sweep). */
  openParlayRequests(): ParlayRequestRecord[];
  /** How many of the account's requests are open at `now` (unfilled, before their deadline). */
  openParlayRequestCount(accountId: Id, now: number): number;
  parlay(id: Id): ParlayRecord | undefined;
  /** Parlays where the account is taker or maker, newest first; `page` filters and pages first. */
  parlays(accountId: Id, page?: ParlayPage): ParlayRecord[];
  /** Settled markets whose parlays are still to advance (docs/parlays.md "Settlement in chunks"),
   * in the order they became due, with how many each. */
  parlaySettlementsDue(): { marketId: Id; parlays: number }[];
  /** The parlay an earlier wager with this clientOrderId filled, for idempotency. */
  parlayForClientOrderId(accountId: Id, clientOrderId: string): Id | undefined;
  /** Every boost, in creation order (docs/parlays.md "Boosts"). */
  boosts(): BoostRecord[];
  /** The account's claims, one per boost it claimed. */
  boostClaims(accountId: Id): BoostClaimRecord[];
}
