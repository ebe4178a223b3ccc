// The board's three lines per game: the moneyline, and of the spreads and totals the one whose
// price is nearest even (the line a sportsbook would headline). Pure, unit-tested.

import type { MarketWire } from './api.ts';
import { ladderFor } from './ladder.ts';

export type LineKind = 'MONEY' | 'SPREAD' | 'TOTAL';

/** A full-game moneyline, spread or total, whether the wire names it by code or by name. */
export function lineKind(type: string): LineKind | undefined {
  const t = type.toUpperCase();
  if (t === 'MONEY' || t === 'MONEYLINE') return 'MONEY';
  if (t === 'SPREAD') return 'SPREAD';
  if (t === 'TOTAL') return 'TOTAL';
  return undefined;
}

/** Outcome 0's mid price, from the best prices to buy each side; undefined for an empty book. */
export function mid(m: MarketWire): number | undefined {
  const buy0 = ladderFor(m.book, 0).asks[0]?.price;
  const buy1 = ladderFor(m.book, 1).asks[0]?.price;
  if (buy0 !== undefined && buy1 !== undefined) return (buy0 + (1 - buy1)) / 2;
  return buy0 ?? (buy1 === undefined ? undefined : 1 - buy1);
}

/** One market per kind for one event (open markets only), in the order money, spread, total. */
export function mainLines(markets: readonly MarketWire[]): Partial<Record<LineKind, MarketWire>> {
  const out: Partial<Record<LineKind, MarketWire>> = {};
  const score = (m: MarketWire) => {
    const p = mid(m);
    return p === undefined ? 1 : Math.abs(p - 0.5);
  };
  for (const m of markets) {
    const k = lineKind(m.type);
    if (k === undefined || m.status !== 'OPEN') continue;
    const best = out[k];
    if (best === undefined || score(m) < score(best)) out[k] = m;
  }
  return out;
}
