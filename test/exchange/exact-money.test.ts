// The money ceiling and the exact conservation invariant (docs/exchange.md "Exact money"): amounts
// that would leave the range the engine holds exactly are refused and change nothing; totals() and
// the invariant are computed in BigInt, so they neither pass nor fail by rounding.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { conservationImbalance } from '../../src/exchange/totals.ts';
import { MAX_MONEY, MAX_QTY_MCU } from '../../src/exchange/units.ts';
import { assertInvariants, bid, ok, rejected, setup, T0 } from './fixtures.ts';

const deposit = (accountId: string, amount: number, currency: 'CASH' | 'COIN' = 'CASH') =>
  ({ type: 'Deposit', ts: T0, accountId, currency, amount }) as const;

describe('money ceiling', () => {
  test('a wallet filled to the ceiling takes no more, and the refusal changes nothing', () => {
    const x = setup('OPEN_PREGAME', ['alice']);
    const have = x.wallet('alice', 'CASH')!.available;
    ok(x.apply(deposit('alice', MAX_MONEY - have)));
    assert.equal(x.wallet('alice', 'CASH')!.available, MAX_MONEY);
    const h = x.hash();
    rejected(x.apply(deposit('alice', 1)), 'AMOUNT_OUT_OF_RANGE');
    assert.equal(x.hash(), h);
    // Reserved money counts too: a resting bid does not make room for another deposit.
    ok(x.apply(bid('alice', 'M1-a', 500, 1_000)));
    rejected(x.apply(deposit('alice', 1)), 'AMOUNT_OUT_OF_RANGE');
    assertInvariants(x, ['alice']);
  });

  test('many wallets cannot take a currency past the ceiling; withdrawals make room', () => {
    const x = setup('OPEN_PREGAME', ['a', 'b', 'c']);
    const held = x.totals().CASH.available;
    const half = Math.floor((MAX_MONEY - held) / 2);
    ok(x.apply(deposit('a', half)));
    ok(x.apply(deposit('b', MAX_MONEY - held - half)));
    assert.equal(x.totals().CASH.available, MAX_MONEY);
    const h = x.hash();
    // c's own wallet is small, but the exchange's CASH is at the ceiling
    rejected(x.apply(deposit('c', 1)), 'AMOUNT_OUT_OF_RANGE');
    assert.equal(x.hash(), h);
    ok(x.apply(deposit('c', 5, 'COIN'))); // the other currency has its own room
    ok(x.apply({ type: 'Withdraw', ts: T0, accountId: 'a', currency: 'CASH', amount: 10 }));
    ok(x.apply(deposit('c', 10)));
    rejected(x.apply(deposit('c', 1)), 'AMOUNT_OUT_OF_RANGE');
    assertInvariants(x, ['a', 'b', 'c']);
  });

  test('the lifetime deposits counter stays exact: cycling money in and out stops at it', () => {
    const x = setup('OPEN_PREGAME', ['a']);
    let cycles = 0;
    for (;;) {
      const r = x.apply(deposit('a', MAX_MONEY - x.totals().CASH.available));
      if (!r.ok) {
        assert.equal(r.code, 'AMOUNT_OUT_OF_RANGE');
        break;
      }
      ok(x.apply({ type: 'Withdraw', ts: T0, accountId: 'a', currency: 'CASH', amount: MAX_MONEY - 1 }));
      cycles++;
    }
    assert.ok(cycles >= 8, `cycles ${cycles}`);
    const t = x.totals().CASH;
    assert.ok(Number.isSafeInteger(t.deposits), `${t.deposits}`);
    assert.equal(t.imbalance, 0);
  });

  test('order payouts past the ceiling are refused in both currencies', () => {
    const x = setup('OPEN_PREGAME', ['alice', 'bob']);
    const h = x.hash();
    rejected(x.apply(bid('alice', 'M1-a', 500, MAX_QTY_MCU + 1)), 'AMOUNT_OUT_OF_RANGE');
    rejected(
      x.apply(bid('alice', 'M1-a', 500, MAX_QTY_MCU / 100 + 1, { currency: 'COIN' })),
      'AMOUNT_OUT_OF_RANGE',
    );
    // at the ceiling itself the order is only short of funds
    rejected(x.apply(bid('alice', 'M1-a', 500, MAX_QTY_MCU)), 'INSUFFICIENT_FUNDS');
    assert.equal(x.hash(), h);
  });

  test('two wallets at the ceiling trade a full-payout order exactly', () => {
    const x = setup('OPEN_PREGAME', ['alice', 'bob']);
    for (const id of ['alice', 'bob'])
      ok(x.apply(deposit(id, MAX_MONEY / 2 - x.wallet(id, 'CASH')!.available)));
    const qty = MAX_MONEY / 2 / 1_000; // each side pays half the payout at 0.500
    ok(x.apply(bid('alice', 'M1-a', 500, qty)));
    ok(x.apply(bid('bob', 'M1-b', 500, qty)));
    assert.equal(x.totals().CASH.collateral, MAX_MONEY / 2);
    ok(x.apply({ type: 'SetMarketStatus', ts: T0, marketId: 'M1', status: 'CLOSED' }));
    ok(x.apply({ type: 'SettleMarket', ts: T0, marketId: 'M1', result: 'M1-a' }));
    assert.equal(x.wallet('alice', 'CASH')!.available, MAX_MONEY / 2 + MAX_MONEY / 4);
    assertInvariants(x, ['alice', 'bob']);
  });
});

describe('conservation in BigInt', () => {
  test('a sum that doubles round to balance is reported unbalanced, and the reverse', () => {
    const big = 2 ** 53;
    // doubles: (2^53 + 1) rounds to 2^53, + 1 again to 2^53, so a float sum says −2 for a balanced set
    const balanced = {
      available: big,
      reserved: 1,
      collateral: 0,
      fees: 1,
      deposits: big + 2,
      withdrawals: 0,
    };
    assert.equal(balanced.available + balanced.reserved + balanced.fees - balanced.deposits, -2);
    assert.equal(conservationImbalance(balanced), 0n);
    // and a float sum says 0 for a set that is one unit off
    const off = { available: big, reserved: 1, collateral: 0, fees: 0, deposits: big, withdrawals: 0 };
    assert.equal(off.available + off.reserved + off.fees - off.deposits, 0);
    assert.equal(conservationImbalance(off), 1n);
  });

  test('a fraction is never money', () => {
    assert.throws(() =>
      conservationImbalance({
        available: 0.5,
        reserved: 0,
        collateral: 0,
        fees: 0,
        deposits: 0,
        withdrawals: 0,
      }),
    );
  });
});
