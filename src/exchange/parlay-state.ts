// The parlay part of the engine's state (docs/parlays.md): requests for quote with their makers'
// firm quotes, filled parlays (one position per side), the collateral they hold, and the indexes
// that find them by leg market. Everything here is plain data over ids; the indexes are rebuilt
// from the records on restore, so only the records are snapshotted. The money formulas of a fill
// and of a settlement live here too, in integers (BigInt where products leave the safe range).

import type {
  BoostClaimRecord,
  BoostRecord,
  Currency,
  Id,
  Money,
  ParlayLegRecord,
  ParlayQuoteRecord,
  ParlayRecord,
  ParlayRequestRecord,
  Qty,
} from './types.ts';

/** Parlay prices are parts per million of probability. */
export const PPM_PRICE = 1_000_000;
/** The taker fee coefficient of a parlay fill, ppm (0.10, docs/parlays.md "Money of a fill"). */
export const PARLAY_FEE_PPM = 100_000;
/** Most legs a parlay may have in the engine (the edge's configured limit is at most this). */
export const PARLAY_ENGINE_MAX_LEGS = 25;

export class ParlayState {
  /** Every request, in creation order (closed ones stay for reads). */
  requests = new Map<Id, ParlayRequestRecord>();
  /** Unfilled requests (a subset of `requests`), in creation order. */
  open = new Map<Id, ParlayRequestRecord>();
  /** Every filled parlay, in fill order. */
  parlays = new Map<Id, ParlayRecord>();
  /** Market index → ids of unfilled requests with a leg there. */
  openByMarket = new Map<number, Set<Id>>();
  /** Market index → ids of open parlays whose leg there is TBD (in fill order). */
  liveByMarket = new Map<number, Set<Id>>();
  /**
   * Settled markets whose parlays are still to be advanced (docs/parlays.md "Settlement in
   * chunks"): a market index is here exactly while it is SETTLED and liveByMarket holds ids for it.
   */
  due = new Set<number>();
  /** Parlays a command may still advance (set by the settling commands; scratch, not state). */
  budget = Number.POSITIVE_INFINITY;
  /** Account id → its requests and parlays, so a read costs the account's own items. */
  byAccount = new Map<Id, AccountParlays>();
  /** `${accountId}\0${clientOrderId}` → parlay id (wager idempotency). */
  clientWagers = new Map<string, Id>();
  /** Money held by open parlays per currency index (stake + maker collateral = payout). */
  collateral = [0, 0];
  /** Boosts (parlay-boosts.ts), in creation order, and claims by `${boostId}\0${accountId}`. */
  boosts = new Map<Id, BoostRecord>();
  boostClaims = new Map<string, BoostClaimRecord>();

  get empty(): boolean {
    return this.requests.size === 0 && this.boosts.size === 0;
  }
}

/** One account's parlay items (ids; the records are in ParlayState's maps). */
export interface AccountParlays {
  /** Its requests, in creation order. */
  requests: Id[];
  /** Parlays where it is the taker or the maker (once if both), in fill order. */
  parlays: Id[];
  /** The subset of `parlays` still OPEN, in fill order. */
  open: Set<Id>;
}

export function accountParlays(p: ParlayState, accountId: Id): AccountParlays {
  let a = p.byAccount.get(accountId);
  if (a === undefined) {
    a = { requests: [], parlays: [], open: new Set() };
    p.byAccount.set(accountId, a);
  }
  return a;
}

/** A new filled parlay joins both sides' account indexes and its legs' market indexes. */
export function indexParlay(p: ParlayState, rec: ParlayRecord, marketIndex: (marketId: Id) => number): void {
  for (const id of rec.takerAccountId === rec.makerAccountId
    ? [rec.takerAccountId]
    : [rec.takerAccountId, rec.makerAccountId]) {
    const a = accountParlays(p, id);
    a.parlays.push(rec.id);
    if (rec.status === 'OPEN') a.open.add(rec.id);
  }
  if (rec.status === 'OPEN')
    for (const leg of rec.legs)
      if (leg.status === 'TBD') indexAdd(p.liveByMarket, marketIndex(leg.marketId), rec.id);
}

export const wagerKey = (accountId: Id, clientOrderId: string): string =>
  `${accountId}\u0000${clientOrderId}`;

export function indexAdd(m: Map<number, Set<Id>>, key: number, id: Id): void {
  const set = m.get(key);
  if (set === undefined) m.set(key, new Set([id]));
  else set.add(id);
}

export function indexDelete(m: Map<number, Set<Id>>, key: number, id: Id): void {
  const set = m.get(key);
  if (set === undefined) return;
  set.delete(id);
  if (set.size === 0) m.delete(key);
}

/** A valid parlay price: an integer 1..999_999 parts per million. */
export const isPpmPrice = (p: unknown): p is number =>
  typeof p === 'number' && Number.isSafeInteger(p) && p > 0 && p < PPM_PRICE;

/**
 * The money of a fill of `qty` payout at `price` ppm (docs/parlays.md "Money of a fill"): the
 * taker's stake = floor(price × payout) (rounding favours the taker by less than 1e-5 unit), the
 * maker's collateral = payout − stake (so the two always add up to the payout), and the taker's
 * fee = round-half-up(0.10 × stake × collateral / (stake + collateral)).
 */
export function fillMoney(
  price: number,
  qty: Qty,
  moneyPerMcu: number,
): { payout: Money; stake: Money; collateral: Money; fee: Money } {
  const payout = qty * moneyPerMcu;
  const stake = Number((BigInt(price) * BigInt(payout)) / BigInt(PPM_PRICE));
  const collateral = payout - stake;
  const num = BigInt(PARLAY_FEE_PPM) * BigInt(stake) * BigInt(collateral);
  const den = BigInt(PPM_PRICE) * BigInt(payout);
  const fee = Number((2n * num + den) / (2n * den));
  return { payout, stake, collateral, fee };
}

/** The payout a stake buys at `price`: the largest qty whose stake (fillMoney) is ≤ `stake`. */
export function qtyForStake(stake: Money, price: number, moneyPerMcu: number): Qty {
  // stake(q) = floor(price × q × k / 1e6) ≤ stake ⇔ price × q × k < (stake + 1) × 1e6
  const num = (BigInt(stake) + 1n) * BigInt(PPM_PRICE) - 1n;
  return Number(num / (BigInt(price) * BigInt(moneyPerMcu)));
}

/**
 * Whether the parlay is decided and, if so, the taker's share of the payout (docs/parlays.md
 * "Settlement"): value = Π leg values with WIN 1, LOSS 0, PUSH the leg's recorded price. Decided when
 * a leg lost (value 0) or no leg is TBD. The taker gets floor(payout × value), the maker the rest.
 */
export function settlementShare(legs: readonly ParlayLegRecord[], payout: Money): Money | null {
  let tbd = false;
  let push = false;
  for (const l of legs) {
    if (l.status === 'LOSS') return 0;
    if (l.status === 'TBD') tbd = true;
    else if (l.status === 'PUSH') push = true;
  }
  if (tbd) return null;
  if (!push) return payout; // every leg won: value 1, no BigInt needed
  let num = 1n;
  let den = 1n;
  for (const l of legs)
    if (l.status === 'PUSH') {
      num *= BigInt(l.price);
      den *= BigInt(PPM_PRICE);
    }
  return Number((BigInt(payout) * num) / den);
}

/** Copies for events (events are read after the command; records keep changing). */
export function requestView(r: ParlayRequestRecord): ParlayRequestRecord {
  return {
    ...r,
    legs: r.legs.map((l) => ({ ...l })),
    declined: r.declined === null ? null : r.declined.map((d) => ({ ...d })),
    quotes: r.quotes.map((q): ParlayQuoteRecord => ({ ...q })),
  };
}

export function parlayView(p: ParlayRecord): ParlayRecord {
  return { ...p, legs: p.legs.map((l) => ({ ...l })) };
}

export const CURRENCY_INDEX = (c: Currency): number => (c === 'CASH' ? 0 : 1);
