// The placed terms order entry compares a clientOrderId retry with (src/runtime/placed-terms.ts):
// one record per port, a record names its order, and the oldest key goes first past the bound.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExchangePort } from '../../src/runtime/exchange-port.ts';
import { PlacedTerms, placedTermsOf, type Terms } from '../../src/runtime/placed-terms.ts';

const terms = (price: number, qty = 100): Terms => ({
  outcomeId: 'o-1',
  price,
  qty,
  currency: 'CASH',
  tif: 'GTC',
});

describe('placed terms', () => {
  test('the terms of the order a key placed, not of another order, not of another account', () => {
    const p = new PlacedTerms();
    p.remember('acc-a', 'k', 'order-1', { ...terms(400), extra: true } as Terms);
    assert.deepEqual(p.termsOf('acc-a', 'k', 'order-1'), terms(400));
    assert.equal(p.termsOf('acc-a', 'k', 'order-2'), undefined);
    assert.equal(p.termsOf('acc-b', 'k', 'order-1'), undefined);
    assert.equal(p.termsOf('acc-a', 'k2', 'order-1'), undefined);
  });

  test('bounded: past the bound the oldest key is forgotten first', () => {
    const p = new PlacedTerms(3);
    for (let i = 0; i < 5; i++) p.remember('acc', `k${i}`, `order-${i}`, terms(400 + i));
    assert.equal(p.size, 3);
    assert.equal(p.termsOf('acc', 'k0', 'order-0'), undefined);
    assert.equal(p.termsOf('acc', 'k1', 'order-1'), undefined);
    assert.deepEqual(p.termsOf('acc', 'k4', 'order-4'), terms(404));
  });

  test('one record per port, shared by every order entry over it', () => {
    const port = {} as ExchangePort;
    assert.equal(placedTermsOf(port), placedTermsOf(port));
    assert.notEqual(placedTermsOf(port), placedTermsOf({} as ExchangePort));
  });
});
