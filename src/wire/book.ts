// A market's book on the wire (docs/exchange.md "Books and matching"): aggregated levels seen from outcome index 0 plus the
// production per-outcome ladders of individual resting bids (docs/http.md "Markets and books"). Prices
// leave as numbers with ≤ 3 decimals (Tick 667 → 0.667); qty is the integer payout in MCU. The shape
// is its schema; its type is derived (./schema.ts).

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Currency, MarketRecord, OrderRecord } from '../exchange/types.ts';
import { tickToPrice } from '../exchange/units.ts';
import { isoMillis } from './names.ts';
import { currency, isoTime, qtyMcu, uuid, type Wire } from './schema.ts';

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

export type WireLevel = Wire<typeof levelSchema>;
export type WireLadderBid = Wire<typeof ladderBidSchema>;
export type WireBook = Wire<typeof bookSchema>;

function ladderBid(o: OrderRecord): WireLadderBid {
  return {
    id: o.id,
    price: tickToPrice(o.price),
    qty: o.qty,
    originalQty: o.originalQty,
    currency: o.currency,
    outcomeId: o.outcomeId,
    marketId: o.marketId,
    status: 'RESTING',
    created_at: isoMillis(o.createdAt),
  };
}

export function bookToWire(r: ExchangeReader, m: MarketRecord, currency: Currency, asOfMs: number): WireBook {
  const { bids, asks } = r.bookLevels(m.id, currency);
  return {
    marketId: m.id,
    marketDescription: m.description,
    bids: bids.map((l) => ({ price: tickToPrice(l.price), qty: l.qty })),
    asks: asks.map((l) => ({ price: tickToPrice(l.price), qty: l.qty })),
    outcomeLadders: m.outcomeIds.map((outcomeId) => ({
      outcomeId,
      bids: r.restingOrders(outcomeId, currency).map(ladderBid),
    })),
    seq: r.bookSeq(m.id, currency),
    asOf: isoMillis(asOfMs),
  };
}
