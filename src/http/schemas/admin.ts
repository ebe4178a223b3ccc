// Bodies and answers of the operator API for the exchange.

import { EVENT_STATUSES, EVENT_TYPES } from '../../exchange/types.ts';
import { MAX_UNITS } from '../../exchange/units.ts';
import { MARKET_TYPE_FILTER_VALUES } from '../../wire/names.ts';
import { eventSchema, marketSchema } from './catalog.ts';
import { currency, uuid } from './common.ts';

export const moneyBodySchema = {
  type: 'object',
  properties: {
    currency,
    amount: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: MAX_UNITS,
      description: 'Currency units, at most 5 decimals and at most 10 billion (the money ceiling)',
    },
  },
  required: ['currency', 'amount'],
  additionalProperties: false,
} as const;

export const leagueBodySchema = {
  type: 'object',
  properties: {
    code: { type: 'string', pattern: '^[A-Z0-9]{2,12}$', description: 'Upper-case code, e.g. NFL' },
    name: { type: 'string', minLength: 1, maxLength: 200 },
  },
  required: ['code', 'name'],
  additionalProperties: false,
} as const;

export const leagueSchema = {
  type: 'object',
  properties: { code: { type: 'string' }, name: { type: 'string' } },
  required: ['code', 'name'],
  additionalProperties: false,
} as const;

const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const;

export const teamBodySchema = {
  type: 'object',
  properties: {
    league: text(12),
    name: text(200),
    shortName: { ...text(100), description: 'Default: the last word of name' },
    symbol: text(12),
    mascot: { ...text(100), description: 'Default: shortName' },
  },
  required: ['league', 'name', 'symbol'],
  additionalProperties: false,
} as const;

export const teamWithLeagueSchema = {
  type: 'object',
  properties: {
    id: uuid,
    league: { type: 'string' },
    name: { type: 'string' },
    shortName: { type: 'string' },
    symbol: { type: 'string' },
    mascot: { type: 'string' },
  },
  required: ['id', 'league', 'name', 'shortName', 'symbol', 'mascot'],
  additionalProperties: false,
} as const;

const outcomeBody = {
  type: 'object',
  properties: { description: text(200), competitorTeamId: { type: ['string', 'null'], format: 'uuid' } },
  required: ['description'],
  additionalProperties: false,
} as const;

export const marketBodySchema = {
  type: 'object',
  properties: {
    type: {
      type: 'string',
      maxLength: 32,
      description: `Code or human name, any case: ${MARKET_TYPE_FILTER_VALUES.join(', ')}`,
    },
    strike: { type: ['number', 'null'] },
    description: text(200),
    outcomes: {
      type: 'array',
      items: outcomeBody,
      minItems: 2,
      maxItems: 2,
      description: '[index 0 (home/over/yes), index 1 (away/under/no)]',
    },
  },
  required: ['type', 'description', 'outcomes'],
  additionalProperties: false,
} as const;

export const eventBodySchema = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: [...EVENT_TYPES] },
    status: { type: 'string', enum: [...EVENT_STATUSES], default: 'OPEN_PREGAME' },
    description: text(300),
    league: text(12),
    scheduledStart: { type: 'string', format: 'date-time', description: 'ISO 8601' },
    pregameVisible: { type: 'boolean' },
    liveVisible: { type: 'boolean' },
    game: {
      type: 'object',
      properties: { homeTeamId: uuid, awayTeamId: uuid },
      required: ['homeTeamId', 'awayTeamId'],
      additionalProperties: false,
    },
    markets: { type: 'array', items: marketBodySchema, maxItems: 100, default: [] },
  },
  required: ['type', 'description', 'league', 'scheduledStart'],
  additionalProperties: false,
  // A game exactly for events of type Game.
  if: { properties: { type: { const: 'Game' } }, required: ['type'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, never awaited
  then: { required: ['game'] },
  else: { properties: { game: { not: {}, description: 'Only for events of type Game' } } },
} as const;

export const createdEventSchema = {
  type: 'object',
  properties: { event: eventSchema, markets: { type: 'array', items: marketSchema } },
  required: ['event', 'markets'],
  additionalProperties: false,
} as const;

export const eventStatusBodySchema = {
  type: 'object',
  properties: { status: { type: 'string', enum: [...EVENT_STATUSES] } },
  required: ['status'],
  additionalProperties: false,
} as const;

export const marketStatusBodySchema = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['OPEN', 'CLOSED'] } },
  required: ['status'],
  additionalProperties: false,
} as const;

export const settleBodySchema = {
  type: 'object',
  description: 'Either the winning outcome or result PUSH (void: costs refunded)',
  properties: { winningOutcomeId: uuid, result: { type: 'string', enum: ['PUSH'] } },
  oneOf: [{ required: ['winningOutcomeId'] }, { required: ['result'] }],
  additionalProperties: false,
} as const;

export const lockBodySchema = {
  type: 'object',
  properties: {
    eventId: { ...uuid, description: 'Lock one event; omit for the system lock' },
    reason: text(500),
    minuteDuration: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 525_600,
      description: 'Omit: until cleared',
    },
  },
  required: ['reason'],
  additionalProperties: false,
} as const;
