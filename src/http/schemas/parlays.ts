// Schemas of the tradeable-parlay routes (docs/parlays.md): request bodies (their types are derived
// from them) and the wire shapes of a request, a quote and a parlay position.

import { CURRENCIES, PARLAY_REQUEST_STATUSES } from '../../exchange/types.ts';
import { probability } from '../../wire/parlays.ts';
import { marketSchema } from './catalog.ts';
import { isoTime, uuid } from './common.ts';

// The parlay position is a wire shape the stream sends too (parlayFill, parlayUpdate): declared in
// src/wire/parlays.ts, with the probability its prices are.
export { parlaySchema as wireParlaySchema, probability } from '../../wire/parlays.ts';

const amount = {
  type: 'number',
  exclusiveMinimum: 0,
  description: 'Currency units, at most 5 decimals',
} as const;

/** A parlay's legs as a request names them, `[{id}]`: the price route and the parlay requests. */
export function parlayOutcomes<Id extends object>(maxLegs: number, id: Id) {
  return {
    type: 'array',
    minItems: 2,
    maxItems: maxLegs,
    items: {
      type: 'object',
      properties: { id },
      required: ['id'],
      additionalProperties: false,
    },
  } as const;
}

export function requestBodySchema(maxLegs: number) {
  return {
    type: 'object',
    properties: {
      outcomes: parlayOutcomes(maxLegs, uuid),
      boostId: {
        type: ['string', 'null'],
        description:
          'A boost the caller claimed (docs/parlays.md "Boosts"): the request shows the boosted price; unknown 404 BOOST_NOT_FOUND, other BOOST_* codes when it cannot apply',
      },
      currency: { type: 'string', enum: [...CURRENCIES], default: 'CASH' },
      stake: { ...amount, description: 'Stake the trader intends (shown to makers), currency units' },
      wager: {
        ...wagerBodySchema,
        description:
          'Bet in one call (docs/parlays.md "Bet in one call"): fill at once at the best live quote not above maxPrice, as POST /nbx/v1/parlay/request/{id}/wager; the 201 is the filled request. No fill: 409 PARLAY_PRICE_MOVED or PARLAY_NO_QUOTE with the request, left open, in details.requestId',
      },
    },
    required: ['outcomes'],
    additionalProperties: false,
  } as const;
}

export const requestIdParams = {
  type: 'object',
  properties: { id: uuid },
  required: ['id'],
  additionalProperties: false,
} as const;

export const requestsQuery = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: [...PARLAY_REQUEST_STATUSES] },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
  additionalProperties: false,
} as const;

export const parlaysQuery = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['OPEN', 'SETTLED'] },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
  additionalProperties: false,
} as const;

export const quoteBodySchema = {
  type: 'object',
  properties: {
    requestId: uuid,
    price: { ...probability, description: 'What the taker pays per unit of payout' },
    maxQty: { type: 'integer', minimum: 1, description: 'Largest payout filled, minimum currency units' },
    expiresInMs: { type: 'integer', minimum: 100, maximum: 3_600_000 },
  },
  required: ['requestId', 'price', 'maxQty', 'expiresInMs'],
  additionalProperties: false,
} as const;

export const wagerBodySchema = {
  type: 'object',
  properties: {
    stake: amount,
    maxPrice: { ...probability, description: 'Highest price accepted (stale-quote protection)' },
    clientOrderId: { type: 'string', minLength: 1, maxLength: 64 },
  },
  required: ['stake', 'maxPrice', 'clientOrderId'],
  additionalProperties: false,
} as const;

export const wireQuoteSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    requestId: uuid,
    price: probability,
    maxQty: { type: 'integer' },
    createdAt: isoTime,
    expiresAt: isoTime,
    mine: { type: 'boolean', description: 'The caller is this quote’s maker' },
    boostedPrice: {
      type: ['number', 'null'],
      description:
        'On a boosted request, what the taker pays at this quote (docs/parlays.md "Boosts"), else null',
    },
  },
  required: ['id', 'requestId', 'price', 'maxQty', 'createdAt', 'expiresAt', 'mine'],
} as const;

const legSchema = {
  type: 'object',
  properties: {
    outcomeId: uuid,
    price: { type: 'string', description: 'The leg’s price at request time, 5 decimals' },
    vendor: { type: 'string' },
    outcome: {
      type: 'object',
      properties: { id: uuid, description: { type: 'string' }, market: marketSchema },
      required: ['id', 'description', 'market'],
    },
  },
  required: ['outcomeId', 'price', 'vendor', 'outcome'],
} as const;

const wagerSchema = {
  type: ['object', 'null'],
  properties: {
    parlayId: uuid,
    price: probability,
    stake: { type: 'number' },
    fee: { type: 'number' },
    qty: { type: 'integer' },
    clientOrderId: { type: ['string', 'null'] },
  },
  required: ['parlayId', 'price', 'stake', 'fee', 'qty', 'clientOrderId'],
} as const;

export const wireRequestSchema = {
  type: 'object',
  properties: {
    id: uuid,
    status: { type: 'string', enum: [...PARLAY_REQUEST_STATUSES] },
    price: {
      type: 'string',
      description: 'The house reference price, boosted when the request carries a boost, 5 decimals',
    },
    unboostedPrice: { type: 'string', description: 'The house reference price, 5 decimals' },
    boostId: { type: ['string', 'null'], description: 'The claimed boost the request uses, or null' },
    legs: { type: 'array', items: legSchema },
    wager: wagerSchema,
    traderId: uuid,
    currency: { type: 'string', enum: [...CURRENCIES] },
    stake: { type: ['number', 'null'] },
    createdAt: isoTime,
    expiresAt: isoTime,
    quotes: { type: 'array', items: wireQuoteSchema },
    declined: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        properties: { outcomeId: uuid, reason: { type: 'string' } },
        required: ['outcomeId', 'reason'],
      },
    },
  },
  required: [
    'id',
    'status',
    'price',
    'unboostedPrice',
    'legs',
    'wager',
    'traderId',
    'currency',
    'stake',
    'createdAt',
    'expiresAt',
    'quotes',
    'declined',
    'boostId',
  ],
} as const;
