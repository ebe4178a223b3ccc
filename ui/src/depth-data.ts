// The depth chart's series on a true price axis. The chart library spaces its points evenly, one
// slot per point, whatever their values; fed only the book's levels, 0.515 → 0.530 looked as far as
// 0.530 → 0.545. So the series get one point per 0.001 between the lowest bid and the highest
// offer: evenly spaced points then mean an evenly spaced price axis, and the empty spread shows as
// a gap (whitespace points) of its real width.

import type { Level } from './api.ts';

export interface DepthPoint {
  /** The price (the library's horizontal key). */
  time: number;
  /** Cumulative quantity from the touch to this price; absent in the spread (a gap). */
  value?: number;
}

const toMilli = (p: number) => Math.round(p * 1000);

/**
 * Bids (best first, descending) and asks (best first, ascending) to two series over the same
 * 0.001 grid: a bid point's value is the quantity bid at this price or better, an ask point's the
 * quantity offered at this price or better.
 */
export function depthSeries(
  bids: readonly Level[],
  asks: readonly Level[],
): { bids: DepthPoint[]; asks: DepthPoint[] } {
  const all = [...bids, ...asks].map((l) => toMilli(l.price));
  if (all.length === 0) return { bids: [], asks: [] };
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const bidAt = new Map<number, number>();
  for (const l of bids) bidAt.set(toMilli(l.price), (bidAt.get(toMilli(l.price)) ?? 0) + l.qty);
  const askAt = new Map<number, number>();
  for (const l of asks) askAt.set(toMilli(l.price), (askAt.get(toMilli(l.price)) ?? 0) + l.qty);
  const bestBid = bids.length > 0 ? toMilli(bids[0]!.price) : lo - 1;
  const bestAsk = asks.length > 0 ? toMilli(asks[0]!.price) : hi + 1;

  const bidPts: DepthPoint[] = [];
  let sum = 0;
  for (let t = hi; t >= lo; t--) {
    sum += bidAt.get(t) ?? 0;
    bidPts.push(t <= bestBid ? { time: t / 1000, value: sum } : { time: t / 1000 });
  }
  bidPts.reverse();
  const askPts: DepthPoint[] = [];
  sum = 0;
  for (let t = lo; t <= hi; t++) {
    sum += askAt.get(t) ?? 0;
    askPts.push(t >= bestAsk ? { time: t / 1000, value: sum } : { time: t / 1000 });
  }
  return { bids: bidPts, asks: askPts };
}
