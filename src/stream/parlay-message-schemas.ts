// The published schemas of the parlay frames (docs/stream.md "Messages", built by parlay-frames.ts
// and private-frames.ts): the makers' `parlayRequest` and the private `parlayQuote`, `parlayFill`
// and `parlayUpdate`. message-schemas.ts adds them to the AsyncAPI document's server messages.

import { parlaySchema } from '../wire/parlays.ts';
import { currencySchema as currency, isoTime, nonNegInt, uuid } from './schema-parts.ts';

const probability = { type: 'number', minimum: 0, maximum: 1 } as const;
const units = { type: 'number', description: 'currency units' } as const;

const frame = (event: string, data: object) => ({
  type: 'object',
  required: ['event', 'data', 'journalSeq'],
  properties: { event: { const: event }, journalSeq: nonNegInt, data },
});

const parlayLeg = {
  type: 'object',
  required: ['outcomeId', 'marketId', 'eventId', 'price'],
  additionalProperties: false,
  properties: { outcomeId: uuid, marketId: uuid, eventId: uuid, price: probability },
} as const;

/** A request as makers see it: what to price, the house's reference price and the deadline. */
export const parlayRequestSchema = {
  type: 'object',
  required: ['id', 'status', 'currency', 'stake', 'refPrice', 'legs', 'declined', 'createdAt', 'expiresAt'],
  additionalProperties: false,
  properties: {
    id: uuid,
    status: { type: 'string', enum: ['Unfilled', 'Filled', 'Cancelled', 'Expired', 'Declined'] },
    currency,
    stake: { anyOf: [units, { type: 'null' }], description: 'the stake announced with the request' },
    refPrice: { ...probability, description: "the house's reference price" },
    legs: { type: 'array', minItems: 1, items: parlayLeg },
    declined: {
      anyOf: [
        { type: 'null' },
        {
          type: 'array',
          items: {
            type: 'object',
            required: ['outcomeId', 'reason'],
            additionalProperties: false,
            properties: { outcomeId: uuid, reason: { type: 'string' } },
          },
        },
      ],
    },
    createdAt: isoTime,
    expiresAt: { ...isoTime, description: 'the deadline: quotes are taken until then' },
  },
} as const;

/** A maker's quote on your request. */
export const parlayQuoteSchema = {
  type: 'object',
  required: ['id', 'requestId', 'price', 'maxQty', 'createdAt', 'expiresAt'],
  additionalProperties: false,
  properties: {
    id: uuid,
    requestId: uuid,
    price: probability,
    maxQty: nonNegInt,
    createdAt: isoTime,
    expiresAt: isoTime,
  },
} as const;

export const parlayMessages: Record<string, { summary: string; payload: object }> = {
  parlayRequest: {
    summary:
      'Makers: a parlay request to quote, when it is made (status Unfilled), and again when it ends (Filled, Cancelled, Expired, Declined).',
    payload: frame('parlayRequest', parlayRequestSchema),
  },
  parlayQuote: {
    summary: 'Private: a maker quoted (or re-quoted) your parlay request.',
    payload: frame('parlayQuote', parlayQuoteSchema),
  },
  parlayFill: {
    summary: 'Private: a wager filled a parlay you are the taker or the maker of (the REST parlay shape).',
    payload: frame('parlayFill', parlaySchema),
  },
  parlayUpdate: {
    summary:
      'Private: one of your parlays changed after its fill: a leg settled, or the parlay settled (payout).',
    payload: frame('parlayUpdate', parlaySchema),
  },
};
