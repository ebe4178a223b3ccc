// Resting orders: the per-(market, currency) books, linking an order into its price level and its
// account's list, unlinking it, and cancelling a resting order (releasing its collateral). O(1)
// cancel: a doubly linked queue per level plus the id index.

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
import {
  type Account,
  type Book,
  type CancelReason,
  type ExchangeState,
  WALLET_RESERVED,
  WALLET_SLOTS,
} from './state.ts';
import { TICK_COUNT, TICKS } from './ticks.ts';
import { MONEY_PER_TICK_MCU } from './units.ts';

// A book's first order sizes its window: shared empty arrays until then (nothing reads a level of a
// side whose best is -1, and the first link always widens a span of 0).
const NO_I32 = new Int32Array(0);
const NO_F64 = new Float64Array(0);
/** Smallest window, levels per side: room for a few levels either side of where a book quotes. */
const MIN_SPAN = 16;

export function book(s: ExchangeState, bookIndex: number): Book {
  let b = s.books[bookIndex];
  if (!b) {
    b = {
      head: NO_I32,
      tail: NO_I32,
      qty: NO_F64,
      best: new Int32Array([-1, -1]),
      lo: new Int32Array(2),
      base: new Int32Array(2),
      span: 0,
    };
    s.books[bookIndex] = b;
  }
  return b;
}

/**
 * Re-lays a book's windows so that tick index `level` on `side` fits beside every resting order (off
 * the hot path: a level outside the window is rare once a book quotes around a price). The span
 * never shrinks, so a book that moves back and forth does not reallocate each time; it doubles when
 * the occupied range needs more than half of it, and past half the table it takes all TICK_COUNT
 * levels (then lo = 0 on both sides, the layout of a dense book).
 */
export function widen(b: Book, side: number, level: number): void {
  const oldSpan = b.span;
  // Occupied range per side [from, to] (to = best), with level added on `side`; empty: from > to.
  const from = [0, 0];
  const to = [-1, -1];
  for (let sd = 0; sd < 2; sd++) {
    const best = b.best[sd]!;
    if (best < 0) continue;
    let f = b.lo[sd]!;
    while (b.head[b.base[sd]! + f] === NIL) f++;
    from[sd] = f;
    to[sd] = best;
  }
  const had = [from[0]!, to[0]!, from[1]!, to[1]!];
  if (to[side]! < 0) {
    from[side] = level;
    to[side] = level;
  } else {
    from[side] = Math.min(from[side]!, level);
    to[side] = Math.max(to[side]!, level);
  }
  const need = Math.max(to[0]! - from[0]! + 1, to[1]! - from[1]! + 1);
  let span = Math.max(oldSpan, MIN_SPAN);
  while (span < 2 * need && span < TICK_COUNT) span *= 2;
  if (span > TICK_COUNT >> 1) span = TICK_COUNT;
  const head = new Int32Array(2 * span).fill(NIL);
  const tail = new Int32Array(2 * span).fill(NIL);
  const qty = new Float64Array(2 * span);
  for (let sd = 0; sd < 2; sd++) {
    // Centre the occupied range; an empty side keeps its place.
    const lo =
      to[sd]! < 0
        ? Math.min(b.lo[sd]!, TICK_COUNT - span)
        : Math.max(0, Math.min(TICK_COUNT - span, from[sd]! - ((span - (to[sd]! - from[sd]! + 1)) >> 1)));
    const base = sd * span - lo;
    for (let l = had[sd * 2]!; l <= had[sd * 2 + 1]!; l++) {
      head[base + l] = b.head[b.base[sd]! + l]!;
      tail[base + l] = b.tail[b.base[sd]! + l]!;
      qty[base + l] = b.qty[b.base[sd]! + l]!;
    }
    b.lo[sd] = lo;
    b.base[sd] = base;
  }
  b.head = head;
  b.tail = tail;
  b.qty = qty;
  b.span = span;
}

/** Appends a resting order to its level, its account's list and the id index
 * (the caller has set every slot and indexed the id, IdIndex.insertKey). */
export function link(s: ExchangeState, h: number, b: Book, a: Account): void {
  const pool = s.pool;
  const side = pool.i32[h * IW + I_SIDE]!;
  const level = pool.i32[h * IW + I_LEVEL]!;
  if (level < b.lo[side]! || level >= b.lo[side]! + b.span) widen(b, side, level);
  const slot = b.base[side]! + level;
  const t = b.tail[slot]!;
  pool.i32[h * IW + I_PREV] = t;
  pool.i32[h * IW + I_NEXT] = NIL;
  if (t === NIL) b.head[slot] = h;
  else pool.i32[t * IW + I_NEXT] = h;
  b.tail[slot] = h;
  b.qty[slot]! += pool.f64[h * FW + F_QTY]!;
  if (level > b.best[side]!) b.best[side] = level;

  const at = a.tail;
  pool.i32[h * IW + I_APREV] = at;
  pool.i32[h * IW + I_ANEXT] = NIL;
  if (at === NIL) a.head = h;
  else pool.i32[at * IW + I_ANEXT] = h;
  a.tail = h;
}

/** Removes a resting order from its lists and the id index and frees its handle (level qty is the
 * caller's). */
export function unlink(s: ExchangeState, h: number, b: Book, slot: number): void {
  const pool = s.pool;
  unqueue(s, h, b, slot);
  unlistAccount(s, h);
  if (pool.f64[h * FW + F_EXPIRES_AT]! >= 0) s.gttLive--;
  s.orderIdx.deleteHashed(pool.i32[h * IW + I_HASH]!, h);
  pool.release(h);
}

/**
 * Moves resting order `h` (its quantity already set to what it will rest with, `oldQty` what its
 * level held of it) to the back of tick index `level` on its side and to the tail of its
 * account's list, keeping its handle, id and id-index entry: what `unlink` then `link` of a freshly
 * allocated handle leave (the free list hands the same handle straight back), without the id index
 * delete, parse and insert in between. A re-queue of an amend (amend.ts) that crosses nothing.
 */
export function requeue(s: ExchangeState, h: number, b: Book, oldQty: number, level: number): void {
  const pool = s.pool;
  const slot = b.base[pool.i32[h * IW + I_SIDE]!]! + pool.i32[h * IW + I_LEVEL]!;
  b.qty[slot]! -= oldQty;
  unqueue(s, h, b, slot);
  const a = unlistAccount(s, h);
  pool.i32[h * IW + I_LEVEL] = level;
  link(s, h, b, a);
}

/** Takes `h` out of its level's queue (slot `slot`), moving the side's best when the level empties. */
function unqueue(s: ExchangeState, h: number, b: Book, slot: number): void {
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
      let level = pool.i32[h * IW + I_LEVEL]! - 1;
      const base = b.base[side]!;
      const lo = b.lo[side]!;
      while (level >= lo && b.head[base + level] === NIL) level--;
      b.best[side] = level < lo ? -1 : level;
    }
  }
}

/** Takes `h` out of its account's open-order list; returns the account. */
function unlistAccount(s: ExchangeState, h: number): Account {
  const pool = s.pool;
  const a = s.accounts[pool.i32[h * IW + I_ACCOUNT]!]!;
  const ap = pool.i32[h * IW + I_APREV]!;
  const an = pool.i32[h * IW + I_ANEXT]!;
  if (ap === NIL) a.head = an;
  else pool.i32[ap * IW + I_ANEXT] = an;
  if (an === NIL) a.tail = ap;
  else pool.i32[an * IW + I_APREV] = ap;
  return a;
}

/** Cancels a resting order: releases its collateral, emits OrderCanceled, frees the handle. */
export function cancelHandle(
  s: ExchangeState,
  h: number,
  reason: CancelReason,
  ts: number,
  id?: string,
): void {
  const pool = s.pool;
  const bookIndex = pool.i32[h * IW + I_BOOK]!;
  const currencyIndex = bookIndex & 1;
  const b = s.books[bookIndex]!;
  const slot = b.base[pool.i32[h * IW + I_SIDE]!]! + pool.i32[h * IW + I_LEVEL]!;
  const qty = pool.f64[h * FW + F_QTY]!;
  const a = s.accounts[pool.i32[h * IW + I_ACCOUNT]!]!;
  const release = TICKS[pool.i32[h * IW + I_LEVEL]!]! * qty * MONEY_PER_TICK_MCU[currencyIndex]!;
  s.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + currencyIndex]! -= release;
  s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! += release;
  touchWallet(s, a, currencyIndex);
  pool.f64[h * FW + F_UPDATED_AT] = ts;
  if (s.emitEvents) s.ev.push({ kind: 'OrderCanceled', order: orderRecord(s, h, 'CANCELED', id), reason });
  b.qty[slot]! -= qty;
  unlink(s, h, b, slot);
  touchBook(s, bookIndex);
}

export function cancelMarketOrders(s: ExchangeState, marketIndex: number, ts: number): void {
  for (let currencyIndex = 0; currencyIndex < 2; currencyIndex++) {
    const b = s.books[marketIndex * 2 + currencyIndex];
    if (!b) continue;
    for (let side = 0; side < 2; side++) {
      while (b.best[side]! >= 0) {
        cancelHandle(s, b.head[b.base[side]! + b.best[side]!]!, 'LIFECYCLE', ts);
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
