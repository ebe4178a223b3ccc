// The price and quantity a keyed order was placed with, kept by the engine once the order stops
// showing them (docs/exchange.md "Placed terms"). A retry of a placement under the same
// clientOrderId is compared with the terms the key was placed with (docs/http.md "Trading
// semantics"); an order shows them until an amend or a mass quote changes its price or originalQty
// (amend.ts: `reduceInPlace`, `liftOff`, `move`), or a post-only reprice rests it at another price
// than the request's (order-options.ts `mapClientOrder`). Only then are they recorded, once, here:
// the common path keeps nothing. Lifetime: the key's, which the idempotency window ages
// (client-order-ids.ts): an entry is dropped with its key.
//
// Part of the state: replay records the same entries, a replica following the journal holds them,
// and they have a snapshot section of their own, written only when some entry exists, so a state
// without any keeps its bytes and hash.

import type { BinReader, BinWriter } from './codec.ts';
import { F_ORIGINAL_QTY, FW, I_ACCOUNT, I_LEVEL, IW } from './order-pool.ts';
import type { ExchangeState } from './state.ts';
import { TICKS } from './ticks.ts';
import type { Id, Tick } from './types.ts';

export const PLACED_TERMS_SECTION = 'placed-terms/1';

/** The terms a placement's retry is compared with that an order may stop showing. */
export interface PlacedTerms {
  price: Tick;
  qty: number;
}

const keyOf = (accountIndex: number, clientOrderId: string): string =>
  `${accountIndex}\u0000${clientOrderId}`;

/**
 * Records the terms key `clientOrderId` of the account was placed with, unless recorded already:
 * the first change records them, the order's later changes leave the placement's as they are. Also
 * called by a keyed placement accepted at another price than its request's (a post-only reprice).
 */
export function keepRequestedTerms(
  s: ExchangeState,
  accountIndex: number,
  clientOrderId: string,
  price: Tick,
  qty: number,
): void {
  const key = keyOf(accountIndex, clientOrderId);
  if (!s.placedTerms.has(key)) s.placedTerms.set(key, { accountIndex, clientOrderId, price, qty });
}

/**
 * Before resting order `h`'s price or originalQty changes: records the terms it shows now, which
 * are its placement's unless an earlier change (or a reprice) recorded them already. An order
 * without a clientOrderId records nothing (nothing retries it).
 */
export function keepPlacedTerms(s: ExchangeState, h: number): void {
  const pool = s.pool;
  const clientOrderId = pool.clientOrderId.size > 0 ? pool.clientOrderId.get(h) : undefined;
  if (clientOrderId === undefined) return;
  const price = TICKS[pool.i32[h * IW + I_LEVEL]!]!;
  keepRequestedTerms(
    s,
    pool.i32[h * IW + I_ACCOUNT]!,
    clientOrderId,
    price,
    pool.f64[h * FW + F_ORIGINAL_QTY]!,
  );
}

/** Drops the terms recorded for this key, if any: the key itself has expired (client-order-ids.ts). */
export function forgetPlacedTerms(s: ExchangeState, accountIndex: number, clientOrderId: string): void {
  if (s.placedTerms.size > 0) s.placedTerms.delete(keyOf(accountIndex, clientOrderId));
}

/** The terms recorded for this key, or undefined: the order placed under it shows its own. */
export function placedTerms(s: ExchangeState, accountId: Id, clientOrderId: string): PlacedTerms | undefined {
  const accountIndex = s.accountIdx.get(accountId);
  const e = accountIndex === undefined ? undefined : s.placedTerms.get(keyOf(accountIndex, clientOrderId));
  return e === undefined ? undefined : { price: e.price, qty: e.qty };
}

/**
 * The section, after the resting orders, in the map's order (the order replay reproduces);
 * nothing while the map is empty. Yields every `sliceWork` entries, as the snapshot's slices do.
 */
export function* writePlacedTerms(
  s: ExchangeState,
  w: BinWriter,
  sliceWork: number,
): Generator<void, void, void> {
  if (s.placedTerms.size === 0) return;
  w.str(PLACED_TERMS_SECTION);
  w.u32(s.placedTerms.size);
  let work = 0;
  for (const e of s.placedTerms.values()) {
    w.str(s.accounts[e.accountIndex]!.id);
    w.str(e.clientOrderId);
    w.f64(e.price);
    w.f64(e.qty);
    if (++work >= sliceWork) {
      work = 0;
      yield;
    }
  }
}

export function readPlacedTerms(s: ExchangeState, r: BinReader): void {
  if (r.str() !== PLACED_TERMS_SECTION) throw new Error('snapshot: unknown section');
  for (let n = r.u32(); n > 0; n--) {
    const accountIndex = s.accountIdx.get(r.str());
    if (accountIndex === undefined) throw new Error('snapshot: placed terms of an unknown account');
    const clientOrderId = r.str();
    const price = r.f64();
    s.placedTerms.set(keyOf(accountIndex, clientOrderId), {
      accountIndex,
      clientOrderId,
      price,
      qty: r.f64(),
    });
  }
}
