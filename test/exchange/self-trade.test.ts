// Self-trade prevention modes and the post-only reprice (docs/exchange.md "Self-trade prevention",
// "Books and matching"): CANCEL_BOTH stays the default, CANCEL_TAKER and CANCEL_MAKER cancel one
// side; a PO order with `reprice` rests one tick inside the best opposite bid instead of being
// rejected. Every rejection changes nothing.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DomainEvent, Fill } from '../../src/exchange/types.ts';
import { assertInvariants, bid, ok, rejected, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol'];
const START = 1_000_000_000;
const fills = (evs: DomainEvent[]): Fill[] => evs.flatMap((e) => (e.kind === 'OrderFilled' ? [e.fill] : []));
const cancels = (evs: DomainEvent[]) =>
  evs.flatMap((e) => (e.kind === 'OrderCanceled' ? [[e.order.id, e.reason]] : []));

/** carol 0.65 × 5, then alice's own 0.60 × 10, then carol 0.60 × 10 behind it. */
function book() {
  const x = setup();
  ok(x.apply(bid('carol', 'M1-a', 650, 5, { orderId: 'c', ts: T0 + 1 })));
  ok(x.apply(bid('alice', 'M1-a', 600, 10, { orderId: 'a-rest', ts: T0 + 2 })));
  ok(x.apply(bid('carol', 'M1-a', 600, 10, { orderId: 'c2', ts: T0 + 3 })));
  return x;
}

describe('self-trade prevention modes', () => {
  test('CANCEL_BOTH given explicitly is the default, event for event', () => {
    const x = book();
    const y = book();
    const a = ok(x.apply(bid('alice', 'M1-b', 450, 30, { orderId: 'a-take', ts: T0 + 9 })));
    const b = ok(
      y.apply(bid('alice', 'M1-b', 450, 30, { orderId: 'a-take', ts: T0 + 9, stp: 'CANCEL_BOTH' })),
    );
    assert.deepEqual(b, a);
    assert.equal(y.hash(), x.hash());
  });

  test('CANCEL_TAKER: the taker remainder is cancelled, the own maker stays', () => {
    const x = book();
    const evs = ok(x.apply(bid('alice', 'M1-b', 450, 30, { orderId: 'a-take', stp: 'CANCEL_TAKER' })));
    assert.deepEqual(
      fills(evs).map((f) => [f.orderId, f.qty, f.isWash]),
      [
        ['c', 5, false],
        ['a-take', 5, false],
      ],
    );
    assert.deepEqual(cancels(evs), [['a-take', 'WASH']]);
    assert.equal(x.order('a-rest')!.qty, 10);
    assert.equal(x.order('c2')!.qty, 10);
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START - 1_750 - 6_000, reserved: 6_000 });
    assertInvariants(x, ACC);
  });

  test('CANCEL_MAKER: the own maker is cancelled and matching goes on behind it', () => {
    const x = book();
    const evs = ok(x.apply(bid('alice', 'M1-b', 450, 30, { orderId: 'a-take', stp: 'CANCEL_MAKER' })));
    assert.deepEqual(
      fills(evs).map((f) => [f.orderId, f.qty, f.isWash]),
      [
        ['c', 5, false],
        ['a-take', 5, false],
        ['c2', 10, false],
        ['a-take', 10, false],
      ],
    );
    assert.deepEqual(cancels(evs), [['a-rest', 'WASH']]);
    assert.equal(x.order('a-rest'), undefined);
    assert.equal(x.order('a-take')!.qty, 15, 'the remainder rests');
    assertInvariants(x, ACC);
  });

  test('FOK with CANCEL_MAKER counts past its own orders; with the default it stops at them', () => {
    const x = book();
    const h = x.hash();
    rejected(x.apply(bid('alice', 'M1-b', 450, 15, { tif: 'FOK' })), 'FOK_NOT_FILLED');
    assert.equal(x.hash(), h);
    const evs = ok(x.apply(bid('alice', 'M1-b', 450, 15, { tif: 'FOK', stp: 'CANCEL_MAKER' })));
    assert.equal(
      fills(evs).reduce((s, f) => s + (f.isTaker ? f.qty : 0), 0),
      15,
    );
    assertInvariants(x, ACC);
  });

  test('a bad mode or reprice is rejected and changes nothing', () => {
    const x = book();
    const h = x.hash();
    rejected(x.apply(bid('alice', 'M1-b', 450, 5, { stp: 'CANCEL_NONE' as never })), 'VALIDATION_FAILED');
    rejected(x.apply(bid('alice', 'M1-b', 450, 5, { reprice: true })), 'VALIDATION_FAILED');
    rejected(
      x.apply(bid('alice', 'M1-b', 450, 5, { tif: 'PO', reprice: 'yes' as never })),
      'VALIDATION_FAILED',
    );
    assert.equal(x.hash(), h);
  });
});

describe('post-only reprice', () => {
  test('a crossing PO rests one tick inside the best opposite bid', () => {
    const x = book();
    const h = x.hash();
    rejected(x.apply(bid('bob', 'M1-b', 450, 10, { tif: 'PO' })), 'POST_ONLY_WOULD_TAKE');
    assert.equal(x.hash(), h);
    // best opposite bid 0.65: 1 − 0.65 = 0.35 would cross, 0.345 is the best price that does not
    const evs = ok(x.apply(bid('bob', 'M1-b', 450, 10, { tif: 'PO', reprice: true, orderId: 'po' })));
    const placed = evs[0]!;
    assert.ok(
      placed.kind === 'OrderPlaced' && placed.order.price === 345 && placed.order.status === 'RESTING',
    );
    assert.equal(fills(evs).length, 0);
    assert.equal(x.order('po')!.price, 345);
    assert.equal(x.wallet('bob', 'CASH')!.reserved, 3_450);
    assertInvariants(x, ACC);
  });

  test('a PO that does not cross keeps its price; the finer tick steps near the edges', () => {
    const x = setup();
    ok(x.apply(bid('bob', 'M2-b', 300, 10, { tif: 'PO', reprice: true, orderId: 'keep' })));
    assert.equal(x.order('keep')!.price, 300);
    ok(x.apply(bid('carol', 'M1-a', 960, 1)));
    ok(x.apply(bid('bob', 'M1-b', 100, 10, { tif: 'PO', reprice: true, orderId: 'edge' })));
    assert.equal(x.order('edge')!.price, 39); // 1 − 0.960 = 0.040 crosses; 0.039 is the next tick
    assertInvariants(x, ACC);
  });

  test('no tick left below the best opposite bid: rejected, nothing changes', () => {
    const x = setup();
    ok(x.apply(bid('carol', 'M1-a', 999, 1)));
    const h = x.hash();
    rejected(x.apply(bid('bob', 'M1-b', 5, 10, { tif: 'PO', reprice: true })), 'POST_ONLY_WOULD_TAKE');
    assert.equal(x.hash(), h);
  });

  test('funds are checked at the repriced price', () => {
    const x = setup('OPEN_PREGAME', ['rich', 'poor']);
    ok(x.apply(bid('rich', 'M1-a', 900, 1)));
    // poor holds 1e9 Money: 0.5 × 2.5e6 MCU needs 1.25e9, 0.095 × 2.5e6 needs 2.375e8
    ok(x.apply(bid('poor', 'M1-b', 500, 2_500_000, { tif: 'PO', reprice: true, orderId: 'p', ts: T0 })));
    assert.equal(x.order('p')!.price, 95);
    assertInvariants(x, ['rich', 'poor']);
  });
});
