// The price-history chart's series from a market's trades. Pure, unit-tested.

export interface TradeWire {
  outcomeId: string;
  price: number;
  qty: number;
  created_at: string;
}

/** One point per second (the chart's time unit), outcome 0's price at that second's last trade. */
export function pricePoints(trades: TradeWire[], outcome0: string): { time: number; value: number }[] {
  const bySecond = new Map<number, number>();
  // Newest first from the server: walk oldest first so the last trade of a second wins.
  for (let i = trades.length - 1; i >= 0; i--) {
    const t = trades[i]!;
    const p = t.outcomeId === outcome0 ? t.price : Math.round((1 - t.price) * 1000) / 1000;
    bySecond.set(Math.floor(Date.parse(t.created_at) / 1000), p);
  }
  return [...bySecond].sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ time, value }));
}
