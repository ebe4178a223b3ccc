// MassQuote: one command replaces an account's quotes on the listed outcomes of one market and
// currency, all or nothing (docs/exchange.md "Mass quotes"). An outcome's quote set is every resting
// order of the account on that outcome and currency, one order per price level. For each listed
// outcome the request's levels are the whole new set:
//   - a level whose price and qty match the order resting there is left alone (keeps its place);
//   - a smaller qty at the same price shrinks the order where it stands (keeps its place);
//   - a larger qty at the same price re-queues it at the back of its level, under its id;
//   - qty 0, or a price the request does not name, cancels the order there;
//   - a new price rests a new GTC order under the level's orderId.
// Quotes never take: a level that would cross the other outcome's book (another account's bid, or
// the account's own resulting quotes) refuses the whole command. The funds check is of the whole
// set at once: what the new set reserves beyond what the replaced orders release must be available.

import { liftOff, reduceInPlace, rest, tradingRefusal } from './amend.ts';
import { isSafeNonNeg, isStr, reject } from './command-checks.ts';
import {
  F_CREATED_AT,
  F_EXPIRES_AT,
  F_ORIGINAL_QTY,
  F_QTY,
  FW,
  I_ACCOUNT,
  I_ANEXT,
  I_BOOK,
  I_LEVEL,
  I_NEXT,
  I_SIDE,
  I_TIF,
  IW,
  NIL,
  TIF_MASK,
} from './order-pool.ts';
import { orderRecord } from './records.ts';
import { cancelHandle } from './resting-orders.ts';
import {
  type Account,
  accountOf,
  type Cmd,
  CUR_INDEX,
  type ExchangeState,
  ok,
  WALLET_SLOTS,
} from './state.ts';
import { isTick, ONE, TICK_INDEX, TICKS } from './ticks.ts';
import { type CommandResult, MAX_QUOTE_LEVELS, type OrderRecord, TIFS } from './types.ts';
import { MONEY_PER_MCU, MONEY_PER_TICK_MCU } from './units.ts';

const GTC = TIFS.indexOf('GTC');

/** What a validated level does to the book. */
const KEEP = 0;
const REDUCE = 1;
const REQUEUE = 2;
const NEW = 3;

interface Step {
  op: number;
  h: number;
  level: number;
  qty: number;
  side: number;
  orderId: string;
}

export function massQuote(s: ExchangeState, c: Cmd<'MassQuote'>): CommandResult {
  // ---- validation: nothing is touched until every check has passed
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  const currencyIndex = CUR_INDEX[c.currency];
  if (currencyIndex === undefined) return reject('INVALID_CURRENCY');
  const marketIndex = s.marketIdx.get(c.marketId);
  if (marketIndex === undefined) return reject('MARKET_NOT_FOUND');
  const market = s.markets[marketIndex]!;
  const refused = tradingRefusal(s, market, c.ts);
  if (refused !== null) return refused;
  if (!Array.isArray(c.quotes) || c.quotes.length === 0 || c.quotes.length > 2)
    return reject('VALIDATION_FAILED', 'quotes: one entry per outcome of the market, 1 or 2');
  const bookIndex = marketIndex * 2 + currencyIndex;
  const mpt = MONEY_PER_TICK_MCU[currencyIndex]!;
  const listed = [false, false];
  const steps: Step[] = [];
  const newIds = new Set<string>();
  const top = [-1, -1]; // highest resulting own price per side (a tick), -1: none
  let newTotal = 0;
  const levelsBySide: { level: number; qty: number; orderId: string }[][] = [[], []];
  for (const quote of c.quotes) {
    const ref = quote === null || typeof quote !== 'object' ? undefined : s.outcomeRef.get(quote.outcomeId);
    if (ref === undefined || ref >> 1 !== marketIndex) return reject('OUTCOME_NOT_FOUND');
    const side = ref & 1;
    if (listed[side]) return reject('VALIDATION_FAILED', 'quotes: an outcome listed twice');
    listed[side] = true;
    if (!Array.isArray(quote.levels) || quote.levels.length > MAX_QUOTE_LEVELS)
      return reject('VALIDATION_FAILED', `levels: at most ${MAX_QUOTE_LEVELS} per outcome`);
    const seen = new Set<number>();
    for (const l of quote.levels) {
      if (l === null || typeof l !== 'object' || !isTick(l.price)) return reject('INVALID_PRICE');
      if (!isSafeNonNeg(l.qty) || !Number.isSafeInteger(l.qty * MONEY_PER_MCU[currencyIndex]!))
        return reject('INVALID_QTY', 'qty: a non-negative integer (0 removes the level)');
      if (seen.has(l.price)) return reject('VALIDATION_FAILED', `levels: price ${l.price} listed twice`);
      seen.add(l.price);
      if (l.qty > 0) {
        if (!isStr(l.orderId) || newIds.has(l.orderId))
          return reject('VALIDATION_FAILED', 'levels: each quoted level needs its own orderId');
        if (s.orderIdx.get(l.orderId) >= 0) return reject('ALREADY_EXISTS', `order ${l.orderId} exists`);
        newIds.add(l.orderId);
        newTotal += l.price * l.qty * mpt;
        if (l.price > top[side]!) top[side] = l.price;
      }
      levelsBySide[side]!.push({ level: TICK_INDEX[l.price]!, qty: l.qty, orderId: l.orderId });
    }
  }
  // The account's orders on this book: per listed side, the first at each level is that level's
  // order and every other one is cancelled; an unlisted side only counts for crossing.
  const pool = s.pool;
  const a = s.accounts[accountIndex]!;
  const atLevel = [new Map<number, number>(), new Map<number, number>()];
  const cancels: number[] = [];
  let oldTotal = 0;
  for (let h = a.head; h !== NIL; h = pool.i32[h * IW + I_ANEXT]!) {
    if (pool.i32[h * IW + I_BOOK] !== bookIndex) continue;
    const side = pool.i32[h * IW + I_SIDE]!;
    const level = pool.i32[h * IW + I_LEVEL]!;
    if (!listed[side]) {
      if (TICKS[level]! > top[side]!) top[side] = TICKS[level]!;
      continue;
    }
    oldTotal += TICKS[level]! * pool.f64[h * FW + F_QTY]! * mpt;
    if (atLevel[side]!.has(level)) cancels.push(h);
    else atLevel[side]!.set(level, h);
  }
  for (let side = 0; side < 2; side++) {
    const mine = atLevel[side]!;
    for (const l of levelsBySide[side]!) {
      const h = mine.get(l.level);
      if (h === undefined) {
        if (l.qty > 0) steps.push({ op: NEW, h: NIL, level: l.level, qty: l.qty, side, orderId: l.orderId });
        continue;
      }
      mine.delete(l.level);
      const had = pool.f64[h * FW + F_QTY]!;
      if (l.qty === 0) cancels.push(h);
      else if (l.qty === had) steps.push({ op: KEEP, h, level: l.level, qty: l.qty, side, orderId: '' });
      else
        steps.push({ op: l.qty < had ? REDUCE : REQUEUE, h, level: l.level, qty: l.qty, side, orderId: '' });
    }
    for (const h of mine.values()) cancels.push(h); // prices the request does not name
  }
  if (top[0]! >= 0 && top[1]! >= 0 && top[0]! + top[1]! >= ONE)
    return reject('POST_ONLY_WOULD_TAKE', 'the quotes would cross each other');
  const b = s.books[bookIndex];
  if (b !== undefined) {
    for (let side = 0; side < 2; side++) {
      if (listed[side] && top[side]! >= 0 && othersBidAtLeast(s, b, side ^ 1, ONE - top[side]!, accountIndex))
        return reject('POST_ONLY_WOULD_TAKE', 'a quote would take liquidity');
    }
  }
  const availableSlot = accountIndex * WALLET_SLOTS + currencyIndex;
  if (newTotal - oldTotal > s.wallets[availableSlot]!) return reject('INSUFFICIENT_FUNDS');

  // ---- accepted: release first (cancels, reductions), then reserve (re-queues, new levels)
  for (const h of cancels) cancelHandle(s, h, 'USER', c.ts);
  for (const st of steps) if (st.op === REDUCE) reduceInPlace(s, st.h, st.qty, c.ts);
  for (const st of steps) {
    if (st.op === REQUEUE) requeue(s, a, st.h, st.qty, c.ts);
    else if (st.op === NEW) {
      const h = rest(
        s,
        a,
        bookIndex,
        st.side,
        GTC,
        st.level,
        st.qty,
        st.qty,
        c.ts,
        c.ts,
        -1,
        null,
        null,
        st.orderId,
      );
      if (s.emitEvents) s.ev.push({ kind: 'OrderPlaced', order: orderRecord(s, h, 'RESTING', st.orderId) });
    }
  }
  if (s.emitEvents) {
    const orders: OrderRecord[] = [];
    for (let h = a.head; h !== NIL; h = pool.i32[h * IW + I_ANEXT]!) {
      if (pool.i32[h * IW + I_BOOK] === bookIndex && listed[pool.i32[h * IW + I_SIDE]!])
        orders.push(orderRecord(s, h, 'RESTING'));
    }
    orders.sort((x, y) =>
      x.outcomeId === y.outcomeId ? y.price - x.price : x.outcomeId < y.outcomeId ? -1 : 1,
    );
    s.ev.push({
      kind: 'QuotesReplaced',
      accountId: a.id,
      marketId: market.rec.id,
      currency: c.currency,
      orders,
    });
  }
  return ok(s);
}

/** Whether another account than `accountIndex` bids on `side` at a tick ≥ `minTick`. */
function othersBidAtLeast(
  s: ExchangeState,
  b: NonNullable<ExchangeState['books'][number]>,
  side: number,
  minTick: number,
  accountIndex: number,
): boolean {
  const base = b.base[side]!;
  for (let level = b.best[side]!; level >= b.lo[side]! && TICKS[level]! >= minTick; level--) {
    for (let h = b.head[base + level]!; h !== NIL; h = s.pool.i32[h * IW + I_NEXT]!) {
      if (s.pool.i32[h * IW + I_ACCOUNT] !== accountIndex) return true;
    }
  }
  return false;
}

/** Moves resting order `h` to the back of its level with `qty` remaining, under its id. */
function requeue(s: ExchangeState, a: Account, h: number, qty: number, ts: number): void {
  const pool = s.pool;
  const id = s.orderIdx.idOf(h);
  const bookIndex = pool.i32[h * IW + I_BOOK]!;
  const side = pool.i32[h * IW + I_SIDE]!;
  const tifCode = pool.i32[h * IW + I_TIF]! & TIF_MASK;
  const level = pool.i32[h * IW + I_LEVEL]!;
  const filled = pool.f64[h * FW + F_ORIGINAL_QTY]! - pool.f64[h * FW + F_QTY]!;
  const createdAt = pool.f64[h * FW + F_CREATED_AT]!;
  const expiresAt = pool.f64[h * FW + F_EXPIRES_AT]!;
  const flags = pool.flags.size > 0 ? (pool.flags.get(h) ?? null) : null;
  const clientOrderId = pool.clientOrderId.size > 0 ? (pool.clientOrderId.get(h) ?? null) : null;
  liftOff(s, h);
  const h2 = rest(
    s,
    a,
    bookIndex,
    side,
    tifCode,
    level,
    qty,
    filled + qty,
    createdAt,
    ts,
    expiresAt,
    flags,
    clientOrderId,
    id,
  );
  if (s.emitEvents)
    s.ev.push({ kind: 'OrderAmended', order: orderRecord(s, h2, 'RESTING', id), requeued: true });
}
