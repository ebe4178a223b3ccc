// The demo market maker's answers to parlay requests (docs/parlays.md "Quotes"): it prices each new
// request from its own view of the legs — the middle of its own book on each leg's market — as if
// the legs were independent, adds its own margin, and quotes firm for a fixed payout. Its price is
// not the house's (which is correlated and carries the operator's margin), so the living demo shows
// two makers competing on every request. A pure function of the state and the clock: the runtime's
// scheduler submits the commands through the exchange port like any maker's.

import type { ExchangeReader } from '../exchange/reader.ts';
import { ONE } from '../exchange/ticks.ts';
import type { Currency, Id, ParlayRequestRecord } from '../exchange/types.ts';
import { moneyPerMcu } from '../exchange/units.ts';

/** Its margin over the product of its legs' mids. */
export const DEMO_PARLAY_MARGIN = 0.03;
/** Payout it quotes per request, MCU: 500.00 Cash, 500 Coin. */
const PAYOUT: Record<Currency, number> = { CASH: 50_000, COIN: 500 };
/** It answers a request within this long after it was made. */
const QUOTE_WINDOW_MS = 5_000;
const PPM = 1_000_000;

/** The middle of the book on one outcome (probability), or undefined without a bid on both sides. */
function legMid(reader: ExchangeReader, outcomeId: Id, currency: Currency): number | undefined {
  const o = reader.outcome(outcomeId);
  const m = o === undefined ? undefined : reader.market(o.marketId);
  if (m === undefined || m.status !== 'OPEN') return undefined;
  const other = m.outcomeIds[0] === outcomeId ? m.outcomeIds[1] : m.outcomeIds[0];
  const own = reader.bestBid(outcomeId, currency);
  const opp = reader.bestBid(other, currency);
  if (own === null || opp === null) return undefined;
  return (own.price + (ONE - opp.price)) / 2 / ONE;
}

/** Its price for a request, parts per million, or undefined when it has no view of a leg. */
export function demoParlayPrice(reader: ExchangeReader, r: ParlayRequestRecord): number | undefined {
  let p = 1;
  for (const leg of r.legs) {
    const mid = legMid(reader, leg.outcomeId, r.currency);
    if (mid === undefined) return undefined;
    p *= mid;
  }
  const ppm = Math.round(p * (1 + DEMO_PARLAY_MARGIN) * PPM);
  return ppm >= 1_000 && ppm <= 990_000 ? ppm : undefined;
}

/** The demo maker's quotes due at `now`: one per recent open request it has not quoted. */
export function demoParlayQuotes(reader: ExchangeReader, now: number, accountId: Id) {
  if (!reader.hasAccount(accountId)) return [];
  const out: {
    type: 'ParlayQuote';
    quoteId: Id;
    requestId: Id;
    accountId: Id;
    price: number;
    maxQty: number;
    expiresAt: number;
  }[] = [];
  for (const r of reader.openParlayRequests()) {
    if (r.expiresAt <= now || r.createdAt <= now - QUOTE_WINDOW_MS || r.accountId === accountId) continue;
    if (r.quotes.some((q) => q.accountId === accountId)) continue;
    const price = demoParlayPrice(reader, r);
    if (price === undefined) continue;
    const maxQty = PAYOUT[r.currency];
    // Firm: quote only what its wallet can collateralise now (the engine checks it again).
    const collateral = Math.ceil((maxQty * moneyPerMcu(r.currency) * (PPM - price)) / PPM);
    if ((reader.wallet(accountId, r.currency)?.available ?? 0) < collateral) continue;
    out.push({
      type: 'ParlayQuote',
      quoteId: `demo:${r.id}`,
      requestId: r.id,
      accountId,
      price,
      maxQty,
      expiresAt: r.expiresAt,
    });
  }
  return out;
}
