// Settlement: settling a market pays its collateral to the winners, or back pro rata on a push
// (docs/exchange.md "Settlement").

import { catalogChanged } from './catalog-commands.ts';
import { touchPos, touchWallet } from './change-tracking.ts';
import { reject } from './command-checks.ts';
import { dropPos } from './positions.ts';
import { cancelMarketOrders } from './resting-orders.ts';
import { type Account, type Cmd, type ExchangeState, type MarketState, ok, type Pos, WS } from './state.ts';
import { type CommandResult, CURRENCIES, type Id } from './types.ts';
import { MONEY_PER_MCU, mulDivFloor } from './units.ts';

/**
 * Settlement rule: the market must be CLOSED, or its event FINAL or CANCELED (then an OPEN market
 * may be settled directly). Remaining orders are cancelled first.
 */
export function settleMarket(s: ExchangeState, c: Cmd<'SettleMarket'>): CommandResult {
  const mi = s.marketIdx.get(c.marketId);
  if (mi === undefined) return reject('MARKET_NOT_FOUND');
  const ms = s.markets[mi]!;
  if (ms.rec.status === 'SETTLED') return reject('ALREADY_SETTLED');
  const es = ms.event.status;
  if (ms.rec.status !== 'CLOSED' && es !== 'FINAL' && es !== 'CANCELED') {
    return reject('INVALID_TRANSITION', 'close the market (or finish the event) before settling');
  }
  if (c.result !== 'PUSH' && !ms.rec.outcomeIds.includes(c.result)) {
    return reject('OUTCOME_NOT_FOUND', `result must be one of the market's outcomes or PUSH`);
  }
  doSettle(s, ms, c.result, c.ts);
  catalogChanged(s, [ms.event.id], [ms.rec.id]);
  return ok(s);
}

/**
 * Pays out a market. A win pays each winning position its full payout (the market's collateral is
 * exactly the winners' payout). PUSH (void) returns the collateral pro rata to cost: each position
 * gets floor(cost × collateral / Σcost) and the few Money left by flooring go one each to the first
 * positions in account order. Without netting in the market collateral = Σcost, so every position
 * gets exactly its cost back; netting may have realized P&L, and pro rata keeps money conserved.
 */
export function doSettle(s: ExchangeState, ms: MarketState, result: Id | 'PUSH', ts: number): void {
  cancelMarketOrders(s, ms.idx, ts);
  const win = result === 'PUSH' ? -1 : ms.rec.outcomeIds.indexOf(result);
  for (let ci = 0; ci < 2; ci++) {
    const holders: { a: Account; p: Pos }[] = [];
    let sumCost = 0;
    for (const a of s.accounts) {
      for (let side = 0; side < 2; side++) {
        const key = (ms.idx * 2 + side) * 2 + ci;
        const p = a.positions.get(key);
        if (p && p.size === 0)
          dropPos(a, p); // netted-out entry: nothing to pay
        else if (p) {
          holders.push({ a, p });
          sumCost += p.cost;
        }
      }
    }
    const pool = ms.collateral[ci]!;
    let left = pool;
    const pays: number[] = holders.map(({ p }) => {
      let pay = 0;
      if (win >= 0) pay = (p.key >> 1) % 2 === win ? p.size * MONEY_PER_MCU[ci]! : 0;
      else if (sumCost > 0) pay = mulDivFloor(p.cost, pool, sumCost);
      left -= pay;
      return pay;
    });
    if (win < 0) for (let i = 0; left > 0 && i < pays.length; i++, left--) pays[i]!++;
    holders.forEach(({ a, p }, i) => {
      const pay = pays[i]!;
      if (pay > 0) {
        s.wal[a.idx * WS + ci]! += pay;
        s.paidOut[ci]! += pay;
        touchWallet(s, a, ci);
        s.ev.push({
          kind: 'LedgerEntry',
          accountId: a.id,
          currency: CURRENCIES[ci]!,
          entryKind: win >= 0 ? 'SETTLEMENT' : 'REFUND',
          amount: pay,
          ref: ms.rec.id,
        });
      }
      p.size = 0;
      p.cost = 0;
      touchPos(s, a, p);
      dropPos(a, p);
    });
    ms.collateral[ci] = 0;
  }
  ms.rec.status = 'SETTLED';
  ms.rec.settledAt = ts;
  ms.rec.result = result;
  ms.outcomes.forEach((o, i) => {
    o.status = win < 0 ? 'PUSH' : i === win ? 'WIN' : 'LOSS';
  });
  s.ev.push({ kind: 'MarketSettled', marketId: ms.rec.id, result });
}
