// Wire shapes of market-maker protection (docs/http.md "Market-maker protection"; the rules:
// docs/exchange.md "Market-maker protection").

import { MMP_MAX_MS } from '../../exchange/types.ts';
import { MAX_QTY_MCU } from '../../exchange/units.ts';
import { currency, nullableIsoTime, uuid } from './common.ts';

const limits = {
  intervalMs: {
    type: 'integer',
    minimum: 1,
    maximum: MMP_MAX_MS,
    description: 'Fills of protected orders within this many ms accumulate',
  },
  qtyLimit: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_QTY_MCU,
    description: 'Breach when the quantity filled within the interval reaches this (MCU); 0: off',
  },
  netLimit: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_QTY_MCU,
    description:
      'Breach when |outcome-0 − outcome-1 quantity| filled within the interval reaches this (MCU); 0: off',
  },
  freezeMs: {
    type: 'integer',
    minimum: 0,
    maximum: MMP_MAX_MS,
    description: 'How long a breach freezes protected orders on the event; 0: until reset',
  },
} as const;

export const mmpBodySchema = {
  type: 'object',
  properties: {
    eventId: {
      ...uuid,
      description: 'The event; absent: the account default for every event without its own',
    },
    currency,
    ...limits,
  },
  required: ['currency', 'intervalMs', 'qtyLimit', 'netLimit', 'freezeMs'],
  additionalProperties: false,
} as const;

export const mmpResetBodySchema = {
  type: 'object',
  properties: { eventId: { ...uuid, description: 'The event; absent: every event of the account' } },
  additionalProperties: false,
} as const;

const configSchema = {
  type: 'object',
  properties: { eventId: { type: ['string', 'null'] }, currency, ...limits },
  required: ['eventId', 'currency', 'intervalMs', 'qtyLimit', 'netLimit', 'freezeMs'],
  additionalProperties: false,
} as const;

export const mmpStateSchema = {
  type: 'object',
  properties: {
    configs: { type: 'array', items: configSchema },
    frozen: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          eventId: uuid,
          frozenUntil: { ...nullableIsoTime, description: 'null: until reset' },
          active: { type: 'boolean', description: 'Whether the freeze still holds now' },
        },
        required: ['eventId', 'frozenUntil', 'active'],
        additionalProperties: false,
      },
    },
  },
  required: ['configs', 'frozen'],
  additionalProperties: false,
} as const;
