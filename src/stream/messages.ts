// The stream's wire (docs/stream.md): every frame the server sends on /tape, as TypeScript types,
// the JSON Schemas the AsyncAPI document is generated from (asyncapi.ts), and the builders that turn
// domain records into those frames. One module for all three, so the document cannot drift from
// what the code sends.
//
// Two frame families, as the production feed has them (reference wire): bare `{type: …}` ticks for
// book and lifecycle changes, and `{event, data}` envelopes for everything else. Tickbook adds
// sequence fields to both (`seq`, `journalSeq`, `part`, `parts`) — extra keys an existing client
// ignores.

import type { Currency, Fill, Id, MarketRecord, MarketStatus, OrderRecord } from '../exchange/types.ts';
import { tickToPrice } from '../exchange/units.ts';
import type { WireBook } from '../http/wire/book.ts';
import { isoMillis, marketTypeName } from '../http/wire/names.ts';
import { orderToWire, type WireOrder } from '../http/wire/trading.ts';

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

// ------------------------------------------------------------------ JSON Schemas (AsyncAPI)

const uuid = { type: 'string', format: 'uuid' } as const;
const currencySchema = { type: 'string', enum: ['CASH', 'COIN'] } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;
const nonNegInt = { type: 'integer', minimum: 0 } as const;

export const schemas = {
  TickMarket: {
    type: 'object',
    required: ['id', 'description', 'status', 'type', 'volume'],
    properties: {
      id: uuid,
      description: { type: 'string' },
      status: { type: 'string', enum: ['OPEN', 'CLOSED', 'SETTLED'] },
      type: { type: 'string' },
      strike: { type: 'number' },
      volume: nonNegInt,
    },
  },
  TickOrder: {
    type: 'object',
    required: [
      'id',
      'price',
      'qty',
      'originalQty',
      'currency',
      'marketId',
      'outcomeId',
      'status',
      'created_at',
    ],
    properties: {
      id: uuid,
      price: { type: 'number' },
      qty: nonNegInt,
      originalQty: nonNegInt,
      currency: currencySchema,
      marketId: uuid,
      outcomeId: uuid,
      status: { type: 'string', enum: ['RESTING', 'FILLED', 'CANCELED', 'REJECTED'] },
      created_at: isoTime,
    },
  },
  TickFill: {
    type: 'object',
    required: ['id', 'orderId', 'price', 'qty', 'isWash', 'isTaker', 'marketId', 'outcomeId'],
    properties: {
      id: { type: 'string' },
      orderId: uuid,
      price: { type: 'number' },
      qty: nonNegInt,
      isWash: { type: 'boolean' },
      isTaker: { type: 'boolean' },
      marketId: uuid,
      outcomeId: uuid,
    },
  },
} as const;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Every server → client message, by AsyncAPI message name. */
export const serverMessages: Record<string, { summary: string; payload: object }> = {
  bookTick: {
    summary: 'A book change (bare frame). PLACE: placed or (partially) filled; CANCEL: cancelled.',
    payload: {
      type: 'object',
      required: ['type', 'order', 'fills', 'market', 'seq', 'journalSeq', 'part', 'parts'],
      properties: {
        type: { type: 'string', enum: ['PLACE', 'CANCEL'] },
        order: ref('TickOrder'),
        fills: { type: 'array', items: ref('TickFill') },
        market: ref('TickMarket'),
        seq: { ...nonNegInt, description: 'Book (market × currency) sequence; the REST book `seq`.' },
        journalSeq: { ...nonNegInt, description: 'Journal sequence of the command.' },
        part: { type: 'integer', minimum: 1 },
        parts: { type: 'integer', minimum: 1 },
      },
    },
  },
  lifecycleTick: {
    summary: 'A market or event lifecycle change (bare frame), one per open market for event changes.',
    payload: {
      type: 'object',
      required: ['type', 'market', 'eventId', 'journalSeq'],
      properties: {
        type: { type: 'string', enum: [...LIFECYCLE_TYPES] },
        market: ref('TickMarket'),
        eventId: uuid,
        journalSeq: nonNegInt,
      },
    },
  },
  book: {
    summary:
      'Snapshot of one book (market × currency), sent on subscribe; reset=true when a fromSeq was no longer retained.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'book' },
        data: {
          type: 'object',
          required: ['marketId', 'currency', 'bids', 'asks', 'outcomeLadders', 'seq', 'asOf', 'reset'],
          properties: {
            marketId: uuid,
            marketDescription: { type: 'string' },
            currency: currencySchema,
            bids: { type: 'array', items: { type: 'object' } },
            asks: { type: 'array', items: { type: 'object' } },
            outcomeLadders: { type: 'array', items: { type: 'object' } },
            seq: nonNegInt,
            asOf: isoTime,
            reset: { type: 'boolean' },
          },
        },
      },
    },
  },
  subscribed: {
    summary: 'Subscription acknowledged.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'subscribed' },
        data: {
          type: 'object',
          required: ['channel'],
          properties: {
            channel: { type: 'string' },
            currency: currencySchema,
            replayed: nonNegInt,
          },
        },
      },
    },
  },
  unsubscribed: {
    summary: 'Unsubscription acknowledged.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'unsubscribed' },
        data: {
          type: 'object',
          required: ['channel'],
          properties: { channel: { type: 'string' }, currency: currencySchema },
        },
      },
    },
  },
  heartbeat: {
    summary: 'Application heartbeat, at least every 5 s per subscribed channel, with its latest seq.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'heartbeat' },
        data: {
          type: 'object',
          required: ['channel', 'ts'],
          properties: {
            channel: { type: 'string' },
            currency: currencySchema,
            seq: nonNegInt,
            journalSeq: nonNegInt,
            ts: isoTime,
          },
        },
      },
    },
  },
  resyncRequired: {
    summary: 'The send buffer overflowed: the subscription is dropped; resubscribe with fromSeq.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'resync_required' },
        data: {
          type: 'object',
          required: ['channel', 'fromSeq'],
          properties: { channel: { type: 'string' }, currency: currencySchema, fromSeq: nonNegInt },
        },
      },
    },
  },
  error: {
    summary: 'A client message was refused; nothing changed.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'error' },
        data: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
  },
  fill: {
    summary: 'Private: a fill of one of your orders.',
    payload: {
      type: 'object',
      required: ['event', 'data', 'journalSeq'],
      properties: {
        event: { const: 'fill' },
        journalSeq: nonNegInt,
        data: {
          type: 'object',
          required: [
            'id',
            'orderId',
            'price',
            'qty',
            'createdAt',
            'isWash',
            'isTaker',
            'marketId',
            'outcomeId',
          ],
          properties: {
            id: { type: 'string' },
            orderId: uuid,
            price: { type: 'number' },
            qty: nonNegInt,
            createdAt: isoTime,
            isWash: { type: 'boolean' },
            isTaker: { type: 'boolean' },
            marketId: uuid,
            outcomeId: uuid,
          },
        },
      },
    },
  },
  cancel: {
    summary: 'Private: one of your orders was cancelled.',
    payload: {
      type: 'object',
      required: ['event', 'data', 'journalSeq'],
      properties: {
        event: { const: 'cancel' },
        journalSeq: nonNegInt,
        data: {
          type: 'object',
          required: [
            'id',
            'outcomeId',
            'marketId',
            'price',
            'qty',
            'originalQty',
            'currency',
            'timestamp',
            'status',
          ],
          properties: {
            id: uuid,
            outcomeId: uuid,
            marketId: uuid,
            price: { type: 'number' },
            qty: nonNegInt,
            originalQty: nonNegInt,
            currency: currencySchema,
            timestamp: isoTime,
            status: { const: 'CANCELLED' },
            flags: { type: 'string' },
          },
        },
      },
    },
  },
  place: {
    summary: 'Private: one of your orders was accepted (the REST order shape).',
    payload: {
      type: 'object',
      required: ['event', 'data', 'journalSeq'],
      properties: {
        event: { const: 'place' },
        journalSeq: nonNegInt,
        data: { type: 'object', required: ['id', 'status'] },
      },
    },
  },
  deadman: {
    summary: 'Private: the dead-man switch fired and cancelled your resting orders in one command.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'deadman' },
        data: {
          type: 'object',
          required: ['reason', 'canceled', 'journalSeq', 'at'],
          properties: {
            reason: { type: 'string', enum: ['disconnect', 'timeout'] },
            canceled: nonNegInt,
            journalSeq: { type: ['integer', 'null'] },
            at: isoTime,
          },
        },
      },
    },
  },
};

/** Every client → server message. */
export const clientMessages: Record<string, { summary: string; payload: object }> = {
  subscribe: {
    summary: 'Subscribe to tape, lifecycle, private or a market id; fromSeq resumes after that seq.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'subscribe' },
        data: { type: 'string', maxLength: 64 },
        currency: currencySchema,
        fromSeq: nonNegInt,
      },
    },
  },
  unsubscribe: {
    summary: 'Stop a subscription.',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: {
        event: { const: 'unsubscribe' },
        data: { type: 'string', maxLength: 64 },
        currency: currencySchema,
      },
    },
  },
  cancelOnDisconnect: {
    summary: 'Arm (true) or disarm (false) cancel-on-disconnect for this connection (execute:trader).',
    payload: {
      type: 'object',
      required: ['event', 'data'],
      properties: { event: { const: 'cancel_on_disconnect' }, data: { type: 'boolean' } },
    },
  },
};
