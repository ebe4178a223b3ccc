// The JSON Schemas of the bare book and lifecycle ticks and of the book snapshot's data
// (docs/stream.md "Messages"): the named components the AsyncAPI document publishes, the two tick
// frames and the snapshot. messages.ts derives the
// ticks' TypeScript types from them (`Wire<typeof …>`), so a tick cannot drift from its published
// schema; message-schemas.ts publishes them. Kept apart from message-schemas.ts, which reads the
// channel table, so that messages.ts (which the channels' builders import) reads no channel table.

import { bookSchema } from '../wire/book.ts';
import { pickSchema } from '../wire/schema.ts';
import { orderSchema } from '../wire/trading.ts';
import { currencySchema, nonNegInt, uuid } from './schema-parts.ts';

export const LIFECYCLE_TYPES = ['OPEN', 'START', 'END', 'CLOSE', 'EVENT_GOLIVE', 'EVENT_UNLIVE'] as const;

export const schemas = {
  TickMarket: {
    type: 'object',
    required: ['id', 'description', 'status', 'type', 'volume'],
    additionalProperties: false,
    properties: {
      id: uuid,
      description: { type: 'string' },
      status: { type: 'string', enum: ['OPEN', 'CLOSED', 'SETTLED'] },
      type: { type: 'string' },
      strike: { type: 'number' },
      volume: {
        ...nonNegInt,
        description: "Traded payout in the tick's currency (MCU); lifecycle ticks carry CASH volume.",
      },
    },
  },
  // The REST order's fields a book tick carries (src/wire/trading.ts).
  TickOrder: {
    ...pickSchema(orderSchema, [
      'id',
      'price',
      'qty',
      'originalQty',
      'currency',
      'marketId',
      'outcomeId',
      'status',
      'created_at',
    ]),
    additionalProperties: false,
  },
  TickFill: {
    type: 'object',
    required: ['id', 'orderId', 'price', 'qty', 'isWash', 'isTaker', 'marketId', 'outcomeId'],
    additionalProperties: false,
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

/** A book change, its parts inline: what the type is derived from (published with $refs). */
export const bookTickSchema = {
  type: 'object',
  required: ['type', 'order', 'fills', 'market', 'seq', 'journalSeq', 'part', 'parts'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: ['PLACE', 'CANCEL'] },
    order: schemas.TickOrder,
    fills: { type: 'array', items: schemas.TickFill },
    market: schemas.TickMarket,
    seq: { ...nonNegInt, description: 'Book (market × currency) sequence; the REST book `seq`.' },
    journalSeq: { ...nonNegInt, description: 'Journal sequence of the command.' },
    part: {
      type: 'integer',
      minimum: 1,
      description: "1-based position of this tick among the command's ticks for this book.",
    },
    parts: { type: 'integer', minimum: 1, description: "The count of the command's ticks for this book." },
  },
} as const;

/** A market or event lifecycle change, its market inline (published with a $ref). */
export const lifecycleTickSchema = {
  type: 'object',
  required: ['type', 'market', 'eventId', 'journalSeq'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: LIFECYCLE_TYPES },
    market: schemas.TickMarket,
    eventId: uuid,
    journalSeq: nonNegInt,
  },
} as const;

/** A `book` snapshot's data: the REST book plus its currency and whether it replaces a lost window. */
export const bookSnapshotSchema = {
  type: 'object',
  required: [...bookSchema.required, 'currency', 'reset'],
  additionalProperties: false,
  properties: {
    ...bookSchema.properties,
    seq: { ...nonNegInt, description: bookSchema.properties.seq.description },
    currency: currencySchema,
    reset: { type: 'boolean', description: 'true when a fromSeq was no longer retained' },
  },
} as const;
