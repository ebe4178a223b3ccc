// A placement request and the PlaceOrder command it becomes (docs/http.md "Trading semantics"):
// the edge's own checks of a schema-valid request (the tick table, the quantity, the GTT ttl, the
// options that go together) and the command in the journal's key order. Shared by every
// placement of the order-entry service (src/runtime/order-entry.ts), single, batched, over REST
// and the `/trade` socket alike.

import { ApiError } from '../errors.ts';
import type { Currency, Id, StpMode, TimeInForce } from '../exchange/types.ts';
import { priceToTick } from '../exchange/units.ts';
import type { CommandInput } from './exchange-port.ts';

/** A placement request as the wire gives it (price a decimal, everything else already integers). */
export interface PlaceRequest {
  outcomeId: string;
  price: number;
  qty: number;
  currency: Currency;
  tif: TimeInForce;
  ttl?: number;
  flags?: string;
  clientOrderId?: string;
  stp?: StpMode;
  reprice?: boolean;
  mmp?: boolean;
}

/** `ts` is the sequencer's to stamp: declared (undefined) so that stamping it adds no property. */
export type PlaceCommand = CommandInput & { type: 'PlaceOrder'; ts?: undefined };

/**
 * The longest GTT time to live: 30 days (docs/http.md "Trading semantics"). An unbounded ttl let
 * an expiry past the Date range into the journal; a month covers any real event horizon. The
 * request schema states the same bound (src/http/schemas/trading.ts imports it from here).
 */
export const MAX_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** The PlaceOrder command for a schema-valid request, or the edge's own rejection. */
export function placeCommand(accountId: Id, orderId: Id, b: PlaceRequest): PlaceCommand {
  const tick = priceToTick(b.price);
  if (tick === null) throw new ApiError('INVALID_PRICE', `Price ${b.price} is not on the tick table`);
  if (!Number.isSafeInteger(b.qty) || b.qty <= 0) throw new ApiError('INVALID_QTY');
  if (b.tif === 'GTT' && b.ttl === undefined)
    throw new ApiError('VALIDATION_FAILED', 'body/ttl is required for GTT');
  if (b.ttl !== undefined && !(Number.isSafeInteger(b.ttl) && b.ttl > 0 && b.ttl <= MAX_TTL_MS)) {
    throw new ApiError('VALIDATION_FAILED', `body/ttl must be an integer from 1 to ${MAX_TTL_MS} ms`);
  }
  if (b.tif !== 'GTT' && b.ttl !== undefined) {
    throw new ApiError('VALIDATION_FAILED', 'body/ttl applies to GTT orders only');
  }
  if (b.reprice === true && b.tif !== 'PO') {
    throw new ApiError('VALIDATION_FAILED', 'body/reprice applies to PO orders only');
  }
  // The journal's key order, every key the journaled command can carry declared here, in that
  // order: an absent option is an undefined value, which JSON.stringify leaves out (the journaled
  // command stays byte-identical), and the keys set later — the sequencer's `ts`, the engine's
  // handles `ah` and `oh` (docs/journal.md) — are stores into slots the object already has, not
  // new properties. Added later, each grew the object (a new hidden class, a properties array
  // copied) on every order, and the command lives until its group commit, so that copy was
  // scavenged and promoted with it.
  return {
    type: 'PlaceOrder',
    orderId,
    accountId,
    outcomeId: b.outcomeId.toLowerCase(),
    currency: b.currency,
    price: tick,
    qty: b.qty,
    tif: b.tif,
    ttl: b.ttl,
    flags: b.flags ?? null,
    clientOrderId: b.clientOrderId ?? null,
    stp: b.stp,
    reprice: b.reprice === true ? true : undefined,
    mmp: b.mmp === true ? true : undefined,
    ts: undefined,
    ah: undefined,
    oh: undefined,
  };
}
