// Reader queries (ExchangeReader, reader.ts): catalog lookups, books, resting orders, wallets, open
// orders, positions, locks. Read-only; the HTTP read models and the pricer call these.

import { clientOrderOf } from './client-order-ids.ts';
import { F_QTY, F_SEQ_NO, FW, I_ANEXT, I_BOOK, I_NEXT, IW, NIL } from './order-pool.ts';
import { boostView } from './parlay-boosts.ts';
import { nextParlayExpiry } from './parlay-requests.ts';
import { parlayView, requestView, wagerKey } from './parlay-state.ts';
import { orderRecord, positionRecord } from './records.ts';
import { type Book, CUR_INDEX, type ExchangeState, WALLET_RESERVED, WALLET_SLOTS } from './state.ts';
import { ONE, TICKS } from './ticks.ts';
import type {
  AccountPage,
  BoostClaimRecord,
  BoostRecord,
  Currency,
  EventRecord,
  Game,
  Id,
  League,
  Level,
  MarketRecord,
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

export function leagues(s: ExchangeState): readonly League[] {
  return [...s.leagueMap.values()];
}

export function team(s: ExchangeState, id: Id): Team | undefined {
  return s.teamMap.get(id);
}

export function teams(s: ExchangeState, league?: string): readonly Team[] {
  const all = [...s.teamMap.values()];
  return league === undefined ? all : all.filter((t) => t.league === league);
}

export function game(s: ExchangeState, id: Id): Game | undefined {
  return s.gameMap.get(id);
}

export function event(s: ExchangeState, id: Id): EventRecord | undefined {
  return s.eventMap.get(id);
}

/** Cached; rebuilt only after an event was added (scheduledStart and id never change). */
export function eventsSorted(s: ExchangeState): readonly EventRecord[] {
  if (!s.sortedEvents) {
    s.sortedEvents = [...s.eventMap.values()].sort((x, y) =>
      x.scheduledStart !== y.scheduledStart
        ? x.scheduledStart - y.scheduledStart
        : x.id < y.id
          ? -1
          : x.id > y.id
            ? 1
            : 0,
    );
  }
  return s.sortedEvents;
}

export function market(s: ExchangeState, id: Id): MarketRecord | undefined {
  const marketIndex = s.marketIdx.get(id);
  return marketIndex === undefined ? undefined : s.markets[marketIndex]!.rec;
}

export function outcome(s: ExchangeState, id: Id): OutcomeRecord | undefined {
  return s.outcomeMap.get(id);
}

export function bookSeq(s: ExchangeState, marketId: Id, currency: Currency): number {
  const marketIndex = s.marketIdx.get(marketId);
  return marketIndex === undefined ? 0 : s.bookSeqs[marketIndex * 2 + CUR_INDEX[currency]!]!;
}

export function sideLevels(b: Book, side: number, toOne: boolean): Level[] {
  const out: Level[] = [];
  const base = b.base[side]!;
  for (let level = b.best[side]!; level >= b.lo[side]!; level--) {
    if (b.head[base + level] !== NIL)
      out.push({ price: toOne ? ONE - TICKS[level]! : TICKS[level]!, qty: b.qty[base + level]! });
  }
  return out;
}

export function bookLevels(
  s: ExchangeState,
  marketId: Id,
  currency: Currency,
): { bids: Level[]; asks: Level[] } {
  const marketIndex = s.marketIdx.get(marketId);
  const b = marketIndex === undefined ? undefined : s.books[marketIndex * 2 + CUR_INDEX[currency]!];
  if (!b) return { bids: [], asks: [] };
  return { bids: sideLevels(b, 0, false), asks: sideLevels(b, 1, true) };
}

export function restingOrders(s: ExchangeState, outcomeId: Id, currency: Currency): OrderRecord[] {
  const ref = s.outcomeRef.get(outcomeId);
  const b = ref === undefined ? undefined : s.books[(ref >> 1) * 2 + CUR_INDEX[currency]!];
  if (!b || ref === undefined) return [];
  const side = ref & 1;
  const out: OrderRecord[] = [];
  for (let level = b.best[side]!; level >= b.lo[side]!; level--) {
    for (let h = b.head[b.base[side]! + level]!; h !== NIL; h = s.pool.i32[h * IW + I_NEXT]!) {
      out.push(orderRecord(s, h, 'RESTING'));
    }
  }
  return out;
}

export function bestBid(
  s: ExchangeState,
  outcomeId: Id,
  currency: Currency,
): { price: Tick; qty: number } | null {
  const ref = s.outcomeRef.get(outcomeId);
  const b = ref === undefined ? undefined : s.books[(ref >> 1) * 2 + CUR_INDEX[currency]!];
  if (!b || ref === undefined) return null;
  const side = ref & 1;
  const level = b.best[side]!;
  return level < 0 ? null : { price: TICKS[level]!, qty: b.qty[b.base[side]! + level]! };
}

export function hasAccount(s: ExchangeState, accountId: Id): boolean {
  return s.accountIdx.has(accountId);
}

export function wallet(s: ExchangeState, accountId: Id, currency: Currency): Wallet | undefined {
  const accountIndex = s.accountIdx.get(accountId);
  const currencyIndex = CUR_INDEX[currency];
  if (accountIndex === undefined || currencyIndex === undefined) return undefined;
  const a = s.accounts[accountIndex]!;
  return {
    available: s.wallets[a.idx * WALLET_SLOTS + currencyIndex]!,
    reserved: s.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + currencyIndex]!,
  };
}

export function openOrders(s: ExchangeState, accountId: Id, currency?: Currency): OrderRecord[] {
  const accountIndex = s.accountIdx.get(accountId);
  if (accountIndex === undefined) return [];
  const out: OrderRecord[] = [];
  const want = currency === undefined ? -1 : CUR_INDEX[currency]!;
  for (let h = s.accounts[accountIndex]!.head; h !== NIL; h = s.pool.i32[h * IW + I_ANEXT]!) {
    if (want < 0 || (s.pool.i32[h * IW + I_BOOK]! & 1) === want) out.push(orderRecord(s, h, 'RESTING'));
  }
  return out;
}

export function order(s: ExchangeState, orderId: Id): OrderRecord | undefined {
  const h = s.orderIdx.get(orderId);
  return h < 0 ? undefined : orderRecord(s, h, 'RESTING');
}

export function positions(s: ExchangeState, accountId: Id, currency?: Currency): Position[] {
  const accountIndex = s.accountIdx.get(accountId);
  if (accountIndex === undefined) return [];
  const a = s.accounts[accountIndex]!;
  const want = currency === undefined ? -1 : CUR_INDEX[currency]!;
  const out: Position[] = [];
  for (const p of a.positions.values()) {
    if (p.size > 0 && (want < 0 || (p.key & 1) === want)) out.push(positionRecord(s, a, p));
  }
  return out;
}

export function orderIdForClientOrderId(
  s: ExchangeState,
  accountId: Id,
  clientOrderId: string,
): Id | undefined {
  const accountIndex = s.accountIdx.get(accountId);
  return accountIndex === undefined ? undefined : clientOrderOf(s.accounts[accountIndex]!, clientOrderId);
}

/**
 * Earliest time at which an `Expire` command has work: the first live GTT expiry or lock expiry,
 * or null. Stale heap entries (orders already gone) are dropped on the way, which is invisible to
 * the state (the heap is derived data, not part of the hash).
 */
export function nextExpiry(s: ExchangeState): number | null {
  const pool = s.pool;
  while (s.expiries.length > 0) {
    const [sq, h] = s.expiries.peekEntry();
    if (pool.f64[h * FW + F_QTY]! > 0 && pool.f64[h * FW + F_SEQ_NO] === sq) break;
    s.expiries.pop();
  }
  let t = s.expiries.peekTime();
  for (const l of s.lockMap.values()) if (l.expiresAt !== null && l.expiresAt < t) t = l.expiresAt;
  t = Math.min(t, nextParlayExpiry(s));
  return t === Number.POSITIVE_INFINITY ? null : t;
}

export function locks(s: ExchangeState): { system: TradingLock | null; events: TradingLock[] } {
  let system: TradingLock | null = null;
  const events: TradingLock[] = [];
  for (const l of s.lockMap.values()) {
    if (l.eventId === null) system = l;
    else events.push(l);
  }
  return { system, events };
}

// ------------------------------------------------------------------ parlays (docs/parlays.md)

export function parlayRequest(s: ExchangeState, id: Id): ParlayRequestRecord | undefined {
  const r = s.parlay.requests.get(id);
  return r === undefined ? undefined : requestView(r);
}

/** Newest first from `ids` (oldest first), the page's records copied by `view`. */
function pageOf<T>(ids: readonly Id[], get: (id: Id) => T, view: (r: T) => T, page: AccountPage<T>): T[] {
  const out: T[] = [];
  const limit = page.limit ?? Number.POSITIVE_INFINITY;
  let skip = page.offset ?? 0;
  for (let i = ids.length - 1; i >= 0 && out.length < limit; i--) {
    const r = get(ids[i]!);
    if (page.where !== undefined && !page.where(r)) continue;
    if (skip > 0) skip--;
    else out.push(view(r));
  }
  return out;
}

/** The account's requests, newest first: a read costs the account's own requests, not everyone's. */
export function parlayRequests(
  s: ExchangeState,
  accountId: Id,
  page: RequestPage = {},
): ParlayRequestRecord[] {
  const a = s.parlay.byAccount.get(accountId);
  if (a === undefined) return [];
  return pageOf(a.requests, (id) => s.parlay.requests.get(id)!, requestView, page);
}

/** Unfilled requests (what makers may quote), oldest first. */
export function openParlayRequests(s: ExchangeState): ParlayRequestRecord[] {
  return [...s.parlay.open.values()].map(requestView);
}

/**
 * The account's requests open at `now`: a count over the open set without copying a record (it
 * runs for every new request, against the per-account limit).
 */
export function openParlayRequestCount(s: ExchangeState, accountId: Id, now: number): number {
  let n = 0;
  for (const r of s.parlay.open.values())
    if (r.accountId === accountId && r.status === 'Unfilled' && r.expiresAt > now) n++;
  return n;
}

export function parlay(s: ExchangeState, id: Id): ParlayRecord | undefined {
  const p = s.parlay.parlays.get(id);
  return p === undefined ? undefined : parlayView(p);
}

/** Parlays where the account is the taker or the maker, newest first (its own items only; the
 * open ones from the account's open set, so an OPEN read skips its settled history). */
export function parlays(s: ExchangeState, accountId: Id, page: ParlayPage = {}): ParlayRecord[] {
  const a = s.parlay.byAccount.get(accountId);
  if (a === undefined) return [];
  const { status, where } = page;
  const ids = status === 'OPEN' ? [...a.open] : a.parlays;
  const keep =
    status === 'SETTLED'
      ? (p: Readonly<ParlayRecord>) => p.status === 'SETTLED' && (where === undefined || where(p))
      : where;
  return pageOf(ids, (id) => s.parlay.parlays.get(id)!, parlayView, { ...page, where: keep });
}

export function parlayForClientOrderId(
  s: ExchangeState,
  accountId: Id,
  clientOrderId: string,
): Id | undefined {
  return s.parlay.clientWagers.get(wagerKey(accountId, clientOrderId));
}

export function boosts(s: ExchangeState): BoostRecord[] {
  return [...s.parlay.boosts.values()].map(boostView);
}

export function boostClaims(s: ExchangeState, accountId: Id): BoostClaimRecord[] {
  const out: BoostClaimRecord[] = [];
  for (const c of s.parlay.boostClaims.values()) if (c.accountId === accountId) out.push({ ...c });
  return out;
}
