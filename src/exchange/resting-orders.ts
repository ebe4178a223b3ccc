// Resting orders: the per-(market, currency) books, linking an order into its price level and its
// account's list, unlinking it, and cancelling a resting order (releasing its collateral). O(1)
// cancel: a doubly linked queue per level plus the id index (DESIGN.md §10).

import { touchBook, touchWallet } from './change-tracking.ts';
import {
  F_EXPIRES_AT,
  F_QTY,
  F_SEQ_NO,
  F_UPDATED_AT,
  FW,
  I_ACCOUNT,
  I_ANEXT,
  I_APREV,
  I_BOOK,
  I_HASH,
  I_LEVEL,
  I_NEXT,
  I_PREV,
  I_SIDE,
  IW,
  NIL,
} from './order-pool.ts';
import { orderRecord } from './records.ts';
import { type Account, type Book, type CancelReason, type ExchangeState, WS } from './state.ts';
import { TICK_COUNT, TICKS } from './ticks.ts';
import { MONEY_PER_TICK_MCU } from './units.ts';

export function book(s: ExchangeState, bi: number): Book {
  let b = s.books[bi];
  if (!b) {
    const n = 2 * TICK_COUNT;
    b = {
      head: new Int32Array(n).fill(NIL),
      tail: new Int32Array(n).fill(NIL),
      qty: new Float64Array(n),
      best: new Int32Array([-1, -1]),
    };
    s.books[bi] = b;
  }
  return b;
}

/** Appends a resting order to its level, its account's list and the id index
 * (the caller has set every slot, I_HASH = IdIndex.hashOf(id) included). */
export function link(s: ExchangeState, h: number, b: Book, a: Account): void {
  const pool = s.pool;
  const slot = pool.i32[h * IW + I_SIDE]! * TICK_COUNT + pool.i32[h * IW + I_LEVEL]!;
  const t = b.tail[slot]!;
  pool.i32[h * IW + I_PREV] = t;
  pool.i32[h * IW + I_NEXT] = NIL;
  if (t === NIL) b.head[slot] = h;
  else pool.i32[t * IW + I_NEXT] = h;
  b.tail[slot] = h;
  b.qty[slot]! += pool.f64[h * FW + F_QTY]!;
  const side = pool.i32[h * IW + I_SIDE]!;
  if (pool.i32[h * IW + I_LEVEL]! > b.best[side]!) b.best[side] = pool.i32[h * IW + I_LEVEL]!;

  const at = a.tail;
  pool.i32[h * IW + I_APREV] = at;
  pool.i32[h * IW + I_ANEXT] = NIL;
  if (at === NIL) a.head = h;
  else pool.i32[at * IW + I_ANEXT] = h;
  a.tail = h;

  s.orderIdx.setHashed(pool.i32[h * IW + I_HASH]!, h);
}

/** Removes a resting order from its lists and the id index and frees its handle (level qty is the
 * caller's). */
export function unlink(s: ExchangeState, h: number, b: Book, slot: number): void {
  const pool = s.pool;
  const p = pool.i32[h * IW + I_PREV]!;
  const n = pool.i32[h * IW + I_NEXT]!;
  if (p === NIL) b.head[slot] = n;
  else pool.i32[p * IW + I_NEXT] = n;
  if (n === NIL) b.tail[slot] = p;
  else pool.i32[n * IW + I_PREV] = p;
  if (b.head[slot] === NIL) {
    b.qty[slot] = 0;
    const side = pool.i32[h * IW + I_SIDE]!;
    if (b.best[side] === pool.i32[h * IW + I_LEVEL]) {
      let li = pool.i32[h * IW + I_LEVEL]! - 1;
      const base = side * TICK_COUNT;
      while (li >= 0 && b.head[base + li] === NIL) li--;
      b.best[side] = li;
    }
  }
  const a = s.accounts[pool.i32[h * IW + I_ACCOUNT]!]!;
  const ap = pool.i32[h * IW + I_APREV]!;
  const an = pool.i32[h * IW + I_ANEXT]!;
  if (ap === NIL) a.head = an;
  else pool.i32[ap * IW + I_ANEXT] = an;
  if (an === NIL) a.tail = ap;
  else pool.i32[an * IW + I_APREV] = ap;

  if (pool.f64[h * FW + F_EXPIRES_AT]! >= 0) s.gttLive--;
  s.orderIdx.deleteHashed(pool.i32[h * IW + I_HASH]!, h);
  pool.release(h);
}

/** Cancels a resting order: releases its collateral, emits OrderCanceled, frees the handle. */
export function cancelHandle(s: ExchangeState, h: number, reason: CancelReason, ts: number): void {
  const pool = s.pool;
  const bi = pool.i32[h * IW + I_BOOK]!;
  const ci = bi & 1;
  const b = s.books[bi]!;
  const slot = pool.i32[h * IW + I_SIDE]! * TICK_COUNT + pool.i32[h * IW + I_LEVEL]!;
  const qty = pool.f64[h * FW + F_QTY]!;
  const a = s.accounts[pool.i32[h * IW + I_ACCOUNT]!]!;
  const release = TICKS[pool.i32[h * IW + I_LEVEL]!]! * qty * MONEY_PER_TICK_MCU[ci]!;
  s.wal[a.idx * WS + 2 + ci]! -= release;
  s.wal[a.idx * WS + ci]! += release;
  touchWallet(s, a, ci);
  pool.f64[h * FW + F_UPDATED_AT] = ts;
  if (s.emitEvents) s.ev.push({ kind: 'OrderCanceled', order: orderRecord(s, h, 'CANCELED'), reason });
  b.qty[slot]! -= qty;
  unlink(s, h, b, slot);
  touchBook(s, bi);
}

export function cancelMarketOrders(s: ExchangeState, mi: number, ts: number): void {
  for (let ci = 0; ci < 2; ci++) {
    const b = s.books[mi * 2 + ci];
    if (!b) continue;
    for (let side = 0; side < 2; side++) {
      while (b.best[side]! >= 0) {
        cancelHandle(s, b.head[side * TICK_COUNT + b.best[side]!]!, 'LIFECYCLE', ts);
      }
    }
  }
}

export function rebuildExpiries(s: ExchangeState): void {
  s.expiries.clear();
  s.gttLive = 0;
  const pool = s.pool;
  for (let h = 0; h < pool.top; h++) {
    if (pool.f64[h * FW + F_QTY]! > 0 && pool.f64[h * FW + F_EXPIRES_AT]! >= 0) {
      s.expiries.push(pool.f64[h * FW + F_EXPIRES_AT]!, pool.f64[h * FW + F_SEQ_NO]!, h);
      s.gttLive++;
    }
  }
}
