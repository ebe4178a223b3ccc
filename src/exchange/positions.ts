import { touchPos, touchWallet } from './change-tracking.ts';
import { type Account, type ExchangeState, type MarketState, type Pos, WALLET_SLOTS } from './state.ts';
import { CURRENCIES } from './types.ts';
import { MONEY_PER_MCU, mulDivFloor } from './units.ts';

/** The account's position `key`, created empty (and linked to its twin) when absent. */
export function posFor(a: Account, key: number): Pos {
  let p = a.positions.get(key);
  if (p === undefined) p = newPos(a, key, 0, 0);
  return p;
}

export function newPos(a: Account, key: number, size: number, cost: number): Pos {
  const o = a.positions.get(key ^ 2); // same market and currency, other outcome
  const p: Pos = { key, size, cost, stamp: 0, twin: o ?? null };
  if (o !== undefined) o.twin = p;
  a.positions.set(key, p);
  return p;
}

/** Removes a position entry (settlement), unlinking it from its twin. */
export function dropPos(a: Account, p: Pos): void {
  if (p.twin !== null) p.twin.twin = null;
  p.twin = null;
  a.positions.delete(p.key);
}

/** Adds a fill to a position, then nets it against the same account's other outcome. */
export function addPosition(
  s: ExchangeState,
  a: Account,
  p: Pos,
  size: number,
  cost: number,
  market: MarketState,
): void {
  p.size += size;
  p.cost += cost;
  touchPos(s, a, p);
  const o = p.twin;
  if (o === null || o.size === 0) return;
  // Netting (docs/exchange.md "Netting"): pairs of both outcomes pay exactly one payout, whatever happens, so
  // they are merged and the payout returns to the wallet now. Each side's cost shrinks pro rata.
  const pairs = Math.min(p.size, o.size);
  const currencyIndex = p.key & 1;
  const pay = pairs * MONEY_PER_MCU[currencyIndex]!;
  shrinkPosition(s, a, p, pairs);
  shrinkPosition(s, a, o, pairs);
  s.wallets[a.idx * WALLET_SLOTS + currencyIndex]! += pay;
  market.collateral[currencyIndex]! -= pay;
  s.paidOut[currencyIndex]! += pay;
  touchWallet(s, a, currencyIndex);
  if (s.emitEvents)
    s.ev.push({
      kind: 'LedgerEntry',
      accountId: a.id,
      currency: CURRENCIES[currencyIndex]!,
      entryKind: 'NET',
      amount: pay,
      ref: market.rec.id,
    });
}

/** A position netted to zero keeps its (empty) entry until settlement: no Map churn when an
 * account keeps trading both sides. Readers skip empty positions. */
export function shrinkPosition(s: ExchangeState, a: Account, x: Pos, pairs: number): void {
  x.cost -= x.size === pairs ? x.cost : mulDivFloor(x.cost, pairs, x.size);
  x.size -= pairs;
  touchPos(s, a, x);
}
