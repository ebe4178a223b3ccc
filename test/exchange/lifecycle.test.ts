import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DomainEvent } from '../../src/exchange/types.ts';
import { takerFee } from '../../src/exchange/units.ts';
import { assertInvariants, bid, ok, rejected, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol'];
const START = 1_000_000_000;
const canceled = (evs: DomainEvent[]) =>
  evs.flatMap((e) => (e.kind === 'OrderCanceled' ? [[e.order.id, e.reason]] : []));

describe('lifecycle cancels', () => {
  test('going live cancels every resting order of the event, releasing exactly the reserve', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 450, 10, { orderId: 'a' })));
    ok(x.apply(bid('bob', 'M2-b', 300, 10, { orderId: 'b', currency: 'COIN' })));
    const evs = ok(x.apply({ type: 'SetEventStatus', ts: T0, eventId: 'E1', status: 'OPEN_INGAME' }));
    assert.deepEqual(canceled(evs), [
      ['a', 'LIFECYCLE'],
      ['b', 'LIFECYCLE'],
    ]);
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START, reserved: 0 });
    assert.deepEqual(x.wallet('bob', 'COIN'), { available: START, reserved: 0 });
    // orders placed in-game survive DELAYED and are cancelled when play resumes
    ok(x.apply(bid('alice', 'M1-a', 450, 10, { orderId: 'live' })));
    ok(x.apply({ type: 'SetEventStatus', ts: T0, eventId: 'E1', status: 'DELAYED' }));
    assert.ok(x.order('live'));
    rejected(x.apply(bid('alice', 'M1-a', 450, 10)), 'EVENT_NOT_TRADABLE');
    const evs2 = ok(x.apply({ type: 'SetEventStatus', ts: T0, eventId: 'E1', status: 'OPEN_INGAME' }));
    assert.deepEqual(canceled(evs2), [['live', 'LIFECYCLE']]);
    assertInvariants(x, ACC);
  });

  test('closing a market cancels its orders only', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 450, 10, { orderId: 'a' })));
    ok(x.apply(bid('alice', 'M2-a', 450, 10, { orderId: 'b' })));
    const evs = ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M1', status: 'CLOSED' }));
    assert.deepEqual(canceled(evs), [['a', 'LIFECYCLE']]);
    assert.ok(x.order('b'));
    assertInvariants(x, ACC);
  });
});

describe('settlement', () => {
  function traded() {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 600, 100)));
    ok(x.apply(bid('bob', 'M1-b', 400, 100))); // alice A 100 cost 60_000; bob B 100 cost 40_000
    ok(x.apply(bid('carol', 'M1-a', 300, 10, { orderId: 'left' }))); // resting, cancelled by settlement
    return x;
  }

  test('rule: market CLOSED, or event FINAL/CANCELED; result an outcome or PUSH; once', () => {
    const x = traded();
    rejected(x.apply({ type: 'SettleMarket', ts: T0, marketId: 'M1', result: 'M1-a' }), 'INVALID_TRANSITION');
    rejected(x.apply({ type: 'SettleMarket', ts: T0, marketId: 'zz', result: 'PUSH' }), 'MARKET_NOT_FOUND');
    ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M1', status: 'CLOSED' }));
    rejected(x.apply({ type: 'SettleMarket', ts: T0, marketId: 'M1', result: 'M2-a' }), 'OUTCOME_NOT_FOUND');
    ok(x.apply({ type: 'SettleMarket', ts: T0 + 7, marketId: 'M1', result: 'M1-a' }));
    rejected(x.apply({ type: 'SettleMarket', ts: T0, marketId: 'M1', result: 'M1-a' }), 'ALREADY_SETTLED');
    // an OPEN market of a FINAL event can be settled directly
    const y = traded();
    ok(y.apply({ type: 'SetEventStatus', ts: T0, eventId: 'E1', status: 'OPEN_INGAME' }));
    ok(y.apply({ type: 'SetEventStatus', ts: T0, eventId: 'E1', status: 'FINAL' }));
    ok(y.apply({ type: 'SettleMarket', ts: T0, marketId: 'M1', result: 'M1-b' }));
    assertInvariants(y, ACC);
  });

  test('a win pays full payout to winners, nothing to losers, and marks outcomes', () => {
    const x = traded();
    const closing = ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M1', status: 'CLOSED' }));
    assert.deepEqual(canceled(closing), [['left', 'LIFECYCLE']]);
    const evs = ok(x.apply({ type: 'SettleMarket', ts: T0 + 7, marketId: 'M1', result: 'M1-a' }));
    const ledger = evs.flatMap((e) =>
      e.kind === 'LedgerEntry' ? [[e.accountId, e.entryKind, e.amount]] : [],
    );
    assert.deepEqual(ledger, [['alice', 'SETTLEMENT', 100_000]]);
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START + 40_000, reserved: 0 });
    assert.deepEqual(x.wallet('bob', 'CASH'), { available: START - 40_000, reserved: 0 });
    assert.deepEqual(x.wallet('carol', 'CASH'), { available: START, reserved: 0 });
    assert.equal(x.positions('alice').length, 0);
    assert.equal(x.positions('bob').length, 0);
    const m = x.market('M1')!;
    assert.deepEqual([m.status, m.result, m.settledAt], ['SETTLED', 'M1-a', T0 + 7]);
    assert.deepEqual([x.outcome('M1-a')!.status, x.outcome('M1-b')!.status], ['WIN', 'LOSS']);
    assert.ok(evs.some((e) => e.kind === 'MarketSettled' && e.result === 'M1-a'));
    assert.equal(x.totals().CASH.collateral, 0);
    assertInvariants(x, ACC);
  });

  test('PUSH refunds costs', () => {
    const x = traded();
    ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M1', status: 'CLOSED' }));
    const evs = ok(x.apply({ type: 'SettleMarket', ts: T0, marketId: 'M1', result: 'PUSH' }));
    const ledger = evs.flatMap((e) =>
      e.kind === 'LedgerEntry' ? [[e.accountId, e.entryKind, e.amount]] : [],
    );
    assert.deepEqual(ledger, [
      ['alice', 'REFUND', 60_000],
      ['bob', 'REFUND', 40_000],
    ]);
    for (const a of ACC) assert.deepEqual(x.wallet(a, 'CASH'), { available: START, reserved: 0 });
    assert.deepEqual([x.outcome('M1-a')!.status, x.outcome('M1-b')!.status], ['PUSH', 'PUSH']);
    assertInvariants(x, ACC);
  });

  test('PUSH after netting returns the collateral pro rata to cost (money conserved)', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 600, 100)));
    ok(x.apply(bid('bob', 'M1-b', 400, 100)));
    ok(x.apply(bid('carol', 'M1-a', 550, 60)));
    ok(x.apply(bid('alice', 'M1-b', 450, 60))); // alice nets 60 pairs
    ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M1', status: 'CLOSED' }));
    const before = x.totals().CASH;
    assert.equal(before.collateral, 100_000);
    assert.equal(before.positionsCost, 24_000 + 40_000 + 33_000);
    ok(x.apply({ type: 'SettleMarket', ts: T0, marketId: 'M1', result: 'PUSH' }));
    const after = x.totals().CASH;
    assert.equal(after.collateral, 0);
    assert.equal(after.paidOut - before.paidOut, 100_000);
    assertInvariants(x, ACC);
  });

  test('a CANCELED event voids its markets', () => {
    const x = traded();
    const evs = ok(x.apply({ type: 'SetEventStatus', ts: T0, eventId: 'E1', status: 'CANCELED' }));
    assert.deepEqual(
      evs.flatMap((e) => (e.kind === 'MarketSettled' ? [[e.marketId, e.result]] : [])),
      [
        ['M1', 'PUSH'],
        ['M2', 'PUSH'],
      ],
    );
    for (const a of ACC) assert.deepEqual(x.wallet(a, 'CASH'), { available: START, reserved: 0 });
    assert.equal(x.market('M2')!.status, 'SETTLED');
    assertInvariants(x, ACC);
  });
});

describe('taker fees in-game', () => {
  test('charged to the taker only, at its execution price, collected into fees', () => {
    const x = setup('OPEN_INGAME');
    ok(x.apply(bid('alice', 'M1-a', 390, 200)));
    const evs = ok(x.apply(bid('bob', 'M1-b', 650, 200, { orderId: 'tk' })));
    const fs = evs.flatMap((e) => (e.kind === 'OrderFilled' ? [e.fill] : []));
    assert.deepEqual(
      fs.map((f) => [f.isTaker, f.price, f.fee, f.feeCoefficient]),
      [
        [false, 390, 0, 0],
        [true, 610, 1427, 0.03],
      ],
    );
    // bob paid 0.61 × 200 = 122_000 plus the fee; nothing is left reserved
    assert.deepEqual(x.wallet('bob', 'CASH'), { available: START - 122_000 - 1427, reserved: 0 });
    assert.deepEqual(x.wallet('alice', 'CASH'), { available: START - 78_000, reserved: 0 });
    assert.equal(x.totals().CASH.fees, 1427);
    const fee = evs.find((e) => e.kind === 'LedgerEntry' && e.entryKind === 'FEE');
    assert.ok(fee && fee.kind === 'LedgerEntry' && fee.amount === -1427 && fee.ref === 'tk');
    assertInvariants(x, ACC);
  });

  test('fees of one order are rounded once on the cumulative amount', () => {
    const x = setup('OPEN_INGAME');
    ok(x.apply({ type: 'SetFeeCoefficient', ts: T0, coefficient: 0.002 }));
    assert.equal(x.feeCoefficient, 0.002);
    // each 1-qty fill at 0.5: 0.002 × 0.25 × 1 MCU = 0.0005 MCU = 0.5 Money exactly
    ok(x.apply(bid('alice', 'M1-a', 500, 1)));
    ok(x.apply(bid('carol', 'M1-a', 500, 1)));
    ok(x.apply(bid('alice', 'M1-a', 500, 1)));
    const evs = ok(x.apply(bid('bob', 'M1-b', 500, 3)));
    const fees = evs.flatMap((e) => (e.kind === 'OrderFilled' && e.fill.isTaker ? [e.fill.fee] : []));
    // cumulative 0.5 → 1, 1.0 → 1, 1.5 → 2: per-fill 1, 0, 1 (not 1 + 1 + 1)
    assert.deepEqual(fees, [1, 0, 1]);
    assert.equal(x.totals().CASH.fees, 2);
    assert.equal(takerFee(2_000, 500, 3, 'CASH'), 2);
    assertInvariants(x, ACC);
  });

  test('live orders must cover cost plus the maximum fee; pregame fills pay none', () => {
    const x = setup('OPEN_INGAME');
    ok(x.apply({ type: 'CreateAccount', ts: T0, accountId: 'dave' }));
    // cost 0.60 × 100 = 60_000; max fee at P = 0.5: 0.03 × 0.25 × 100 MCU = 0.75 MCU = 750 Money
    ok(x.apply({ type: 'Deposit', ts: T0, accountId: 'dave', currency: 'CASH', amount: 60_749 }));
    rejected(x.apply(bid('dave', 'M1-a', 600, 100)), 'INSUFFICIENT_FUNDS');
    ok(x.apply({ type: 'Deposit', ts: T0, accountId: 'dave', currency: 'CASH', amount: 1 }));
    ok(x.apply(bid('dave', 'M1-a', 600, 100, { orderId: 'd' })));
    // the fee reserve is released when the order rests without filling
    assert.deepEqual(x.wallet('dave', 'CASH'), { available: 750, reserved: 60_000 });
    const y = setup('OPEN_PREGAME');
    ok(y.apply(bid('alice', 'M1-a', 390, 200)));
    const evs = ok(y.apply(bid('bob', 'M1-b', 650, 200)));
    assert.ok(evs.every((e) => e.kind !== 'OrderFilled' || e.fill.fee === 0));
    assert.equal(y.totals().CASH.fees, 0);
    rejected(x.apply({ type: 'SetFeeCoefficient', ts: T0, coefficient: 2 }), 'VALIDATION_FAILED');
    rejected(x.apply({ type: 'SetFeeCoefficient', ts: T0, coefficient: 0.0300001 }), 'VALIDATION_FAILED');
    assertInvariants(x, [...ACC, 'dave']);
  });
});
