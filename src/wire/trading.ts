// Trading and account records → wire objects (docs/http.md "Orders and account").
// Prices leave as numbers (Tick → 0.667), quantities as integer MCU payout, money as currency units
// (Money 173_842_000 → 1738.42) through the one conversion pair of src/exchange/units.ts. Time
// stamps of orders and fills are `created_at` (snake case), as the production ladder rows are.

import type { Currency, Fill, Id, OrderRecord, Position } from '../exchange/types.ts';
import { bidCost, moneyToUnits, tickToPrice } from '../exchange/units.ts';
import { isoMillis, isoOrNull } from './names.ts';

export interface WireFill {
  id: Id;
  orderId: Id;
  outcomeId: Id;
  marketId: Id;
  qty: number;
  price: number;
  currency: Currency;
  isTaker: boolean;
  isWash: boolean;
  /** Currency units. */
  fee: number;
  feeCoefficient: number;
  /** Money this fill moved for the account, currency units (negative: paid). */
  transactions: { kind: 'TRADE' | 'FEE'; amount: number }[];
  created_at: string;
}

export interface WireOrder {
  id: Id;
  outcomeId: Id;
  marketId: Id;
  price: number;
  /** Remaining payout, MCU. */
  qty: number;
  originalQty: number;
  filledQty: number;
  currency: Currency;
  tif: string;
  expiresAt: string | null;
  flags: string | null;
  clientOrderId: string | null;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface WirePosition {
  marketId: Id;
  outcomeId: Id;
  /** Payout held, MCU. */
  size: number;
  /** What was paid for it, currency units. */
  cost: number;
  currency: Currency;
}

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
