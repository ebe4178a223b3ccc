// Schemas of the parlay-boost routes (docs/parlays.md "Boosts"): the operator's create body, the
// boost as operators and as traders see it.

import { BOOST_KINDS } from '../../exchange/types.ts';
import { isoTime, nullableIsoTime, uuid } from './common.ts';

const value = {
  type: 'number',
  exclusiveMinimum: 0,
  description:
    'PERCENT: the share of the price taken off, 0 < value < 1 (0.2 = 20 %); MULTIPLIER: the factor on the decimal odds, 1 < value ≤ 100; at most 6 decimals',
} as const;
const maxStake = {
  type: ['number', 'null'],
  exclusiveMinimum: 0,
  description: 'Largest stake of a boosted wager, currency units, or null',
} as const;

export const createBoostBodySchema = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: [...BOOST_KINDS] },
    value,
    leagues: {
      type: 'array',
      maxItems: 64,
      items: { type: 'string', minLength: 1, maxLength: 16 },
      default: [],
      description: 'League codes every leg must belong to; empty = every league',
    },
    minLegs: { type: 'integer', minimum: 2, maximum: 25, default: 2 },
    maxStake: { ...maxStake, default: null },
    validFrom: { ...isoTime, description: 'Start of validity (default: now)' },
    validTo: { ...isoTime, description: 'End of validity (exclusive)' },
    claimLimit: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
    fundingAccountId: { ...uuid, description: 'The operator account that pays each fill’s boost cost' },
  },
  required: ['kind', 'value', 'validTo', 'fundingAccountId'],
  additionalProperties: false,
} as const;

export const boostIdParams = {
  type: 'object',
  properties: { id: uuid },
  required: ['id'],
  additionalProperties: false,
} as const;

const common = {
  id: uuid,
  kind: { type: 'string', enum: [...BOOST_KINDS] },
  value: { type: 'number' },
  leagues: { type: 'array', items: { type: 'string' } },
  minLegs: { type: 'integer' },
  maxStake: { type: ['number', 'null'] },
  validFrom: isoTime,
  validTo: isoTime,
  endedAt: nullableIsoTime,
  claimLimit: { type: 'integer' },
} as const;

export const wireBoostSchema = {
  type: 'object',
  properties: {
    ...common,
    fundingAccountId: uuid,
    createdAt: isoTime,
    active: { type: 'boolean' },
    fills: { type: 'integer', description: 'Boosted fills so far' },
    cost: {
      type: 'object',
      properties: { CASH: { type: 'number' }, COIN: { type: 'number' } },
      required: ['CASH', 'COIN'],
      description: 'Boost cost paid so far, currency units',
    },
  },
  required: [...Object.keys(common), 'fundingAccountId', 'createdAt', 'active', 'fills', 'cost'],
} as const;

export const wireTraderBoostSchema = {
  type: 'object',
  properties: {
    ...common,
    claimed: { type: 'integer', description: 'Claims the caller made' },
    used: { type: 'integer', description: 'Claims used by boosted fills' },
    remainingClaims: { type: 'integer', description: 'Claims the caller may still make' },
    available: { type: 'integer', description: 'Claims the caller may use on a request now' },
  },
  required: [...Object.keys(common), 'claimed', 'used', 'remainingClaims', 'available'],
} as const;
