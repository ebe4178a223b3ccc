// AmendOrder and the queue position of a resting order (docs/exchange.md "Amend and queue
// priority"). The rule: a quantity decrease at the same price keeps the order's place in its level's
// queue (the order shrinks where it stands); any other change — a new price, or more quantity —
// takes the order off the book and enters it again as a new taker under the same id, at the back of
// its new level's queue, with the funds, locks and post-only checks of a placement, matching
// whatever it now crosses (as Kalshi and Binance amend). The order keeps its id, account, outcome,
// time in force, expiry, flags, clientOrderId and createdAt; `originalQty` becomes filled + the new
// remaining quantity, so originalQty − qty still counts what it filled. The terms a keyed order was
// placed with are kept before its first change (placed-terms.ts): each of reduceInPlace, liftOff and
// move, which mass quotes share, keeps them.

import { touchBook, touchWallet } from './change-tracking.ts';
import { unmapClientOrder } from './client-order-ids.ts';
import { isSafePos, isStr, reject } from './command-checks.ts';
import { isLocked } from './locks-and-fees.ts';
import { placeOrder } from './matching.ts';
import {
  F_CREATED_AT,
  F_EXPIRES_AT,
  F_ORIGINAL_QTY,
  F_QTY,
  F_SEQ_NO,
  F_UPDATED_AT,
  FW,
  I_ACCOUNT,
  I_BOOK,
  I_LEVEL,
  I_PREV,
  I_SIDE,
  I_TIF,
  ID_STR,
  IW,
  NIL,
  TIF_MASK,
} from './order-pool.ts';
import { keepPlacedTerms } from './placed-terms.ts';
import { orderRecord } from './records.ts';
import { book, link, requeue, unlink } from './resting-orders.ts';
import {
  type Account,
  accountOf,
  type Cmd,
  type ExchangeState,
  type MarketState,
  ok,
  ownAccount,
  WALLET_RESERVED,
  WALLET_SLOTS,
} from './state.ts';
import { isTick, ONE, TICK_INDEX, TICKS } from './ticks.ts';
import { type CommandResult, CURRENCIES, type OrderRecord, TIFS } from './types.ts';
import { MONEY_PER_MCU, MONEY_PER_TICK_MCU, maxTakerFee } from './units.ts';

/** The rejection of an order-entry command on this market now (closed, not tradable, locked), or null. */
export function tradingRefusal(s: ExchangeState, market: MarketState, ts: number): CommandResult | null {
  if (market.rec.status !== 'OPEN') return reject('MARKET_NOT_OPEN');
  const st = market.event.status;
  if (st !== 'OPEN_PREGAME' && st !== 'OPEN_INGAME') return reject('EVENT_NOT_TRADABLE');
  if (isLocked(s, market.event.id, ts)) return reject('TRADING_LOCKED');
  return null;
}

/**
 * Shrinks resting order `h` to `qty` (< its remaining) where it stands: its place in the queue is
 * kept, the reservation of the difference goes back to available.
 */
export function reduceInPlace(s: ExchangeState, h: number, qty: number, ts: number, id?: string): void {
  keepPlacedTerms(s, h);
  const pool = s.pool;
  const bookIndex = pool.i32[h * IW + I_BOOK]!;
  const currencyIndex = bookIndex & 1;
  const level = pool.i32[h * IW + I_LEVEL]!;
  const delta = pool.f64[h * FW + F_QTY]! - qty;
  const release = TICKS[level]! * delta * MONEY_PER_TICK_MCU[currencyIndex]!;
  const accountIndex = pool.i32[h * IW + I_ACCOUNT]!;
  s.wallets[accountIndex * WALLET_SLOTS + WALLET_RESERVED + currencyIndex]! -= release;
  s.wallets[accountIndex * WALLET_SLOTS + currencyIndex]! += release;
  touchWallet(s, s.accounts[accountIndex]!, currencyIndex);
  pool.f64[h * FW + F_QTY] = qty;
  pool.f64[h * FW + F_ORIGINAL_QTY]! -= delta;
  pool.f64[h * FW + F_UPDATED_AT] = ts;
  const b = s.books[bookIndex]!;
  b.qty[b.base[pool.i32[h * IW + I_SIDE]!]! + level]! -= delta;
  touchBook(s, bookIndex);
  if (s.emitEvents)
    s.ev.push({ kind: 'OrderAmended', order: orderRecord(s, h, 'RESTING', id), requeued: false });
}

/**
 * Takes resting order `h` off its level without a cancel event and returns its reservation to
 * available: the first half of a re-queue (the caller enters it again at once).
 */
export function liftOff(s: ExchangeState, h: number): void {
  keepPlacedTerms(s, h); // it enters again at other terms
  const pool = s.pool;
  const bookIndex = pool.i32[h * IW + I_BOOK]!;
  const currencyIndex = bookIndex & 1;
  const level = pool.i32[h * IW + I_LEVEL]!;
  const qty = pool.f64[h * FW + F_QTY]!;
  const release = TICKS[level]! * qty * MONEY_PER_TICK_MCU[currencyIndex]!;
  const accountIndex = pool.i32[h * IW + I_ACCOUNT]!;
  s.wallets[accountIndex * WALLET_SLOTS + WALLET_RESERVED + currencyIndex]! -= release;
  s.wallets[accountIndex * WALLET_SLOTS + currencyIndex]! += release;
  touchWallet(s, s.accounts[accountIndex]!, currencyIndex);
  const b = s.books[bookIndex]!;
  const slot = b.base[pool.i32[h * IW + I_SIDE]!]! + level;
  b.qty[slot]! -= qty;
  unlink(s, h, b, slot);
  touchBook(s, bookIndex);
}

export function amendOrder(s: ExchangeState, c: Cmd<'AmendOrder'>): CommandResult {
  // ---- validation: nothing is touched until every check has passed
  const pool = s.pool;
  // The order first (cancels.ts cancelOrder): the same answers as account, then order
  const found = c.ah === undefined && isStr(c.orderId) ? s.orderIdx.get(c.orderId) : -2;
  let h = found;
  let accountIndex = found >= 0 ? ownAccount(s, c, found) : -1;
  if (accountIndex < 0) {
    const byId = accountOf(s, c);
    if (byId === undefined) return reject('ACCOUNT_NOT_FOUND');
    if (!isStr(c.orderId)) return reject('VALIDATION_FAILED', 'orderId required');
    if (found === -2) h = s.orderIdx.get(c.orderId);
    if (h < 0 || pool.i32[h * IW + I_ACCOUNT] !== byId) return reject('ORDER_NOT_FOUND');
    accountIndex = byId;
  }
  if (c.price === undefined && c.qty === undefined)
    return reject('VALIDATION_FAILED', 'amend needs price or qty');
  const oldTick = TICKS[pool.i32[h * IW + I_LEVEL]!]!;
  const oldQty = pool.f64[h * FW + F_QTY]!;
  const price = c.price ?? oldTick;
  const qty = c.qty ?? oldQty;
  if (!isTick(price)) return reject('INVALID_PRICE');
  const bookIndex = pool.i32[h * IW + I_BOOK]!;
  const currencyIndex = bookIndex & 1;
  if (!isSafePos(qty) || !Number.isSafeInteger(qty * MONEY_PER_MCU[currencyIndex]!))
    return reject('INVALID_QTY');
  if (price === oldTick && qty === oldQty) return reject('AMEND_NO_CHANGE');
  const marketIndex = bookIndex >> 1;
  const market = s.markets[marketIndex]!;
  const refused = tradingRefusal(s, market, c.ts);
  if (refused !== null) return refused;
  if (price === oldTick && qty < oldQty) {
    reduceInPlace(s, h, qty, c.ts, c.orderId);
    return ok(s);
  }
  // A re-queue is a placement: the checks placeOrder makes, here before anything moves, so that
  // the placement below cannot refuse (matching.ts's order of checks).
  const tif = TIFS[pool.i32[h * IW + I_TIF]! & TIF_MASK]!;
  const expiresAt = pool.f64[h * FW + F_EXPIRES_AT]!;
  if (expiresAt >= 0 && expiresAt <= c.ts) return reject('ORDER_NOT_FOUND', 'the order has expired');
  const side = pool.i32[h * IW + I_SIDE]!;
  const b = s.books[bookIndex]!;
  const bestOpp = b.best[side ^ 1]!;
  if (tif === 'PO' && bestOpp >= 0 && TICKS[bestOpp]! >= ONE - price) return reject('POST_ONLY_WOULD_TAKE');
  const currency = CURRENCIES[currencyIndex]!;
  const live = market.event.status === 'OPEN_INGAME' && s.feePpm > 0;
  const feeCap = live ? maxTakerFee(s.feePpm, price, qty, currency) : 0;
  const mpt = MONEY_PER_TICK_MCU[currencyIndex]!;
  const available = s.wallets[accountIndex * WALLET_SLOTS + currencyIndex]!;
  if (available + oldTick * oldQty * mpt < price * qty * mpt + feeCap) return reject('INSUFFICIENT_FUNDS');

  // ---- accepted: lift the order off and enter it again under its id
  const a = s.accounts[accountIndex]!;
  const filled = pool.f64[h * FW + F_ORIGINAL_QTY]! - oldQty;
  const clientOrderId = pool.clientOrderId.size > 0 ? (pool.clientOrderId.get(h) ?? null) : null;
  if (bestOpp < 0 || TICKS[bestOpp]! < ONE - price) {
    // Crosses nothing: it rests at the back of its new level, as placeOrder would leave it (the same
    // state, without building a command and parsing the id again), keeping its handle.
    if (clientOrderId !== null) {
      // deleted and set again, as a new placement maps it: the map's order is the snapshot's
      unmapClientOrder(s, a, clientOrderId);
      a.clientOrders.set(clientOrderId, c.orderId);
    }
    move(s, h, a, bookIndex, TICK_INDEX[price]!, qty, filled + qty, c.ts);
    if (s.emitEvents)
      s.ev.push({ kind: 'OrderAmended', order: orderRecord(s, h, 'RESTING', c.orderId), requeued: true });
    return ok(s);
  }
  const createdAt = pool.f64[h * FW + F_CREATED_AT]!;
  const flags = pool.flags.size > 0 ? (pool.flags.get(h) ?? null) : null;
  liftOff(s, h);
  if (clientOrderId !== null) unmapClientOrder(s, a, clientOrderId); // mapped again by placeOrder
  const evStart = s.ev.length;
  const r = placeOrder(s, {
    type: 'PlaceOrder',
    ts: c.ts,
    orderId: c.orderId,
    accountId: a.id,
    ah: accountIndex,
    outcomeId: market.outcomes[side]!.id,
    oh: marketIndex * 2 + side,
    currency,
    price,
    qty,
    tif,
    // undefined unless GTT (placeOrder reads ttl for GTT only): one shape, no spread of a temporary
    ttl: expiresAt >= 0 ? expiresAt - c.ts : undefined,
    flags,
    clientOrderId,
  });
  if (!r.ok) throw new Error(`amend: placement refused after its checks passed (${r.code})`);
  const h2 = s.orderIdx.get(c.orderId);
  if (h2 >= 0) {
    pool.f64[h2 * FW + F_CREATED_AT] = createdAt;
    pool.f64[h2 * FW + F_ORIGINAL_QTY] = filled + qty;
  }
  if (s.emitEvents) requeueEvents(s, evStart, c.orderId, createdAt, filled + qty);
  return ok(s);
}

/**
 * Turns the OrderPlaced that placeOrder wrote at `at` into OrderAmended (with the order's own
 * createdAt and originalQty), and makes the fill ids of this re-entry unique: `<id>:<seq>:<n>:t`
 * where a first placement's are `<id>:<n>:t` (docs/exchange.md "Amend and queue priority").
 */
function requeueEvents(
  s: ExchangeState,
  at: number,
  id: string,
  createdAt: number,
  originalQty: number,
): void {
  const placed = s.ev.at(at);
  if (placed.kind !== 'OrderPlaced') throw new Error('amend: placement event missing');
  const rec: OrderRecord = placed.order;
  rec.createdAt = createdAt;
  rec.originalQty = originalQty;
  s.ev.set(at, { kind: 'OrderAmended', order: rec, requeued: true });
  const prefix = `${id}:${s.seq}`;
  for (let i = at + 1; i < s.ev.length; i++) {
    const e = s.ev.at(i);
    if (e.kind === 'OrderFilled') e.fill.id = prefix + e.fill.id.slice(id.length);
  }
}

/** Orders and quantity ahead of resting order `orderId` in its level's queue, or undefined. */
export function queuePosition(
  s: ExchangeState,
  orderId: string,
): { ordersAhead: number; qtyAhead: number } | undefined {
  const h = s.orderIdx.get(orderId);
  if (h < 0) return undefined;
  const pool = s.pool;
  let ordersAhead = 0;
  let qtyAhead = 0;
  for (let p = pool.i32[h * IW + I_PREV]!; p !== NIL; p = pool.i32[p * IW + I_PREV]!) {
    ordersAhead++;
    qtyAhead += pool.f64[p * FW + F_QTY]!;
  }
  return { ordersAhead, qtyAhead };
}

/**
 * Re-queues resting order `h` of account `a` at tick index `level` with `qty` (the caller checked
 * funds and that it crosses nothing): the state `liftOff` then `rest` would leave — the same handle
 * (the free list hands it straight back), reservation, acceptance number, expiry entry, the
 * PROTECTED bit dropped — moved in place, keeping its id-index entry (resting-orders.ts `requeue`).
 */
function move(
  s: ExchangeState,
  h: number,
  a: Account,
  bookIndex: number,
  level: number,
  qty: number,
  originalQty: number,
  ts: number,
): void {
  keepPlacedTerms(s, h);
  const pool = s.pool;
  const currencyIndex = bookIndex & 1;
  const moneyPerTick = MONEY_PER_TICK_MCU[currencyIndex]!;
  const oldQty = pool.f64[h * FW + F_QTY]!;
  const release = TICKS[pool.i32[h * IW + I_LEVEL]!]! * oldQty * moneyPerTick;
  const cost = TICKS[level]! * qty * moneyPerTick;
  const available = a.idx * WALLET_SLOTS + currencyIndex;
  // liftOff's release, then rest's reservation (integers: exact in either order)
  s.wallets[available + WALLET_RESERVED]! -= release;
  s.wallets[available]! += release;
  s.wallets[available]! -= cost;
  s.wallets[available + WALLET_RESERVED]! += cost;
  const seqNo = s.orderSeq++;
  pool.i32[h * IW + I_TIF]! &= TIF_MASK | ID_STR;
  pool.f64[h * FW + F_QTY] = qty;
  pool.f64[h * FW + F_ORIGINAL_QTY] = originalQty;
  pool.f64[h * FW + F_UPDATED_AT] = ts;
  pool.f64[h * FW + F_SEQ_NO] = seqNo;
  requeue(s, h, s.books[bookIndex]!, oldQty, level);
  // the entry under the old acceptance number goes stale (expire checks F_SEQ_NO); live count as is
  const expiresAt = pool.f64[h * FW + F_EXPIRES_AT]!;
  if (expiresAt >= 0) s.expiries.push(expiresAt, seqNo, h);
  touchWallet(s, a, currencyIndex);
  touchBook(s, bookIndex);
}

/** Rests a new order at the back of its level, reserving its cost (the caller checked funds). */
export function rest(
  s: ExchangeState,
  a: Account,
  bookIndex: number,
  side: number,
  tifCode: number,
  level: number,
  qty: number,
  originalQty: number,
  createdAt: number,
  ts: number,
  expiresAt: number,
  flags: string | null,
  clientOrderId: string | null,
  id: string,
): number {
  const pool = s.pool;
  const h = pool.alloc();
  const seqNo = s.orderSeq++;
  pool.i32[h * IW + I_BOOK] = bookIndex;
  pool.i32[h * IW + I_ACCOUNT] = a.idx;
  pool.i32[h * IW + I_SIDE] = side;
  pool.i32[h * IW + I_TIF] = tifCode;
  pool.i32[h * IW + I_LEVEL] = level;
  pool.f64[h * FW + F_QTY] = qty;
  pool.f64[h * FW + F_ORIGINAL_QTY] = originalQty;
  pool.f64[h * FW + F_CREATED_AT] = createdAt;
  pool.f64[h * FW + F_UPDATED_AT] = ts;
  pool.f64[h * FW + F_EXPIRES_AT] = expiresAt;
  pool.f64[h * FW + F_SEQ_NO] = seqNo;
  if (flags !== null) pool.flags.set(h, flags);
  if (clientOrderId !== null) pool.clientOrderId.set(h, clientOrderId);
  s.orderIdx.insertKey(s.orderIdx.key(id), h);
  link(s, h, book(s, bookIndex), a);
  if (expiresAt >= 0) {
    s.expiries.push(expiresAt, seqNo, h);
    s.gttLive++;
  }
  const currencyIndex = bookIndex & 1;
  const cost = TICKS[level]! * qty * MONEY_PER_TICK_MCU[currencyIndex]!;
  s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! -= cost;
  s.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + currencyIndex]! += cost;
  touchWallet(s, a, currencyIndex);
  touchBook(s, bookIndex);
  return h;
}
