// The parlay part of the exchange's domain contract (docs/parlays.md): its records, commands and
// events, re-exported by types.ts; its scalar units come from vocabulary.ts (no cycle).
//
// Parlay prices are integer parts per million of probability (PPM_PRICE: 0.127 → 127_000), not ticks:
// a many-leg parlay's price is finer than the tick table. They enter the engine as data carried in
// the commands (the engine never prices anything itself, docs/architecture.md "The engine").

import type { Currency, Id, Millis, Money, OutcomeStatus, Qty } from './vocabulary.ts';

export const PARLAY_REQUEST_STATUSES = ['Unfilled', 'Filled', 'Cancelled', 'Expired', 'Declined'] as const;
export type ParlayRequestStatus = (typeof PARLAY_REQUEST_STATUSES)[number];

/** A maker's firm quote on a request: the price the taker would pay, for up to maxQty payout. */
export interface ParlayQuoteRecord {
  quoteId: Id;
  accountId: Id;
  /** Taker's price, parts per million. */
  price: number;
  maxQty: Qty;
  createdAt: Millis;
  expiresAt: Millis;
}

export interface ParlayRequestLeg {
  outcomeId: Id;
  marketId: Id;
  eventId: Id;
  /** The leg's price when the request was made, parts per million (the void value of the leg). */
  price: number;
}

export interface ParlayRequestRecord {
  id: Id;
  accountId: Id;
  currency: Currency;
  legs: ParlayRequestLeg[];
  /** The house's reference price, parts per million. */
  refPrice: number;
  /** Stake announced with the request (Money), or null. */
  stake: Money | null;
  status: ParlayRequestStatus;
  /** Why it was declined, per leg (a leg's market closed or settled while it was open). */
  declined: { outcomeId: Id; reason: string }[] | null;
  /** Live and past quotes, one per maker (a new quote replaces that maker's old one). */
  quotes: ParlayQuoteRecord[];
  parlayId: Id | null;
  createdAt: Millis;
  updatedAt: Millis;
  expiresAt: Millis;
  /** The claimed boost the request uses (docs/parlays.md "Boosts"); absent when not boosted. */
  boostId?: Id;
}

export interface ParlayLegRecord extends ParlayRequestLeg {
  status: OutcomeStatus;
}

/** A filled parlay: one position for the taker (wins when every leg wins) and one for the maker. */
export interface ParlayRecord {
  id: Id;
  requestId: Id;
  quoteId: Id;
  currency: Currency;
  takerAccountId: Id;
  makerAccountId: Id;
  /** Taker's price, parts per million. */
  price: number;
  /** Payout, MCU. */
  qty: Qty;
  /** What the taker paid (price × qty), Money. */
  stake: Money;
  /** What the maker locked (payout − stake), Money. */
  collateral: Money;
  /** The taker's fee, Money. */
  fee: Money;
  clientOrderId: string | null;
  legs: ParlayLegRecord[];
  status: 'OPEN' | 'SETTLED';
  takerPayout: Money | null;
  makerPayout: Money | null;
  createdAt: Millis;
  settledAt: Millis | null;
  /** Boosted fills only (docs/parlays.md "Boosts"): the boost, the maker's quoted price (ppm) and
   * the boost's cost (Money) paid by the boost's funding account. */
  boostId?: Id;
  quotePrice?: number;
  boostCost?: Money;
}

/** Which of an account's parlay items a read returns (docs/parlays.md "Reads"): those `where`
 * accepts (it sees the stored record, read-only), newest first, `offset` skipped, `limit` kept. */
export interface AccountPage<T> {
  where?: (r: Readonly<T>) => boolean;
  offset?: number;
  limit?: number;
}
export type RequestPage = AccountPage<ParlayRequestRecord>;
export type ParlayPage = AccountPage<ParlayRecord> & { status?: ParlayRecord['status'] };

/** Carried by the commands that settle markets (SettleMarket; SetEventStatus CANCELED voids them). */
export interface ParlayBudget {
  /** Most parlays the command advances (absent: all); the rest are due for SettleParlays
   * (docs/parlays.md "Settlement in chunks"). */
  parlayBudget?: number;
}

interface Base {
  ts: Millis;
}

/** The parlay commands (prices in parts per million, carried as data). */
export type ParlayCommand =
  | (Base & {
      type: 'ParlayRequest';
      requestId: Id;
      accountId: Id;
      ah?: number;
      currency: Currency;
      legs: { outcomeId: Id; price: number }[];
      refPrice: number;
      stake: Money | null;
      expiresAt: Millis;
      /** A boost the account claimed (docs/parlays.md "Boosts"), or absent/null. */
      boostId?: Id | null;
    })
  | (Base & { type: 'ParlayCancel'; requestId: Id; accountId: Id; ah?: number })
  | (Base & {
      type: 'ParlayQuote';
      quoteId: Id;
      requestId: Id;
      accountId: Id;
      ah?: number;
      price: number;
      maxQty: Qty;
      expiresAt: Millis;
    })
  | (Base & {
      type: 'ParlayWager';
      requestId: Id;
      accountId: Id;
      ah?: number;
      /** Money the taker puts up (price × qty ≤ stake; the fee comes on top). */
      stake: Money;
      maxPrice: number;
      clientOrderId: string | null;
    })
  /**
   * Advances up to `max` of the parlays due on a settled market (docs/parlays.md "Settlement in
   * chunks"): its SettleMarket (or the event's cancellation) advanced only its `parlayBudget`, and
   * the runtime's scheduler issues these until none is due.
   */
  | (Base & { type: 'SettleParlays'; marketId: Id; max: number });

export type ParlayEvent =
  | { kind: 'ParlayRequestChanged'; request: ParlayRequestRecord }
  | { kind: 'ParlayChanged'; parlay: ParlayRecord };

/** Ledger entry kinds of parlay money (the engine names them as the wire does). */
export type ParlayLedgerKind =
  | 'FILL_PARLAY_TAKER_FUNDS'
  | 'FILL_PARLAY_MAKER_FUNDS'
  | 'FEE_PARLAY_TAKER_FUNDS'
  | 'SETTLE_PARLAY_TAKER_FUNDS'
  | 'SETTLE_PARLAY_MAKER_FUNDS';
