// The catalog's wire shapes (docs/http.md "Events" and "Markets and books"), each declared once as
// its JSON schema with its type derived (./schema.ts); src/wire/catalog.ts builds them from the
// engine's records, and the routes answer with them.

import {
  EVENT_STATUSES,
  EVENT_TYPES,
  GAME_STATUSES,
  MARKET_STATUSES,
  MARKET_TYPES,
  OUTCOME_STATUSES,
} from '../exchange/types.ts';
import { bookSchema } from './book.ts';
import { OUTCOME_TYPE_NAMES } from './names.ts';
import { isoTime, nullableIsoTime, qtyMcu, uuid, type Wire } from './schema.ts';

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
    type: { type: 'string', enum: [...OUTCOME_TYPE_NAMES] },
    status: { type: 'string', enum: [...OUTCOME_STATUSES] },
    index: { type: 'integer', enum: [0, 1], description: '0 = home/over/yes, 1 = away/under/no' },
    last: { type: ['number', 'null'], description: 'Last traded price in the requested currency' },
    competitor: nullableTeam,
  },
  required: ['id', 'description', 'type', 'status', 'index', 'last', 'competitor'],
  additionalProperties: false,
} as const;

/** The event embedded in a market: `game` only for events of type Game (omitted, not null). */
export const marketEventSchema = {
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
  event: marketEventSchema,
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

export type WireTeam = Wire<typeof teamSchema>;
export type WireGame = Wire<typeof gameSchema>;
export type WireEvent = Wire<typeof eventSchema>;
export type WireOutcome = Wire<typeof outcomeSchema>;
export type WireMarketEvent = Wire<typeof marketEventSchema>;
export type WireMarket = Wire<typeof marketSchema>;
export type WireLock = Wire<typeof lockSchema>;
export type WireLocks = Wire<typeof locksSchema>;
