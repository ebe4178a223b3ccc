// The bivariate normal distribution: upper-orthant probabilities and rectangles, to about 1e-15.
// This is the whole numerical core of the same-game model (docs/pricing.md): every parlay of legs on
// one game is the probability of a rectangle in the (home margin, total) plane.
//
// Method: A. Genz, "Numerical computation of rectangular bivariate and trivariate normal and t
// probabilities", Statistics and Computing 14 (2004) 251–260, function BVNU of his TVPACK / MATLAB
// `bvnl.m`. It refines Z. Drezner and G. O. Wesolowsky, "On the computation of the bivariate normal
// integral", J. Statist. Comput. Simul. 35 (1990) 101–107: Gauss–Legendre quadrature (6, 12 or 20
// points by |ρ|) of Plackett's identity dΦ₂/dρ = φ₂ for |ρ| < 0.925, and for |ρ| ≥ 0.925 an
// asymptotic expansion around ρ = ±1 plus quadrature of the remainder. Double-precision accuracy
// for every ρ in [−1, 1], which a plain Gauss–Legendre on [0, ρ] does not reach near |ρ| = 1.

import { normCdf } from './normal.ts';

const TWO_PI = 2 * Math.PI;

// Gauss–Legendre nodes/weights on [−1, 1] (half sets: ±x), as tabulated in Genz's code.
const W6 = [0.1713244923791705, 0.3607615730481384, 0.4679139345726904];
const X6 = [0.9324695142031522, 0.6612093864662647, 0.238619186083197];
const W12 = [
  0.04717533638651177, 0.1069393259953183, 0.1600783285433464, 0.2031674267230659, 0.2334925365383547,
  0.2491470458134029,
];
const X12 = [
  0.9815606342467191, 0.904117256370475, 0.769902674194305, 0.5873179542866171, 0.3678314989981802,
  0.1252334085114692,
];
const W20 = [
  0.01761400713915212, 0.04060142980038694, 0.06267204833410905, 0.08327674157670475, 0.1019301198172404,
  0.1181945319615184, 0.1316886384491766, 0.1420961093183821, 0.1491729864726037, 0.1527533871307259,
];
const X20 = [
  0.9931285991850949, 0.9639719272779138, 0.9122344282513259, 0.8391169718222188, 0.7463319064601508,
  0.636053680726515, 0.5108670019508271, 0.3737060887154196, 0.2277858511416451, 0.07652652113349732,
];

/** Nodes mapped to [0, 2] (1 − x and 1 + x) with their weights, as Genz's `x = [1-x 1+x]`. */
function expand(w: number[], x: number[]): { w: Float64Array; x: Float64Array } {
  const n = x.length;
  const ww = new Float64Array(2 * n);
  const xx = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    // Each table has as many weights as nodes, so i < n is in range of both.
    ww[i] = w[i]!;
    ww[n + i] = w[i]!;
    xx[i] = 1 - x[i]!;
    xx[n + i] = 1 + x[i]!;
  }
  return { w: ww, x: xx };
}
const GL6 = expand(W6, X6);
const GL12 = expand(W12, X12);
const GL20 = expand(W20, X20);

/**
 * P(X > h, Y > k) for standard normals X, Y with correlation r (Genz's BVNU). Infinite limits are
 * allowed; r is clamped to [−1, 1].
 */
export function bvnUpper(h: number, k: number, r: number): number {
  if (h === Number.POSITIVE_INFINITY || k === Number.POSITIVE_INFINITY) return 0;
  if (h === Number.NEGATIVE_INFINITY) return k === Number.NEGATIVE_INFINITY ? 1 : normCdf(-k);
  if (k === Number.NEGATIVE_INFINITY) return normCdf(-h);
  if (r > 1) r = 1;
  else if (r < -1) r = -1;
  if (r === 0) return normCdf(-h) * normCdf(-k);
  const ar = Math.abs(r);
  const gl = ar < 0.3 ? GL6 : ar < 0.75 ? GL12 : GL20;
  const w = gl.w;
  const x = gl.x;
  const n = x.length;
  let hk = h * k;
  let bvn = 0;
  if (ar < 0.925) {
    const hs = (h * h + k * k) / 2;
    const asr = Math.asin(r) / 2;
    // i < n = x.length = w.length (expand builds both): the assertions are type-only.
    for (let i = 0; i < n; i++) {
      const sn = Math.sin(asr * x[i]!);
      bvn += w[i]! * Math.exp((sn * hk - hs) / (1 - sn * sn));
    }
    return clamp01((bvn * asr) / TWO_PI + normCdf(-h) * normCdf(-k));
  }
  if (r < 0) {
    k = -k;
    hk = -hk;
  }
  if (ar < 1) {
    const as = 1 - r * r;
    let a = Math.sqrt(as);
    const bs = (h - k) * (h - k);
    const c = (4 - hk) / 8;
    const d = (12 - hk) / 80;
    let asr = -(bs / as + hk) / 2;
    if (asr > -100) bvn = a * Math.exp(asr) * (1 - (c * (bs - as) * (1 - d * bs)) / 3 + c * d * as * as);
    if (hk > -100) {
      const b = Math.sqrt(bs);
      const sp = Math.sqrt(TWO_PI) * normCdf(-b / a);
      bvn -= Math.exp(-hk / 2) * sp * b * (1 - (c * bs * (1 - d * bs)) / 3);
    }
    a /= 2;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const xs = (a * x[i]!) ** 2;
      asr = -(bs / xs + hk) / 2;
      if (asr > -100) {
        const sp = 1 + c * xs * (1 + 5 * d * xs);
        const rs = Math.sqrt(1 - xs);
        const ep = Math.exp((-(hk / 2) * xs) / ((1 + rs) * (1 + rs))) / rs;
        sum += w[i]! * Math.exp(asr) * (sp - ep);
      }
    }
    bvn = (a * sum - bvn) / TWO_PI;
  }
  if (r > 0) return clamp01(bvn + normCdf(-Math.max(h, k)));
  if (h >= k) return clamp01(-bvn);
  const l = h < 0 ? normCdf(k) - normCdf(h) : normCdf(-h) - normCdf(-k);
  return clamp01(l - bvn);
}

function clamp01(p: number): number {
  return Math.min(1, Math.max(0, p)); // Math.max(0, −0) is +0
}

/**
 * P(a1 < X < b1, a2 < Y < b2) for standard normals with correlation r, by inclusion–exclusion over
 * upper orthants. Empty or inverted intervals give 0. One-sided and unbounded sides short-cut to
 * fewer orthant evaluations (and to the univariate Φ when one variable is unconstrained), which is
 * both faster and exact to the last bit in the cases the pricer meets most.
 */
export function bvnRectangle(a1: number, b1: number, a2: number, b2: number, r: number): number {
  if (!(a1 < b1) || !(a2 < b2)) return 0;
  const inf = Number.POSITIVE_INFINITY;
  const free1 = a1 === -inf && b1 === inf;
  const free2 = a2 === -inf && b2 === inf;
  if (free1 && free2) return 1;
  if (free2) return interval(a1, b1);
  if (free1) return interval(a2, b2);
  // P(X>a1,Y>a2) − P(X>b1,Y>a2) − P(X>a1,Y>b2) + P(X>b1,Y>b2); terms at +∞ vanish.
  let p = bvnUpper(a1, a2, r);
  if (b1 !== inf) p -= bvnUpper(b1, a2, r);
  if (b2 !== inf) p -= bvnUpper(a1, b2, r);
  if (b1 !== inf && b2 !== inf) p += bvnUpper(b1, b2, r);
  return clamp01(p);
}

/** P(a < Z < b) for a standard normal, using the tail that keeps precision. */
function interval(a: number, b: number): number {
  if (a > 0) return clamp01(normCdf(-a) - normCdf(-b));
  return clamp01(normCdf(b) - normCdf(a));
}

/** A bivariate normal (X, Y). */
export interface Bivariate {
  mean1: number;
  sd1: number;
  mean2: number;
  sd2: number;
  rho: number;
}

/** P(lo1 < X < hi1, lo2 < Y < hi2) for a general bivariate normal (standardize, then bvnRectangle). */
export function normalRectangle(d: Bivariate, lo1: number, hi1: number, lo2: number, hi2: number): number {
  return bvnRectangle(
    (lo1 - d.mean1) / d.sd1,
    (hi1 - d.mean1) / d.sd1,
    (lo2 - d.mean2) / d.sd2,
    (hi2 - d.mean2) / d.sd2,
    d.rho,
  );
}
