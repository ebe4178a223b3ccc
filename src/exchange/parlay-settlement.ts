// Parlay settlement (docs/parlays.md "Settlement"): when a leg's market settles, each open parlay
// with a leg there records the leg's result (WIN, LOSS, PUSH — a cancelled event's markets settle
// as PUSH, so its legs are void the same way). A parlay settles once it is decided: a leg lost, or
// no leg is left to settle. Value = Π leg values (WIN 1, LOSS 0, PUSH the leg's recorded price); the
// taker receives floor(payout × value), the maker the rest of the payout, so the parlay's
// collateral leaves to the wallets to the unit.
//
// In chunks (docs/parlays.md "Settlement in chunks"): a settling command advances at most its
// `parlayBudget` of the market's parlays; the rest stay due — open, their leg there still TBD, their
// money still held as collateral — until SettleParlays commands advance them, `max` at a time, in
// fill order. Each command is journaled, so replay advances the same parlays in the same commands.

import { touchWallet } from './change-tracking.ts';
import { isSafePos, reject } from './command-checks.ts';
import { ledger } from './parlay-fills.ts';
import { declineRequestsOnMarket } from './parlay-requests.ts';
import { CURRENCY_INDEX, indexDelete, parlayView, settlementShare } from './parlay-state.ts';
import { type Cmd, type ExchangeState, ok, WALLET_SLOTS } from './state.ts';
import type { CommandResult, Id, Money, ParlayRecord } from './types.ts';
import { MONEY_PER_MCU } from './units.ts';

/**
 * A market's status changed (closed, settled, its event's status moved): open requests with a leg
 * there are declined when the market no longer trades. Called by the catalog commands and by
 * settlement, after their own changes.
 */
export function parlayMarketChanged(s: ExchangeState, marketIndex: number, ts: number): void {
  if (s.parlay.empty) return;
  declineRequestsOnMarket(s, marketIndex, ts);
}

/** The market was just settled (settlement.ts): its parlays advance, within the command's budget. */
export function parlayMarketSettled(s: ExchangeState, marketIndex: number, ts: number): void {
  if (s.parlay.empty) return;
  declineRequestsOnMarket(s, marketIndex, ts);
  if (s.parlay.liveByMarket.has(marketIndex)) s.parlay.due.add(marketIndex);
  advanceParlays(s, marketIndex, ts);
}

/** Checks a settling command's `parlayBudget` (absent: no limit) and makes it the command's. */
export function takeParlayBudget(s: ExchangeState, budget: unknown): CommandResult | null {
  if (budget !== undefined && !isSafePos(budget))
    return reject('VALIDATION_FAILED', 'parlayBudget: positive integer or absent');
  s.parlay.budget = budget === undefined ? Number.POSITIVE_INFINITY : (budget as number);
  return null;
}

export function settleParlays(s: ExchangeState, c: Cmd<'SettleParlays'>): CommandResult {
  const marketIndex = typeof c.marketId === 'string' ? s.marketIdx.get(c.marketId) : undefined;
  if (marketIndex === undefined) return reject('MARKET_NOT_FOUND');
  if (!isSafePos(c.max)) return reject('VALIDATION_FAILED', 'max: positive integer');
  if (!s.parlay.due.has(marketIndex))
    return reject('INVALID_TRANSITION', 'no parlays are due on this market');
  s.parlay.budget = c.max;
  advanceParlays(s, marketIndex, c.ts);
  return ok(s);
}

/** The settled markets with parlays still to advance, in the order they became due. */
export function dueMarkets(s: ExchangeState): { marketId: Id; parlays: number }[] {
  const out: { marketId: Id; parlays: number }[] = [];
  for (const m of s.parlay.due)
    out.push({ marketId: s.markets[m]!.rec.id, parlays: s.parlay.liveByMarket.get(m)?.size ?? 0 });
  return out;
}

/**
 * Advances the market's due parlays in fill order while the command's budget lasts. The money
 * totals (parlay collateral, paid out) move once per command, by the sum.
 */
function advanceParlays(s: ExchangeState, marketIndex: number, ts: number): void {
  const ids = s.parlay.liveByMarket.get(marketIndex);
  if (ids === undefined || s.parlay.budget <= 0) return;
  const market = s.markets[marketIndex]!;
  const marketId = market.rec.id;
  const result = market.rec.result;
  const paid = [0, 0];
  for (const id of ids) {
    if (s.parlay.budget <= 0) break;
    s.parlay.budget--;
    ids.delete(id); // deleting the visited entry keeps a Set's iteration going (ECMA-262 §24.2)
    const p = s.parlay.parlays.get(id)!;
    for (const leg of p.legs) {
      if (leg.marketId !== marketId) continue;
      leg.status = result === 'PUSH' ? 'PUSH' : result === leg.outcomeId ? 'WIN' : 'LOSS';
    }
    const currencyIndex = CURRENCY_INDEX(p.currency);
    const payout = p.qty * MONEY_PER_MCU[currencyIndex]!;
    const takerShare = settlementShare(p.legs, payout);
    if (takerShare === null) {
      if (s.emitEvents) s.ev.push({ kind: 'ParlayChanged', parlay: parlayView(p) });
      continue;
    }
    settleParlay(s, p, currencyIndex, payout, takerShare, ts);
    paid[currencyIndex]! += payout;
  }
  if (ids.size === 0) {
    s.parlay.liveByMarket.delete(marketIndex);
    s.parlay.due.delete(marketIndex);
  }
  for (let i = 0; i < 2; i++) {
    s.parlay.collateral[i]! -= paid[i]!;
    s.paidOut[i]! += paid[i]!;
  }
}

function settleParlay(
  s: ExchangeState,
  p: ParlayRecord,
  currencyIndex: number,
  payout: Money,
  takerShare: Money,
  ts: number,
): void {
  const makerShare = payout - takerShare;
  if (takerShare > 0) pay(s, p, p.takerAccountId, currencyIndex, takerShare, 'SETTLE_PARLAY_TAKER_FUNDS');
  if (makerShare > 0) pay(s, p, p.makerAccountId, currencyIndex, makerShare, 'SETTLE_PARLAY_MAKER_FUNDS');
  p.status = 'SETTLED';
  p.takerPayout = takerShare;
  p.makerPayout = makerShare;
  p.settledAt = ts;
  // the parlay leaves the indexes of its other (still unsettled) legs' markets and its accounts' open sets
  for (const leg of p.legs) {
    if (leg.status !== 'TBD') continue;
    const m = s.marketIdx.get(leg.marketId)!;
    indexDelete(s.parlay.liveByMarket, m, p.id);
    if (!s.parlay.liveByMarket.has(m)) s.parlay.due.delete(m);
  }
  s.parlay.byAccount.get(p.takerAccountId)!.open.delete(p.id);
  s.parlay.byAccount.get(p.makerAccountId)!.open.delete(p.id);
  // A settled parlay's record never changes again, so its event can carry the record itself
  // rather than a copy (one allocation fewer per parlay; readers of events never mutate them).
  if (s.emitEvents) s.ev.push({ kind: 'ParlayChanged', parlay: p });
}

function pay(
  s: ExchangeState,
  p: ParlayRecord,
  accountId: Id,
  currencyIndex: number,
  amount: Money,
  kind: 'SETTLE_PARLAY_TAKER_FUNDS' | 'SETTLE_PARLAY_MAKER_FUNDS',
): void {
  const a = s.accounts[s.accountIdx.get(accountId)!]!;
  s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! += amount;
  touchWallet(s, a, currencyIndex);
  if (s.emitEvents) ledger(s, accountId, p.currency, kind, amount, p.id);
}
