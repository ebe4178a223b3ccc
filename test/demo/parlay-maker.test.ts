// The demo market maker's parlay quotes (src/demo/parlay-maker.ts, docs/parlays.md "Quotes"): it
// prices a new request from the middle of its books on each leg, with its own margin — not the
// house's reference price — quotes once, and the scheduler's pass carries its quote beside the
// house's, so a request in the demo gets two competing quotes and a wager takes the better one.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { demoAccounts, withDemoHouse } from '../../src/demo/market-maker.ts';
import { DEMO_PARLAY_MARGIN, demoParlayQuotes } from '../../src/demo/parlay-maker.ts';
import { dueCommands, scheduleOptions } from '../../src/runtime/scheduler.ts';
import { bid, ok, parlayRequest, setup, T0 } from '../exchange/fixtures.ts';

function market() {
  const x = setup();
  // bob's books: M1-a 0.60/0.64 (mid 0.62), M2-b 0.48/0.52 (mid 0.50).
  ok(x.apply({ ...bid('bob', 'M1-a', 600, 100), ts: T0 + 1 }));
  ok(x.apply({ ...bid('bob', 'M1-b', 360, 100), ts: T0 + 2 }));
  ok(x.apply({ ...bid('bob', 'M2-b', 480, 100), ts: T0 + 3 }));
  ok(x.apply({ ...bid('bob', 'M2-a', 480, 100), ts: T0 + 4 }));
  ok(
    x.apply(
      parlayRequest({
        legs: [
          { outcomeId: 'M1-a', price: 620_000 },
          { outcomeId: 'M2-b', price: 500_000 },
        ],
        refPrice: 345_000,
      }),
    ),
  );
  return x;
}

test('the demo maker quotes its own price: the legs’ mids times its margin, once per request', () => {
  const x = market();
  const [q, ...rest] = demoParlayQuotes(x, T0 + 20, 'bob');
  assert.equal(rest.length, 0);
  assert.ok(q);
  assert.equal(q.price, Math.round(0.62 * 0.5 * (1 + DEMO_PARLAY_MARGIN) * 1_000_000));
  assert.notEqual(q.price, 345_000, 'not the house’s reference price');
  ok(x.apply({ ...q, ts: T0 + 20 }));
  assert.deepEqual(demoParlayQuotes(x, T0 + 21, 'bob'), []); // quoted once
  assert.deepEqual(demoParlayQuotes(x, T0 + 21, 'alice'), []); // never its own request
  // A wager takes the better of its quote and the house's.
  ok(
    x.apply({
      type: 'ParlayQuote',
      ts: T0 + 21,
      quoteId: 'house:R1',
      requestId: 'R1',
      accountId: 'carol',
      price: 345_000,
      maxQty: 10_000,
      expiresAt: T0 + 30_010,
    }),
  );
  ok(
    x.apply({
      type: 'ParlayWager',
      ts: T0 + 30,
      requestId: 'R1',
      accountId: 'alice',
      stake: 500_000,
      maxPrice: 400_000,
      clientOrderId: null,
    }),
  );
  assert.equal(x.parlay('R1')!.makerAccountId, 'bob');
  assert.equal(x.parlay('R1')!.price, q.price);
});

test('no view of a leg (one side of its book empty): no quote', () => {
  const x = setup();
  ok(x.apply({ ...bid('bob', 'M1-a', 600, 100), ts: T0 + 1 }));
  ok(
    x.apply(
      parlayRequest({
        requestId: 'R2',
        legs: [
          { outcomeId: 'M1-a', price: 620_000 },
          { outcomeId: 'M2-b', price: 500_000 },
        ],
        refPrice: 345_000,
      }),
    ),
  );
  assert.deepEqual(demoParlayQuotes(x, T0 + 20, 'bob'), []);
});

test('in the demo, the house and the demo maker are two accounts; the scheduler carries the house’s quote only', () => {
  const config = withDemoHouse(loadConfig({}));
  const opts = scheduleOptions(config);
  const acc = demoAccounts(config.demoSeed);
  assert.equal(opts.house?.accountId, acc.house);
  assert.notEqual(acc.house, acc.marketMaker);
  const x = market();
  // The fixture's accounts stand in for the demo's: carol the house, bob the market maker, whose
  // quotes the demo driver submits (src/demo/driver.ts) from demoParlayQuotes.
  const due = dueCommands(x, T0 + 20, {
    autoGoLive: false,
    house: { accountId: 'carol', bankroll: 50_000_000, gameExposure: 3_000_000 },
  });
  const quotes = [...due, ...demoParlayQuotes(x, T0 + 20, 'bob')].filter((c) => c.type === 'ParlayQuote');
  assert.deepEqual(quotes.map((c) => (c.type === 'ParlayQuote' ? c.accountId : '')).sort(), ['bob', 'carol']);
});
