// Wire shapes of the catalog and market data (docs/http.md "The production wire"), exactly
// what src/wire/catalog.ts and book.ts produce.

import {
  EVENT_STATUSES,
  EVENT_TYPES,
  GAME_STATUSES,
  MARKET_STATUSES,
  MARKET_TYPES,
  OUTCOME_STATUSES,
} from '../../exchange/types.ts';
import { currency, isoTime, nullableIsoTime, qtyMcu, uuid } from './common.ts';

export const teamSchema = {
  type: 'object',
  properties: {
    id: uuid,
    name: { type: 'string' },
    shortName: { type: 'string' },
    symbol: { type: 'string', description: 'Short code, e.g. BUF' },
    mascot: { type: 'string' },
  },
  required: ['id', 'name', 'shortName', 'symbol', 'mascot'],
  additionalProperties: false,
} as const;

const nullableTeam = { anyOf: [teamSchema, { type: 'null' }] } as const;

export const gameSchema = {
  type: 'object',
  properties: {
    id: uuid,
    league: { type: 'string' },
    status: { type: 'string', enum: [...GAME_STATUSES] },
    scheduledStart: isoTime,
    homeTeam: nullableTeam,
    awayTeam: nullableTeam,
  },
  required: ['id', 'league', 'status', 'scheduledStart', 'homeTeam', 'awayTeam'],
  additionalProperties: false,
} as const;

export const eventSchema = {
  type: 'object',
  description: 'Event (docs/http.md "Events"); `game` only for events of type Game',
  properties: {
    id: uuid,
    type: { type: 'string', enum: [...EVENT_TYPES] },
    status: { type: 'string', enum: [...EVENT_STATUSES] },
    description: { type: 'string' },
    league: { type: 'string' },
    scheduledStart: isoTime,
    marketIds: { type: 'array', items: uuid },
    game: gameSchema,
  },
  required: ['id', 'type', 'status', 'description', 'league', 'scheduledStart', 'marketIds'],
  additionalProperties: false,
} as const;

export const outcomeSchema = {
  type: 'object',
  properties: {
    id: uuid,
    description: { type: 'string', description: 'e.g. "Over 47.5", "BUF -2.5"' },
    type: { type: 'string', enum: ['HOME', 'AWAY', 'OVER', 'UNDER', 'YES', 'NO'] },
    status: { type: 'string', enum: [...OUTCOME_STATUSES] },
    index: { type: 'integer', enum: [0, 1], description: '0 = home/over/yes, 1 = away/under/no' },
    last: { type: ['number', 'null'], description: 'Last traded price in the requested currency' },
    competitor: nullableTeam,
  },
  required: ['id', 'description', 'type', 'status', 'index', 'last', 'competitor'],
  additionalProperties: false,
} as const;

const levelSchema = {
  type: 'object',
  properties: { price: { type: 'number' }, qty: qtyMcu },
  required: ['price', 'qty'],
  additionalProperties: false,
} as const;

const ladderBidSchema = {
  type: 'object',
  properties: {
    id: uuid,
    price: { type: 'number' },
    qty: qtyMcu,
    originalQty: qtyMcu,
    currency,
    outcomeId: uuid,
    marketId: uuid,
    status: { type: 'string', enum: ['RESTING'] },
    created_at: isoTime,
  },
  required: [
    'id',
    'price',
    'qty',
    'originalQty',
    'currency',
    'outcomeId',
    'marketId',
    'status',
    'created_at',
  ],
  additionalProperties: false,
} as const;

export const bookSchema = {
  type: 'object',
  description:
    'Orderbook (docs/exchange.md "Books and matching"): bids = bids on outcome 0, highest first; asks = bids on outcome 1 as offers on outcome 0 at 1 − q, lowest first; plus per-outcome ladders of resting bids',
  properties: {
    marketId: uuid,
    marketDescription: { type: 'string' },
    bids: { type: 'array', items: levelSchema },
    asks: { type: 'array', items: levelSchema },
    outcomeLadders: {
      type: 'array',
      items: {
        type: 'object',
        properties: { outcomeId: uuid, bids: { type: 'array', items: ladderBidSchema } },
        required: ['outcomeId', 'bids'],
        additionalProperties: false,
      },
    },
    seq: { type: 'integer', description: 'Book sequence number; moves with every change' },
    asOf: isoTime,
  },
  required: ['marketId', 'marketDescription', 'bids', 'asks', 'outcomeLadders', 'seq', 'asOf'],
  additionalProperties: false,
} as const;

const marketProperties = {
  id: uuid,
  type: {
    type: 'string',
    enum: [...MARKET_TYPES],
    description: 'Market type code, as the production API sends it ("SPREAD", "TOTAL", "MONEY", …)',
  },
  description: { type: 'string' },
  status: { type: 'string', enum: [...MARKET_STATUSES] },
  eventId: uuid,
  strike: { type: ['number', 'null'] },
  league: { type: 'string' },
  volume: { ...qtyMcu, description: 'Traded payout in the requested currency, MCU' },
  outcomeIds: { type: 'array', items: uuid, minItems: 2, maxItems: 2 },
  outcomes: { type: 'array', items: outcomeSchema },
  playerId: { type: 'null' },
  player: { type: 'null' },
  competitor: { type: 'null' },
  settledAt: nullableIsoTime,
  isConsensus: {
    type: 'boolean',
    description:
      'The main line of its type for the event: always true without a strike; else the first market of the type in the event’s order',
  },
  event: {
    type: 'object',
    description: 'The market’s event; `game` only for events of type Game',
    properties: {
      id: uuid,
      type: { type: 'string', enum: [...EVENT_TYPES] },
      status: { type: 'string', enum: [...EVENT_STATUSES] },
      description: { type: 'string' },
      game: gameSchema,
    },
    required: ['id', 'type', 'status', 'description'],
    additionalProperties: false,
  },
} as const;

const marketRequired = [
  'id',
  'type',
  'description',
  'status',
  'eventId',
  'strike',
  'league',
  'volume',
  'outcomeIds',
  'outcomes',
  'playerId',
  'player',
  'competitor',
  'settledAt',
  'isConsensus',
  'event',
] as const;

/** Market without book (markets/open, markets/{id}, admin answers). */
export const marketSchema = {
  type: 'object',
  properties: marketProperties,
  required: [...marketRequired],
  additionalProperties: false,
} as const;

/** Market with its book (getMarketsByEvent, docs/http.md "Markets and books"). */
export const marketWithBookSchema = {
  type: 'object',
  properties: { ...marketProperties, book: bookSchema },
  required: [...marketRequired, 'book'],
  additionalProperties: false,
} as const;

export const lockSchema = {
  type: 'object',
  properties: {
    id: uuid,
    eventId: { type: ['string', 'null'], format: 'uuid' },
    reason: { type: 'string' },
    createdAt: isoTime,
    minuteDuration: { type: ['number', 'null'] },
    expiresAt: nullableIsoTime,
  },
  required: ['id', 'eventId', 'reason', 'createdAt', 'minuteDuration', 'expiresAt'],
  additionalProperties: false,
} as const;

export const locksSchema = {
  type: 'object',
  properties: {
    systemLock: {
      anyOf: [
        {
          type: 'object',
          properties: {
            id: uuid,
            minuteDuration: { type: ['number', 'null'] },
            createdAt: isoTime,
            reason: { type: 'string' },
          },
          required: ['id', 'minuteDuration', 'createdAt', 'reason'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
    },
    lockedEventIds: { type: 'array', items: uuid },
  },
  required: ['systemLock', 'lockedEventIds'],
  additionalProperties: false,
} as const;

export const stringList = { type: 'array', items: { type: 'string' } } as const;
