// A parlay bet in one call through the real app on the embedded store (docs/parlays.md "Bet in one
// call"): `POST /nbx/v1/parlay/request` with a `wager` member fills at the house's quote with the
// money a two-call bet (request, then wager) moves; a maxPrice below the best quote, or no quote at
// all, is a 409 naming the request, which stays open and fillable by the wager route; a repeated
// clientOrderId answers the first fill, also after a restart; bad wager members are 400 and make
// no request; without `wager` the answer is the open request as before.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectStatus as ok, type ParlayDesk, type Party, parlayDesk } from '../helpers/parlay-desk.ts';

const cleanup: (() => Promise<void>)[] = [];
let d: ParlayDesk;
let house: Party;

interface WireRequest {
  id: string;
  status: string;
  price: string;
  legs: { outcomeId: string }[];
  wager: {
    parlayId: string;
    price: number;
    stake: number;
    fee: number;
    qty: number;
    clientOrderId: string;
  } | null;
  quotes: { id: string; price: number }[];
}

const legs = () => [{ id: d.m1.outcomeIds[0] }, { id: d.m2.outcomeIds[1] }];
const otherLegs = () => [{ id: d.m1.outcomeIds[1] }, { id: d.m2.outcomeIds[0] }];

const post = (who: Party, body: Record<string, unknown>) =>
  d.as(who).call('POST', '/nbx/v1/parlay/request', { outcomes: legs(), ...body });

/** Available + reserved CASH, minimum units. */
async function wallet(who: Party): Promise<{ balance: number; reserved: number }> {
  const b = await d.as(who).call('GET', '/nbx/v2/emm/account/balance?currency=CASH');
  const c = await d.as(who).call('GET', '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH');
  return { balance: Math.round(b.body.balance * 1e5), reserved: Math.round(c.body.openOrderCost * 1e5) };
}

const requests = async (who: Party): Promise<WireRequest[]> =>
  (await d.as(who).call('GET', '/nbx/v1/parlay/requests')).body;

function houseQuote(r: WireRequest): number {
  const q = r.quotes.find((x) => x.id === `house:${r.id}`);
  assert.ok(q, `no house quote on ${r.id}: ${JSON.stringify(r.quotes)}`);
  return q.price;
}

before(async () => {
  d = await parlayDesk('pglite', cleanup);
  await d.offerLiquidity(await d.party('mm'));
  house = await d.party('house');
});
after(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe('a parlay bet in one call', () => {
  test('no quote at all (no house yet): 409 PARLAY_NO_QUOTE, the request stays open', async () => {
    const alice = await d.party('alice-nohouse');
    const r = await post(alice, { wager: { stake: 10, maxPrice: 0.5, clientOrderId: 'b-0' } });
    ok(r, 409);
    assert.equal(r.body.code, 'PARLAY_NO_QUOTE');
    const open = await requests(alice);
    assert.equal(open.length, 1);
    assert.deepEqual(r.body.details.requestId, open[0]!.id);
    assert.equal(open[0]!.status, 'Unfilled');
    assert.match(r.body.message, /stays open/);
    // then the house is configured, as an operator would
    await d.restart({ PARLAY_HOUSE_ACCOUNT: house.accountId });
  });

  test('fills at the house price, moving the money a two-call bet moves', async () => {
    const alice = await d.party('alice');
    const bob = await d.party('bob');
    // two calls: the request (the house quote is in its 201), then the wager at that price
    const req = await post(alice, { boostId: null });
    ok(req, 201);
    const opened: WireRequest = req.body[0];
    const price = houseQuote(opened);
    const w = await d.as(alice).call('POST', `/nbx/v1/parlay/request/${opened.id}/wager`, {
      stake: 10,
      maxPrice: price,
      clientOrderId: 'two-1',
    });
    ok(w, 201);
    // one call
    const before = await wallet(bob);
    const one = await post(bob, { wager: { stake: 10, maxPrice: price, clientOrderId: 'one-1' } });
    ok(one, 201);
    assert.equal(one.body.length, 1);
    const filled: WireRequest = one.body[0];
    assert.equal(filled.status, 'Filled');
    assert.equal(houseQuote(filled), price);
    assert.ok(filled.wager);
    assert.equal(filled.wager.price, price);
    assert.equal(filled.wager.clientOrderId, 'one-1');
    assert.deepEqual(
      { price: filled.wager.price, stake: filled.wager.stake, fee: filled.wager.fee, qty: filled.wager.qty },
      { price: w.body.price, stake: w.body.stake, fee: w.body.fee, qty: w.body.qty },
    );
    const after = await wallet(bob);
    assert.equal(before.balance - after.balance, Math.round((w.body.stake + w.body.fee) * 1e5));
    assert.deepEqual(await wallet(bob), await wallet(alice));
    const positions = (await d.as(bob).call('GET', '/nbx/v1/parlays')).body;
    assert.equal(positions.length, 1);
    assert.equal(positions[0].requestId, filled.id);
    assert.equal(positions[0].role, 'TAKER');
    await d.checkLedgers('one call and two calls', [alice, bob, house]);
  });

  test('maxPrice below the best quote: 409 with the request, still open and fillable', async () => {
    const carol = await d.party('carol');
    const probe = await post(carol, {});
    ok(probe, 201);
    const price = houseQuote(probe.body[0]);
    const low = Math.round((price - 0.01) * 1e6) / 1e6;
    const before = await wallet(carol);
    const r = await post(carol, { wager: { stake: 10, maxPrice: low, clientOrderId: 'c-1' } });
    ok(r, 409);
    assert.equal(r.body.code, 'PARLAY_PRICE_MOVED');
    const id: string = r.body.details.requestId;
    assert.equal(r.body.details.status, 'Unfilled');
    assert.deepEqual(await wallet(carol), before);
    const seen = await d.as(carol).call('GET', `/nbx/v1/parlay/request/${id}`);
    ok(seen, 200);
    assert.equal(seen.body.status, 'Unfilled');
    assert.equal(houseQuote(seen.body), price);
    // the same clientOrderId was not spent: the wager route fills the open request with it
    const w = await d.as(carol).call('POST', `/nbx/v1/parlay/request/${id}/wager`, {
      stake: 10,
      maxPrice: price,
      clientOrderId: 'c-1',
    });
    ok(w, 201);
    assert.equal(w.body.requestId, id);
    await d.checkLedgers('price moved, then the wager route', [carol, house]);
  });

  test('a repeated clientOrderId answers the first fill, once', async () => {
    const dan = await d.party('dan');
    const probe = await post(dan, {});
    const price = houseQuote(probe.body[0]);
    const body = { wager: { stake: 5, maxPrice: price, clientOrderId: 'd-1' } };
    const first = await post(dan, body);
    ok(first, 201);
    const paid = await wallet(dan);
    const again = await post(dan, body);
    ok(again, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.deepEqual(await wallet(dan), paid);
    assert.equal((await d.as(dan).call('GET', '/nbx/v1/parlays')).body.length, 1);
    assert.equal((await requests(dan)).length, 2, 'the probe and the bet: the repeat made no request');
    // the same clientOrderId on other outcomes is another bet: refused
    const other = await post(dan, { outcomes: otherLegs(), ...body });
    ok(other, 409);
    assert.equal(other.body.code, 'DUPLICATE_CLIENT_ORDER_ID');
    assert.equal((await requests(dan)).length, 2);
  });

  test('bad wager members: 400 in the envelope, no request made, no money moved', async () => {
    const erin = await d.party('erin');
    const before = await wallet(erin);
    const good = { stake: 10, maxPrice: 0.5, clientOrderId: 'e-1' };
    const cases: [Record<string, unknown>, string][] = [
      [{ stake: 10, maxPrice: 0.5 }, 'VALIDATION_FAILED'],
      [{ ...good, stake: 1_000_000 }, 'INVALID_AMOUNT'],
      [{ ...good, stake: -1 }, 'INVALID_AMOUNT'],
      [{ ...good, maxPrice: 1.5 }, 'INVALID_PRICE'],
      [{ ...good, maxPrice: 0.1234567 }, 'INVALID_PRICE'],
      [{ ...good, clientOrderId: '' }, 'VALIDATION_FAILED'],
      [{ ...good, extra: 1 }, 'VALIDATION_FAILED'],
    ];
    for (const [wager, code] of cases) {
      const r = await post(erin, { wager });
      ok(r, 400);
      assert.equal(r.body.code, code, JSON.stringify(wager));
      assert.equal(r.body.statusCode, 400);
    }
    const notObject = await post(erin, { wager: 'yes' });
    ok(notObject, 400);
    assert.deepEqual(await requests(erin), []);
    assert.deepEqual(await wallet(erin), before);
  });

  test('an acknowledged bet is in the journal: the same after a restart', async () => {
    const gil = await d.party('gil');
    const probe = await post(gil, {});
    const price = houseQuote(probe.body[0]);
    const bet = await post(gil, { wager: { stake: 3, maxPrice: price, clientOrderId: 'g-1' } });
    ok(bet, 201);
    const parlays = (await d.as(gil).call('GET', '/nbx/v1/parlays')).body;
    const money = await wallet(gil);
    await d.restart();
    assert.deepEqual((await d.as(gil).call('GET', '/nbx/v1/parlays')).body, parlays);
    assert.deepEqual(await wallet(gil), money);
    // and the repeat still answers it
    const again = await post(gil, { wager: { stake: 3, maxPrice: price, clientOrderId: 'g-1' } });
    ok(again, 201);
    assert.equal(again.body[0].id, bet.body[0].id);
    await d.checkLedgers('after a restart', [gil, house]);
  });

  test('without wager: the open request, as before', async () => {
    const fay = await d.party('fay');
    const r = await post(fay, { boostId: null, stake: 10 });
    ok(r, 201);
    const opened: WireRequest = r.body[0];
    assert.equal(opened.status, 'Unfilled');
    assert.equal(opened.wager, null);
    houseQuote(opened);
    assert.deepEqual((await d.as(fay).call('GET', '/nbx/v1/parlays')).body, []);
  });
});
