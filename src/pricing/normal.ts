// The univariate standard normal: density, distribution function and its inverse, to double
// precision. The parlay model (docs/pricing.md) converts prices to z-scores and back many times per
// quote, so these must be both accurate (the bivariate rectangle inherits their error) and cheap.

const SQRT_2PI = 2.5066282746310002;

/** Standard normal density φ(z). */
export function normPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / SQRT_2PI;
}

/**
 * Standard normal distribution function Φ(z), absolute error below 1e-15.
 * Hart's algorithm 5666 (J. F. Hart et al., "Computer Approximations", 1968) in the double-precision
 * form given by G. West, "Better approximations to cumulative normal functions", Wilmott Magazine
 * (2005), Figure 2. The tail below −37 underflows to 0, as in West.
 */
export function normCdf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  const x = Math.abs(z);
  let c: number;
  if (x > 37) {
    c = 0;
  } else {
    const e = Math.exp(-0.5 * x * x);
    if (x < 7.07106781186547) {
      let n = 3.52624965998911e-2 * x + 0.700383064443688;
      n = n * x + 6.37396220353165;
      n = n * x + 33.912866078383;
      n = n * x + 112.079291497871;
      n = n * x + 221.213596169931;
      n = n * x + 220.206867912376;
      let d = 8.83883476483184e-2 * x + 1.75566716318264;
      d = d * x + 16.064177579207;
      d = d * x + 86.7807322029461;
      d = d * x + 296.564248779674;
      d = d * x + 637.333633378831;
      d = d * x + 793.826512519948;
      d = d * x + 440.413735824752;
      c = (e * n) / d;
    } else {
      let b = x + 0.65;
      b = x + 4 / b;
      b = x + 3 / b;
      b = x + 2 / b;
      b = x + 1 / b;
      c = e / b / SQRT_2PI;
    }
  }
  return z > 0 ? 1 - c : c;
}

// P. J. Acklam's rational approximation of Φ⁻¹ (relative error 1.15e-9), refined by one step of
// Halley's method against normCdf, which brings it to full double precision (Acklam's own note).
// Tuples (`as const`), so that every constant index below is known to be in range.
const A = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
  2.506628277459239,
] as const;
const B = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1,
] as const;
const C = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
] as const;
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416] as const;
const P_LOW = 0.02425;

/** Inverse of Φ: the z with Φ(z) = p, for 0 < p < 1 (±Infinity at 0 and 1, NaN outside). */
export function normInv(p: number): number {
  if (!(p >= 0 && p <= 1)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  let x: number;
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    x =
      (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
      ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
  } else if (p <= 1 - P_LOW) {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) /
      (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x =
      -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
      ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
  }
  // Halley step. In the upper tail work with the complement so that 1 − p keeps its digits.
  const e = x > 0 ? 1 - p - normCdf(-x) : normCdf(x) - p;
  const u = e * SQRT_2PI * Math.exp(0.5 * x * x);
  return x - u / (1 + 0.5 * x * u);
}

/**
 * Φ⁻¹(i / 2000) for i = 0…2000. Leg prices are whole ticks (k/1000) and mids half ticks (k/2000),
 * so every z-score the pricer needs is a table lookup instead of an inversion (docs/exchange.md "Money").
 */
export const Z_OF_HALF_TICK: Float64Array = (() => {
  const t = new Float64Array(2001);
  for (let i = 0; i <= 2000; i++) t[i] = normInv(i / 2000);
  return t;
})();
