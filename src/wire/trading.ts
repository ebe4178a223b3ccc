// Trading and account records → wire objects (docs/http.md "Orders and account").
// Prices leave as numbers (Tick → 0.667), quantities as integer MCU payout, money as currency units
// (Money 173_842_000 → 1738.42) through the one conversion pair of src/exchange/units.ts. Time
// stamps of orders and fills are `created_at` (snake case), as the production ladder rows are.
// Each shape is its schema (the route responses' too); its type is derived (./schema.ts).

import { type Fill, ORDER_STATUSES, type OrderRecord, type Position, TIFS } from '../exchange/types.ts';
import { bidCost, moneyToUnits, tickToPrice } from '../exchange/units.ts';
import { isoMillis, isoOrNull } from './names.ts';
import { currency, isoTime, nullableIsoTime, qtyMcu, units, uuid, type Wire } from './schema.ts';

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

export type WireOrder = Wire<typeof orderSchema>;
export type WireFill = Wire<typeof fillSchema>;
export type WirePosition = Wire<typeof positionSchema>;

export function orderToWire(o: OrderRecord, filledQty?: number): WireOrder {
  return {
    id: o.id,
    outcomeId: o.outcomeId,
    marketId: o.marketId,
    price: tickToPrice(o.price),
    qty: o.qty,
    originalQty: o.originalQty,
    // Filled payout: `qty` is what remained unfilled (a cancel keeps the remainder it cancelled).
    filledQty: filledQty ?? o.originalQty - o.qty,
    currency: o.currency,
    tif: o.tif,
    expiresAt: isoOrNull(o.expiresAt),
    flags: o.flags,
    clientOrderId: o.clientOrderId,
    status: o.status,
    created_at: isoMillis(o.createdAt),
    updated_at: isoMillis(o.updatedAt),
  };
}

/**
 * A fill's ledger movements: the trade leg (price × qty paid for the outcome) and the taker fee when
 * one was charged. A wash (self-trade prevention) moves no money (docs/exchange.md "Books and matching").
 */
export function fillToWire(f: Fill): WireFill {
  const transactions: WireFill['transactions'] = [];
  if (!f.isWash) {
    transactions.push({ kind: 'TRADE', amount: -moneyToUnits(bidCost(f.price, f.qty, f.currency)) });
    if (f.fee !== 0) transactions.push({ kind: 'FEE', amount: -moneyToUnits(f.fee) });
  }
  return {
    id: f.id,
    orderId: f.orderId,
    outcomeId: f.outcomeId,
    marketId: f.marketId,
    qty: f.qty,
    price: tickToPrice(f.price),
    currency: f.currency,
    isTaker: f.isTaker,
    isWash: f.isWash,
    fee: moneyToUnits(f.fee),
    feeCoefficient: f.feeCoefficient,
    transactions,
    created_at: isoMillis(f.ts),
  };
}

export function positionToWire(p: Position): WirePosition {
  return {
    marketId: p.marketId,
    outcomeId: p.outcomeId,
    size: p.size,
    cost: moneyToUnits(p.cost),
    currency: p.currency,
  };
}
