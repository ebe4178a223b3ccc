// The one pair of edge conversions (docs/exchange.md "Money"; principle 4 of docs/architecture.md "Principles"): wire numbers ⇄ integers inside.
// Prices: wire decimal probability ⇄ Tick. Amounts: wire currency units (≤ 5 decimals) ⇄ Money
// (1e-5 unit). Plus the two money formulas every other module must share: the cost of a bid and the
// taker fee (docs/exchange.md "Fees"), both computed in integers only.

import { isTick, ONE } from './ticks.ts';
import type { Currency, Money, Qty, Tick } from './types.ts';

/** Money per currency unit (Money is 1e-5 of a unit). */
export const MONEY_PER_UNIT = 100_000;

/**
 * The money ceiling (docs/exchange.md "Exact money"): 1e15 Money = 10 billion currency units, one
 * eighth of Number.MAX_SAFE_INTEGER. The engine refuses (AMOUNT_OUT_OF_RANGE) any deposit, order
 * payout or balance that would pass it, and any deposit that would take a currency's money in the
 * exchange (deposits − withdrawals) past it; every wallet, reserve, collateral pool, position cost
 * and fee total is part of that money, so each stays an exact integer in a double, and so does any
 * sum of two or three of them (the matching loop's arithmetic).
 */
export const MAX_MONEY = 1_000_000_000_000_000;

/** MAX_MONEY in currency units (10 billion): the largest deposit or withdrawal the edge accepts. */
export const MAX_UNITS = 10_000_000_000;

/** The largest order quantity whose payout fits MAX_MONEY in CASH (1e12 MCU); COIN allows 1e10. */
export const MAX_QTY_MCU = 1_000_000_000_000;

/** The cumulative deposits counter of a currency (a lifetime total) must stay exact: at most this. */
export const MAX_MONEY_COUNTER = Number.MAX_SAFE_INTEGER;

/** Money per minimum currency unit by currency index (CURRENCIES order: CASH, COIN): CASH 1 MCU =
 * 0.01 Cash = 1000 Money; COIN 1 MCU = 1 Coin. The engine indexes these on its hot path. */
export const MONEY_PER_MCU: readonly number[] = [1_000, 100_000];

/** Money per (tick × MCU) by currency index: cost of `qty` at `tick` = tick × qty × this. */
export const MONEY_PER_TICK_MCU: readonly number[] = [1, 100];

const currencyIndex = (currency: Currency): number => (currency === 'CASH' ? 0 : 1);

/** Money per minimum currency unit (MONEY_PER_MCU by name). */
export function moneyPerMcu(currency: Currency): number {
  return MONEY_PER_MCU[currencyIndex(currency)]!;
}

/** Money per (tick × MCU) (MONEY_PER_TICK_MCU by name): CASH 1, COIN 100. */
export function moneyPerTickMcu(currency: Currency): number {
  return MONEY_PER_TICK_MCU[currencyIndex(currency)]!;
}

function parseDecimal(x: number | string): number | null {
  if (typeof x === 'string') {
    // Plain decimal notation only: no exponent, hex, whitespace or sign games.
    if (!/^-?(\d+(\.\d*)?|\.\d+)$/.test(x)) return null;
    return Number(x);
  }
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

/**
 * Wire price → Tick, or null when it is not exactly a price of the tick table (0.5000001 and 0.5015
 * are rejected, never rounded). Exactness test: the tick's own double must be the given number.
 */
export function priceToTick(x: number | string): Tick | null {
  const v = parseDecimal(x);
  if (v === null) return null;
  const t = Math.round(v * ONE);
  if (t / ONE !== v || !isTick(t)) return null;
  return t;
}

/** Tick → wire price (a number with ≤ 3 decimals; JSON prints the shortest form: 0.61). */
export function tickToPrice(t: Tick): number {
  return t / ONE;
}

/**
 * Wire amount in currency units → Money, or null when it is not finite, has more than 5 decimals
 * or does not fit a safe integer. Signs are kept; callers decide whether negatives make sense.
 */
export function unitsToMoney(x: number | string): Money | null {
  const v = parseDecimal(x);
  if (v === null) return null;
  const m = Math.round(v * MONEY_PER_UNIT);
  if (!Number.isSafeInteger(m) || m / MONEY_PER_UNIT !== v) return null;
  return m === 0 ? 0 : m; // never -0
}

/** Money → wire amount in currency units (the nearest double: 173_842_000 → 1738.42). */
export function moneyToUnits(m: Money): number {
  return m / MONEY_PER_UNIT;
}

/**
 * Cost of a bid of `qty` MCU at `tick`, in Money: price × qty MCU. CASH: tick/1000 × qty × 1000 Money
 * = tick × qty; COIN: tick/1000 × qty × 100_000 = tick × qty × 100. Exact and linear, so collateral
 * split between a maker at q and a taker at 1000 − q always adds up to the full payout.
 */
export function bidCost(tick: Tick, qty: Qty, currency: Currency): Money {
  return tick * qty * moneyPerTickMcu(currency);
}

/** Full payout of `qty` MCU in Money. */
export function payout(qty: Qty, currency: Currency): Money {
  return qty * moneyPerMcu(currency);
}

/** Fee coefficients are held as integer parts per million so the fee stays integer arithmetic. */
export const PPM = 1_000_000;

/** A fee coefficient (0 ≤ c ≤ 1, at most 6 decimals) → ppm, or null. */
export function coefficientToPpm(c: number): number | null {
  if (typeof c !== 'number' || !Number.isFinite(c) || c < 0 || c > 1) return null;
  const p = Math.round(c * PPM);
  return p / PPM === c ? p : null;
}

/**
 * Exact fee numerator for one fill: fee Money = numerator / feeDenominator(currency).
 * docs/exchange.md "Fees": fee MCU = coef × P × (1 − P) × qty. With coef = ppm/1e6 and P = tick/1000:
 *   CASH (1 MCU = 1000 Money): ppm × tick × (1000 − tick) × qty / 1e9  Money
 *   COIN (1 MCU = 1e5 Money) : ppm × tick × (1000 − tick) × qty / 1e7  Money
 * BigInt because ppm × 250_000 × qty leaves the safe range for large quantities.
 */
export function feeNumerator(ppm: number, tick: Tick, qty: Qty): bigint {
  return BigInt(ppm) * BigInt(tick * (ONE - tick)) * BigInt(qty);
}

export function feeDenominator(currency: Currency): bigint {
  return currency === 'CASH' ? 1_000_000_000n : 10_000_000n;
}

/** round-half-up(num / den) for num ≥ 0, den > 0. */
export function roundHalfUp(num: bigint, den: bigint): number {
  return Number((2n * num + den) / (2n * den));
}

/**
 * Taker fee in Money for `qty` MCU bought at `tick`, rounded half-up to 1e-5 unit.
 * Example (docs/exchange.md "Fees"): qty 200 at 0.61 CASH, coef 0.03 → 1.4274 MCU = 0.014274 Cash → 1427 Money.
 */
export function takerFee(ppm: number, tick: Tick, qty: Qty, currency: Currency): Money {
  if (ppm === 0) return 0;
  return roundHalfUp(feeNumerator(ppm, tick, qty), feeDenominator(currency));
}

/**
 * The most a taker bidding `tick` can pay in fees on `qty`: it executes at 1000 − q ≤ tick, and
 * P(1 − P) grows up to P = 0.5, so the bound is the fee at min(tick, 500). Fees of one order are
 * rounded once on the cumulative exact amount (see Exchange), so their sum never exceeds this.
 */
export function maxTakerFee(ppm: number, tick: Tick, qty: Qty, currency: Currency): Money {
  return takerFee(ppm, Math.min(tick, ONE / 2), qty, currency);
}

/** floor(a × b / c) for non-negative safe integers, exact (pro rata shares of cost and collateral). */
export function mulDivFloor(a: number, b: number, c: number): number {
  const p = a * b;
  if (Number.isSafeInteger(p)) return Math.floor(p / c) - (Math.floor(p / c) * c > p ? 1 : 0);
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}

// ---------------------------------------------------------------- parlay prices (docs/parlays.md)

/** Parts per million of probability: the unit of parlay prices. */
export const PPM_PER_PROBABILITY = 1_000_000;

/** Wire probability → parlay price in ppm, or null unless exactly 1..999_999 millionths. */
export function probabilityToPpm(x: number | string): number | null {
  const v = parseDecimal(x);
  if (v === null) return null;
  const p = Math.round(v * PPM_PER_PROBABILITY);
  if (p / PPM_PER_PROBABILITY !== v || p < 1 || p >= PPM_PER_PROBABILITY) return null;
  return p;
}

/** Parlay price in ppm → wire probability (≤ 6 decimals). */
export function ppmToProbability(p: number): number {
  return p / PPM_PER_PROBABILITY;
}
