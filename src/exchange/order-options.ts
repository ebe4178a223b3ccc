// The options a PlaceOrder may carry beyond its terms, kept off the matching loop's common path
// (docs/exchange.md "Self-trade prevention", "Books and matching"): the self-trade prevention mode
// and the post-only reprice. matching.ts calls these only when the command carries the option, and
// mapClientOrder for every keyed placement.

import { keepRequestedTerms } from './placed-terms.ts';
import type { Account, ExchangeState } from './state.ts';
import { ONE, TICK_INDEX, TICKS } from './ticks.ts';
import { STP_MODES, type Tick } from './types.ts';

/** STP mode codes (index in STP_MODES); an order without `stp` is CANCEL_BOTH. */
export const STP_CANCEL_BOTH = 0;
export const STP_CANCEL_TAKER = 1;
export const STP_CANCEL_MAKER = 2;

/** The mode's code, or -1 when `stp` is not one of STP_MODES. */
export function stpCode(stp: unknown): number {
  return STP_MODES.indexOf(stp as never);
}

/**
 * The price a post-only bid at `tick` rests at so that it takes nothing: `tick` itself when it
 * crosses no resting bid of the other outcome, else the next tick below 1000 − q for the best such
 * bid q (the tick table is symmetric, so 1000 − q is a tick); -1 when no tick is left below it.
 * Reads the book without creating it (a rejected command changes nothing).
 */
export function repricedTick(s: ExchangeState, bookIndex: number, side: number, tick: number): number {
  const b = s.books[bookIndex];
  if (b === undefined) return tick;
  const bestOpp = b.best[side ^ 1]!;
  if (bestOpp < 0 || tick + TICKS[bestOpp]! < ONE) return tick;
  const i = TICK_INDEX[ONE - TICKS[bestOpp]!]! - 1;
  return i >= 0 ? TICKS[i]! : -1;
}

/**
 * Maps an accepted keyed placement's clientOrderId to its order. One that a post-only reprice rests
 * at `tick`, not at its request's `price`, keeps the request's terms: a retry of the request
 * repeats them (placed-terms.ts, docs/http.md "Trading semantics").
 */
export function mapClientOrder(
  s: ExchangeState,
  a: Account,
  clientOrderId: string,
  orderId: string,
  price: Tick,
  tick: Tick,
  qty: number,
): void {
  a.clientOrders.set(clientOrderId, orderId);
  if (tick !== price) keepRequestedTerms(s, a.idx, clientOrderId, price, qty);
}
