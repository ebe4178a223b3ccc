// Settlement: settling a market pays its collateral to the winners, or back pro rata on a push
// (docs/exchange.md "Settlement").

import { catalogChanged, touchPos, touchWallet } from './change-tracking.ts';
import { reject } from './command-checks.ts';
import { parlayMarketSettled, takeParlayBudget } from './parlay-settlement.ts';
import { dropPos } from './positions.ts';
import { cancelMarketOrders } from './resting-orders.ts';
import {
  type Account,
  type Cmd,
  type ExchangeState,
  type MarketState,
  ok,
  type Pos,
  WALLET_SLOTS,
} from './state.ts';
import { type CommandResult, CURRENCIES, type Id } from './types.ts';
import { MONEY_PER_MCU, mulDivFloor } from './units.ts';

/**
 * Settlement rule: the market must be CLOSED, or its event FINAL or CANCELED (then an OPEN market
 * may be settled directly). Remaining orders are cancelled first.
 */
export function settleMarket(s: ExchangeState, c: Cmd<'SettleMarket'>): CommandResult {
  const marketIndex = s.marketIdx.get(c.marketId);
  if (marketIndex === undefined) return reject('MARKET_NOT_FOUND');
  const market = s.markets[marketIndex]!;
  if (market.rec.status === 'SETTLED') return reject('ALREADY_SETTLED');
  const eventStatus = market.event.status;
  if (market.rec.status !== 'CLOSED' && eventStatus !== 'FINAL' && eventStatus !== 'CANCELED') {
    return reject('INVALID_TRANSITION', 'close the market (or finish the event) before settling');
  }
  if (c.result !== 'PUSH' && !market.rec.outcomeIds.includes(c.result)) {
    return reject('OUTCOME_NOT_FOUND', `result must be one of the market's outcomes or PUSH`);
  }
  const budget = takeParlayBudget(s, c.parlayBudget);
  if (budget !== null) return budget;
  doSettle(s, market, c.result, c.ts);
  catalogChanged(s, [market.event.id], [market.rec.id]);
  return ok(s);
}

/**
 * Pays out a market. A win pays each winning position its full payout (the market's collateral is
 * exactly the winners' payout). PUSH (void) returns the collateral pro rata to cost: each position
 * gets floor(cost × collateral / Σcost) and the few Money left by flooring go one each to the first
 * positions in account order. Without netting in the market collateral = Σcost, so every position
 * gets exactly its cost back; netting may have realized P&L, and pro rata keeps money conserved.
 */
export function doSettle(s: ExchangeState, market: MarketState, result: Id | 'PUSH', ts: number): void {
  cancelMarketOrders(s, market.idx, ts);
  const win = result === 'PUSH' ? -1 : market.rec.outcomeIds.indexOf(result);
  for (let currencyIndex = 0; currencyIndex < 2; currencyIndex++) {
    const holders: { a: Account; p: Pos }[] = [];
    let sumCost = 0;
    for (const a of s.accounts) {
      for (let side = 0; side < 2; side++) {
        const key = (market.idx * 2 + side) * 2 + currencyIndex;
        const p = a.positions.get(key);
        if (p && p.size === 0)
          dropPos(a, p); // netted-out entry: nothing to pay
        else if (p) {
          holders.push({ a, p });
          sumCost += p.cost;
        }
      }
    }
    const pool = market.collateral[currencyIndex]!;
    let left = pool;
    const pays: number[] = holders.map(({ p }) => {
      let pay = 0;
      if (win >= 0) pay = (p.key >> 1) % 2 === win ? p.size * MONEY_PER_MCU[currencyIndex]! : 0;
      else if (sumCost > 0) pay = mulDivFloor(p.cost, pool, sumCost);
      left -= pay;
      return pay;
    });
    if (win < 0) for (let i = 0; left > 0 && i < pays.length; i++, left--) pays[i]!++;
    holders.forEach(({ a, p }, i) => {
      const pay = pays[i]!;
      if (pay > 0) {
        s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! += pay;
        s.paidOut[currencyIndex]! += pay;
        touchWallet(s, a, currencyIndex);
        s.ev.push({
          kind: 'LedgerEntry',
          accountId: a.id,
          currency: CURRENCIES[currencyIndex]!,
          entryKind: win >= 0 ? 'SETTLEMENT' : 'REFUND',
          amount: pay,
          ref: market.rec.id,
        });
      }
      p.size = 0;
      p.cost = 0;
      touchPos(s, a, p);
      dropPos(a, p);
    });
    market.collateral[currencyIndex] = 0;
  }
  market.rec.status = 'SETTLED';
  market.rec.settledAt = ts;
  market.rec.result = result;
  market.outcomes.forEach((o, i) => {
    o.status = win < 0 ? 'PUSH' : i === win ? 'WIN' : 'LOSS';
  });
  s.ev.push({ kind: 'MarketSettled', marketId: market.rec.id, result });
  parlayMarketSettled(s, market.idx, ts);
}
