// Prices on the wire (docs/http.md "Parlay price"): strings with exactly 5
// decimals, strictly between 0 and 1, and the two odds forms odds screens display.

/** Smallest and largest price the wire can carry, in 1e-5 steps. */
export const PRICE_STEPS = 100_000;
export const MIN_PRICE_STEPS = 1;
export const MAX_PRICE_STEPS = PRICE_STEPS - 1;

/**
 * A probability → integer count of 1e-5, rounded half-up and clamped into [1, 99999] so the written
 * price is strictly inside (0, 1). The 1e-9 nudge absorbs binary error (0.123455 is stored as
 * 0.12345499999…), so that the product of exact 5-decimal prices rounds as a person would.
 */
export function toPriceSteps(p: number): number {
  const s = Math.floor(p * PRICE_STEPS + 0.5 + 1e-9);
  return Math.min(MAX_PRICE_STEPS, Math.max(MIN_PRICE_STEPS, s));
}

/** Integer 1e-5 steps → "0.xxxxx" (no floating formatting involved). */
export function formatPriceSteps(steps: number): string {
  return `0.${String(steps).padStart(5, '0')}`;
}

/** A probability → its wire string with 5 decimals, in (0, 1). */
export function formatPrice(p: number): string {
  return formatPriceSteps(toPriceSteps(p));
}

/** Decimal odds 1/p of a wire price, to 5 decimals (what clients compute from the string). */
export function decimalOdds(steps: number): number {
  return Math.round((PRICE_STEPS * PRICE_STEPS) / steps) / PRICE_STEPS;
}

/** American odds of a wire price: −100·p/(1−p) for favourites (p ≥ ½), +100·(1−p)/p otherwise. */
export function americanOdds(steps: number): number {
  if (steps * 2 >= PRICE_STEPS) return -Math.round((100 * steps) / (PRICE_STEPS - steps));
  return Math.round((100 * (PRICE_STEPS - steps)) / steps);
}
