// The house quote (docs/parlays.md "The house quote"): every new request gets one quote from the
// house at its reference price, sized within the bankroll, the per-game exposure and the wallet;
// the scheduler's pass carries it, and a wager then fills against it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { demoAccounts, withDemoHouse } from '../../src/demo/market-maker.ts';
import type { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandInput } from '../../src/exchange/types.ts';
import { HouseDesk, houseExposure, houseQuoteOptions, houseQuotes } from '../../src/runtime/house-quote.ts';
import { dueCommands, scheduleOptions } from '../../src/runtime/scheduler.ts';
import { ok, parlayRequest, setup, T0 } from '../exchange/fixtures.ts';

const house = { accountId: 'carol', bankroll: 50_000_000, gameExposure: 3_000_000 };

function withRequest(stake: number | null = null): Exchange {
  const x = setup();
  ok(x.apply(parlayRequest({ refPrice: 250_000, stake })));
  return x;
}

test('the house quotes a new request at its reference price, within the game exposure', () => {
  const x = withRequest();
  const [q, ...rest] = houseQuotes(x, T0 + 20, house);
  assert.equal(rest.length, 0);
  assert.equal(q?.type, 'ParlayQuote');
  if (q?.type !== 'ParlayQuote') return;
  assert.equal(q.price, 250_000);
  assert.equal(q.maxQty, 4000); // 3,000,000 Money of collateral at 0.75 per 1000 Money of payout
  ok(x.apply({ ...q, ts: T0 + 20 }));
  assert.deepEqual(houseQuotes(x, T0 + 21, house), []); // quoted once
  ok(
    x.apply({
      type: 'ParlayWager',
      ts: T0 + 30,
      requestId: 'R1',
      accountId: 'alice',
      stake: 250_000,
      maxPrice: 250_000,
      clientOrderId: null,
    }),
  );
  assert.equal(x.parlay('R1')!.makerAccountId, 'carol');
});

test('a stake caps the quote at twice its payout; no room, no quote; the scheduler carries it', () => {
  const x = withRequest(250_000);
  const [q] = houseQuotes(x, T0 + 20, house);
  assert.equal(q?.type === 'ParlayQuote' && q.maxQty, 2000);
  assert.deepEqual(houseQuotes(x, T0 + 20, { ...house, gameExposure: 0 }), []);
  assert.deepEqual(houseQuotes(x, T0 + 20, { ...house, accountId: 'alice' }), []); // its own request
  assert.deepEqual(houseQuotes(x, T0 + 10_000, house), []); // past the quoting window
  const due = dueCommands(x, T0 + 20, { autoGoLive: false, house });
  assert.equal(due.filter((c) => c.type === 'ParlayQuote').length, 1);
});

test('a boosted request: the stake cap counts the payout at the boosted price', () => {
  const x = setup();
  ok(
    x.apply({
      type: 'CreateBoost',
      ts: T0 + 1,
      boostId: 'B1',
      kind: 'MULTIPLIER',
      value: 2_000_000, // odds × 2: 0.25 → 0.125
      leagues: [],
      minLegs: 2,
      maxStake: null,
      validFrom: T0,
      validTo: T0 + 60_000,
      claimLimit: 1,
      fundingAccountId: 'bob',
    }),
  );
  ok(x.apply({ type: 'ClaimBoost', ts: T0 + 2, boostId: 'B1', accountId: 'alice' }));
  ok(x.apply(parlayRequest({ refPrice: 250_000, stake: 250_000, boostId: 'B1' })));
  const [q] = houseQuotes(x, T0 + 20, house);
  assert.equal(q?.type === 'ParlayQuote' && q.maxQty, 4000); // 2.5 Cash at 0.125 buys 2000, twice that
});

test('configuration: PARLAY_HOUSE_ACCOUNT, or the demo market maker on a demo install', () => {
  assert.equal(houseQuoteOptions(loadConfig({ TICKBOOK_DEMO: 'false' })), undefined);
  assert.equal(houseQuoteOptions(loadConfig({ PARLAY_HOUSE_ACCOUNT: 'h' }))?.accountId, 'h');
  const demo = scheduleOptions(
    withDemoHouse(loadConfig({ TICKBOOK_DEMO: 'true', PARLAY_HOUSE_BANKROLL: '5' })),
  ).house;
  assert.equal(demo?.accountId, demoAccounts(loadConfig({}).demoSeed).house);
  assert.equal(demo?.bankroll, 500_000);
});

test('the desk quotes a request right after its apply and keeps the exposure a scan finds', async () => {
  const x = setup();
  let ts = T0 + 10;
  const submitted: CommandInput[] = [];
  // What the runtime does: every accepted command reaches the desk's apply listener.
  const apply = (cmd: CommandInput) => {
    const c = { ...cmd, ts: ts++ } as Command;
    const events = ok(x.apply(c));
    desk.applied(c, events);
  };
  const desk: HouseDesk = new HouseDesk(
    house,
    x,
    () => ts,
    async (cmds) => {
      submitted.push(...cmds);
      for (const c of cmds) apply(c);
    },
    (err) => assert.fail(String(err)),
  );
  const request = (requestId: string) =>
    apply({
      type: 'ParlayRequest',
      requestId,
      accountId: 'alice',
      currency: 'CASH',
      legs: [
        { outcomeId: 'M1-a', price: 500_000 },
        { outcomeId: 'M2-b', price: 400_000 },
      ],
      refPrice: 250_000,
      stake: null,
      expiresAt: T0 + 30_010,
    });
  request('R1');
  request('R2');
  assert.equal(x.parlayRequest('R1')!.quotes.length, 0, 'not inside the apply itself');
  await Promise.resolve(); // the desk's microtask: after the submit that applied the requests
  assert.deepEqual(
    submitted.map((c) => c.type === 'ParlayQuote' && c.quoteId),
    ['house:R1', 'house:R2'],
    'one pass quotes both requests',
  );
  assert.equal(x.parlayRequest('R1')!.quotes[0]!.accountId, 'carol');
  assert.deepEqual(desk.exposure, houseExposure(x, 'carol'));
  assert.equal(desk.exposure.used.CASH, 0);

  apply({
    type: 'ParlayWager',
    requestId: 'R1',
    accountId: 'alice',
    stake: 250_000,
    maxPrice: 250_000,
    clientOrderId: null,
  });
  assert.equal(x.parlay('R1')!.makerAccountId, 'carol');
  assert.ok(desk.exposure.used.CASH > 0);
  assert.deepEqual(desk.exposure, houseExposure(x, 'carol'), 'the fill counted as a scan counts it');

  // Alice's M1 leg loses: the parlay settles and leaves the house's exposure.
  apply({ type: 'SetMarketStatus', marketId: 'M1', status: 'CLOSED' });
  apply({ type: 'SettleMarket', marketId: 'M1', result: 'M1-b' });
  assert.equal(x.parlay('R1')!.status, 'SETTLED');
  assert.deepEqual(desk.exposure, houseExposure(x, 'carol'));
  assert.equal(desk.exposure.used.CASH, 0);
  assert.equal(desk.exposure.perGame.size, 0);
});
