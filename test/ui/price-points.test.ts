// The price-history series (ui/src/price-points.ts): outcome 0's price, one point per second, the
// last trade of a second winning, oldest first as the chart wants.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { pricePoints } from '../../ui/src/price-points.ts';

it('mirrors the other outcome, keeps the last trade of each second, sorts by time', () => {
  // Newest first, as the server sends them.
  const trades = [
    { outcomeId: 'b', price: 0.45, qty: 1, created_at: '2026-01-01T00:00:02.900Z' },
    { outcomeId: 'a', price: 0.5, qty: 1, created_at: '2026-01-01T00:00:02.100Z' },
    { outcomeId: 'a', price: 0.52, qty: 1, created_at: '2026-01-01T00:00:01.000Z' },
  ];
  const t0 = Date.parse('2026-01-01T00:00:00Z') / 1000;
  assert.deepEqual(pricePoints(trades, 'a'), [
    { time: t0 + 1, value: 0.52 },
    { time: t0 + 2, value: 0.55 },
  ]);
  assert.deepEqual(pricePoints([], 'a'), []);
});
