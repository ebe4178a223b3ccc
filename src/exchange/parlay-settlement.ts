// Parlay settlement (docs/parlays.md "Settlement"): when a leg's market settles, each open parlay
// with a leg there records the leg's result (WIN, LOSS, PUSH — a cancelled event's markets settle
// as PUSH, so its legs are void the same way). A parlay settles once it is decided: a leg lost, or
// no leg is left to settle. Value = Π leg values (WIN 1, LOSS 0, PUSH the leg's recorded price); the
// taker receives floor(payout × value), the maker the rest of the payout, so the parlay's
// collateral leaves to the wallets to the unit.

import { touchWallet } from './change-tracking.ts';
import { ledger } from './parlay-fills.ts';
import { declineRequestsOnMarket } from './parlay-requests.ts';
import { CURRENCY_INDEX, indexDelete, parlayView, settlementShare } from './parlay-state.ts';
import { type ExchangeState, WALLET_SLOTS } from './state.ts';
import type { ParlayRecord } from './types.ts';
import { MONEY_PER_MCU } from './units.ts';

/**
 * A market's status changed (closed, settled, its event's status moved): open requests with a leg
 * there are declined when the market no longer trades, and a settled market advances the parlays.
 * Called by the catalog commands and by settlement, after their own changes.
 */
export function parlayMarketChanged(s: ExchangeState, marketIndex: number, ts: number): void {
  if (s.parlay.empty) return;
  declineRequestsOnMarket(s, marketIndex, ts);
  if (s.markets[marketIndex]!.rec.status === 'SETTLED') advanceParlays(s, marketIndex, ts);
}

function advanceParlays(s: ExchangeState, marketIndex: number, ts: number): void {
  const ids = s.parlay.liveByMarket.get(marketIndex);
  if (ids === undefined) return;
  const market = s.markets[marketIndex]!;
  const result = market.rec.result;
  s.parlay.liveByMarket.delete(marketIndex);
  for (const id of ids) {
    const p = s.parlay.parlays.get(id)!;
    for (const leg of p.legs) {
      if (leg.marketId !== market.rec.id) continue;
      leg.status = result === 'PUSH' ? 'PUSH' : result === leg.outcomeId ? 'WIN' : 'LOSS';
    }
    const payout = p.qty * MONEY_PER_MCU[CURRENCY_INDEX(p.currency)]!;
    const takerShare = settlementShare(p.legs, payout);
    if (takerShare === null) {
      if (s.emitEvents) s.ev.push({ kind: 'ParlayChanged', parlay: parlayView(p) });
      continue;
    }
    settleParlay(s, p, payout, takerShare, ts);
  }
}

function settleParlay(
  s: ExchangeState,
  p: ParlayRecord,
  payout: number,
  takerShare: number,
  ts: number,
): void {
  const currencyIndex = CURRENCY_INDEX(p.currency);
  const makerShare = payout - takerShare;
  for (const [accountId, amount, kind] of [
    [p.takerAccountId, takerShare, 'SETTLE_PARLAY_TAKER_FUNDS'],
    [p.makerAccountId, makerShare, 'SETTLE_PARLAY_MAKER_FUNDS'],
  ] as const) {
    if (amount <= 0) continue;
    const a = s.accounts[s.accountIdx.get(accountId)!]!;
    s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! += amount;
    touchWallet(s, a, currencyIndex);
    if (s.emitEvents) ledger(s, accountId, p.currency, kind, amount, p.id);
  }
  s.parlay.collateral[currencyIndex]! -= payout;
  s.paidOut[currencyIndex]! += payout;
  p.status = 'SETTLED';
  p.takerPayout = takerShare;
  p.makerPayout = makerShare;
  p.settledAt = ts;
  // the parlay leaves the indexes of its other (still unsettled) legs' markets
  for (const leg of p.legs) indexDelete(s.parlay.liveByMarket, s.marketIdx.get(leg.marketId)!, p.id);
  if (s.emitEvents) s.ev.push({ kind: 'ParlayChanged', parlay: parlayView(p) });
}
