// A market's book on the wire (docs/exchange.md "Books and matching"): aggregated levels seen from outcome index 0 plus the
// production per-outcome ladders of individual resting bids (docs/http.md "Markets and books"). Prices
// leave as numbers with ≤ 3 decimals (Tick 667 → 0.667); qty is the integer payout in MCU.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Currency, Id, MarketRecord, OrderRecord } from '../exchange/types.ts';
import { tickToPrice } from '../exchange/units.ts';
import { isoMillis } from './names.ts';

export interface WireLevel {
  price: number;
  qty: number;
}

export interface WireLadderBid {
  id: Id;
  price: number;
  qty: number;
  originalQty: number;
  currency: Currency;
  outcomeId: Id;
  marketId: Id;
  status: 'RESTING';
  created_at: string;
}

export interface WireBook {
  marketId: Id;
  marketDescription: string;
  bids: WireLevel[];
  asks: WireLevel[];
  outcomeLadders: { outcomeId: Id; bids: WireLadderBid[] }[];
  /** The book's sequence number (ExchangeReader.bookSeq): moves with every change of this book. */
  seq: number;
  /** When the edge first saw this `seq` (ISO 8601 ms). */
  asOf: string;
}

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
