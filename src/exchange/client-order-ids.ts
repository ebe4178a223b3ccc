// Idempotency keys: the clientOrderIds an account placed orders under, and the window they are kept
// for (docs/exchange.md "Idempotency window"). Every key used to be kept for good, so memory and
// snapshots grew with every keyed order a market maker ever sent.
//
// Keys live in two generations per account. A placement maps its key in the current one
// (`Account.clientOrders`). `ExpireClientOrderIds`, which the scheduler issues once a window has
// passed since the current generation began, first sweeps the older generation, `max` keys a
// command: a key whose order is still open moves back into the current generation, any other is
// dropped with its placed terms. Once the older generation is empty, the current one becomes the
// older (O(accounts): the maps change hands) and a new one begins. So a key is kept while its order
// is open and at least one window after it was placed (at most about two), and the walk that frees
// keys is cut in chunks, as a parlay settlement is, so no command runs long. The engine reads no
// clock: the window and the time come in the command, so replay and a replica age keys alike.

import { isSafePos, reject } from './command-checks.ts';
import { forgetPlacedTerms } from './placed-terms.ts';
import { type Account, type Cmd, type ExchangeState, ok } from './state.ts';
import type { CommandResult, Id } from './types.ts';

/** The most keys one `ExpireClientOrderIds` walks: the bound of its `max`. */
export const MAX_KEY_SWEEP = 100_000;

/** The order placed under `key` (either generation), or undefined. */
export function clientOrderOf(a: Account, key: string): Id | undefined {
  const id = a.clientOrders.get(key);
  return id !== undefined || a.olderClientOrders === null ? id : a.olderClientOrders.get(key);
}

/** Whether the account holds `key` in either generation (a placement under it is a duplicate). */
export function hasClientOrder(a: Account, key: string): boolean {
  return a.clientOrders.has(key) || a.olderClientOrders?.has(key) === true;
}

/**
 * Drops `key` from whichever generation holds it, placed terms untouched: an amend that re-queues
 * the order maps the key again at once (amend.ts), into the current generation.
 */
export function unmapClientOrder(s: ExchangeState, a: Account, key: string): void {
  if (a.clientOrders.delete(key)) return;
  if (a.olderClientOrders?.delete(key)) {
    s.olderKeys--;
    if (a.olderClientOrders.size === 0) a.olderClientOrders = null;
  }
}

/** Whether an `ExpireClientOrderIds` with this window has work at `now` (the scheduler asks). */
export function clientOrderIdsDue(s: ExchangeState, now: number, windowMs: number): boolean {
  if (s.keysSince < 0) return s.accounts.some((a) => a.clientOrders.size > 0);
  return now - s.keysSince >= windowMs;
}

export function expireClientOrderIds(s: ExchangeState, c: Cmd<'ExpireClientOrderIds'>): CommandResult {
  if (!isSafePos(c.windowMs)) return reject('VALIDATION_FAILED', 'windowMs must be a positive integer');
  if (!isSafePos(c.max) || c.max > MAX_KEY_SWEEP) {
    return reject('VALIDATION_FAILED', `max must be an integer in 1..${MAX_KEY_SWEEP}`);
  }
  if (s.keysSince >= 0 && c.ts - s.keysSince < c.windowMs) {
    return reject('VALIDATION_FAILED', 'no clientOrderIds are due to expire');
  }
  // Due: the older generation (placed at least a window ago) is swept first, in chunks; once it is
  // empty the current one becomes the older and a new one begins. The first command only begins one.
  if (s.olderKeys > 0) {
    sweep(s, c.max);
    return ok(s);
  }
  if (s.keysSince >= 0) {
    for (const a of s.accounts) {
      if (a.clientOrders.size === 0) continue;
      s.olderKeys += a.clientOrders.size;
      a.olderClientOrders = a.clientOrders;
      a.clientOrders = new Map();
    }
    s.keysCursor = 0;
  }
  s.keysSince = c.ts;
  return ok(s);
}

/** Walks up to `max` older keys from the cursor's account on: open orders' keys kept, others dropped. */
function sweep(s: ExchangeState, max: number): void {
  let budget = max;
  while (budget > 0 && s.olderKeys > 0) {
    const a = s.accounts[s.keysCursor]!;
    const older = a.olderClientOrders;
    if (older === null) {
      s.keysCursor++;
      continue;
    }
    for (const [key, orderId] of older) {
      older.delete(key);
      s.olderKeys--;
      if (s.orderIdx.get(orderId) >= 0) a.clientOrders.set(key, orderId);
      else forgetPlacedTerms(s, a.idx, key);
      if (--budget === 0) break;
    }
    if (older.size === 0) {
      a.olderClientOrders = null;
      s.keysCursor++;
    }
  }
  if (s.olderKeys === 0) s.keysCursor = 0;
}
