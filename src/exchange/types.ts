// The exchange's domain contract (docs/exchange.md): the records the state machine holds, the
// commands that change it, and the events it emits. Shared by the engine, the journal, the demo
// slate, the pricer and the HTTP edge. Units (docs/exchange.md "Money"):
//   - Tick  : integer price in thousandths of probability (0.667 → 667); valid ones: ticks.ts.
//   - Qty   : integer payout in minimum currency units (MCU): CASH 1 MCU = 0.01, COIN 1 MCU = 1.
//   - Money : integer count of 1e-5 currency unit (1738.42 Cash → 173_842_000).
//   - Millis: integer milliseconds since the Unix epoch (UTC).
// Ids are UUID strings, minted outside the state machine and carried in commands. A command may also
// carry handles (`ah` account, `oh` outcome): dense integers the engine assigned in order of
// creation, which it recorded on the command when it first resolved the ids (journaled commands
// carry them, so replay looks up no string). A handle is used only when it names the same id; else
// the id is looked up (docs/exchange.md "Handles").

import type { MmpConfig } from './mmp-types.ts'; // docs/exchange.md "Market-maker protection"

export type { MmpConfig, MmpView } from './mmp-types.ts';
export { MMP_MAX_MS } from './mmp-types.ts';

import type { ParlayBudget, ParlayCommand, ParlayEvent, ParlayLedgerKind } from './parlay-types.ts';

export * from './parlay-types.ts';

import type { BoostCommand, BoostEvent, BoostLedgerKind } from './boost-types.ts';
import type {
  Currency,
  EventStatus,
  EventType,
  Id,
  MarketStatus,
  MarketType,
  Millis,
  Money,
  OrderStatus,
  OutcomeStatus,
  Qty,
  StpMode,
  Team,
  Tick,
  TimeInForce,
} from './vocabulary.ts';

export * from './boost-types.ts';

export * from './vocabulary.ts';

// ---------------------------------------------------------------- catalog records
// (League, Team and Game are in vocabulary.ts)

export interface EventRecord {
  id: Id;
  type: EventType;
  status: EventStatus;
  description: string; // 'Kansas City Chiefs @ Buffalo Bills'
  league: string;
  scheduledStart: Millis;
  gameId: Id | null;
  marketIds: Id[];
  /** Stored, never used to filter the REST listing (docs/http.md "Events"). */
  pregameVisible: boolean;
  liveVisible: boolean;
  createdAt: Millis;
  updatedAt: Millis;
}

export interface MarketRecord {
  id: Id;
  eventId: Id;
  type: MarketType;
  /** Half-line on the home margin (SPREAD, from the home side: -2.5 = home gives 2.5) or on the
   * total (TOTAL: 47.5); null for MONEY and YES_NO. */
  strike: number | null;
  description: string; // 'KC @ BUF Total 47.5'
  status: MarketStatus;
  /** [outcome index 0 (home/over/yes), outcome index 1 (away/under/no)]. */
  outcomeIds: [Id, Id];
  /** Traded payout per currency, MCU. */
  volume: Record<Currency, Qty>;
  settledAt: Millis | null;
  /** Winning outcome id, 'PUSH' (void: costs refunded) or null while unsettled. */
  result: Id | 'PUSH' | null;
}

export interface OutcomeRecord {
  id: Id;
  marketId: Id;
  index: 0 | 1;
  description: string; // 'Over 47.5', 'BUF -2.5'
  status: OutcomeStatus;
  /** Last traded price per currency (ticks), null before the first trade. */
  last: Record<Currency, Tick | null>;
  competitorTeamId: Id | null;
}

// ---------------------------------------------------------------- trading records

export interface OrderRecord {
  id: Id;
  accountId: Id;
  outcomeId: Id;
  marketId: Id;
  currency: Currency;
  price: Tick;
  /** Remaining (unfilled) payout, MCU. */
  qty: Qty;
  originalQty: Qty;
  tif: TimeInForce;
  /** GTT expiry (createdAt + ttl), null otherwise. */
  expiresAt: Millis | null;
  flags: string | null;
  clientOrderId: string | null;
  status: OrderStatus;
  createdAt: Millis;
  updatedAt: Millis;
}

export interface Fill {
  id: Id; // `${takerOrderId}:${n}` style ids are minted by the engine deterministically
  seq: number; // command sequence number that produced it
  accountId: Id;
  orderId: Id;
  outcomeId: Id;
  marketId: Id;
  currency: Currency;
  /** Price this side paid for its outcome, ticks. */
  price: Tick;
  qty: Qty;
  isTaker: boolean;
  isWash: boolean;
  /** Fee charged to this side, Money (0 for makers and pregame). */
  fee: Money;
  feeCoefficient: number;
  ts: Millis;
}

export interface Wallet {
  /** Spendable funds, Money. */
  available: Money;
  /** Collateral reserved by resting orders, Money. */
  reserved: Money;
}

export interface Position {
  accountId: Id;
  outcomeId: Id;
  marketId: Id;
  currency: Currency;
  /** Payout held, MCU. */
  size: Qty;
  /** What was paid for it (collateral locked in the position), Money. */
  cost: Money;
}

export interface TradingLock {
  id: Id;
  eventId: Id | null; // null: the system lock
  reason: string;
  createdAt: Millis;
  /** null: until cleared. */
  expiresAt: Millis | null;
}

// ---------------------------------------------------------------- commands
// Every command carries `ts`, stamped by the sequencer; the state machine reads no clock.

interface Base {
  ts: Millis;
}

export interface MarketSpec {
  id: Id;
  type: MarketType;
  strike: number | null;
  description: string;
  outcomes: [OutcomeSpec, OutcomeSpec];
}

export interface OutcomeSpec {
  id: Id;
  description: string;
  competitorTeamId?: Id | null;
}

export type Command =
  | (Base & { type: 'CreateLeague'; code: string; name: string })
  | (Base & { type: 'CreateTeam'; team: Team })
  | (Base & {
      type: 'CreateEvent';
      event: {
        id: Id;
        type: EventType;
        status: EventStatus;
        description: string;
        league: string;
        scheduledStart: Millis;
        pregameVisible?: boolean;
        liveVisible?: boolean;
      };
      game: { id: Id; homeTeamId: Id; awayTeamId: Id } | null;
      markets: MarketSpec[];
    })
  | (Base & { type: 'AddMarkets'; eventId: Id; markets: MarketSpec[] })
  | (Base & ParlayBudget & { type: 'SetEventStatus'; eventId: Id; status: EventStatus })
  | (Base & {
      type: 'SetGameScore';
      gameId: Id;
      homeScore: number;
      awayScore: number;
      /** Optional game clock (docs/exchange.md "Catalog rules"); absent keeps the previous one. */
      period?: number;
      timeRemaining?: string;
    })
  | (Base & { type: 'SetMarketStatus'; marketId: Id; status: 'OPEN' | 'CLOSED' })
  | (Base & ParlayBudget & { type: 'SettleMarket'; marketId: Id; result: Id | 'PUSH' })
  | (Base & { type: 'CreateAccount'; accountId: Id })
  | (Base & { type: 'Deposit'; accountId: Id; ah?: number; currency: Currency; amount: Money })
  | (Base & { type: 'Withdraw'; accountId: Id; ah?: number; currency: Currency; amount: Money })
  | (Base & {
      type: 'PlaceOrder';
      orderId: Id;
      accountId: Id;
      /** Account handle (see the header): optional. */
      ah?: number;
      outcomeId: Id;
      /** Outcome handle: market index × 2 + outcome index; optional. */
      oh?: number;
      currency: Currency;
      price: Tick;
      qty: Qty;
      tif: TimeInForce;
      /** GTT only: milliseconds to live. */
      ttl?: number;
      flags?: string | null;
      clientOrderId?: string | null;
      /** Self-trade prevention mode; absent = CANCEL_BOTH (docs/exchange.md "Self-trade prevention"). */
      stp?: StpMode;
      /** PO only: rest at the best non-crossing price instead of POST_ONLY_WOULD_TAKE. */
      reprice?: boolean;
      /** Market-maker protection: the order is protected (docs/exchange.md "Market-maker protection"). */
      mmp?: boolean;
    })
  | (Base & { type: 'CancelOrder'; accountId: Id; ah?: number; orderId: Id })
  /** Changes a resting order's price and/or remaining qty (docs/exchange.md "Amend and queue priority"). */
  | (Base & { type: 'AmendOrder'; accountId: Id; ah?: number; orderId: Id; price?: Tick; qty?: Qty })
  /** Replaces the account's quotes on the listed outcomes of one market and currency, all or nothing
   * (docs/exchange.md "Mass quotes"). `orderId` of a level names the order it creates, if it does. */
  | (Base & {
      type: 'MassQuote';
      accountId: Id;
      ah?: number;
      marketId: Id;
      currency: Currency;
      quotes: { outcomeId: Id; levels: { price: Tick; qty: Qty; orderId: Id }[] }[];
    })
  | (Base & {
      type: 'CancelOrders';
      accountId: Id;
      ah?: number;
      scope: 'all' | 'event' | 'market';
      /** eventId or marketId for those scopes. */
      scopeId?: Id;
      /** Only these order ids (batch cancel); each unknown one is skipped and reported. */
      orderIds?: Id[];
    })
  /** Cancels every GTT order whose expiresAt <= ts, and expires locks. Issued by the scheduler. */
  | (Base & { type: 'Expire' })
  /** Ages the idempotency keys (clientOrderIds) by the window; issued by the scheduler (docs/exchange.md "Idempotency window"). */
  | (Base & { type: 'ExpireClientOrderIds'; windowMs: number; max: number })
  | (Base & { type: 'SetLock'; lock: TradingLock })
  | (Base & { type: 'ClearLock'; lockId: Id })
  | (Base & { type: 'SetFeeCoefficient'; coefficient: number })
  /** Market-maker protection of an account on one event (eventId) or by default (null), per currency. */
  | (Base & {
      type: 'SetMmp';
      accountId: Id;
      ah?: number;
      eventId: Id | null;
      currency: Currency;
      config: MmpConfig;
    })
  /** Lifts an MMP freeze of an account on one event, or on all its events (eventId null). */
  | (Base & { type: 'ResetMmp'; accountId: Id; ah?: number; eventId: Id | null })
  // parlays (docs/parlays.md): parlay-types.ts
  | ParlayCommand
  // parlay boosts (docs/parlays.md "Boosts"): boost-types.ts
  | BoostCommand;

export type CommandType = Command['type'];

// ---------------------------------------------------------------- results and events

/** A rejected command changes nothing and is not journaled. `code`: the engine's are RejectionCodes (rejections.ts). */
export interface Rejection {
  ok: false;
  code: string;
  message: string;
  details?: unknown;
}

export interface Accepted {
  ok: true;
  events: DomainEvent[];
}

export type CommandResult = Accepted | Rejection;

export type DomainEvent =
  | { kind: 'CatalogChanged'; eventIds: Id[]; marketIds: Id[] }
  | { kind: 'OrderPlaced'; order: OrderRecord }
  | { kind: 'OrderFilled'; fill: Fill }
  | {
      kind: 'OrderCanceled';
      order: OrderRecord;
      reason: 'USER' | 'IOC' | 'WASH' | 'EXPIRED' | 'LIFECYCLE' | 'MMP';
    }
  /** An amended order as it stands after the command; `requeued`: it lost its place (docs/exchange.md
   * "Amend and queue priority"). Also a mass quote's changed levels. */
  | { kind: 'OrderAmended'; order: OrderRecord; requeued: boolean }
  /** A mass quote's resulting quote set on its listed outcomes, in price order (best first). */
  | { kind: 'QuotesReplaced'; accountId: Id; marketId: Id; currency: Currency; orders: OrderRecord[] }
  | { kind: 'BookChanged'; marketId: Id; currency: Currency }
  | { kind: 'WalletChanged'; accountId: Id; currency: Currency }
  | { kind: 'PositionChanged'; position: Position }
  | { kind: 'MarketSettled'; marketId: Id; result: Id | 'PUSH' }
  | { kind: 'EventStatusChanged'; eventId: Id; from: EventStatus; to: EventStatus }
  | { kind: 'LocksChanged' }
  /** An MMP breach froze protected orders of the account on the event (frozenUntil null: until reset). */
  | {
      kind: 'MmpTriggered';
      accountId: Id;
      eventId: Id;
      currency: Currency;
      qty: Qty;
      net: Qty;
      frozenUntil: Millis | null;
      canceled: number;
      ts: Millis;
    }
  | { kind: 'MmpReset'; accountId: Id; eventId: Id | null; ts: Millis }
  | ParlayEvent
  | BoostEvent
  | {
      kind: 'LedgerEntry';
      accountId: Id;
      currency: Currency;
      entryKind:
        | 'DEPOSIT'
        | 'WITHDRAWAL'
        | 'TRADE'
        | 'FEE'
        | 'NET'
        | 'SETTLEMENT'
        | 'REFUND'
        | ParlayLedgerKind
        | BoostLedgerKind;
      amount: Money;
      ref: Id | null;
    };

// ---------------------------------------------------------------- the state machine contract

/** A book level aggregated per price, docs/exchange.md "Books and matching" (seen from outcome index 0). */
export interface Level {
  price: Tick;
  qty: Qty;
}

/**
 * What the journal needs of a state machine: deterministic apply, a hash of the whole state,
 * and a snapshot that restores to the same hash.
 */
export interface StateMachine<C, R> {
  apply(cmd: C): R;
  /** SHA-256 (hex) of snapshot(): the sequencer hashes the bytes it has just serialized instead of
   * calling hash() (one serialization per snapshot), and recovery checks restore() against it. */
  hash(): string;
  snapshot(): Uint8Array;
  /**
   * Optional: snapshot()'s exact bytes, produced in slices (yield between slices, return the
   * bytes). The sequencer runs the slices with event-loop turns between them and applies no
   * command until the generator has returned (docs/journal.md, "Snapshots").
   */
  snapshotSlices?(): Generator<void, Uint8Array, void>;
  restore(snapshot: Uint8Array): void;
}

/**
 * A command before the sequencer stamps its time (principle 2 of docs/architecture.md
 * "Principles"): Command minus `ts`, distributed over the union so each variant keeps its fields.
 * The one such type; the catalog's producers and the runtime's port re-export it.
 */
export type CommandInput = Command extends infer C ? (C extends Command ? Omit<C, 'ts'> : never) : never;
