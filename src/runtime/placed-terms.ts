// The terms each clientOrderId was placed with, for order entry's idempotency (docs/http.md
// "Trading semantics"). Why order entry keeps them itself: an amend moves an order's price and
// originalQty, and the engine keeps no placement terms, so comparing a retry with the order as it
// is now answered the retry of the original request 409 DUPLICATE_CLIENT_ORDER_ID. Keeping them
// here leaves the engine's state, its snapshot and its hash as they are.
//
// In memory and bounded (oldest first out): an order placed before this process started, or pushed
// out since, is compared with its current terms, as before, which is right for every order never
// amended.

import type { Currency, Id, Tick, TimeInForce } from '../exchange/types.ts';
import type { ExchangePort } from './exchange-port.ts';

/** The terms a placement's idempotency compares (stp, reprice, mmp, flags and ttl are not among them). */
export interface Terms {
  outcomeId: Id;
  price: Tick;
  qty: number;
  currency: Currency;
  tif: TimeInForce;
}

/** Keys remembered per process: at ~250 bytes each, 128 Ki keys are ~32 MB at most. */
export const MAX_PLACED_TERMS = 1 << 17;

export class PlacedTerms {
  /** `${accountId}\0${clientOrderId}` → the order the key placed and the terms it was placed with. */
  private readonly byKey = new Map<string, { orderId: Id; terms: Terms }>();

  constructor(private readonly max = MAX_PLACED_TERMS) {}

  get size(): number {
    return this.byKey.size;
  }

  /** Records an accepted placement (the engine maps a key once, so nothing accepted is overwritten). */
  remember(accountId: Id, clientOrderId: string, orderId: Id, terms: Terms): void {
    const key = keyOf(accountId, clientOrderId);
    this.byKey.delete(key);
    this.byKey.set(key, {
      orderId,
      terms: {
        outcomeId: terms.outcomeId,
        price: terms.price,
        qty: terms.qty,
        currency: terms.currency,
        tif: terms.tif,
      },
    });
    if (this.byKey.size > this.max) {
      const oldest = this.byKey.keys().next();
      if (!oldest.done) this.byKey.delete(oldest.value);
    }
  }

  /** The terms order `orderId` was placed with under this key, if remembered. */
  termsOf(accountId: Id, clientOrderId: string, orderId: Id): Terms | undefined {
    const placed = this.byKey.get(keyOf(accountId, clientOrderId));
    return placed !== undefined && placed.orderId === orderId ? placed.terms : undefined;
  }
}

const keyOf = (accountId: Id, clientOrderId: string): string => `${accountId}\u0000${clientOrderId}`;

/**
 * One record per port: the REST routes and the /trade socket each build their own OrderEntry over
 * the same port, and a key placed over one and retried over the other must find its terms.
 */
const byPort = new WeakMap<ExchangePort, PlacedTerms>();

export function placedTermsOf(port: ExchangePort): PlacedTerms {
  let t = byPort.get(port);
  if (!t) {
    t = new PlacedTerms();
    byPort.set(port, t);
  }
  return t;
}
