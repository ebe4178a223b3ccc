// The JSON Schemas of the `private` channel's frames (docs/stream.md "Messages"): each account's
// own orders, fills, market-maker protection and dead-man reports. Part of the server messages
// that message-schemas.ts publishes; test/stream/asyncapi.test.ts validates real frames against them.

import { pickSchema } from '../wire/schema.ts';
import { orderSchema } from '../wire/trading.ts';
import { currencySchema, isoTime, nonNegInt, uuid } from './schema-parts.ts';
import { schemas as tickSchemas } from './tick-schemas.ts';

/** The REST order's fields a cancel frame carries (src/wire/trading.ts). */
const cancelled = pickSchema(orderSchema, [
  'id',
  'outcomeId',
  'marketId',
  'price',
  'qty',
  'originalQty',
  'currency',
]);

/** A fill of one of your orders: the book tick's fill, when it was made and in which currency. */
export const privateFillSchema = {
  ...tickSchemas.TickFill,
  required: [...tickSchemas.TickFill.required, 'createdAt', 'currency'],
  properties: {
    ...tickSchemas.TickFill.properties,
    createdAt: isoTime,
    currency: currencySchema,
  },
} as const;

/** One of your orders was cancelled: the REST order's fields, when, and its flags if any. */
export const privateCancelSchema = {
  type: 'object',
  required: [...cancelled.required, 'timestamp', 'status'],
  additionalProperties: false,
  properties: {
    ...cancelled.properties,
    timestamp: isoTime,
    status: { const: 'CANCELLED' },
    flags: { type: 'string' },
  },
} as const;

/** Market-maker protection of one of your accounts changed. */
export const privateMmpSchema = {
  type: 'object',
  required: [
    'state',
    'eventId',
    'currency',
    'qtyFilled',
    'netExposure',
    'canceled',
    'frozenUntil',
    'timestamp',
  ],
  additionalProperties: false,
  properties: {
    state: { type: 'string', enum: ['FROZEN', 'RESET'] },
    eventId: { anyOf: [uuid, { type: 'null' }] },
    currency: { anyOf: [currencySchema, { type: 'null' }] },
    qtyFilled: nonNegInt,
    netExposure: { type: 'integer', description: 'outcome 0 − outcome 1, MCU' },
    canceled: nonNegInt,
    frozenUntil: { anyOf: [isoTime, { type: 'null' }], description: 'null: until reset' },
    timestamp: isoTime,
  },
} as const;

/** The dead-man switch fired: the one CancelOrders command's count and journal seq. */
export const deadmanReportSchema = {
  type: 'object',
  required: ['reason', 'canceled', 'journalSeq', 'at'],
  additionalProperties: false,
  properties: {
    reason: { type: 'string', enum: ['disconnect', 'timeout'] },
    canceled: nonNegInt,
    journalSeq: { type: ['integer', 'null'], description: 'null when the command was not applied' },
    at: isoTime,
  },
} as const;

export const privateMessages: Record<string, { summary: string; payload: object }> = {
  fill: {
    summary: 'Private: a fill of one of your orders.',
    payload: {
      type: 'object',
      required: ['event', 'data', 'journalSeq'],
      properties: {
        event: { const: 'fill' },
        journalSeq: nonNegInt,
        data: privateFillSchema,
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
        data: privateCancelSchema,
      },
    },
  },
  mmp: {
    summary:
      'Private: market-maker protection froze your protected orders on an event (a breach, in the command that breached) or a reset lifted freezes.',
    payload: {
      type: 'object',
      required: ['event', 'data', 'journalSeq'],
      properties: {
        event: { const: 'mmp' },
        journalSeq: nonNegInt,
        data: privateMmpSchema,
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
        data: orderSchema,
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
        data: deadmanReportSchema,
      },
    },
  },
};
