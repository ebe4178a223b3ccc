// Money totals and the conservation invariant (docs/exchange.md "Conservation"): for each currency
// available + reserved + collateral + parlay collateral + fees = deposits − withdrawals.

import { F_QTY, FW, I_ANEXT, I_BOOK, I_LEVEL, IW, NIL } from './order-pool.ts';
import { CUR_INDEX, type ExchangeState, WALLET_RESERVED, WALLET_SLOTS } from './state.ts';
import { TICKS } from './ticks.ts';
import { CURRENCIES, type Currency, type Id, type Money } from './types.ts';
import { bidCost } from './units.ts';

/** Per-currency money totals; see docs/exchange.md "Conservation". */
export interface CurrencyTotals {
  deposits: Money;
  withdrawals: Money;
  available: Money;
  reserved: Money;
  /** Collateral held by open positions (sum over markets). */
  collateral: Money;
  /** Sum of open positions' recorded cost (equals collateral unless netting realized P&L). */
  positionsCost: Money;
  fees: Money;
  /** Money held by open parlays (the taker's stake plus the maker's collateral, docs/parlays.md). */
  parlayCollateral: Money;
  /** Paid back to wallets from collateral: netting, settlement wins, void refunds, parlay settlement. */
  paidOut: Money;
  /** available + reserved + collateral + parlayCollateral + fees − (deposits − withdrawals): always 0. */
  imbalance: Money;
}

export interface ExchangeTotals {
  CASH: CurrencyTotals;
  COIN: CurrencyTotals;
}

/**
 * Money totals per currency. Conservation (docs/exchange.md): for each currency,
 * Σavailable + Σreserved + Σcollateral + fees = deposits − withdrawals, i.e. imbalance = 0.
 */
export function totals(s: ExchangeState): ExchangeTotals {
  const out = {} as ExchangeTotals;
  CURRENCIES.forEach((cur, currencyIndex) => {
    // Summed in BigInt: every balance is an integer-valued double (exact in BigInt), so the sums
    // and the imbalance are exact and conservation cannot pass or fail by rounding.
    let available = 0n;
    let reserved = 0n;
    let positionsCost = 0n;
    for (const a of s.accounts) {
      available += BigInt(s.wallets[a.idx * WALLET_SLOTS + currencyIndex]!);
      reserved += BigInt(s.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + currencyIndex]!);
      for (const p of a.positions.values())
        if ((p.key & 1) === currencyIndex) positionsCost += BigInt(p.cost);
    }
    let collateral = 0n;
    for (const m of s.markets) collateral += BigInt(m.collateral[currencyIndex]!);
    const t: CurrencyTotals = {
      deposits: s.deposits[currencyIndex]!,
      withdrawals: s.withdrawals[currencyIndex]!,
      available: Number(available),
      reserved: Number(reserved),
      collateral: Number(collateral),
      positionsCost: Number(positionsCost),
      fees: s.fees[currencyIndex]!,
      parlayCollateral: s.parlay.collateral[currencyIndex]!,
      paidOut: s.paidOut[currencyIndex]!,
      imbalance: Number(
        conservationImbalance({
          available,
          reserved,
          collateral: collateral + BigInt(s.parlay.collateral[currencyIndex]!),
          fees: s.fees[currencyIndex]!,
          deposits: s.deposits[currencyIndex]!,
          withdrawals: s.withdrawals[currencyIndex]!,
        }),
      ),
    };
    out[cur] = t;
  });
  return out;
}

/**
 * available + reserved + collateral + fees − (deposits − withdrawals), exactly: each part an
 * integer (a bigint, or an integer-valued double converted without loss). A part that is not an
 * integer throws (RangeError): money is integers only.
 */
export function conservationImbalance(p: {
  available: bigint | number;
  reserved: bigint | number;
  collateral: bigint | number;
  fees: bigint | number;
  deposits: bigint | number;
  withdrawals: bigint | number;
}): bigint {
  return (
    BigInt(p.available) +
    BigInt(p.reserved) +
    BigInt(p.collateral) +
    BigInt(p.fees) -
    (BigInt(p.deposits) - BigInt(p.withdrawals))
  );
}

/**
 * Reserved collateral each account should hold, recomputed from its resting orders (Σ bidCost).
 * Equals wallet.reserved outside a command; tests use it as an invariant.
 */
export function expectedReserved(s: ExchangeState, accountId: Id, currency: Currency): Money {
  const accountIndex = s.accountIdx.get(accountId);
  if (accountIndex === undefined) return 0;
  const currencyIndex = CUR_INDEX[currency];
  let sum = 0;
  for (let h = s.accounts[accountIndex]!.head; h !== NIL; h = s.pool.i32[h * IW + I_ANEXT]!) {
    if ((s.pool.i32[h * IW + I_BOOK]! & 1) === currencyIndex)
      sum += bidCost(TICKS[s.pool.i32[h * IW + I_LEVEL]!]!, s.pool.f64[h * FW + F_QTY]!, currency);
  }
  return sum;
}
