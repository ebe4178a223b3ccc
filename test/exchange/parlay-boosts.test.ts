// Parlay boosts in the engine (docs/parlays.md "Boosts"): create, end, claim; a boosted request's
// eligibility; the money of a boosted fill (taker at the boosted price, maker at its quote, the
// boost's cost from the funding account); every rejection changes nothing; snapshot and restore.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { boostPrice } from '../../src/exchange/boost-types.ts';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../../src/exchange/types.ts';
import { assertInvariants, ok, parlayRequest, rejected, setup, T0 } from './fixtures.ts';

const ACCTS = ['alice', 'bob', 'carol', 'house'];
const FUNDS = 1_000_000_000;
type C<T extends Command['type']> = Partial<Extract<Command, { type: T }>>;

function create(x: Exchange, extra: C<'CreateBoost'> = {}): CommandResult {
  return x.apply({
    type: 'CreateBoost',
    ts: T0 + 1,
    boostId: 'B1',
    kind: 'PERCENT',
    value: 200_000, // 20 % off the price
    leagues: [],
    minLegs: 2,
    maxStake: 1_000_000, // 10 Cash
    validFrom: T0,
    validTo: T0 + 60_000,
    claimLimit: 1,
    fundingAccountId: 'house',
    ...extra,
  } as Command);
}

const claim = (x: Exchange, accountId = 'alice', ts = T0 + 2) =>
  x.apply({ type: 'ClaimBoost', ts, boostId: 'B1', accountId });

function request(x: Exchange, extra: C<'ParlayRequest'> = {}): CommandResult {
  return x.apply(
    parlayRequest({
      legs: [
        { outcomeId: 'M1-a', price: 500_000 },
        { outcomeId: 'M2-b', price: 500_000 },
      ],
      refPrice: 250_000,
      boostId: 'B1',
      ...extra,
    }),
  );
}

const quote = (x: Exchange, price = 250_000) =>
  x.apply({
    type: 'ParlayQuote',
    ts: T0 + 20,
    quoteId: `q-${price}`,
    requestId: 'R1',
    accountId: 'bob',
    price,
    maxQty: 100_000,
    expiresAt: T0 + 20_000,
  });

const wager = (x: Exchange, stake = 200_000, maxPrice = 200_000, ts = T0 + 30) =>
  x.apply({
    type: 'ParlayWager',
    ts,
    requestId: 'R1',
    accountId: 'alice',
    stake,
    maxPrice,
    clientOrderId: 'w1',
  });

function unchanged(x: Exchange, r: CommandResult, code: string): void {
  const before = x.hash();
  rejected(r, code);
  assert.equal(x.hash(), before, `${code} changed the state`);
}

describe('parlay boosts', () => {
  test('the boosted price: percentage and odds multiplier, rounded down, at least 1 ppm', () => {
    assert.equal(boostPrice('PERCENT', 200_000, 250_000), 200_000);
    assert.equal(boostPrice('MULTIPLIER', 1_250_000, 250_000), 200_000); // odds 4 → 5
    assert.equal(boostPrice('PERCENT', 100_000, 333_333), 299_999); // 299 999.7 → down
    assert.equal(boostPrice('MULTIPLIER', 1_500_000, 333_334), 222_222); // 222 222.67 → down
    assert.equal(boostPrice('PERCENT', 999_999, 1), 1);
  });

  test('a boosted fill: taker at the boosted price, maker at its quote, the cost from the funder', () => {
    const x = setup('OPEN_PREGAME', ACCTS);
    ok(create(x));
    ok(claim(x));
    ok(request(x));
    assert.equal(x.parlayRequest('R1')!.boostId, 'B1');
    ok(quote(x));
    const evs = ok(wager(x));
    const p = x.parlay('R1')!;
    assert.equal(p.qty, 1000); // 2 Cash at 0.20 buys a 10 Cash payout
    assert.equal(p.price, 200_000);
    assert.equal(p.quotePrice, 250_000);
    assert.equal(p.stake, 200_000);
    assert.equal(p.collateral, 750_000);
    assert.equal(p.boostCost, 50_000);
    assert.equal(p.fee, 16_000); // 0.10 × 2 × 8 / 10 Cash
    assert.equal(x.wallet('alice', 'CASH')!.available, FUNDS - 216_000);
    assert.equal(x.wallet('bob', 'CASH')!.available, FUNDS - 750_000);
    assert.equal(x.wallet('house', 'CASH')!.available, FUNDS - 50_000);
    assert.equal(x.totals().CASH.parlayCollateral, 1_000_000);
    const ledger = evs.flatMap((e) =>
      e.kind === 'LedgerEntry' ? [[e.accountId, e.entryKind, e.amount]] : [],
    );
    assert.deepEqual(ledger, [
      ['alice', 'FILL_PARLAY_TAKER_FUNDS', -200_000],
      ['alice', 'FEE_PARLAY_TAKER_FUNDS', -16_000],
      ['bob', 'FILL_PARLAY_MAKER_FUNDS', -750_000],
      ['house', 'FILL_PARLAY_BOOST_FUNDS', -50_000],
    ]);
    const b = x.boosts()[0]!;
    assert.equal(b.fills, 1);
    assert.deepEqual(b.cost, [50_000, 0]);
    assert.deepEqual(x.boostClaims('alice'), [{ boostId: 'B1', accountId: 'alice', claimed: 1, used: 1 }]);
    assertInvariants(x, ACCTS);
    // the parlay settles on its payout: the taker wins 10 Cash
    for (const [m, r] of [
      ['M1', 'M1-a'],
      ['M2', 'M2-b'],
    ] as const) {
      ok(x.apply({ type: 'SetMarketStatus', ts: T0 + 100, marketId: m, status: 'CLOSED' }));
      ok(x.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: m, result: r }));
    }
    assert.equal(x.parlay('R1')!.takerPayout, 1_000_000);
    assert.equal(x.wallet('alice', 'CASH')!.available, FUNDS - 216_000 + 1_000_000);
    assertInvariants(x, ACCTS);
  });

  test('maxPrice is compared with the boosted price (stale-quote protection)', () => {
    const x = setup('OPEN_PREGAME', ACCTS);
    ok(create(x, { kind: 'MULTIPLIER', value: 1_250_000 }));
    ok(claim(x));
    ok(request(x));
    ok(quote(x));
    unchanged(x, wager(x, 200_000, 199_999), 'PARLAY_PRICE_MOVED');
    ok(wager(x, 200_000, 200_000));
    assert.equal(x.parlay('R1')!.price, 200_000);
  });

  test('create, end and claim: every rejection changes nothing', () => {
    const x = setup('OPEN_PREGAME', ACCTS);
    unchanged(x, create(x, { kind: 'ODDS' as never }), 'VALIDATION_FAILED');
    unchanged(x, create(x, { value: 1_000_000 }), 'VALIDATION_FAILED');
    unchanged(x, create(x, { kind: 'MULTIPLIER', value: 1_000_000 }), 'VALIDATION_FAILED');
    unchanged(x, create(x, { minLegs: 1 }), 'VALIDATION_FAILED');
    unchanged(x, create(x, { maxStake: 0 }), 'INVALID_AMOUNT');
    unchanged(x, create(x, { validTo: T0 }), 'VALIDATION_FAILED');
    unchanged(x, create(x, { claimLimit: 0 }), 'VALIDATION_FAILED');
    unchanged(x, create(x, { fundingAccountId: 'nobody' }), 'ACCOUNT_NOT_FOUND');
    unchanged(x, claim(x), 'BOOST_NOT_FOUND');
    ok(create(x, { validFrom: T0 + 5 }));
    unchanged(x, create(x), 'ALREADY_EXISTS');
    unchanged(x, claim(x, 'alice', T0 + 2), 'BOOST_NOT_STARTED');
    unchanged(x, claim(x, 'nobody', T0 + 6), 'ACCOUNT_NOT_FOUND');
    ok(claim(x, 'alice', T0 + 6));
    unchanged(x, claim(x, 'alice', T0 + 7), 'BOOST_CLAIM_LIMIT');
    ok(claim(x, 'carol', T0 + 7));
    unchanged(x, x.apply({ type: 'EndBoost', ts: T0 + 8, boostId: 'B9' }), 'BOOST_NOT_FOUND');
    ok(x.apply({ type: 'EndBoost', ts: T0 + 8, boostId: 'B1' }));
    unchanged(x, x.apply({ type: 'EndBoost', ts: T0 + 9, boostId: 'B1' }), 'BOOST_EXPIRED');
    unchanged(x, claim(x, 'bob', T0 + 9), 'BOOST_EXPIRED');
    assert.equal(x.boosts()[0]!.endedAt, T0 + 8);
  });

  test('request eligibility: unknown, not claimed, window, legs, league, stake', () => {
    const x = setup('OPEN_PREGAME', ACCTS);
    unchanged(x, request(x), 'BOOST_NOT_FOUND');
    ok(create(x, { validTo: T0 + 40 }));
    unchanged(x, request(x), 'BOOST_NOT_CLAIMED');
    ok(claim(x));
    unchanged(x, request(x, { stake: 1_000_001 }), 'BOOST_MAX_STAKE');
    unchanged(x, request(x, { ts: T0 + 40 }), 'BOOST_EXPIRED');
    ok(create(x, { boostId: 'B2', minLegs: 3 }));
    ok(x.apply({ type: 'ClaimBoost', ts: T0 + 2, boostId: 'B2', accountId: 'alice' }));
    unchanged(x, request(x, { boostId: 'B2' }), 'BOOST_MIN_LEGS');
    ok(create(x, { boostId: 'B3', leagues: ['NBA'] }));
    ok(x.apply({ type: 'ClaimBoost', ts: T0 + 2, boostId: 'B3', accountId: 'alice' }));
    unchanged(x, request(x, { boostId: 'B3' }), 'BOOST_LEAGUE_INELIGIBLE');
    ok(create(x, { boostId: 'B4', validFrom: T0 + 20 }));
    unchanged(x, request(x, { boostId: 'B4' }), 'BOOST_NOT_STARTED');
    ok(request(x, { boostId: null }));
    assert.equal('boostId' in x.parlayRequest('R1')!, false);
  });

  test('at the wager: claim used once, boost ended, stake cap, funding account short', () => {
    const x = setup('OPEN_PREGAME', ACCTS);
    ok(create(x, { claimLimit: 2 }));
    ok(claim(x));
    ok(request(x));
    ok(request(x, { requestId: 'R2' }));
    ok(quote(x));
    unchanged(x, wager(x, 1_000_001, 300_000), 'BOOST_MAX_STAKE');
    ok(wager(x));
    // R2 also carried the boost, but the only claim is used
    const w2 = () =>
      x.apply({
        type: 'ParlayWager',
        ts: T0 + 40,
        requestId: 'R2',
        accountId: 'alice',
        stake: 200_000,
        maxPrice: 300_000,
        clientOrderId: 'w2',
      });
    ok(
      x.apply({
        type: 'ParlayQuote',
        ts: T0 + 35,
        quoteId: 'q2',
        requestId: 'R2',
        accountId: 'bob',
        price: 250_000,
        maxQty: 100_000,
        expiresAt: T0 + 20_000,
      }),
    );
    unchanged(x, w2(), 'BOOST_NOT_CLAIMED');
    ok(claim(x, 'alice', T0 + 36));
    // the funding account cannot pay the boost's cost
    const house = x.wallet('house', 'CASH')!.available;
    ok(
      x.apply({
        type: 'Withdraw',
        ts: T0 + 37,
        accountId: 'house',
        currency: 'CASH',
        amount: house - 49_999,
      }),
    );
    unchanged(x, w2(), 'BOOST_FUNDS_INSUFFICIENT');
    ok(x.apply({ type: 'Deposit', ts: T0 + 38, accountId: 'house', currency: 'CASH', amount: 1 }));
    ok(w2());
    assert.equal(x.wallet('house', 'CASH')!.available, 0);
    ok(x.apply({ type: 'EndBoost', ts: T0 + 50, boostId: 'B1' }));
    assertInvariants(x, ACCTS);
  });

  test('snapshot and restore keep boosts and claims; a state without boosts keeps its section', () => {
    const x = setup('OPEN_PREGAME', ACCTS);
    ok(create(x));
    ok(claim(x));
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.hash(), x.hash());
    assert.deepEqual(y.boosts(), x.boosts());
    assert.deepEqual(y.boostClaims('alice'), x.boostClaims('alice'));
    ok(request(y));
    const plain = setup('OPEN_PREGAME', ACCTS);
    ok(request(plain, { boostId: undefined }));
    const z = new Exchange();
    z.restore(plain.snapshot());
    assert.equal(z.hash(), plain.hash());
  });
});
