// The order ticket's price (ui/src/price-steps.ts): typed prices snap to the nearest tick, steps
// move one tick and stop at the table's ends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { snap, step } from '../../ui/src/price-steps.ts';

const TICKS = [0.01, 0.02, 0.05, 0.1, 0.5, 0.505, 0.51, 0.99];

describe('price steps', () => {
  it('snaps to the nearest tick, ties upward, and refuses what is not a number', () => {
    assert.equal(snap(0.5, TICKS), 0.5);
    assert.equal(snap(0.503, TICKS), 0.505);
    assert.equal(snap(0.501, TICKS), 0.5);
    assert.equal(snap(0.0025 + 0.5, TICKS), 0.505);
    assert.equal(snap(0, TICKS), 0.01);
    assert.equal(snap(5, TICKS), 0.99);
    assert.equal(snap(Number.NaN, TICKS), undefined);
    assert.equal(snap(0.5, []), undefined);
  });

  it('steps one tick from the nearest and holds at the ends', () => {
    assert.equal(step(0.5, TICKS, 1), 0.505);
    assert.equal(step(0.5, TICKS, -1), 0.1);
    assert.equal(step(0.3, TICKS, 1), 0.505);
    assert.equal(step(0.99, TICKS, 1), 0.99);
    assert.equal(step(0.01, TICKS, -3), 0.01);
    assert.equal(step(Number.NaN, TICKS, 1), 0.505);
  });
});
