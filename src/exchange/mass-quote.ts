// MassQuote: one command replaces an account's quotes on the listed outcomes of one market and
// currency, all or nothing (docs/exchange.md "Mass quotes"). An outcome's quote set is every resting
// order of the account on that outcome and currency, one order per price level. For each listed
// outcome the request's levels are the whole new set:
//   - a level whose price and qty match the order resting there is left alone (keeps its place);
//   - a smaller qty at the same price shrinks the order where it stands (keeps its place);
//   - a larger qty at the same price re-queues it at the back of its level, under its id;
//   - qty 0, or a price the request does not name, cancels the order there;
//   - a new price rests a new GTC order under the level's id: derived from the command's idBase
//     (quotedId below), or, in a command without one, the level's own orderId.
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
import { isIdBase, quotedId } from './quote-ids.ts';
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

// Scratch of one command, reused: a quote set is at most 2 × MAX_QUOTE_LEVELS levels, and a command
// is applied to the end before the next one starts. Levels are stored per side at side × MAX + j.
const MAX = MAX_QUOTE_LEVELS;
const lvLevel = new Int32Array(2 * MAX);
const lvQty = new Float64Array(2 * MAX);
const lvId: string[] = new Array<string>(2 * MAX).fill('');
const lvCount = new Int32Array(2);
/** Steps (levels that keep, shrink, re-queue or add an order), sides in order, levels as listed. */
const stOp = new Int32Array(2 * MAX);
const stH = new Int32Array(2 * MAX);
const stLevel = new Int32Array(2 * MAX);
const stSide = new Int32Array(2 * MAX);
const stQty = new Float64Array(2 * MAX);
const stId: string[] = new Array<string>(2 * MAX).fill('');
/** Per side and level, the account's first order there (its level's order) while one is read. */
const atLevel = new Int32Array(2 * TICKS.length).fill(NIL);
/** The first orders in account order, per side (their slots of atLevel are cleared after use). */
const firsts: number[][] = [[], []];
const cancels: number[] = [];

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
  const quotes = c.quotes;
  if (!Array.isArray(quotes) || quotes.length === 0 || quotes.length > 2)
    return reject('VALIDATION_FAILED', 'quotes: one entry per outcome of the market, 1 or 2');
  const bookIndex = marketIndex * 2 + currencyIndex;
  const mpt = MONEY_PER_TICK_MCU[currencyIndex]!;
  const mcu = MONEY_PER_MCU[currencyIndex]!;
  let listed0 = false;
  let listed1 = false;
  let top0 = -1; // highest resulting own price per side (a tick), -1: none
  let top1 = -1;
  let newTotal = 0;
  let newCount = 0; // quoted levels so far (their ids are stId[0 .. newCount - 1] while validating)
  const idBase = c.idBase;
  const derived = idBase !== undefined;
  if (derived && !isIdBase(idBase))
    return reject('VALIDATION_FAILED', 'idBase: an id ending in two lower-case hex digits');
  lvCount[0] = 0;
  lvCount[1] = 0;
  for (let q = 0; q < quotes.length; q++) {
    const quote = quotes[q]!;
    const ref = quote === null || typeof quote !== 'object' ? undefined : s.outcomeRef.get(quote.outcomeId);
    if (ref === undefined || ref >> 1 !== marketIndex) return reject('OUTCOME_NOT_FOUND');
    const side = ref & 1;
    if (side === 0 ? listed0 : listed1) return reject('VALIDATION_FAILED', 'quotes: an outcome listed twice');
    if (side === 0) listed0 = true;
    else listed1 = true;
    const levels = quote.levels;
    if (!Array.isArray(levels) || levels.length > MAX)
      return reject('VALIDATION_FAILED', `levels: at most ${MAX} per outcome`);
    const base = side * MAX;
    for (let j = 0; j < levels.length; j++) {
      const l = levels[j]!;
      if (l === null || typeof l !== 'object' || !isTick(l.price)) return reject('INVALID_PRICE');
      const qty = l.qty;
      if (!isSafeNonNeg(qty) || !Number.isSafeInteger(qty * mcu))
        return reject('INVALID_QTY', 'qty: a non-negative integer (0 removes the level)');
      const level = TICK_INDEX[l.price]!;
      for (let k = base; k < base + j; k++)
        if (lvLevel[k] === level) return reject('VALIDATION_FAILED', `levels: price ${l.price} listed twice`);
      const orderId = l.orderId;
      if (derived) {
        // Ids come from idBase, and only for the levels that rest a new order (checked below).
        if (orderId !== undefined) return reject('VALIDATION_FAILED', 'levels: no orderId beside idBase');
      } else if (qty > 0) {
        if (!isStr(orderId) || listedBefore(orderId, newCount))
          return reject('VALIDATION_FAILED', 'levels: each quoted level needs its own orderId');
        if (s.orderIdx.get(orderId) >= 0) return reject('ALREADY_EXISTS', `order ${orderId} exists`);
        stId[newCount++] = orderId;
      }
      if (qty > 0) {
        newTotal += l.price * qty * mpt;
        if (side === 0) {
          if (l.price > top0) top0 = l.price;
        } else if (l.price > top1) top1 = l.price;
      }
      lvLevel[base + j] = level;
      lvQty[base + j] = qty;
      lvId[base + j] = orderId ?? '';
    }
    lvCount[side] = levels.length;
  }
  // The account's orders on this book: per listed side, the first at each level is that level's
  // order and every other one is cancelled; an unlisted side only counts for crossing.
  const pool = s.pool;
  const i32 = pool.i32;
  const a = s.accounts[accountIndex]!;
  const nLevels = TICKS.length;
  cancels.length = 0;
  let oldTotal = 0;
  for (let h = a.head; h !== NIL; h = i32[h * IW + I_ANEXT]!) {
    if (i32[h * IW + I_BOOK] !== bookIndex) continue;
    const side = i32[h * IW + I_SIDE]!;
    const level = i32[h * IW + I_LEVEL]!;
    if (!(side === 0 ? listed0 : listed1)) {
      const tick = TICKS[level]!;
      if (side === 0) {
        if (tick > top0) top0 = tick;
      } else if (tick > top1) top1 = tick;
      continue;
    }
    oldTotal += TICKS[level]! * pool.f64[h * FW + F_QTY]! * mpt;
    const slot = side * nLevels + level;
    if (atLevel[slot] !== NIL) cancels.push(h);
    else {
      atLevel[slot] = h;
      firsts[side]!.push(h);
    }
  }
  let n = 0;
  let taken: string | null = null; // a derived id that names an existing order
  for (let side = 0; side < 2; side++) {
    const base = side * MAX;
    for (let j = base; j < base + lvCount[side]!; j++) {
      const level = lvLevel[j]!;
      const qty = lvQty[j]!;
      const slot = side * nLevels + level;
      const h = atLevel[slot]!;
      if (h === NIL) {
        if (qty > 0) {
          let id = lvId[j]!;
          if (idBase !== undefined) {
            id = quotedId(idBase, j);
            if (s.orderIdx.get(id) >= 0) taken = id;
          }
          n = step(n, NEW, NIL, level, qty, side, id);
        }
        continue;
      }
      atLevel[slot] = NIL; // named: not among the prices the request leaves out
      const had = pool.f64[h * FW + F_QTY]!;
      if (qty === 0) cancels.push(h);
      else n = step(n, qty === had ? KEEP : qty < had ? REDUCE : REQUEUE, h, level, qty, side, '');
    }
    const mine = firsts[side]!;
    for (let k = 0; k < mine.length; k++) {
      const h = mine[k]!;
      const slot = side * nLevels + i32[h * IW + I_LEVEL]!;
      if (atLevel[slot] === h) {
        cancels.push(h); // a price the request does not name
        atLevel[slot] = NIL;
      }
    }
    mine.length = 0;
  }
  // (The scratch above is clean again: a refusal may return from here on.)
  if (taken !== null) return reject('ALREADY_EXISTS', `order ${taken} exists`);
  if (top0 >= 0 && top1 >= 0 && top0 + top1 >= ONE)
    return reject('POST_ONLY_WOULD_TAKE', 'the quotes would cross each other');
  const b = s.books[bookIndex];
  if (b !== undefined) {
    if (
      (listed0 && top0 >= 0 && othersBidAtLeast(s, b, 1, ONE - top0, accountIndex)) ||
      (listed1 && top1 >= 0 && othersBidAtLeast(s, b, 0, ONE - top1, accountIndex))
    )
      return reject('POST_ONLY_WOULD_TAKE', 'a quote would take liquidity');
  }
  const availableSlot = accountIndex * WALLET_SLOTS + currencyIndex;
  if (newTotal - oldTotal > s.wallets[availableSlot]!) return reject('INSUFFICIENT_FUNDS');

  // ---- accepted: release first (cancels, reductions), then reserve (re-queues, new levels)
  const emit = s.emitEvents;
  const ev = s.ev;
  // The resulting set is exactly the steps' orders; each one's record, when an event already
  // carries it (the order does not change after that event), is shared with QuotesReplaced.
  const records: (OrderRecord | null)[] | null = emit ? new Array<OrderRecord | null>(n).fill(null) : null;
  for (let k = 0; k < cancels.length; k++) cancelHandle(s, cancels[k]!, 'USER', c.ts);
  cancels.length = 0;
  for (let k = 0; k < n; k++) {
    if (stOp[k] !== REDUCE) continue;
    reduceInPlace(s, stH[k]!, stQty[k]!, c.ts);
    if (records !== null) records[k] = (ev.at(ev.length - 1) as { order: OrderRecord }).order;
  }
  for (let k = 0; k < n; k++) {
    const op = stOp[k]!;
    if (op === REQUEUE) {
      const h2 = requeue(s, a, stH[k]!, stQty[k]!, c.ts);
      stH[k] = h2;
      if (records !== null) records[k] = (ev.at(ev.length - 1) as { order: OrderRecord }).order;
    } else if (op === NEW) {
      const id = stId[k]!;
      const h = rest(
        s,
        a,
        bookIndex,
        stSide[k]!,
        GTC,
        stLevel[k]!,
        stQty[k]!,
        stQty[k]!,
        c.ts,
        c.ts,
        -1,
        null,
        null,
        id,
      );
      stH[k] = h;
      if (records !== null) {
        const order = orderRecord(s, h, 'RESTING', id);
        records[k] = order;
        ev.push({ kind: 'OrderPlaced', order });
      }
    }
  }
  if (records !== null) {
    // Outcome ids in order, then the best (highest) price first: one order per level and side.
    const firstSide = market.outcomes[0]!.id < market.outcomes[1]!.id ? 0 : 1;
    const order = sortedSteps(n, firstSide);
    const orders: OrderRecord[] = new Array<OrderRecord>(n);
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      orders[k] = records[i] ?? orderRecord(s, stH[i]!, 'RESTING');
    }
    ev.push({
      kind: 'QuotesReplaced',
      accountId: a.id,
      marketId: market.rec.id,
      currency: c.currency,
      orders,
    });
  }
  for (let k = 0; k < n; k++) stId[k] = '';
  return ok(s);
}

/** Whether `orderId` is among the first `count` quoted levels' ids (stId while validating). */
function listedBefore(orderId: string, count: number): boolean {
  for (let k = 0; k < count; k++) if (stId[k] === orderId) return true;
  return false;
}

/** Records step `n` and returns the next free one. */
function step(
  n: number,
  op: number,
  h: number,
  level: number,
  qty: number,
  side: number,
  orderId: string,
): number {
  stOp[n] = op;
  stH[n] = h;
  stLevel[n] = level;
  stQty[n] = qty;
  stSide[n] = side;
  stId[n] = orderId;
  return n + 1;
}

const sortScratch = new Int32Array(2 * MAX);
const sortKey = new Int32Array(2 * MAX);

/** Step indices ordered by outcome (`firstSide` first), then level, highest first (insertion sort). */
function sortedSteps(n: number, firstSide: number): Int32Array {
  for (let k = 0; k < n; k++) {
    const key = (stSide[k] === firstSide ? 0 : TICKS.length) + (TICKS.length - 1 - stLevel[k]!);
    let j = k;
    while (j > 0 && sortKey[j - 1]! > key) {
      sortKey[j] = sortKey[j - 1]!;
      sortScratch[j] = sortScratch[j - 1]!;
      j--;
    }
    sortKey[j] = key;
    sortScratch[j] = k;
  }
  return sortScratch;
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

/** Moves resting order `h` to the back of its level with `qty` remaining, under its id; its new handle. */
function requeue(s: ExchangeState, a: Account, h: number, qty: number, ts: number): number {
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
  return h2;
}
