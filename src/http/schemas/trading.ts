// Wire shapes of balances and wallets (docs/http.md "Orders and account") and the order-entry
// bodies. Orders, fills and positions are declared with what produces them, in src/wire/trading.ts.

import { STP_MODES, TIFS } from '../../exchange/types.ts';
import { MAX_QTY_MCU } from '../../exchange/units.ts';
import { MAX_TTL_MS } from '../../runtime/place-command.ts';
import { currency, price, units, uuid } from './common.ts';

export { fillSchema, orderSchema, orderWithFillsSchema, positionSchema } from '../../wire/trading.ts';

export const itemErrorSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
      required: ['code', 'message'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;

export const placeBodySchema = {
  type: 'object',
  properties: {
    outcomeId: uuid,
    price,
    qty: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_QTY_MCU,
      description:
        'Payout in MCU, a positive integer; its payout at most 10 billion currency units (CASH 1e12 MCU, COIN 1e10 MCU)',
    },
    currency,
    tif: { type: 'string', enum: [...TIFS], description: 'Time in force' },
    ttl: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_TTL_MS,
      description: 'GTT only: milliseconds to live, at most 30 days (2592000000)',
    },
    flags: { type: 'string', maxLength: 8 },
    clientOrderId: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'Idempotency key: the same id returns the same order',
    },
    stp: {
      type: 'string',
      enum: [...STP_MODES],
      description:
        'Self-trade prevention when this order meets its own account’s resting order: CANCEL_BOTH (the default), CANCEL_TAKER or CANCEL_MAKER',
    },
    reprice: {
      type: 'boolean',
      description: 'tif PO only: rest at the best non-crossing price instead of POST_ONLY_WOULD_TAKE',
    },
    mmp: {
      type: 'boolean',
      description:
        'Protected by market-maker protection (PUT /nbx/v2/emm/mmp first): a breach cancels it; refused while frozen',
    },
  },
  required: ['outcomeId', 'price', 'qty', 'currency', 'tif'],
  additionalProperties: false,
} as const;

export const balanceSchema = {
  type: 'object',
  properties: { balance: { ...units, description: 'Available funds, currency units' }, currency },
  required: ['balance', 'currency'],
  additionalProperties: false,
} as const;

export const openCostsSchema = {
  type: 'object',
  properties: {
    openPositionCost: { ...units, description: 'Cost of open positions' },
    openOrderCost: { ...units, description: 'Collateral reserved by resting orders' },
    openParlayCost: {
      ...units,
      description: 'Money locked in open parlays: stakes as taker, collateral as maker (docs/parlays.md)',
    },
    credit: { ...units, description: 'Credit line (Tickbook grants none: 0)' },
    currency,
  },
  required: ['openPositionCost', 'openOrderCost', 'openParlayCost', 'credit', 'currency'],
  additionalProperties: false,
} as const;

export const walletSchema = {
  type: 'object',
  properties: {
    accountId: uuid,
    currency,
    balance: { ...units, description: 'Available funds after the operation' },
    reserved: { ...units, description: 'Collateral reserved by resting orders' },
  },
  required: ['accountId', 'currency', 'balance', 'reserved'],
  additionalProperties: false,
} as const;
