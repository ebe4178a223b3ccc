// Every outcome the same-game model covers is a half-line on the home margin M or the total T
// (docs/pricing.md; strike conventions in src/exchange/types.ts, MarketRecord.strike):
//   MONEY   outcome 0 (home wins)      M > 0            outcome 1  M < 0
//   SPREAD  outcome 0 (home covers s)  M + s > 0, M > −s  outcome 1  M < −s
//   TOTAL   outcome 0 (over t)         T > t            outcome 1  T < t
// Lines are half-points in practice, so whether an end is open or closed does not matter for a
// continuous model. Other market types (TEAM_TOTAL, first-half markets, YES_NO, props) are not a
// function of (M, T) alone and have no half-line.

import type { MarketRecord } from '../exchange/types.ts';

export type Variable = 'M' | 'T';

export interface HalfLine {
  variable: Variable;
  /** 'above': variable > line; 'below': variable < line. */
  side: 'above' | 'below';
  line: number;
}

/** The half-line of outcome `index` of a market, or null when the model does not cover the market. */
export function halfLineOf(market: MarketRecord, index: 0 | 1): HalfLine | null {
  const side = index === 0 ? 'above' : 'below';
  switch (market.type) {
    case 'MONEY':
      return { variable: 'M', side, line: 0 };
    case 'SPREAD':
      if (market.strike === null || !Number.isFinite(market.strike)) return null;
      return { variable: 'M', side, line: market.strike === 0 ? 0 : -market.strike };
    case 'TOTAL':
      if (market.strike === null || !Number.isFinite(market.strike)) return null;
      return { variable: 'T', side, line: market.strike };
    default:
      return null;
  }
}

/** The interval (lo, hi) that a set of half-lines on one variable leaves; empty when lo >= hi. */
export function intersect(lines: readonly HalfLine[], variable: Variable): { lo: number; hi: number } {
  let lo = Number.NEGATIVE_INFINITY;
  let hi = Number.POSITIVE_INFINITY;
  for (const h of lines) {
    if (h.variable !== variable) continue;
    if (h.side === 'above') lo = Math.max(lo, h.line);
    else hi = Math.min(hi, h.line);
  }
  return { lo, hi };
}
