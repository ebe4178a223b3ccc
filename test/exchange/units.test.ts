import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isTick, ONE, TICK_COUNT, TICK_INDEX, TICKS } from '../../src/exchange/ticks.ts';
import {
  bidCost,
  coefficientToPpm,
  maxTakerFee,
  moneyToUnits,
  payout,
  priceToTick,
  takerFee,
  tickToPrice,
  unitsToMoney,
} from '../../src/exchange/units.ts';

describe('tick table (docs/exchange.md "Money")', () => {
  test('has 279 ascending prices with the three step regions', () => {
    assert.equal(TICKS.length, 279);
    assert.equal(TICK_COUNT, 279);
    assert.deepEqual(TICKS.slice(0, 3), [1, 2, 3]);
    assert.ok(TICKS.includes(50) && TICKS.includes(55) && !TICKS.includes(51) && !TICKS.includes(54));
    assert.ok(TICKS.includes(945) && TICKS.includes(950) && !TICKS.includes(946) && !TICKS.includes(947));
    assert.equal(TICKS.at(-1), 999);
    for (let i = 1; i < TICKS.length; i++) assert.ok(TICKS[i]! > TICKS[i - 1]!);
    assert.equal(TICKS.filter((t) => t <= 50).length, 50);
    assert.equal(TICKS.filter((t) => t >= 950).length, 50);
    assert.equal(TICKS.filter((t) => t > 50 && t < 950).length, 179);
  });
  test('isTick and the dense index', () => {
    for (const t of [1, 50, 55, 500, 945, 950, 999]) assert.ok(isTick(t), `${t}`);
    for (const t of [0, 51, 502, 946, 1000, -5, 500.5, Number.NaN, '500']) assert.ok(!isTick(t), `${t}`);
    TICKS.forEach((t, i) => {
      assert.equal(TICK_INDEX[t], i);
    });
    assert.equal(ONE, 1000);
  });
});

describe('price conversion', () => {
  test('on-table prices convert exactly, both directions', () => {
    for (const t of TICKS) assert.equal(priceToTick(tickToPrice(t)), t);
    assert.equal(priceToTick(0.61), 610);
    assert.equal(priceToTick('0.61'), 610);
    assert.equal(priceToTick(0.001), 1);
    assert.equal(tickToPrice(667), 0.667);
  });
  test('off-table, inexact or malformed prices are rejected, never rounded', () => {
    for (const x of [
      0.5000001,
      0.4999999,
      0.502,
      0.0505,
      0,
      1,
      1.5,
      -0.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      assert.equal(priceToTick(x), null, `${x}`);
    }
    for (const s of ['', 'abc', '5e-1', '0x1', ' 0.5', '0.5 '])
      assert.equal(priceToTick(s), null, JSON.stringify(s));
  });
});

describe('money conversion', () => {
  test('up to 5 decimals convert exactly', () => {
    assert.equal(unitsToMoney(1738.42), 173_842_000);
    assert.equal(unitsToMoney('1738.42'), 173_842_000);
    assert.equal(unitsToMoney(0.00001), 1);
    assert.equal(unitsToMoney(0.1 + 0.2), null); // 0.30000000000000004 has more than 5 decimals
    assert.equal(unitsToMoney(0.3), 30_000);
    assert.equal(unitsToMoney(-2.5), -250_000);
    assert.equal(unitsToMoney(0), 0);
    assert.equal(moneyToUnits(173_842_000), 1738.42);
    assert.equal(moneyToUnits(1), 0.00001);
  });
  test('more than 5 decimals, non-finite and unsafe amounts are rejected', () => {
    for (const x of [0.000001, 1.123456, Number.NaN, Number.POSITIVE_INFINITY, 1e12, '1e3', 'x']) {
      assert.equal(unitsToMoney(x), null, `${x}`);
    }
    assert.equal(unitsToMoney(90_071_992_547), 9_007_199_254_700_000);
  });
  test('round trip of every 5-decimal amount in a sample range', () => {
    for (let m = 0; m < 200_000; m += 7) assert.equal(unitsToMoney(moneyToUnits(m)), m);
  });
});

describe('cost and payout', () => {
  test('CASH: tick × qty Money; COIN: × 100', () => {
    assert.equal(bidCost(610, 200, 'CASH'), 122_000); // 0.61 × 2.00 Cash = 1.22 Cash
    assert.equal(bidCost(610, 200, 'COIN'), 12_200_000); // 0.61 × 200 Coin = 122 Coin
    assert.equal(payout(100, 'CASH'), 100_000); // 100 MCU = 1.00 Cash
    assert.equal(payout(1, 'COIN'), 100_000);
  });
  test('maker at q and taker at 1 − q post exactly the full payout', () => {
    for (const q of TICKS) {
      for (const cur of ['CASH', 'COIN'] as const) {
        assert.equal(bidCost(q, 37, cur) + bidCost(ONE - q, 37, cur), payout(37, cur));
      }
    }
  });
});

describe('fees (docs/exchange.md "Fees"): coef × P × (1 − P) × qty MCU, half-up to 1e-5 unit', () => {
  const ppm = 30_000; // 0.03
  test('hand-computed cases', () => {
    // 0.03 × 0.61 × 0.39 × 200 = 1.4274 MCU = 0.014274 Cash = 1427.4 Money → 1427
    assert.equal(takerFee(ppm, 610, 200, 'CASH'), 1427);
    // COIN: same in Coin units: 1.4274 Coin = 142_740 Money exactly
    assert.equal(takerFee(ppm, 610, 200, 'COIN'), 142_740);
    // 0.03 × 0.5 × 0.5 × 100 = 0.75 MCU = 0.0075 Cash = 750 Money
    assert.equal(takerFee(ppm, 500, 100, 'CASH'), 750);
    // 0.03 × 0.001 × 0.999 × 1 = 0.00002997 MCU = 0.0000002997 Cash = 0.02997 Money → 0
    assert.equal(takerFee(ppm, 1, 1, 'CASH'), 0);
    assert.equal(takerFee(0, 500, 1000, 'CASH'), 0);
  });
  test('rounding edges: exactly half rounds up, just below half rounds down', () => {
    // ppm × t × (1000 − t) × qty / 1e9. t = 500, qty = 1: ppm × 250_000 / 1e9 = ppm / 4000.
    assert.equal(takerFee(2_000, 500, 1, 'CASH'), 1); // 0.5 → 1
    assert.equal(takerFee(1_999, 500, 1, 'CASH'), 0); // 0.49975 → 0
    assert.equal(takerFee(6_000, 500, 1, 'CASH'), 2); // 1.5 → 2
    assert.equal(takerFee(5_999, 500, 1, 'CASH'), 1); // 1.49975 → 1
    // COIN denominator 1e7: ppm 20, t 500, qty 1 → 20 × 250_000 / 1e7 = 0.5 → 1
    assert.equal(takerFee(20, 500, 1, 'COIN'), 1);
    assert.equal(takerFee(19, 500, 1, 'COIN'), 0);
  });
  test('huge quantities stay exact (BigInt path)', () => {
    // 0.03 × 0.25 × 9e10 MCU COIN = 6.75e8 Coin = 6.75e13 Money
    assert.equal(takerFee(ppm, 500, 90_000_000_000, 'COIN'), 67_500_000_000_000);
  });
  test('max fee bounds every execution price at or below the limit', () => {
    for (const limit of [100, 400, 500, 700, 999]) {
      const cap = maxTakerFee(ppm, limit, 1000, 'CASH');
      for (const p of TICKS.filter((t) => t <= limit)) assert.ok(takerFee(ppm, p, 1000, 'CASH') <= cap);
    }
  });
  test('coefficients: 0..1 with at most 6 decimals', () => {
    assert.equal(coefficientToPpm(0.03), 30_000);
    assert.equal(coefficientToPpm(0), 0);
    assert.equal(coefficientToPpm(1), 1_000_000);
    assert.equal(coefficientToPpm(0.0000001), null);
    assert.equal(coefficientToPpm(-0.01), null);
    assert.equal(coefficientToPpm(1.5), null);
    assert.equal(coefficientToPpm(Number.NaN), null);
  });
});
