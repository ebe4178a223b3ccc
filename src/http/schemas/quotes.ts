// Wire shapes of amend, queue position and mass quote (docs/http.md "Amend and mass quote").
// Level prices and quantities are checked by the service (src/runtime/quote-entry.ts) so that they
// answer INVALID_PRICE / INVALID_QTY as a placement does.

import { MAX_QUOTE_LEVELS } from '../../exchange/types.ts';
import { currency, price, uuid } from './common.ts';
import { orderSchema } from './trading.ts';

export const amendBodySchema = {
  type: 'object',
  properties: {
    price,
    qty: { type: 'integer', minimum: 1, description: 'The new remaining (unfilled) payout, MCU' },
  },
  minProperties: 1,
  additionalProperties: false,
} as const;

export const queuePositionSchema = {
  type: 'object',
  properties: {
    orderId: uuid,
    outcomeId: uuid,
    price: { type: 'number' },
    ordersAhead: { type: 'integer', minimum: 0, description: 'Orders ahead of this one at its price' },
    qtyAhead: { type: 'integer', minimum: 0, description: 'Their remaining payout in all, MCU' },
  },
  required: ['orderId', 'outcomeId', 'price', 'ordersAhead', 'qtyAhead'],
  additionalProperties: false,
} as const;

export const quoteBodySchema = {
  type: 'object',
  properties: {
    marketId: uuid,
    currency,
    quotes: {
      type: 'array',
      minItems: 1,
      maxItems: 2,
      description: 'One entry per outcome whose quote set this replaces',
      items: {
        type: 'object',
        properties: {
          outcomeId: uuid,
          levels: {
            type: 'array',
            maxItems: MAX_QUOTE_LEVELS,
            description: `The whole new set for this outcome, at most ${MAX_QUOTE_LEVELS} prices; [] cancels it`,
            items: {
              type: 'object',
              properties: {
                price: { type: 'number', description: 'A price on the tick table' },
                qty: { type: 'integer', description: 'Remaining payout to quote, MCU; 0 removes the level' },
              },
              required: ['price', 'qty'],
              additionalProperties: false,
            },
          },
        },
        required: ['outcomeId', 'levels'],
        additionalProperties: false,
      },
    },
  },
  required: ['marketId', 'currency', 'quotes'],
  additionalProperties: false,
} as const;

export const quoteSetSchema = {
  type: 'object',
  properties: {
    marketId: uuid,
    currency,
    orders: { type: 'array', items: orderSchema, description: 'The resulting quotes, best price first' },
  },
  required: ['marketId', 'currency', 'orders'],
  additionalProperties: false,
} as const;
