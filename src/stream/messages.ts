// The stream's wire (docs/stream.md): the builders that turn domain records into the frames the
// server sends on /tape, and the frames' TypeScript types, each derived from its JSON Schema (the
// AsyncAPI document's source: tick-schemas.ts, private-message-schemas.ts, parlay-message-schemas.ts,
// published by message-schemas.ts). The compiler holds the builders to the schemas' types and the
// AsyncAPI test validates real frames against the schemas, so neither can drift from what is sent.
//
// Two frame families, as the production feed has them (reference wire): bare `{type: …}` ticks for
// book and lifecycle changes, and `{event, data}` envelopes for everything else. Tickbook adds
// sequence fields to both (`seq`, `journalSeq`, `part`, `parts`) — extra keys an existing client
// ignores.

import type { Currency, DomainEvent, Fill, MarketRecord, OrderRecord } from '../exchange/types.ts';
import { tickToPrice } from '../exchange/units.ts';
import { isoMillis, marketTypeName } from '../wire/names.ts';
import type { Wire } from '../wire/schema.ts';
import { orderToWire, type WireOrder } from '../wire/trading.ts';
import type { streamErrorSchema } from './error-schema.ts';
import type {
  boostClaimSchema,
  boostSchema,
  parlayQuoteSchema,
  parlayRequestSchema,
} from './parlay-message-schemas.ts';
import type {
  deadmanReportSchema,
  privateCancelSchema,
  privateFillSchema,
  privateMmpSchema,
} from './private-message-schemas.ts';
import type {
  bookSnapshotSchema,
  bookTickSchema,
  LIFECYCLE_TYPES,
  lifecycleTickSchema,
  schemas,
} from './tick-schemas.ts';

// Each frame's type is derived from its published schema, so the compiler holds what a builder
// returns to what the document says (no key the schema does not name: they close their objects).

export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];
export type TickOrder = Wire<typeof schemas.TickOrder>;
export type TickFill = Wire<typeof schemas.TickFill>;
export type TickMarket = Wire<typeof schemas.TickMarket>;
/** A book change: its order, fills and market, the book seq, the command's journal seq and part. */
export type BookTick = Wire<typeof bookTickSchema>;
export type LifecycleTick = Wire<typeof lifecycleTickSchema>;
export type PrivateFill = Wire<typeof privateFillSchema>;
export type PrivateCancel = Wire<typeof privateCancelSchema>;
/** Market-maker protection of one of your accounts changed (docs/stream.md "Messages"). */
export type PrivateMmp = Wire<typeof privateMmpSchema>;
export type DeadmanReport = Wire<typeof deadmanReportSchema>;
/** A parlay request as the makers' channel sends it. */
export type ParlayRequestData = Wire<typeof parlayRequestSchema>;
/** A maker's quote as the requester's private channel sends it. */
export type ParlayQuoteData = Wire<typeof parlayQuoteSchema>;
/** A boost on the `boosts` channel. */
export type BoostData = Wire<typeof boostSchema>;
/** A boost with the account's own claims, on its private channel. */
export type BoostClaimData = Wire<typeof boostClaimSchema>;
/** The snapshot's data: the REST book plus its currency and whether it replaces a lost window. */
export type BookSnapshot = Wire<typeof bookSnapshotSchema>;

// ------------------------------------------------------------------ builders

export function tickMarket(m: MarketRecord, currency: Currency): TickMarket {
  const out: TickMarket = {
    id: m.id,
    description: m.description,
    status: m.status,
    type: marketTypeName(m.type),
    volume: m.volume[currency] ?? 0,
  };
  if (m.strike !== null) out.strike = m.strike;
  return out;
}

export function tickOrder(o: OrderRecord): TickOrder {
  return {
    id: o.id,
    price: tickToPrice(o.price),
    qty: o.qty,
    originalQty: o.originalQty,
    currency: o.currency,
    marketId: o.marketId,
    outcomeId: o.outcomeId,
    status: o.status,
    created_at: isoMillis(o.createdAt),
  };
}

export function tickFill(f: Fill): TickFill {
  return {
    id: f.id,
    orderId: f.orderId,
    price: tickToPrice(f.price),
    qty: f.qty,
    isWash: f.isWash,
    isTaker: f.isTaker,
    marketId: f.marketId,
    outcomeId: f.outcomeId,
  };
}

export function privateFill(f: Fill): PrivateFill {
  return {
    id: f.id,
    orderId: f.orderId,
    price: tickToPrice(f.price),
    qty: f.qty,
    createdAt: isoMillis(f.ts),
    isWash: f.isWash,
    isTaker: f.isTaker,
    marketId: f.marketId,
    outcomeId: f.outcomeId,
    currency: f.currency,
  };
}

export function privateCancel(o: OrderRecord): PrivateCancel {
  const out: PrivateCancel = {
    id: o.id,
    outcomeId: o.outcomeId,
    marketId: o.marketId,
    price: tickToPrice(o.price),
    qty: o.qty,
    originalQty: o.originalQty,
    currency: o.currency,
    timestamp: isoMillis(o.updatedAt),
    status: 'CANCELLED',
  };
  if (o.flags !== null) out.flags = o.flags;
  return out;
}

export function privateMmp(e: Extract<DomainEvent, { kind: 'MmpTriggered' | 'MmpReset' }>): PrivateMmp {
  if (e.kind === 'MmpReset') {
    const at = isoMillis(e.ts);
    return {
      state: 'RESET',
      eventId: e.eventId,
      currency: null,
      qtyFilled: 0,
      netExposure: 0,
      canceled: 0,
      frozenUntil: null,
      timestamp: at,
    };
  }
  return {
    state: 'FROZEN',
    eventId: e.eventId,
    currency: e.currency,
    qtyFilled: e.qty,
    netExposure: e.net,
    canceled: e.canceled,
    frozenUntil: e.frozenUntil === null ? null : isoMillis(e.frozenUntil),
    timestamp: isoMillis(e.ts),
  };
}

export function privatePlace(o: OrderRecord): WireOrder {
  return orderToWire(o);
}

/** `{event, data}` plus Tickbook's top-level extras (journalSeq on private events). */
export function envelope(event: string, data: unknown, extra?: Record<string, unknown>): string {
  return JSON.stringify(extra === undefined ? { event, data } : { event, data, ...extra });
}

/** The codes of a refused client message, as its published schema lists them. */
export type StreamErrorCode = StreamError['code'];
type StreamError = Wire<typeof streamErrorSchema>;

export function errorFrame(code: StreamErrorCode, message: string): string {
  return envelope('error', { code, message } satisfies StreamError);
}
