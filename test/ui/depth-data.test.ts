// The depth chart's data (ui/src/depth-data.ts): one point per 0.001 from the lowest bid to the
// highest offer, so the evenly spaced points of the chart are an evenly spaced price axis.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { depthSeries } from '../../ui/src/depth-data.ts';

describe('depth series', () => {
  it('spaces points by price, with the spread as a gap of its real width', () => {
    const d = depthSeries(
      [
        { price: 0.53, qty: 100 },
        { price: 0.515, qty: 50 },
      ],
      [
        { price: 0.545, qty: 70 },
        { price: 0.555, qty: 30 },
      ],
    );
    // 0.515 … 0.555: 41 points on each series, every step exactly 0.001.
    assert.equal(d.bids.length, 41);
    assert.equal(d.asks.length, 41);
    for (const s of [d.bids, d.asks])
      for (let i = 1; i < s.length; i++) assert.equal(Math.round((s[i]!.time - s[i - 1]!.time) * 1000), 1);
    const at = (s: typeof d.bids, p: number) =>
      s.find((x) => Math.round(x.time * 1000) === Math.round(p * 1000));
    assert.equal(at(d.bids, 0.53)?.value, 100);
    assert.equal(at(d.bids, 0.52)?.value, 100);
    assert.equal(at(d.bids, 0.515)?.value, 150);
    assert.equal(at(d.bids, 0.531)?.value, undefined);
    assert.equal(at(d.asks, 0.544)?.value, undefined);
    assert.equal(at(d.asks, 0.545)?.value, 70);
    assert.equal(at(d.asks, 0.555)?.value, 100);
    // The spread 0.531–0.544 has no value on either side: 14 points, as wide as 14 ticks of 0.001.
    const gap = d.bids.filter((p, i) => p.value === undefined && d.asks[i]!.value === undefined);
    assert.equal(gap.length, 14);
  });

  it('an empty or one-sided book', () => {
    assert.deepEqual(depthSeries([], []), { bids: [], asks: [] });
    const d = depthSeries([{ price: 0.4, qty: 5 }], []);
    assert.deepEqual(d.bids, [{ time: 0.4, value: 5 }]);
    assert.deepEqual(d.asks, [{ time: 0.4 }]);
  });
});
