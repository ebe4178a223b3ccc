// The stream's wire (docs/stream.md): every frame the server sends on /tape, as TypeScript types,
// and the builders that turn domain records into those frames. Their JSON Schemas (the AsyncAPI
// document's source) are in message-schemas.ts beside them; the AsyncAPI test validates real
// frames against those schemas, so the document cannot drift from what the code sends.
//
// Two frame families, as the production feed has them (reference wire): bare `{type: …}` ticks for
// book and lifecycle changes, and `{event, data}` envelopes for everything else. Tickbook adds
// sequence fields to both (`seq`, `journalSeq`, `part`, `parts`) — extra keys an existing client
// ignores.

import type {
  Currency,
  DomainEvent,
  Fill,
  Id,
  MarketRecord,
  MarketStatus,
  OrderRecord,
} from '../exchange/types.ts';
import { tickToPrice } from '../exchange/units.ts';
import type { WireBook } from '../wire/book.ts';
import { isoMillis, marketTypeName } from '../wire/names.ts';
import { orderToWire, type WireOrder } from '../wire/trading.ts';

export const LIFECYCLE_TYPES = ['OPEN', 'START', 'END', 'CLOSE', 'EVENT_GOLIVE', 'EVENT_UNLIVE'] as const;
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];

export interface TickOrder {
  id: Id;
  price: number;
  qty: number;
  originalQty: number;
  currency: Currency;
  marketId: Id;
  outcomeId: Id;
  status: OrderRecord['status'];
  created_at: string;
}

export interface TickFill {
  id: Id;
  orderId: Id;
  price: number;
  qty: number;
  isWash: boolean;
  isTaker: boolean;
  marketId: Id;
  outcomeId: Id;
}

export interface TickMarket {
  id: Id;
  description: string;
  status: MarketStatus;
  type: string;
  strike?: number;
  /** Traded payout in the tick's currency (MCU); lifecycle ticks carry CASH volume. */
  volume: number;
}

export interface BookTick {
  type: 'PLACE' | 'CANCEL';
  order: TickOrder;
  fills: TickFill[];
  market: TickMarket;
  /** The book's (market × currency) sequence after the command: the `seq` of the REST book. */
  seq: number;
  /** The journal sequence of the command that produced the tick. */
  journalSeq: number;
  /** 1-based position of this tick among the command's ticks for this book, and their count. */
  part: number;
  parts: number;
}

export interface LifecycleTick {
  type: LifecycleType;
  market: TickMarket;
  eventId: Id;
  journalSeq: number;
}

export interface PrivateFill {
  id: Id;
  orderId: Id;
  price: number;
  qty: number;
  createdAt: string;
  isWash: boolean;
  isTaker: boolean;
  marketId: Id;
  outcomeId: Id;
}

export interface PrivateCancel {
  id: Id;
  outcomeId: Id;
  marketId: Id;
  price: number;
  qty: number;
  originalQty: number;
  currency: Currency;
  timestamp: string;
  status: 'CANCELLED';
  flags?: string;
}

/** Market-maker protection of one of your accounts changed (docs/stream.md "Messages"). */
export interface PrivateMmp {
  /** FROZEN: a breach cancelled your protected orders on the event; RESET: ResetMmp lifted freezes. */
  state: 'FROZEN' | 'RESET';
  /** The event; null on a reset of every event. */
  eventId: Id | null;
  /** The currency whose limits were reached; null on a reset. */
  currency: Currency | null;
  /** Quantity filled and net exposure (outcome 0 − outcome 1) within the interval, MCU; 0 on a reset. */
  qtyFilled: number;
  netExposure: number;
  /** Protected orders the breach cancelled. */
  canceled: number;
  /** When the freeze ends; null: until reset (or on a reset). */
  frozenUntil: string | null;
  timestamp: string;
}

export interface DeadmanReport {
  reason: 'disconnect' | 'timeout';
  /** Orders the one CancelOrders command cancelled. */
  canceled: number;
  journalSeq: number | null;
  at: string;
}

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

export type StreamErrorCode =
  | 'BAD_JSON'
  | 'BAD_MESSAGE'
  | 'UNKNOWN_EVENT'
  | 'UNKNOWN_CHANNEL'
  | 'INSUFFICIENT_SCOPE'
  | 'TOO_MANY_SUBSCRIPTIONS'
  | 'NOT_SUBSCRIBED';

export function errorFrame(code: StreamErrorCode, message: string): string {
  return envelope('error', { code, message });
}

/** The snapshot's data: the REST book plus its currency and whether it replaces a lost window. */
export type BookSnapshot = WireBook & { currency: Currency; reset: boolean };
