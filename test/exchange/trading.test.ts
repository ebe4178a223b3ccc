import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DomainEvent, Fill } from '../../src/exchange/types.ts';
import { assertInvariants, bid, kinds, ok, rejected, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol'];
const fills = (evs: DomainEvent[]): Fill[] => evs.flatMap((e) => (e.kind === 'OrderFilled' ? [e.fill] : []));
const START = 1_000_000_000; // every fixture account starts with 10_000 Cash = 1e9 Money

describe('PlaceOrder rejections change nothing', () => {
  test('every rejection code', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'rest1', clientOrderId: 'c1' })));
    const h = x.hash();
    const cases: [Parameters<typeof bid>, string][] = [
      [['nobody', 'M1-a', 500, 10], 'ACCOUNT_NOT_FOUND'],
      [['bob', 'M1-a', 500, 10, { currency: 'EUR' as never }], 'INVALID_CURRENCY'],
      [['bob', 'M1-a', 500, 10, { tif: 'DAY' as never }], 'INVALID_TIF'],
      [['bob', 'M1-a', 502, 10], 'INVALID_PRICE'],
      [['bob', 'M1-a', 0, 10], 'INVALID_PRICE'],
      [['bob', 'M1-a', 1000, 10], 'INVALID_PRICE'],
      [['bob', 'M1-a', 500.5, 10], 'INVALID_PRICE'],
      [['bob', 'M1-a', 0.5, 10], 'INVALID_PRICE'],
      [['bob', 'M1-a', 500, 0], 'INVALID_QTY'],
      [['bob', 'M1-a', 500, -5], 'INVALID_QTY'],
      [['bob', 'M1-a', 500, 1.5], 'INVALID_QTY'],
      [['bob', 'M1-a', 500, 2 ** 60], 'INVALID_QTY'],
      [['bob', 'M1-a', 500, 1e14, { currency: 'COIN' }], 'AMOUNT_OUT_OF_RANGE'],
      [['bob', 'M1-a', 500, 1e12 + 1], 'AMOUNT_OUT_OF_RANGE'],
      [['bob', 'nope', 500, 10], 'OUTCOME_NOT_FOUND'],
      [['bob', 'M1-a', 500, 10, { orderId: 'rest1' }], 'ALREADY_EXISTS'],
      [['alice', 'M1-a', 500, 10, { clientOrderId: 'c1' }], 'DUPLICATE_CLIENT_ORDER_ID'],
      [['bob', 'M1-a', 500, 10, { tif: 'GTT' }], 'VALIDATION_FAILED'],
      [['bob', 'M1-a', 500, 10, { tif: 'GTT', ttl: 0 }], 'VALIDATION_FAILED'],
      [['bob', 'M1-a', 500, 10, { flags: 'waytoolongflags' }], 'VALIDATION_FAILED'],
      [['bob', 'M1-a', 500, 3_000_000], 'INSUFFICIENT_FUNDS'],
      [['bob', 'M1-b', 600, 10, { tif: 'PO' }], 'POST_ONLY_WOULD_TAKE'],
      [['bob', 'M1-b', 600, 101, { tif: 'FOK' }], 'FOK_NOT_FILLED'],
      [['bob', 'M1-b', 550, 10, { tif: 'FOK' }], 'FOK_NOT_FILLED'],
    ];
    for (const [args, code] of cases) {
      rejected(x.apply(bid(...args)), code);
      assert.equal(x.hash(), h, `${code} changed state`);
    }
    assert.equal(x.orderIdForClientOrderId('alice', 'c1'), 'rest1');
  });

  test('market, event and lock gates', () => {
    const x = setup('CLOSED_PREGAME');
    rejected(x.apply(bid('bob', 'M1-a', 500, 10)), 'EVENT_NOT_TRADABLE');
    ok(x.apply({ type: 'SetEventStatus', ts: T0, eventId: 'E1', status: 'OPEN_PREGAME' }));
    ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M1', status: 'CLOSED' }));
    rejected(x.apply(bid('bob', 'M1-a', 500, 10)), 'MARKET_NOT_OPEN');
    ok(x.apply(bid('bob', 'M2-a', 500, 10)));

    ok(
      x.apply({
        type: 'SetLock',
        ts: T0,
        lock: { id: 'L1', eventId: 'E1', reason: 'r', createdAt: T0, expiresAt: T0 + 100 },
      }),
    );
    rejected(x.apply(bid('bob', 'M2-a', 500, 10, { ts: T0 + 99 })), 'TRADING_LOCKED');
    ok(x.apply(bid('bob', 'M2-a', 500, 10, { ts: T0 + 100 }))); // lock expired by time even before Expire
    ok(
      x.apply({
        type: 'SetLock',
        ts: T0,
        lock: { id: 'SYS', eventId: null, reason: 'maintenance', createdAt: T0, expiresAt: null },
      }),
    );
    rejected(
      x.apply({
        type: 'SetLock',
        ts: T0,
        lock: { id: 'SYS2', eventId: null, reason: 'x', createdAt: T0, expiresAt: null },
      }),
      'ALREADY_EXISTS',
    );
    rejected(x.apply(bid('bob', 'M2-a', 500, 10, { ts: T0 + 1_000_000 })), 'TRADING_LOCKED');
    // cancels always work under a lock
    const resting = x.openOrders('bob')[0]!;
    ok(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'bob', orderId: resting.id }));
    assert.equal(x.locks().system?.id, 'SYS');
    assert.deepEqual(
      x.locks().events.map((l) => l.id),
      ['L1'],
    );
    const evs = ok(x.apply({ type: 'Expire', ts: T0 + 100 }));
    assert.deepEqual(kinds(evs), ['LocksChanged']);
    assert.equal(x.locks().events.length, 0);
    rejected(x.apply({ type: 'ClearLock', ts: T0, lockId: 'L1' }), 'LOCK_NOT_FOUND');
    ok(x.apply({ type: 'ClearLock', ts: T0, lockId: 'SYS' }));
    ok(x.apply(bid('bob', 'M2-a', 500, 10)));
    rejected(
      x.apply({
        type: 'SetLock',
        ts: T0,
        lock: { id: 'L9', eventId: 'nope', reason: 'r', createdAt: T0, expiresAt: null },
      }),
      'EVENT_NOT_FOUND',
    );
  });
});

describe('matching (docs/exchange.md "Books and matching")', () => {
  test('maker trades at its price, taker pays 1 − q, improvement to the taker', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 600, 100, { orderId: 'mk' })));
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START - 60_000, reserved: 60_000 });
    const evs = ok(x.apply(bid('bob', 'M1-b', 450, 150, { orderId: 'tk' })));
    assert.equal(kinds(evs)[0], 'OrderPlaced');
    const [mf, tf] = fills(evs);
    assert.ok(mf && tf, 'two fills');
    assert.deepEqual(
      { id: mf.id, order: mf.orderId, price: mf.price, qty: mf.qty, taker: mf.isTaker, out: mf.outcomeId },
      { id: 'tk:1:m', order: 'mk', price: 600, qty: 100, taker: false, out: 'M1-a' },
    );
    assert.deepEqual(
      { id: tf.id, order: tf.orderId, price: tf.price, qty: tf.qty, taker: tf.isTaker, out: tf.outcomeId },
      { id: 'tk:1:t', order: 'tk', price: 400, qty: 100, taker: true, out: 'M1-b' },
    );
    // bob paid 0.40 × 100 (not 0.45) and still reserves 0.45 × 50 for the resting rest
    assert.deepEqual(x.wallet('bob', 'CASH'), { available: START - 40_000 - 22_500, reserved: 22_500 });
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START - 60_000, reserved: 0 });
    assert.deepEqual(
      x.positions('alice').map((p) => [p.outcomeId, p.size, p.cost]),
      [['M1-a', 100, 60_000]],
    );
    assert.deepEqual(
      x.positions('bob').map((p) => [p.outcomeId, p.size, p.cost]),
      [['M1-b', 100, 40_000]],
    );
    assert.equal(x.market('M1')!.volume.CASH, 100);
    assert.equal(x.outcome('M1-a')!.last.CASH, 600);
    assert.equal(x.outcome('M1-b')!.last.CASH, 400);
    assert.equal(x.order('tk')!.qty, 50);
    assert.equal(x.order('mk'), undefined);
    assert.deepEqual(x.bookLevels('M1', 'CASH'), { bids: [], asks: [{ price: 550, qty: 50 }] });
    assertInvariants(x, ACC);
  });

  test('price-time priority across levels and within a level', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 550, 10, { orderId: 'a1' })));
    ok(x.apply(bid('carol', 'M1-a', 600, 10, { orderId: 'c1' })));
    ok(x.apply(bid('alice', 'M1-a', 600, 10, { orderId: 'a2' })));
    ok(x.apply(bid('carol', 'M1-a', 500, 10, { orderId: 'c2' })));
    assert.deepEqual(
      x.restingOrders('M1-a', 'CASH').map((o) => o.id),
      ['c1', 'a2', 'a1', 'c2'],
    );
    assert.deepEqual(x.bestBid('M1-a', 'CASH'), { price: 600, qty: 20 });
    const evs = ok(x.apply(bid('bob', 'M1-b', 450, 25, { orderId: 'b1', tif: 'IOC' })));
    assert.deepEqual(
      fills(evs)
        .filter((f) => !f.isTaker)
        .map((f) => [f.orderId, f.qty, f.price]),
      [
        ['c1', 10, 600],
        ['a2', 10, 600],
        ['a1', 5, 550],
      ],
    );
    // c2 at 0.50 does not cross 0.45 (0.50 + 0.45 < 1)
    assert.deepEqual(x.bookLevels('M1', 'CASH').bids, [
      { price: 550, qty: 5 },
      { price: 500, qty: 10 },
    ]);
    assert.equal(x.order('b1'), undefined, 'IOC never rests');
    assertInvariants(x, ACC);
  });

  test('IOC remainder is cancelled and its collateral released', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 600, 10)));
    const evs = ok(x.apply(bid('bob', 'M1-b', 450, 30, { orderId: 'ioc', tif: 'IOC' })));
    const placed = evs[0]!;
    assert.ok(placed.kind === 'OrderPlaced' && placed.order.status === 'CANCELED' && placed.order.qty === 20);
    const canc = evs.find((e) => e.kind === 'OrderCanceled');
    assert.ok(canc && canc.kind === 'OrderCanceled' && canc.reason === 'IOC');
    assert.deepEqual(x.wallet('bob', 'CASH'), { available: START - 4_000, reserved: 0 });
    assertInvariants(x, ACC);
  });

  test('FOK fills completely or not at all; PO rests when it would not take', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 600, 10)));
    ok(x.apply(bid('carol', 'M1-a', 550, 10)));
    const evs = ok(x.apply(bid('bob', 'M1-b', 450, 20, { tif: 'FOK' })));
    const placed = evs[0]!;
    assert.ok(placed.kind === 'OrderPlaced' && placed.order.status === 'FILLED' && placed.order.qty === 0);
    assert.equal(fills(evs).length, 4);
    ok(x.apply(bid('bob', 'M1-b', 450, 20, { tif: 'PO', orderId: 'po' })));
    assert.equal(x.order('po')!.tif, 'PO');
    assertInvariants(x, ACC);
  });

  test('GTT orders rest until Expire reaches expiresAt', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'g1', tif: 'GTT', ttl: 1000, ts: T0 + 10 })));
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'g2', tif: 'GTT', ttl: 500, ts: T0 + 10 })));
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'g3', tif: 'GTT', ttl: 500, ts: T0 + 10 })));
    ok(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'alice', orderId: 'g3' }));
    assert.equal(x.order('g1')!.expiresAt, T0 + 1010);
    assert.deepEqual(kinds(ok(x.apply({ type: 'Expire', ts: T0 + 509 }))), []);
    const evs = ok(x.apply({ type: 'Expire', ts: T0 + 510 }));
    const c = evs.filter((e) => e.kind === 'OrderCanceled');
    assert.equal(c.length, 1);
    assert.ok(c[0]!.kind === 'OrderCanceled' && c[0]!.order.id === 'g2' && c[0]!.reason === 'EXPIRED');
    ok(x.apply({ type: 'Expire', ts: T0 + 5000 }));
    assert.equal(x.openOrders('alice').length, 0);
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START, reserved: 0 });
  });

  test('self-trade prevention cancels both orders as a wash and moves no money', () => {
    const x = setup();
    ok(x.apply(bid('carol', 'M1-a', 650, 5, { orderId: 'c' })));
    ok(x.apply(bid('alice', 'M1-a', 600, 10, { orderId: 'a-rest' })));
    ok(x.apply(bid('carol', 'M1-a', 600, 10, { orderId: 'c2' })));
    const evs = ok(x.apply(bid('alice', 'M1-b', 450, 30, { orderId: 'a-take' })));
    const fs = fills(evs);
    // first c (0.65) fills normally for 5, then alice meets her own order: wash, both cancelled
    assert.deepEqual(
      fs.map((f) => [f.orderId, f.qty, f.isWash]),
      [
        ['c', 5, false],
        ['a-take', 5, false],
        ['a-rest', 10, true],
        ['a-take', 10, true],
      ],
    );
    const cancels = evs.flatMap((e) => (e.kind === 'OrderCanceled' ? [[e.order.id, e.reason]] : []));
    assert.deepEqual(cancels, [
      ['a-rest', 'WASH'],
      ['a-take', 'WASH'],
    ]);
    assert.equal(x.order('a-rest'), undefined);
    assert.equal(x.order('a-take'), undefined);
    assert.equal(x.order('c2')!.qty, 10, 'orders behind the wash are untouched');
    // alice only paid for the 5 she really bought from carol (at 1 − 0.65)
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START - 1_750, reserved: 0 });
    assertInvariants(x, ACC);
  });

  test('holding both outcomes nets: pairs merge and pay their full payout', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 600, 100)));
    ok(x.apply(bid('bob', 'M1-b', 400, 100))); // alice A 100 @0.60, bob B 100 @0.40
    ok(x.apply(bid('carol', 'M1-a', 550, 60)));
    const evs = ok(x.apply(bid('alice', 'M1-b', 450, 60))); // alice buys B 60 @0.45 from carol
    const net = evs.find((e) => e.kind === 'LedgerEntry' && e.entryKind === 'NET');
    assert.ok(net && net.kind === 'LedgerEntry');
    assert.equal(net.amount, 60_000); // 60 pairs × 1000 Money
    // alice: A 40 left with cost 60_000 − 60_000×60/100 = 24_000; B fully netted
    assert.deepEqual(
      x.positions('alice').map((p) => [p.outcomeId, p.size, p.cost]),
      [['M1-a', 40, 24_000]],
    );
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START - 60_000 - 27_000 + 60_000, reserved: 0 });
    const t = x.totals().CASH;
    assert.equal(t.collateral, 100_000); // 100 outstanding pairs: bob B 100, alice A 40 + carol A 60
    assertInvariants(x, ACC);
  });

  test('currencies keep separate books, wallets and positions', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 600, 10, { currency: 'COIN' })));
    ok(x.apply(bid('bob', 'M1-b', 450, 10, { currency: 'CASH' })));
    assert.equal(x.bookLevels('M1', 'CASH').asks.length, 1);
    assert.equal(x.bookLevels('M1', 'COIN').bids.length, 1);
    assert.deepEqual(x.wallet('alice', 'COIN'), { available: START - 600_000, reserved: 600_000 });
    ok(x.apply(bid('bob', 'M1-b', 400, 10, { currency: 'COIN' })));
    assert.deepEqual(
      x.positions('bob', 'COIN').map((p) => [p.size, p.cost]),
      [[10, 400_000]],
    );
    assert.equal(x.positions('bob', 'CASH').length, 0);
    assertInvariants(x, ACC);
  });
});

describe('book reads', () => {
  test('levels aggregate per price; asks are outcome-1 bids seen as offers on outcome 0', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 450, 10)));
    ok(x.apply(bid('bob', 'M1-a', 450, 5)));
    ok(x.apply(bid('bob', 'M1-a', 400, 7)));
    ok(x.apply(bid('carol', 'M1-b', 500, 3)));
    ok(x.apply(bid('carol', 'M1-b', 520 - 20, 4)));
    ok(x.apply(bid('carol', 'M1-b', 300, 1)));
    const book = x.bookLevels('M1', 'CASH');
    assert.deepEqual(book.bids, [
      { price: 450, qty: 15 },
      { price: 400, qty: 7 },
    ]);
    assert.deepEqual(book.asks, [
      { price: 500, qty: 7 },
      { price: 700, qty: 1 },
    ]);
    assert.ok(book.bids[0]!.price < book.asks[0]!.price, 'never crossed');
    assert.deepEqual(x.bookLevels('nope', 'CASH'), { bids: [], asks: [] });
    assert.equal(x.bestBid('M1-b', 'COIN'), null);
  });

  test('bookSeq bumps once per command that changes the book', () => {
    const x = setup();
    assert.equal(x.bookSeq('M1', 'CASH'), 0);
    ok(x.apply(bid('alice', 'M1-a', 450, 10, { orderId: 'x1' })));
    assert.equal(x.bookSeq('M1', 'CASH'), 1);
    ok(x.apply(bid('bob', 'M1-b', 550, 4)));
    assert.equal(x.bookSeq('M1', 'CASH'), 2);
    ok(x.apply(bid('bob', 'M2-b', 550, 4)));
    assert.equal(x.bookSeq('M1', 'CASH'), 2);
    assert.equal(x.bookSeq('M2', 'CASH'), 1);
    ok(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'alice', orderId: 'x1' }));
    assert.equal(x.bookSeq('M1', 'CASH'), 3);
    assert.equal(x.bookSeq('M1', 'COIN'), 0);
  });

  test('openOrders, order and clientOrderId lookups', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 450, 10, { orderId: 'p1', clientOrderId: 'k1', flags: 'mm' })));
    ok(x.apply(bid('alice', 'M2-a', 450, 10, { orderId: 'p2', currency: 'COIN' })));
    assert.deepEqual(
      x.openOrders('alice').map((o) => o.id),
      ['p1', 'p2'],
    );
    assert.deepEqual(
      x.openOrders('alice', 'COIN').map((o) => o.id),
      ['p2'],
    );
    const o = x.order('p1')!;
    assert.equal(o.flags, 'mm');
    assert.equal(o.clientOrderId, 'k1');
    assert.equal(o.status, 'RESTING');
    assert.equal(x.orderIdForClientOrderId('alice', 'k1'), 'p1');
    assert.equal(x.orderIdForClientOrderId('bob', 'k1'), undefined);
    assert.deepEqual(x.openOrders('nobody'), []);
  });
});

describe('cancels', () => {
  test('CancelOrder: owner only, releases exactly the reserve', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 450, 10, { orderId: 'p1' })));
    rejected(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'bob', orderId: 'p1' }), 'ORDER_NOT_FOUND');
    rejected(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'alice', orderId: 'zz' }), 'ORDER_NOT_FOUND');
    rejected(
      x.apply({ type: 'CancelOrder', ts: T0, accountId: 'nobody', orderId: 'p1' }),
      'ACCOUNT_NOT_FOUND',
    );
    const evs = ok(x.apply({ type: 'CancelOrder', ts: T0 + 9, accountId: 'alice', orderId: 'p1' }));
    assert.deepEqual(kinds(evs), ['OrderCanceled', 'BookChanged', 'WalletChanged']);
    const c = evs[0]!;
    assert.ok(
      c.kind === 'OrderCanceled' &&
        c.reason === 'USER' &&
        c.order.status === 'CANCELED' &&
        c.order.updatedAt === T0 + 9,
    );
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START, reserved: 0 });
    rejected(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'alice', orderId: 'p1' }), 'ORDER_NOT_FOUND');
  });

  test('CancelOrders: all / event / market scopes and id batches', () => {
    const x = setup();
    for (const [id, out] of [
      ['a1', 'M1-a'],
      ['a2', 'M2-a'],
      ['a3', 'M1-b'],
      ['a4', 'M2-b'],
    ] as const) {
      ok(x.apply(bid('alice', out, 300, 10, { orderId: id })));
    }
    ok(x.apply(bid('bob', 'M1-a', 300, 10, { orderId: 'b1' })));
    const ids = (evs: DomainEvent[]) => evs.flatMap((e) => (e.kind === 'OrderCanceled' ? [e.order.id] : []));
    rejected(
      x.apply({ type: 'CancelOrders', ts: T0, accountId: 'alice', scope: 'market', scopeId: 'zz' }),
      'MARKET_NOT_FOUND',
    );
    rejected(
      x.apply({ type: 'CancelOrders', ts: T0, accountId: 'alice', scope: 'event', scopeId: 'zz' }),
      'EVENT_NOT_FOUND',
    );
    rejected(x.apply({ type: 'CancelOrders', ts: T0, accountId: 'zz', scope: 'all' }), 'ACCOUNT_NOT_FOUND');
    rejected(
      x.apply({ type: 'CancelOrders', ts: T0, accountId: 'alice', scope: 'x' as never }),
      'VALIDATION_FAILED',
    );
    assert.deepEqual(
      ids(
        ok(
          x.apply({
            type: 'CancelOrders',
            ts: T0,
            accountId: 'alice',
            scope: 'all',
            orderIds: ['a4', 'nope', 'b1'],
          }),
        ),
      ),
      ['a4'],
    );
    assert.deepEqual(
      ids(ok(x.apply({ type: 'CancelOrders', ts: T0, accountId: 'alice', scope: 'market', scopeId: 'M1' }))),
      ['a1', 'a3'],
    );
    assert.deepEqual(
      ids(ok(x.apply({ type: 'CancelOrders', ts: T0, accountId: 'alice', scope: 'event', scopeId: 'E1' }))),
      ['a2'],
    );
    assert.deepEqual(
      ids(ok(x.apply({ type: 'CancelOrders', ts: T0, accountId: 'alice', scope: 'all' }))),
      [],
    );
    assert.equal(x.order('b1')!.accountId, 'bob');
    assertInvariants(x, ACC);
  });
});

describe('accounts', () => {
  test('CreateAccount, Deposit, Withdraw', () => {
    const x = setup();
    rejected(x.apply({ type: 'CreateAccount', ts: T0, accountId: 'alice' }), 'ALREADY_EXISTS');
    ok(x.apply({ type: 'CreateAccount', ts: T0, accountId: 'dave' }));
    assert.ok(x.hasAccount('dave'));
    assert.deepEqual(x.wallet('dave', 'COIN'), { available: 0, reserved: 0 });
    rejected(
      x.apply({ type: 'Deposit', ts: T0, accountId: 'zz', currency: 'CASH', amount: 5 }),
      'ACCOUNT_NOT_FOUND',
    );
    rejected(
      x.apply({ type: 'Deposit', ts: T0, accountId: 'dave', currency: 'EUR' as never, amount: 5 }),
      'INVALID_CURRENCY',
    );
    for (const amount of [0, -5, 1.5, Number.NaN, 2 ** 60]) {
      rejected(
        x.apply({ type: 'Deposit', ts: T0, accountId: 'dave', currency: 'CASH', amount }),
        'INVALID_AMOUNT',
      );
    }
    const evs = ok(x.apply({ type: 'Deposit', ts: T0, accountId: 'dave', currency: 'CASH', amount: 500 }));
    assert.deepEqual(evs, [
      {
        kind: 'LedgerEntry',
        accountId: 'dave',
        currency: 'CASH',
        entryKind: 'DEPOSIT',
        amount: 500,
        ref: null,
      },
      { kind: 'WalletChanged', accountId: 'dave', currency: 'CASH' },
    ]);
    rejected(
      x.apply({ type: 'Withdraw', ts: T0, accountId: 'dave', currency: 'CASH', amount: 501 }),
      'INSUFFICIENT_FUNDS',
    );
    ok(x.apply({ type: 'Withdraw', ts: T0, accountId: 'dave', currency: 'CASH', amount: 200 }));
    assert.deepEqual(x.wallet('dave', 'CASH'), { available: 300, reserved: 0 });
    // reserved funds cannot be withdrawn
    ok(x.apply(bid('dave', 'M1-a', 3, 100)));
    rejected(
      x.apply({ type: 'Withdraw', ts: T0, accountId: 'dave', currency: 'CASH', amount: 1 }),
      'INSUFFICIENT_FUNDS',
    );
    assert.equal(x.wallet('nobody', 'CASH'), undefined);
    const t = x.totals().CASH;
    assert.equal(t.withdrawals, 200);
    assertInvariants(x, [...ACC, 'dave']);
  });
});

describe('nextExpiry', () => {
  test('earliest live GTT or lock expiry, null when none', () => {
    const x = setup();
    assert.equal(x.nextExpiry(), null);
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'g1', tif: 'GTT', ttl: 100, ts: T0 })));
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'g2', tif: 'GTT', ttl: 300, ts: T0 })));
    assert.equal(x.nextExpiry(), T0 + 100);
    ok(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'alice', orderId: 'g1' }));
    assert.equal(x.nextExpiry(), T0 + 300, 'cancelled orders no longer count');
    ok(
      x.apply({
        type: 'SetLock',
        ts: T0,
        lock: { id: 'L', eventId: 'E1', reason: 'r', createdAt: T0, expiresAt: T0 + 50 },
      }),
    );
    assert.equal(x.nextExpiry(), T0 + 50);
    ok(x.apply({ type: 'Expire', ts: T0 + 300 }));
    assert.equal(x.nextExpiry(), null);
  });
});
