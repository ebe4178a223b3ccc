// The published schemas of the parlay frames (docs/stream.md "Messages", built by parlay-frames.ts,
// boost-frames.ts and private-frames.ts): the makers' `parlayRequest`, the private `parlayQuote`,
// `parlayFill` and `parlayUpdate`, the traders' `boost` and the private `boostClaim`.
// message-schemas.ts adds them to the AsyncAPI document's server messages.

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
    id: { type: 'string', description: "the maker's quote id (the house's: house:<requestId>)" },
    requestId: uuid,
    price: probability,
    maxQty: nonNegInt,
    createdAt: isoTime,
    expiresAt: isoTime,
  },
} as const;

/** A boost's offer, as GET /nbx/v1/boosts writes it (docs/parlays.md "Boosts"). */
const boostOffer = {
  id: uuid,
  kind: { type: 'string', enum: ['PERCENT', 'MULTIPLIER'] },
  value: {
    type: 'number',
    description: 'PERCENT: the share of the price taken off; MULTIPLIER: the odds factor',
  },
  leagues: { type: 'array', items: { type: 'string' }, description: 'empty: every league' },
  minLegs: { type: 'integer', minimum: 2 },
  maxStake: { anyOf: [units, { type: 'null' }] },
  validFrom: isoTime,
  validTo: { ...isoTime, description: 'the boost ends then (exclusive) unless ended earlier' },
  endedAt: { anyOf: [isoTime, { type: 'null' }], description: 'set when an operator ended it early' },
  claimLimit: { type: 'integer', minimum: 1, description: 'claims one account may make' },
} as const;

/** Every key of the offer is sent (typed so the frames' types know them). */
const offerKeys = Object.keys(boostOffer) as (keyof typeof boostOffer)[];

/** A boost as every trader sees it on the `boosts` channel: the offer, and whether it is valid. */
export const boostSchema = {
  type: 'object',
  required: [...offerKeys, 'active'],
  additionalProperties: false,
  properties: {
    ...boostOffer,
    active: { type: 'boolean', description: 'valid at the time of the command that sent the frame' },
  },
} as const;

/** A boost as the account whose claims changed sees it (the GET /nbx/v1/boosts shape). */
export const boostClaimSchema = {
  type: 'object',
  required: [...offerKeys, 'claimed', 'used', 'remainingClaims', 'available'],
  additionalProperties: false,
  properties: {
    ...boostOffer,
    claimed: { ...nonNegInt, description: 'claims you made' },
    used: { ...nonNegInt, description: 'claims used by boosted fills' },
    remainingClaims: { ...nonNegInt, description: 'claims you may still make' },
    available: { ...nonNegInt, description: 'claims you may use on a request now' },
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
  boost: {
    summary:
      'Traders: a parlay boost an operator created, or ended early (endedAt set). It is valid from validFrom until validTo or endedAt; claim it with POST /nbx/v1/boosts/{id}/claim.',
    payload: frame('boost', boostSchema),
  },
  boostClaim: {
    summary:
      'Private: your claims of a boost changed — you claimed it, or a boosted fill used a claim (the GET /nbx/v1/boosts shape).',
    payload: frame('boostClaim', boostClaimSchema),
  },
};
