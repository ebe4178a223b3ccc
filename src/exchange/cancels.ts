import { reject } from './command-checks.ts';
import { F_QTY, F_SEQ_NO, FW, I_ACCOUNT, I_ANEXT, I_BOOK, IW, NIL } from './order-pool.ts';
import { expireParlayRequests } from './parlay-requests.ts';
import { cancelHandle, rebuildExpiries } from './resting-orders.ts';
import { accountOf, type Cmd, type ExchangeState, ok, ownAccount } from './state.ts';
import type { CommandResult } from './types.ts';

export function cancelOrder(s: ExchangeState, c: Cmd<'CancelOrder'>): CommandResult {
  // the order must be resting and the account's (no { accountIndex, h } object per cancel: hot path).
  // The order first: when it rests and its account's id is the command's, that is the account, and
  // the account map is not probed (state.ts ownAccount). Otherwise account, then order, as ever:
  // the same answers in the same order.
  const found = c.ah === undefined && typeof c.orderId === 'string' ? s.orderIdx.get(c.orderId) : -2;
  let h = found;
  if (found < 0 || ownAccount(s, c, found) < 0) {
    const accountIndex = accountOf(s, c);
    if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
    if (found === -2) h = s.orderIdx.get(c.orderId);
    if (h < 0 || s.pool.i32[h * IW + I_ACCOUNT] !== accountIndex) return reject('ORDER_NOT_FOUND');
  }
  cancelHandle(s, h, 'USER', c.ts, c.orderId);
  return ok(s);
}

/**
 * Cancels the account's resting orders in scope (all / event / market), optionally only the
 * listed ids. Unknown or out-of-scope ids are skipped: they are exactly the requested ids without
 * an OrderCanceled event in the result.
 */
export function cancelOrders(s: ExchangeState, c: Cmd<'CancelOrders'>): CommandResult {
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  let inScope: (h: number) => boolean;
  if (c.scope === 'all') inScope = () => true;
  else if (c.scope === 'event') {
    const ev = c.scopeId === undefined ? undefined : s.eventMap.get(c.scopeId);
    if (!ev) return reject('EVENT_NOT_FOUND');
    inScope = (h) => s.markets[s.pool.i32[h * IW + I_BOOK]! >> 1]!.event === ev;
  } else if (c.scope === 'market') {
    const marketIndex = c.scopeId === undefined ? undefined : s.marketIdx.get(c.scopeId);
    if (marketIndex === undefined) return reject('MARKET_NOT_FOUND');
    inScope = (h) => s.pool.i32[h * IW + I_BOOK]! >> 1 === marketIndex;
  } else return reject('VALIDATION_FAILED', 'scope: all, event or market');
  if (c.orderIds !== undefined && !Array.isArray(c.orderIds))
    return reject('VALIDATION_FAILED', 'orderIds: array');
  const a = s.accounts[accountIndex]!;
  if (c.orderIds) {
    for (const id of c.orderIds) {
      const h = s.orderIdx.get(id);
      if (h >= 0 && s.pool.i32[h * IW + I_ACCOUNT] === accountIndex && inScope(h))
        cancelHandle(s, h, 'USER', c.ts, id);
    }
  } else {
    for (let h = a.head; h !== NIL; ) {
      const n = s.pool.i32[h * IW + I_ANEXT]!;
      if (inScope(h)) cancelHandle(s, h, 'USER', c.ts);
      h = n;
    }
  }
  return ok(s);
}

/** Cancels GTT orders with expiresAt ≤ ts (in (expiresAt, acceptance) order) and drops expired locks. */
export function expire(s: ExchangeState, c: Cmd<'Expire'>): CommandResult {
  const pool = s.pool;
  while (s.expiries.peekTime() <= c.ts) {
    const [sq, h] = s.expiries.pop();
    if (pool.f64[h * FW + F_QTY]! > 0 && pool.f64[h * FW + F_SEQ_NO] === sq)
      cancelHandle(s, h, 'EXPIRED', c.ts);
  }
  // Stale heap entries (cancelled or filled GTT orders) are compacted when they dominate.
  if (s.expiries.length > 1024 && s.expiries.length > 4 * s.gttLive) rebuildExpiries(s);
  let locksChanged = false;
  for (const [id, l] of s.lockMap) {
    if (l.expiresAt !== null && l.expiresAt <= c.ts) {
      s.lockMap.delete(id);
      locksChanged = true;
    }
  }
  if (locksChanged) s.ev.push({ kind: 'LocksChanged' });
  expireParlayRequests(s, c.ts);
  return ok(s);
}
