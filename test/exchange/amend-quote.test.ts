// AmendOrder, MassQuote and queue position (docs/exchange.md "Amend and queue priority", "Mass
// quotes"): priority kept or lost as specified, the checks of a placement on a re-queue, fill ids of
// a re-entry, funds of a whole quote set, atomicity, replay without events.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, DomainEvent, Fill, OrderRecord } from '../../src/exchange/types.ts';
import { assertInvariants, bid, kinds, ok, rejected, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol'];
const fills = (evs: DomainEvent[]): Fill[] => evs.flatMap((e) => (e.kind === 'OrderFilled' ? [e.fill] : []));
const amend = (
  accountId: string,
  orderId: string,
  f: { price?: number; qty?: number },
  ts = T0 + 500,
): Command => ({
  type: 'AmendOrder',
  ts,
  accountId,
  orderId,
  ...f,
});
type Lv = [price: number, qty: number, orderId?: string];
let qn = 0;
function quote(accountId: string, marketId: string, sides: Record<string, Lv[]>, ts = T0 + 600): Command {
  return {
    type: 'MassQuote',
    ts,
    accountId,
    marketId,
    currency: 'CASH',
    quotes: Object.entries(sides).map(([outcomeId, levels]) => ({
      outcomeId,
      levels: levels.map(([price, qty, orderId]) => ({ price, qty, orderId: orderId ?? `q${++qn}` })),
    })),
  };
}
const ids = (x: Exchange, outcomeId: string) =>
  x.restingOrders(outcomeId, 'CASH').map((o) => `${o.id}:${o.price}:${o.qty}`);

describe('AmendOrder', () => {
  test('a smaller qty at the same price keeps the place; more qty or a new price goes to the back', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A' })));
    ok(x.apply(bid('bob', 'M1-a', 400, 50, { orderId: 'B' })));
    ok(x.apply(bid('carol', 'M1-a', 400, 30, { orderId: 'C' })));
    assert.deepEqual(x.queuePosition('C'), { ordersAhead: 2, qtyAhead: 150 });
    const evs = ok(x.apply(amend('alice', 'A', { qty: 60 })));
    assert.deepEqual(kinds(evs), ['OrderAmended', 'BookChanged', 'WalletChanged']);
    const am = evs[0] as Extract<DomainEvent, { kind: 'OrderAmended' }>;
    assert.equal(am.requeued, false);
    assert.equal(am.order.qty, 60);
    assert.deepEqual(x.queuePosition('A'), { ordersAhead: 0, qtyAhead: 0 });
    assert.deepEqual(x.queuePosition('C'), { ordersAhead: 2, qtyAhead: 110 });
    ok(x.apply(amend('alice', 'A', { qty: 61 })));
    assert.deepEqual(ids(x, 'M1-a'), ['B:400:50', 'C:400:30', 'A:400:61']);
    ok(x.apply(amend('bob', 'B', { price: 450 })));
    assert.deepEqual(ids(x, 'M1-a'), ['B:450:50', 'C:400:30', 'A:400:61']);
    ok(x.apply(amend('bob', 'B', { price: 400, qty: 10 })));
    assert.deepEqual(ids(x, 'M1-a'), ['C:400:30', 'A:400:61', 'B:400:10']);
    assertInvariants(x, ACC);
  });

  test('the order keeps id, createdAt and clientOrderId; originalQty counts what it filled', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A', clientOrderId: 'k1', flags: 'mm' })));
    ok(x.apply(bid('bob', 'M1-b', 600, 30)));
    const before = x.order('A') as OrderRecord;
    assert.equal(before.qty, 70);
    ok(x.apply(amend('alice', 'A', { price: 450, qty: 50 })));
    const after = x.order('A') as OrderRecord;
    assert.equal(after.createdAt, before.createdAt);
    assert.equal(after.originalQty, 80); // 30 filled + 50 remaining
    assert.equal(after.clientOrderId, 'k1');
    assert.equal(after.flags, 'mm');
    assert.equal(x.orderIdForClientOrderId('alice', 'k1'), 'A');
    ok(x.apply(amend('alice', 'A', { qty: 20 })));
    assert.equal((x.order('A') as OrderRecord).originalQty, 50);
    assertInvariants(x, ACC);
  });

  test('a re-queue that crosses takes as a new taker, with fill ids of its own', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A' })));
    const first = fills(ok(x.apply(bid('bob', 'M1-b', 600, 10, { orderId: 'B' }))));
    ok(x.apply(bid('carol', 'M1-b', 500, 40, { orderId: 'C' })));
    const evs = ok(x.apply(amend('alice', 'A', { price: 500 })));
    const f = fills(evs);
    assert.equal(f.length, 2);
    assert.ok(f.every((g) => g.qty === 40));
    const fillIds = [...first.map((g) => g.id), ...f.map((g) => g.id)];
    assert.equal(new Set(fillIds).size, fillIds.length, 'fill ids repeat');
    const am = evs.find((e) => e.kind === 'OrderAmended') as Extract<DomainEvent, { kind: 'OrderAmended' }>;
    assert.equal(am.requeued, true);
    assert.equal(am.order.qty, 50);
    assert.equal(am.order.originalQty, 100);
    assert.equal(x.order('A')?.price, 500);
    assertInvariants(x, ACC);
  });

  test('rejections change nothing', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A' })));
    ok(x.apply(bid('alice', 'M1-a', 300, 10, { orderId: 'P', tif: 'PO' })));
    ok(x.apply(bid('bob', 'M1-b', 550, 10, { orderId: 'B' })));
    const h = x.hash();
    const cases: [Command, string][] = [
      [amend('nobody', 'A', { qty: 5 }), 'ACCOUNT_NOT_FOUND'],
      [amend('alice', 'nope', { qty: 5 }), 'ORDER_NOT_FOUND'],
      [amend('bob', 'A', { qty: 5 }), 'ORDER_NOT_FOUND'],
      [amend('alice', 'A', {}), 'VALIDATION_FAILED'],
      [amend('alice', 'A', { price: 502 }), 'INVALID_PRICE'],
      [amend('alice', 'A', { qty: 0 }), 'INVALID_QTY'],
      [amend('alice', 'A', { qty: 1.5 }), 'INVALID_QTY'],
      [amend('alice', 'A', { price: 400, qty: 100 }), 'AMEND_NO_CHANGE'],
      [amend('alice', 'A', { qty: 3_000_000 }), 'INSUFFICIENT_FUNDS'],
      [amend('alice', 'P', { price: 450 }), 'POST_ONLY_WOULD_TAKE'],
    ];
    for (const [c, code] of cases) {
      rejected(x.apply(c), code);
      assert.equal(x.hash(), h, `${code} changed state`);
    }
    ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M2', status: 'CLOSED' }));
    ok(
      x.apply({
        type: 'SetLock',
        ts: T0,
        lock: { id: 'L', eventId: 'E1', reason: 'r', createdAt: T0, expiresAt: null },
      }),
    );
    rejected(x.apply(amend('alice', 'A', { qty: 5 })), 'TRADING_LOCKED');
  });

  test('funds: the released reservation counts toward the new one', () => {
    const x = setup();
    ok(
      x.apply({
        type: 'Withdraw',
        ts: T0,
        accountId: 'carol',
        currency: 'CASH',
        amount: 1_000_000_000 - 40_000,
      }),
    );
    ok(x.apply(bid('carol', 'M1-a', 400, 100, { orderId: 'C' }))); // reserves 40,000: all of it
    ok(x.apply(amend('carol', 'C', { price: 800, qty: 50 }))); // 40,000 again
    rejected(x.apply(amend('carol', 'C', { price: 800, qty: 51 })), 'INSUFFICIENT_FUNDS');
    assertInvariants(x, ACC);
  });
});

describe('MassQuote', () => {
  test('unchanged levels keep their place; smaller keeps; larger re-queues; unnamed and zero cancel', () => {
    const x = setup();
    ok(
      x.apply(
        quote('alice', 'M1', {
          'M1-a': [
            [400, 10, 'a400'],
            [390, 10, 'a390'],
            [380, 10, 'a380'],
            [370, 5, 'a370'],
          ],
        }),
      ),
    );
    ok(x.apply(bid('bob', 'M1-a', 400, 7, { orderId: 'B400' })));
    ok(x.apply(bid('bob', 'M1-a', 390, 7, { orderId: 'B390' })));
    ok(x.apply(bid('bob', 'M1-a', 380, 7, { orderId: 'B380' })));
    const evs = ok(
      x.apply(
        quote('alice', 'M1', {
          'M1-a': [
            [400, 10],
            [390, 4],
            [380, 12],
            [370, 0],
            [360, 3, 'a360'],
          ],
        }),
      ),
    );
    assert.deepEqual(
      evs.filter((e) => e.kind !== 'BookChanged' && e.kind !== 'WalletChanged').map((e) => e.kind),
      ['OrderCanceled', 'OrderAmended', 'OrderAmended', 'OrderPlaced', 'QuotesReplaced'],
    );
    assert.deepEqual(ids(x, 'M1-a'), [
      'a400:400:10',
      'B400:400:7',
      'a390:390:4',
      'B390:390:7',
      'B380:380:7',
      'a380:380:12',
      'a360:360:3',
    ]);
    const set = evs.find((e) => e.kind === 'QuotesReplaced') as Extract<
      DomainEvent,
      { kind: 'QuotesReplaced' }
    >;
    assert.deepEqual(
      set.orders.map((o) => o.id),
      ['a400', 'a390', 'a380', 'a360'],
    );
    // a set without 390 cancels it; the other outcome is untouched when not listed
    ok(x.apply(quote('alice', 'M1', { 'M1-b': [[500, 5, 'b500']] })));
    ok(x.apply(quote('alice', 'M1', { 'M1-a': [[400, 10]] })));
    assert.deepEqual(ids(x, 'M1-a'), ['a400:400:10', 'B400:400:7', 'B390:390:7', 'B380:380:7']);
    assert.deepEqual(ids(x, 'M1-b'), ['b500:500:5']);
    assertInvariants(x, ACC);
  });

  test('the whole set is checked for funds at once, and a rejection changes nothing', () => {
    const x = setup();
    ok(
      x.apply({
        type: 'Withdraw',
        ts: T0,
        accountId: 'carol',
        currency: 'CASH',
        amount: 1_000_000_000 - 100_000,
      }),
    );
    ok(
      x.apply(
        quote('carol', 'M1', {
          'M1-a': [
            [500, 100],
            [400, 100],
          ],
        }),
      ),
    ); // 90,000 of 100,000
    const h = x.hash();
    // moving 100 from 400 to 450 needs 5,000 more: fits; a third level of 400 × 40 does not
    rejected(
      x.apply(
        quote('carol', 'M1', {
          'M1-a': [
            [500, 100],
            [450, 100],
            [400, 40],
          ],
        }),
      ),
      'INSUFFICIENT_FUNDS',
    );
    assert.equal(x.hash(), h);
    ok(
      x.apply(
        quote('carol', 'M1', {
          'M1-a': [
            [500, 100],
            [450, 100],
          ],
        }),
      ),
    );
    assert.equal(x.wallet('carol', 'CASH')?.available, 5_000);
    assertInvariants(x, ACC);
  });

  test('quotes never take: crossing another account or its own other side refuses the set', () => {
    const x = setup();
    ok(x.apply(bid('bob', 'M1-b', 550, 10)));
    ok(x.apply(quote('alice', 'M1', { 'M1-a': [[400, 10]] })));
    const h = x.hash();
    rejected(x.apply(quote('alice', 'M1', { 'M1-a': [[450, 10]] })), 'POST_ONLY_WOULD_TAKE');
    rejected(x.apply(quote('alice', 'M1', { 'M1-b': [[600, 10]] })), 'POST_ONLY_WOULD_TAKE'); // own 400 on M1-a
    rejected(
      x.apply(quote('alice', 'M1', { 'M1-a': [[500, 1]], 'M1-b': [[500, 1]] })),
      'POST_ONLY_WOULD_TAKE',
    );
    assert.equal(x.hash(), h);
    // replacing both sides at once: the old 400 no longer counts
    ok(x.apply(quote('alice', 'M1', { 'M1-a': [[300, 10]], 'M1-b': [[600, 10]] })));
    assertInvariants(x, ACC);
  });

  test('bad input', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'taken' })));
    const h = x.hash();
    const eleven: Lv[] = Array.from({ length: 11 }, (_, i) => [300 + 5 * i, 1]);
    const cases: [Command, string][] = [
      [quote('nobody', 'M1', { 'M1-a': [[400, 1]] }), 'ACCOUNT_NOT_FOUND'],
      [quote('alice', 'M9', { 'M1-a': [[400, 1]] }), 'MARKET_NOT_FOUND'],
      [quote('alice', 'M1', { 'M2-a': [[400, 1]] }), 'OUTCOME_NOT_FOUND'],
      [quote('alice', 'M1', {}), 'VALIDATION_FAILED'],
      [quote('alice', 'M1', { 'M1-a': eleven }), 'VALIDATION_FAILED'],
      [quote('alice', 'M1', { 'M1-a': [[402, 1]] }), 'INVALID_PRICE'],
      [quote('alice', 'M1', { 'M1-a': [[400, -1]] }), 'INVALID_QTY'],
      [
        quote('alice', 'M1', {
          'M1-a': [
            [400, 1],
            [400, 2],
          ],
        }),
        'VALIDATION_FAILED',
      ],
      [quote('alice', 'M1', { 'M1-a': [[300, 1, 'taken']] }), 'ALREADY_EXISTS'],
      [
        { ...quote('alice', 'M1', { 'M1-a': [[400, 1]] }), currency: 'EUR' } as unknown as Command,
        'INVALID_CURRENCY',
      ],
    ];
    for (const [c, code] of cases) {
      rejected(x.apply(c), code);
      assert.equal(x.hash(), h, `${code} changed state`);
    }
    ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M1', status: 'CLOSED' }));
    rejected(x.apply(quote('alice', 'M1', { 'M1-a': [[400, 1]] })), 'MARKET_NOT_OPEN');
  });
});

test('replay without events reaches the same hash, and a snapshot keeps every queue', () => {
  const x = setup();
  const y = setup();
  y.setEvents(false);
  const cmds: Command[] = [
    bid('alice', 'M1-a', 400, 100, { orderId: 'A' }),
    bid('bob', 'M1-a', 400, 50, { orderId: 'B', tif: 'GTT', ttl: 5_000 }),
    amend('alice', 'A', { qty: 70 }),
    amend('bob', 'B', { qty: 80 }),
    quote('carol', 'M1', {
      'M1-a': [
        [400, 10],
        [390, 10],
      ],
      'M1-b': [[550, 5]],
    }),
    bid('alice', 'M1-b', 600, 20, { orderId: 'T' }),
    amend('alice', 'T', { price: 450 }),
    quote('carol', 'M1', { 'M1-a': [[400, 20]] }),
  ];
  for (const c of cmds) {
    const r1 = x.apply(structuredClone(c));
    const r2 = y.apply(structuredClone(c));
    assert.equal(r1.ok, r2.ok);
  }
  assert.equal(y.hash(), x.hash());
  const z = new Exchange();
  z.restore(x.snapshot());
  assert.equal(z.hash(), x.hash());
  assert.deepEqual(ids(z, 'M1-a'), ids(x, 'M1-a'));
  assert.deepEqual(z.queuePosition('B'), x.queuePosition('B'));
  assertInvariants(x, ACC);
});
