// Wire shapes of orders, fills, positions and balances (docs/http.md "Orders and
// account"), exactly what src/http/wire/trading.ts produces, and the order-entry bodies.

import { ORDER_STATUSES, TIFS } from '../../exchange/types.ts';
import { MAX_TTL_MS } from '../../runtime/order-entry.ts';
import { currency, isoTime, nullableIsoTime, price, qtyMcu, units, uuid } from './common.ts';

export const orderSchema = {
  type: 'object',
  properties: {
    id: uuid,
    outcomeId: uuid,
    marketId: uuid,
    price: { type: 'number' },
    qty: { ...qtyMcu, description: 'Remaining (unfilled) payout, MCU' },
    originalQty: qtyMcu,
    filledQty: qtyMcu,
    currency,
    tif: { type: 'string', enum: [...TIFS] },
    expiresAt: nullableIsoTime,
    flags: { type: ['string', 'null'] },
    clientOrderId: { type: ['string', 'null'] },
    status: { type: 'string', enum: [...ORDER_STATUSES] },
    created_at: isoTime,
    updated_at: isoTime,
  },
  required: [
    'id',
    'outcomeId',
    'marketId',
    'price',
    'qty',
    'originalQty',
    'filledQty',
    'currency',
    'tif',
    'expiresAt',
    'flags',
    'clientOrderId',
    'status',
    'created_at',
    'updated_at',
  ],
  additionalProperties: false,
} as const;

export const fillSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    orderId: uuid,
    outcomeId: uuid,
    marketId: uuid,
    qty: qtyMcu,
    price: { type: 'number', description: 'Price this side paid for its outcome' },
    currency,
    isTaker: { type: 'boolean' },
    isWash: { type: 'boolean', description: 'Self-trade prevention cancelled both orders; no money moved' },
    fee: { ...units, description: 'Fee charged to this side, currency units' },
    feeCoefficient: { type: 'number' },
    transactions: {
      type: 'array',
      items: {
        type: 'object',
        properties: { kind: { type: 'string', enum: ['TRADE', 'FEE'] }, amount: units },
        required: ['kind', 'amount'],
        additionalProperties: false,
      },
    },
    created_at: isoTime,
  },
  required: [
    'id',
    'orderId',
    'outcomeId',
    'marketId',
    'qty',
    'price',
    'currency',
    'isTaker',
    'isWash',
    'fee',
    'feeCoefficient',
    'transactions',
    'created_at',
  ],
  additionalProperties: false,
} as const;

/** An order with the fills its placement produced (POST /orders/place, 201). */
export const orderWithFillsSchema = {
  type: 'object',
  properties: { ...orderSchema.properties, fills: { type: 'array', items: fillSchema } },
  required: [...orderSchema.required, 'fills'],
  additionalProperties: false,
} as const;

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
    qty: { type: 'integer', minimum: 1, description: 'Payout in MCU, a positive integer' },
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
  },
  required: ['outcomeId', 'price', 'qty', 'currency', 'tif'],
  additionalProperties: false,
} as const;

export const positionSchema = {
  type: 'object',
  properties: {
    marketId: uuid,
    outcomeId: uuid,
    size: { ...qtyMcu, description: 'Payout held, MCU' },
    cost: { ...units, description: 'What was paid for it, currency units' },
    currency,
  },
  required: ['marketId', 'outcomeId', 'size', 'cost', 'currency'],
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
