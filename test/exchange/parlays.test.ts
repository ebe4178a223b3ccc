// Parlays in the engine (docs/parlays.md): requests, firm quotes, the wager's fill and its money,
// expiry and declines, settlement by leg result, snapshot and restore.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Exchange } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';
import { assertInvariants, ok, parlayRequest, rejected, setup, T0 } from './fixtures.ts';

const ACCTS = ['alice', 'bob', 'carol'];
const FUNDS = 1_000_000_000;

function request(x: Exchange, id = 'R1', extra: Partial<Extract<Command, { type: 'ParlayRequest' }>> = {}) {
  return x.apply(parlayRequest({ requestId: id, ...extra }));
}

function quote(
  x: Exchange,
  maker: string,
  price: number,
  extra: Partial<Extract<Command, { type: 'ParlayQuote' }>> = {},
) {
  return x.apply({
    type: 'ParlayQuote',
    ts: T0 + 20,
    quoteId: `q-${maker}-${price}`,
    requestId: 'R1',
    accountId: maker,
    price,
    maxQty: 100_000,
    expiresAt: T0 + 20_000,
    ...extra,
  });
}

function wager(
  x: Exchange,
  stake: number,
  maxPrice: number,
  clientOrderId: string | null = null,
  ts = T0 + 30,
) {
  return x.apply({
    type: 'ParlayWager',
    ts,
    requestId: 'R1',
    accountId: 'alice',
    stake,
    maxPrice,
    clientOrderId,
  });
}

function close(x: Exchange, marketId: string, result: string) {
  ok(x.apply({ type: 'SetMarketStatus', ts: T0 + 100, marketId, status: 'CLOSED' }));
  ok(x.apply({ type: 'SettleMarket', ts: T0 + 101, marketId, result }));
}

/** alice bets 2500 Money-stake units at 0.25 against bob: payout 10 Cash. */
function filled(): Exchange {
  const x = setup();
  ok(request(x));
  ok(quote(x, 'bob', 250_000));
  ok(wager(x, 250_000, 300_000, 'w1'));
  return x;
}

describe('parlay engine', () => {
  test('a wager fills at the quote: stake, collateral, fee, parlay collateral', () => {
    const x = filled();
    const p = x.parlay('R1')!;
    assert.equal(p.qty, 1000); // 10 Cash payout = 1000 MCU
    assert.equal(p.stake, 250_000);
    assert.equal(p.collateral, 750_000);
    assert.equal(p.fee, 18_750); // 0.10 × 2.5 × 7.5 / 10 Cash
    assert.equal(x.wallet('alice', 'CASH')!.available, FUNDS - 250_000 - 18_750);
    assert.equal(x.wallet('bob', 'CASH')!.available, FUNDS - 750_000);
    assert.equal(x.totals().CASH.parlayCollateral, 1_000_000);
    assert.equal(x.parlayRequest('R1')!.status, 'Filled');
    assert.deepEqual(
      x.parlays('bob').map((q) => q.id),
      ['R1'],
    );
    assertInvariants(x, ACCTS);
  });

  test('a maker’s second quote replaces its first; the best quote wins', () => {
    const x = setup();
    ok(request(x));
    ok(quote(x, 'bob', 300_000));
    ok(quote(x, 'carol', 280_000));
    ok(quote(x, 'bob', 260_000, { quoteId: 'q-bob-2' }));
    const r = x.parlayRequest('R1')!;
    assert.deepEqual(
      r.quotes.map((q) => [q.accountId, q.price]),
      [
        ['carol', 280_000],
        ['bob', 260_000],
      ],
    );
    ok(wager(x, 100_000, 300_000));
    assert.equal(x.parlay('R1')!.makerAccountId, 'bob');
    assert.equal(x.parlay('R1')!.quoteId, 'q-bob-2');
  });

  test('stale quote, no quote, second wager, clientOrderId reuse, own request', () => {
    const x = setup();
    ok(request(x));
    rejected(wager(x, 100_000, 300_000), 'PARLAY_NO_QUOTE');
    rejected(quote(x, 'alice', 250_000), 'VALIDATION_FAILED');
    ok(quote(x, 'bob', 250_000));
    const before = x.hash();
    rejected(wager(x, 100_000, 240_000), 'PARLAY_PRICE_MOVED');
    assert.equal(x.hash(), before);
    ok(wager(x, 100_000, 250_000, 'c1'));
    rejected(wager(x, 100_000, 250_000, 'c2'), 'PARLAY_REQUEST_CLOSED');
    rejected(wager(x, 100_000, 250_000, 'c1'), 'ALREADY_EXISTS');
    assert.equal(x.parlayForClientOrderId('alice', 'c1'), 'R1');
  });

  test('an expired quote is not live; a quote beyond the maker’s funds is refused', () => {
    const x = setup();
    ok(request(x));
    ok(quote(x, 'bob', 250_000, { expiresAt: T0 + 25 }));
    rejected(wager(x, 100_000, 300_000), 'PARLAY_NO_QUOTE');
    rejected(quote(x, 'carol', 250_000, { maxQty: 1_000_000_000 }), 'INSUFFICIENT_FUNDS');
  });

  test('bad requests are refused and change nothing', () => {
    const x = setup();
    const h = x.hash();
    rejected(request(x, 'R1', { legs: [{ outcomeId: 'M1-a', price: 500_000 }] }), 'PARLAY_INVALID_LEGS');
    rejected(
      request(x, 'R1', {
        legs: [
          { outcomeId: 'M1-a', price: 500_000 },
          { outcomeId: 'M1-b', price: 500_000 },
        ],
      }),
      'PARLAY_INVALID_LEGS',
    );
    rejected(
      request(x, 'R1', {
        legs: [
          { outcomeId: 'M1-a', price: 500_000 },
          { outcomeId: 'nope', price: 500_000 },
        ],
      }),
      'OUTCOME_NOT_FOUND',
    );
    rejected(request(x, 'R1', { refPrice: 0 }), 'INVALID_PRICE');
    rejected(request(x, 'R1', { expiresAt: T0 }), 'VALIDATION_FAILED');
    rejected(request(x, 'R1', { accountId: 'nobody' }), 'ACCOUNT_NOT_FOUND');
    assert.equal(x.hash(), h); // a state without parlays keeps its bytes
    ok(request(x));
    rejected(request(x), 'ALREADY_EXISTS');
  });

  test('cancel, expiry sweep and nextExpiry', () => {
    const x = setup();
    ok(request(x));
    assert.equal(x.nextExpiry(), T0 + 30_010);
    rejected(
      x.apply({ type: 'ParlayCancel', ts: T0 + 11, requestId: 'R1', accountId: 'bob' }),
      'PARLAY_REQUEST_NOT_FOUND',
    );
    ok(request(x, 'R2'));
    ok(x.apply({ type: 'ParlayCancel', ts: T0 + 11, requestId: 'R2', accountId: 'alice' }));
    assert.equal(x.parlayRequest('R2')!.status, 'Cancelled');
    rejected(quote(x, 'bob', 250_000, { ts: T0 + 30_010 }), 'PARLAY_REQUEST_CLOSED');
    ok(x.apply({ type: 'Expire', ts: T0 + 30_010 }));
    assert.equal(x.parlayRequest('R1')!.status, 'Expired');
    assert.equal(x.nextExpiry(), null);
  });

  test('the open-request count: the account’s unfilled requests before their deadline', () => {
    const x = setup();
    ok(request(x));
    ok(request(x, 'R2'));
    ok(x.apply(parlayRequest({ requestId: 'R3', accountId: 'bob' })));
    assert.equal(x.openParlayRequestCount('alice', T0 + 11), 2);
    assert.equal(x.openParlayRequestCount('bob', T0 + 11), 1);
    assert.equal(x.openParlayRequestCount('carol', T0 + 11), 0);
    ok(x.apply({ type: 'ParlayCancel', ts: T0 + 11, requestId: 'R2', accountId: 'alice' }));
    assert.equal(x.openParlayRequestCount('alice', T0 + 12), 1);
    // past its deadline a request no longer counts, swept or not
    assert.equal(x.openParlayRequestCount('alice', T0 + 30_010), 0);
  });

  test('a leg’s market closing declines the open request, per leg', () => {
    const x = setup();
    ok(request(x));
    ok(x.apply({ type: 'SetMarketStatus', ts: T0 + 50, marketId: 'M2', status: 'CLOSED' }));
    const r = x.parlayRequest('R1')!;
    assert.equal(r.status, 'Declined');
    assert.deepEqual(r.declined, [{ outcomeId: 'M2-b', reason: 'MARKET_CLOSED' }]);
  });

  test('settlement: all legs win pays the taker the payout', () => {
    const x = filled();
    close(x, 'M1', 'M1-a');
    assert.equal(x.parlay('R1')!.status, 'OPEN');
    assert.equal(x.parlay('R1')!.legs[0]!.status, 'WIN');
    close(x, 'M2', 'M2-b');
    const p = x.parlay('R1')!;
    assert.equal(p.status, 'SETTLED');
    assert.equal(p.takerPayout, 1_000_000);
    assert.equal(x.wallet('alice', 'CASH')!.available, FUNDS - 18_750 + 750_000);
    assert.equal(x.wallet('bob', 'CASH')!.available, FUNDS - 750_000);
    assert.equal(x.totals().CASH.parlayCollateral, 0);
    assertInvariants(x, ACCTS);
  });

  test('settlement: the first lost leg decides it for the maker', () => {
    const x = filled();
    close(x, 'M2', 'M2-a');
    const p = x.parlay('R1')!;
    assert.equal(p.status, 'SETTLED');
    assert.deepEqual(
      p.legs.map((l) => l.status),
      ['TBD', 'LOSS'],
    );
    assert.equal(p.makerPayout, 1_000_000);
    assert.equal(x.wallet('bob', 'CASH')!.available, FUNDS + 250_000);
    close(x, 'M1', 'M1-a'); // the other leg settling later moves nothing more
    assert.equal(x.wallet('bob', 'CASH')!.available, FUNDS + 250_000);
    assertInvariants(x, ACCTS);
  });

  test('settlement: a push is valued at the leg’s price', () => {
    const x = filled();
    close(x, 'M1', 'PUSH'); // leg 1 void: value 0.5
    close(x, 'M2', 'M2-b');
    const p = x.parlay('R1')!;
    assert.equal(p.takerPayout, 500_000);
    assert.equal(p.makerPayout, 500_000);
    assertInvariants(x, ACCTS);
  });

  test('a cancelled event voids every leg: value = Π leg prices', () => {
    const x = filled();
    ok(x.apply({ type: 'SetEventStatus', ts: T0 + 200, eventId: 'E1', status: 'CANCELED' }));
    const p = x.parlay('R1')!;
    assert.equal(p.status, 'SETTLED');
    assert.equal(p.takerPayout, 200_000); // 1_000_000 × 0.5 × 0.4
    assert.equal(p.makerPayout, 800_000);
    assertInvariants(x, ACCTS);
  });

  test('snapshot and restore keep parlays, their indexes and the hash', async () => {
    const x = filled();
    ok(request(x, 'R9'));
    const { Exchange } = await import('../../src/exchange/exchange.ts');
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.hash(), x.hash());
    for (const z of [x, y]) close(z, 'M2', 'M2-a');
    assert.equal(y.hash(), x.hash());
    assert.equal(y.parlay('R1')!.status, 'SETTLED');
    assert.equal(y.parlayRequest('R9')!.status, 'Declined');
    rejected(
      y.apply({
        type: 'ParlayWager',
        ts: T0 + 300,
        requestId: 'X',
        accountId: 'alice',
        stake: 1,
        maxPrice: 1,
        clientOrderId: 'w1',
      }),
      'ALREADY_EXISTS',
    );
  });
});
