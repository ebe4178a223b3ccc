// The numerical core of the same-game model: Φ, Φ⁻¹ and the bivariate normal rectangle, checked
// against closed forms and against a plain Monte Carlo simulation of the same model.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { bvnRectangle, bvnUpper, normalRectangle } from '../../src/pricing/bivariate-normal.ts';
import { normCdf, normInv } from '../../src/pricing/normal.ts';

/** sfc32: a small seeded generator with a 2^128 state (Doty-Humphrey's PractRand suite passes). */
function sfc32(a: number, b: number, c: number, d: number): () => number {
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return ((t >>> 0) + 0.5) / 4294967296; // in (0, 1): safe for log
  };
}

describe('univariate normal', () => {
  test('Φ at reference values (R pnorm, 16 digits)', () => {
    const cases: [number, number][] = [
      [0, 0.5],
      [1, 0.8413447460685429],
      [-1, 0.15865525393145705],
      [1.959963984540054, 0.975],
      [-3, 0.0013498980316300946],
      [-6, 9.865876450376981e-10],
      [5, 0.9999997133484281],
    ];
    for (const [z, p] of cases) {
      assert.ok(Math.abs(normCdf(z) - p) <= 1e-15 + 1e-13 * p, `Φ(${z}) = ${normCdf(z)}, want ${p}`);
    }
  });

  test('Φ⁻¹ inverts Φ to near machine precision', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-12, max: 1 - 1e-12, noNaN: true }), (p) => {
        const back = normCdf(normInv(p));
        assert.ok(Math.abs(back - p) <= 1e-14 * Math.min(p, 1 - p) + 1e-16, `p=${p} back=${back}`);
      }),
      { seed: 7, numRuns: 500 },
    );
    assert.equal(normInv(0.5), 0);
    assert.equal(normInv(0), Number.NEGATIVE_INFINITY);
    assert.equal(normInv(1), Number.POSITIVE_INFINITY);
  });
});

describe('bivariate normal (Genz BVNU)', () => {
  test('orthant at the origin: 1/4 + asin(ρ)/2π (Sheppard)', () => {
    for (let r = -0.999; r < 1; r += 0.037) {
      const want = 0.25 + Math.asin(r) / (2 * Math.PI);
      assert.ok(Math.abs(bvnUpper(0, 0, r) - want) < 1e-14, `ρ=${r}`);
    }
  });

  test('ρ = 0 factorizes, ρ = ±1 degenerates', () => {
    assert.equal(bvnUpper(0.3, -1.1, 0), normCdf(-0.3) * normCdf(1.1));
    assert.ok(Math.abs(bvnUpper(0.3, -1.1, 1) - normCdf(-0.3)) < 1e-15);
    // X > 0.3 and −X > −1.1 ⇔ 0.3 < X < 1.1
    assert.ok(Math.abs(bvnUpper(0.3, -1.1, -1) - (normCdf(1.1) - normCdf(0.3))) < 1e-15);
    // X > −0.5 and −X > −0.3 ⇔ −0.5 < X < 0.3; and disjoint half-lines give 0
    assert.ok(Math.abs(bvnUpper(-0.5, -0.3, -1) - (normCdf(0.3) - normCdf(-0.5))) < 1e-15);
    assert.equal(bvnUpper(0.5, 0.3, -1), 0);
  });

  test('matches one-dimensional quadrature of Φ₂ = ∫ φ(x) Φ((ρx − k)/√(1−ρ²)) dx', () => {
    const quad = (h: number, k: number, r: number) => {
      // Simpson on [h, 10] with 4000 panels: error far below 1e-10.
      const n = 4000;
      const b = 10;
      const dx = (b - h) / n;
      const f = (x: number) =>
        (Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI)) * normCdf((r * x - k) / Math.sqrt(1 - r * r));
      let s = f(h) + f(b);
      for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(h + i * dx);
      return (s * dx) / 3;
    };
    fc.assert(
      fc.property(
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -3, max: 3, noNaN: true }),
        fc.double({ min: -0.995, max: 0.995, noNaN: true }),
        (h, k, r) => {
          const got = bvnUpper(h, k, r);
          const want = quad(h, k, r);
          assert.ok(Math.abs(got - want) < 1e-9, `h=${h} k=${k} r=${r}: ${got} vs ${want}`);
        },
      ),
      { seed: 11, numRuns: 150 },
    );
  });

  test('rectangles: symmetry, additivity and empty intervals', () => {
    const r = 0.42;
    const whole = bvnRectangle(-1, 2, -0.5, 1.5, r);
    const split = bvnRectangle(-1, 0.3, -0.5, 1.5, r) + bvnRectangle(0.3, 2, -0.5, 1.5, r);
    assert.ok(Math.abs(whole - split) < 1e-14);
    assert.ok(Math.abs(bvnRectangle(-1, 2, -0.5, 1.5, r) - bvnRectangle(-0.5, 1.5, -1, 2, r)) < 1e-15);
    assert.equal(bvnRectangle(1, 1, 0, 1, r), 0);
    assert.equal(bvnRectangle(2, 1, 0, 1, r), 0);
    assert.equal(bvnRectangle(-Infinity, Infinity, -Infinity, Infinity, r), 1);
    assert.equal(bvnRectangle(-Infinity, 0, -Infinity, Infinity, r), 0.5);
  });

  test('rectangle matches a Monte Carlo simulation of the same model within 1% relative', () => {
    // Plain simulation: (X, Y) = (μ₁ + σ₁Z₁, μ₂ + σ₂(ρZ₁ + √(1−ρ²)Z₂)), Z by Box–Muller from a seeded
    // generator. N = 1.5·10⁶ and p ≥ 0.1 put 1% at ≥ 4 standard errors (σ_rel = √((1−p)/(pN))).
    const N = 1_500_000;
    const bound = fc.oneof(
      { weight: 4, arbitrary: fc.double({ min: -2.5, max: 2.5, noNaN: true }) },
      { weight: 1, arbitrary: fc.constant(Number.NaN) }, // NaN stands for "no bound on this side"
    );
    let run = 0;
    fc.assert(
      fc.property(
        fc.record({
          mean1: fc.double({ min: -14, max: 14, noNaN: true }),
          sd1: fc.double({ min: 1.5, max: 16, noNaN: true }),
          mean2: fc.double({ min: 2, max: 230, noNaN: true }),
          sd2: fc.double({ min: 1.5, max: 20, noNaN: true }),
          rho: fc.double({ min: -0.95, max: 0.95, noNaN: true }),
        }),
        fc.tuple(bound, bound, bound, bound),
        (d, [u1, v1, u2, v2]) => {
          // Strikes are placed in standard units around the mean, then mapped to points.
          const pts = (u: number, mean: number, sd: number, side: number) =>
            Number.isNaN(u) ? side * Number.POSITIVE_INFINITY : mean + u * sd;
          const [a1, b1] = [Math.min(u1, v1), Math.max(u1, v1)];
          const [a2, b2] = [Math.min(u2, v2), Math.max(u2, v2)];
          const lo1 = pts(Number.isNaN(u1) ? Number.NaN : a1, d.mean1, d.sd1, -1);
          const hi1 = pts(Number.isNaN(v1) ? Number.NaN : b1, d.mean1, d.sd1, 1);
          const lo2 = pts(Number.isNaN(u2) ? Number.NaN : a2, d.mean2, d.sd2, -1);
          const hi2 = pts(Number.isNaN(v2) ? Number.NaN : b2, d.mean2, d.sd2, 1);
          const p = normalRectangle(d, lo1, hi1, lo2, hi2);
          fc.pre(p >= 0.1); // tiny probabilities cannot be checked to 1% at this N
          run++;
          const rnd = sfc32(0x9e3779b9, run, 0x243f6a88, 0x85a308d3);
          const c = Math.sqrt(1 - d.rho * d.rho);
          let hit = 0;
          for (let i = 0; i < N; i++) {
            const r = Math.sqrt(-2 * Math.log(rnd()));
            const th = 2 * Math.PI * rnd();
            const z1 = r * Math.cos(th);
            const z2 = r * Math.sin(th);
            const x = d.mean1 + d.sd1 * z1;
            const y = d.mean2 + d.sd2 * (d.rho * z1 + c * z2);
            if (x > lo1 && x < hi1 && y > lo2 && y < hi2) hit++;
          }
          const mc = hit / N;
          assert.ok(Math.abs(mc - p) / p < 0.01, `model ${p} vs Monte Carlo ${mc} for ${JSON.stringify(d)}`);
        },
      ),
      { seed: 20261121, numRuns: 10, maxSkipsPerRun: 50, endOnFailure: true },
    );
    assert.ok(run >= 10);
  });
});
