// The placed terms the engine keeps for a keyed order (docs/exchange.md "Placed terms",
// src/exchange/placed-terms.ts): recorded once, before an amend or a mass quote first changes the
// order's price or originalQty, or when a post-only reprice rests it at another price than its
// request's; never for an order without a key or one that keeps its terms; kept after the order
// closes (until the key expires: client-order-ids.test.ts); the same on replay without events and through snapshot and restore, in a section a state
// without any never writes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';
import { assertInvariants, bid, ok, rejected, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol'];
const amend = (accountId: string, orderId: string, f: { price?: number; qty?: number }): Command => ({
  type: 'AmendOrder',
  ts: T0 + 500,
  accountId,
  orderId,
  ...f,
});
const quote = (accountId: string, outcomeId: string, levels: [number, number, string][]): Command => ({
  type: 'MassQuote',
  ts: T0 + 600,
  accountId,
  marketId: outcomeId.slice(0, 2),
  currency: 'CASH',
  quotes: [{ outcomeId, levels: levels.map(([price, qty, orderId]) => ({ price, qty, orderId })) }],
});
/** Whether the snapshot carries the section (its tag is in the bytes). */
const hasSection = (x: Exchange): boolean => Buffer.from(x.snapshot()).includes('placed-terms/1');

describe('placed terms', () => {
  test('an order keeping its terms records nothing: no entry, no section', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A', clientOrderId: 'k1' })));
    ok(x.apply(bid('bob', 'M1-b', 600, 30))); // a fill leaves price and originalQty as placed
    ok(
      x.apply(bid('carol', 'M1-a', 300, 10, { orderId: 'C', clientOrderId: 'k3', tif: 'PO', reprice: true })),
    );
    assert.equal(x.placedTerms('alice', 'k1'), undefined);
    assert.equal(x.placedTerms('carol', 'k3'), undefined, 'a reprice that did not move the price');
    assert.equal(hasSection(x), false);
  });

  test('the first amend records the placement; later ones, fills and the close leave it', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A', clientOrderId: 'k1' })));
    ok(x.apply(bid('bob', 'M1-b', 600, 30)));
    ok(x.apply(amend('alice', 'A', { qty: 50 }))); // reduced in place
    assert.deepEqual(x.placedTerms('alice', 'k1'), { price: 400, qty: 100 });
    assert.equal(x.order('A')?.originalQty, 80);
    ok(x.apply(amend('alice', 'A', { price: 450, qty: 60 }))); // re-queued
    ok(x.apply(amend('alice', 'A', { price: 420 })));
    assert.deepEqual(x.placedTerms('alice', 'k1'), { price: 400, qty: 100 });
    ok(x.apply({ type: 'CancelOrder', ts: T0 + 700, accountId: 'alice', orderId: 'A' }));
    assert.equal(x.order('A'), undefined);
    // the key still names the order (kept for the idempotency window), and so its terms
    assert.equal(x.orderIdForClientOrderId('alice', 'k1'), 'A');
    assert.deepEqual(x.placedTerms('alice', 'k1'), { price: 400, qty: 100 });
    // per account: bob's key of the same name is his own
    assert.equal(x.placedTerms('bob', 'k1'), undefined);
    assert.equal(x.placedTerms('nobody', 'k1'), undefined);
    assertInvariants(x, ACC);
  });

  test('every path that moves an order records: in place, moved, taken off and matched', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'R', clientOrderId: 'reduce' })));
    ok(x.apply(bid('alice', 'M1-a', 410, 100, { orderId: 'M', clientOrderId: 'move' })));
    ok(x.apply(bid('alice', 'M2-a', 420, 100, { orderId: 'X', clientOrderId: 'cross' })));
    ok(x.apply(bid('bob', 'M2-b', 500, 40)));
    ok(x.apply(amend('alice', 'R', { qty: 10 })));
    ok(x.apply(amend('alice', 'M', { price: 300 }))); // crosses nothing: moved in place
    const evs = ok(x.apply(amend('alice', 'X', { price: 520 }))); // crosses bob's bid: matched
    assert.ok(evs.some((e) => e.kind === 'OrderFilled'));
    assert.deepEqual(x.placedTerms('alice', 'reduce'), { price: 400, qty: 100 });
    assert.deepEqual(x.placedTerms('alice', 'move'), { price: 410, qty: 100 });
    assert.deepEqual(x.placedTerms('alice', 'cross'), { price: 420, qty: 100 });
    assertInvariants(x, ACC);
  });

  test('an order without a key records nothing, amended or not', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A' })));
    ok(x.apply(amend('alice', 'A', { price: 410, qty: 10 })));
    assert.equal(hasSection(x), false);
  });

  test('a mass quote resizing a keyed order records its placement; its own levels have no key', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A', clientOrderId: 'ka' })));
    ok(x.apply(bid('alice', 'M1-a', 410, 100, { orderId: 'B', clientOrderId: 'kb' })));
    ok(
      x.apply(
        quote('alice', 'M1-a', [
          [400, 40, 'unused1'], // A shrinks in place
          [410, 150, 'unused2'], // B re-queues
          [420, 5, 'Q'], // a new level
        ]),
      ),
    );
    assert.deepEqual(x.placedTerms('alice', 'ka'), { price: 400, qty: 100 });
    assert.deepEqual(x.placedTerms('alice', 'kb'), { price: 410, qty: 100 });
    assert.equal(x.order('Q')?.clientOrderId, null);
    assertInvariants(x, ACC);
  });

  test("a post-only reprice records the request's price, only when it moved the order", () => {
    const x = setup();
    ok(x.apply(bid('bob', 'M1-b', 450, 10)));
    const evs = ok(
      x.apply(bid('alice', 'M1-a', 600, 20, { orderId: 'P', clientOrderId: 'kp', tif: 'PO', reprice: true })),
    );
    const placed = evs.find((e) => e.kind === 'OrderPlaced');
    assert.ok(placed?.kind === 'OrderPlaced' && placed.order.price < 550, 'rested inside the bid');
    assert.deepEqual(x.placedTerms('alice', 'kp'), { price: 600, qty: 20 });
    ok(x.apply(amend('alice', 'P', { qty: 5 })));
    assert.deepEqual(x.placedTerms('alice', 'kp'), { price: 600, qty: 20 }, 'the amend keeps the request');
  });

  test('a rejected amend or placement records nothing', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A', clientOrderId: 'k1' })));
    ok(x.apply(bid('bob', 'M1-b', 450, 10)));
    const h = x.hash();
    rejected(x.apply(amend('alice', 'A', { price: 400 })), 'AMEND_NO_CHANGE');
    rejected(x.apply(amend('alice', 'A', { qty: 10 ** 11 })), 'INSUFFICIENT_FUNDS');
    rejected(x.apply(amend('bob', 'A', { qty: 10 })), 'ORDER_NOT_FOUND');
    ok(x.apply({ type: 'Withdraw', ts: T0, accountId: 'carol', currency: 'CASH', amount: 1_000_000_000 }));
    const h2 = x.hash();
    rejected(
      x.apply(bid('carol', 'M1-a', 600, 20, { clientOrderId: 'kc', tif: 'PO', reprice: true })),
      'INSUFFICIENT_FUNDS',
    );
    assert.equal(x.placedTerms('carol', 'kc'), undefined);
    assert.equal(x.orderIdForClientOrderId('carol', 'kc'), undefined);
    assert.notEqual(h2, h);
    assert.equal(x.hash(), h2);
    assert.equal(hasSection(x), false);
  });

  test('replay without events, snapshot and restore give the same terms and hash', () => {
    const cmds: Command[] = [
      bid('alice', 'M1-a', 400, 100, { orderId: 'A', clientOrderId: 'k1' }),
      bid('bob', 'M1-b', 600, 30),
      bid('bob', 'M2-b', 450, 10),
      bid('carol', 'M2-a', 600, 20, { orderId: 'P', clientOrderId: 'kp', tif: 'PO', reprice: true }),
      amend('alice', 'A', { price: 410, qty: 50 }),
      bid('carol', 'M1-a', 300, 10, { orderId: 'C', clientOrderId: 'kc' }),
      amend('carol', 'C', { qty: 5 }),
      { type: 'CancelOrder', ts: T0 + 700, accountId: 'carol', orderId: 'C' },
    ];
    const x = setup();
    const y = setup();
    y.setEvents(false);
    for (const c of cmds) {
      assert.equal(x.apply(structuredClone(c)).ok, true);
      assert.equal(y.apply(structuredClone(c)).ok, true);
    }
    assert.equal(y.hash(), x.hash());
    assert.equal(hasSection(x), true);
    const z = new Exchange();
    z.restore(x.snapshot());
    assert.equal(z.hash(), x.hash());
    for (const [account, key] of [
      ['alice', 'k1'],
      ['carol', 'kp'],
      ['carol', 'kc'],
    ] as const) {
      assert.ok(x.placedTerms(account, key), `${account} ${key} recorded`);
      assert.deepEqual(z.placedTerms(account, key), x.placedTerms(account, key));
    }
    // the restored state goes on recording exactly as the original
    const more: Command[] = [
      bid('alice', 'M2-a', 300, 10, { orderId: 'D', clientOrderId: 'kd' }),
      amend('alice', 'D', { price: 310 }),
      amend('alice', 'A', { qty: 1 }),
    ];
    for (const c of more) {
      assert.deepEqual(z.apply(structuredClone(c)), x.apply(structuredClone(c)));
      assert.equal(z.hash(), x.hash());
    }
    assert.deepEqual(z.placedTerms('alice', 'kd'), { price: 300, qty: 10 });
    // a sliced snapshot writes the same bytes (the section yields between its entries)
    const it = x.snapshotSlices(1);
    let step = it.next();
    while (!step.done) step = it.next();
    assert.deepEqual(step.value, x.snapshot());
  });
});
