// Parlay boosts over REST (docs/parlays.md "Boosts"): the operator's create, list and end; the
// trader's list and claim with the per-account limit; a boosted request (price and unboostedPrice),
// its eligibility codes, and the boosted wager's money (taker at the boosted price, maker at its
// quote, the cost from the funding account); every bad input a 4xx envelope that changes nothing.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { addOpenGame, outcomeId, seedAccounts, seedCatalog, seedLiquidity } from './fixture.ts';
import { ADMIN, assertError, type Harness, json, makeHarness } from './harness.ts';

let h: Harness;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
});
after(() => h.close());

let G = 4000;
let T: Record<string, string>;
let TRADER: string;
let FUNDER: string;
let M1: Record<string, string>;

function fresh(scopes: string, cash = 10_000): { id: string; headers: Record<string, string> } {
  const id = h.port.newId();
  assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: id }).ok);
  if (cash > 0)
    assert.ok(
      h.port.applyNow({ type: 'Deposit', accountId: id, currency: 'CASH', amount: cash * 100_000 }).ok,
    );
  return { id, headers: { 'x-test-scopes': scopes, 'x-test-account': id } };
}

beforeEach(() => {
  const t = fresh('read:trader,execute:trader');
  T = t.headers;
  TRADER = t.id;
  FUNDER = fresh('read:trader', 100).id;
  M1 = fresh('make:parlay,read:trader').headers;
  G++;
  addOpenGame(h.port, G);
  seedLiquidity(h.port, G);
  addOpenGame(h.port, G + 500);
  seedLiquidity(h.port, G + 500);
});

const legs = () => [{ id: outcomeId(G, 'MONEY', 0) }, { id: outcomeId(G + 500, 'TOTAL', 1) }];
const post = (url: string, payload: unknown = {}, headers: Record<string, string> = T) =>
  h.app.inject({ method: 'POST', url, headers, payload: payload as object });
const get = (url: string, headers: Record<string, string> = T) =>
  h.app.inject({ method: 'GET', url, headers });
const iso = (dt: number) => new Date(h.clock.t + dt).toISOString();

interface WireBoost {
  id: string;
  kind: string;
  value: number;
  active: boolean;
  fills: number;
  cost: { CASH: number; COIN: number };
  endedAt: string | null;
}
interface TraderBoost {
  id: string;
  claimed: number;
  used: number;
  remainingClaims: number;
  available: number;
}

async function create(body: Record<string, unknown> = {}): Promise<WireBoost> {
  const res = await post(
    '/admin/v1/boosts',
    {
      kind: 'PERCENT',
      value: 0.2,
      validTo: iso(3_600_000),
      fundingAccountId: FUNDER,
      claimLimit: 2,
      ...body,
    },
    ADMIN,
  );
  assert.equal(res.statusCode, 201, res.body);
  h.checkShape('POST', '/admin/v1/boosts', 201, json(res));
  return json<WireBoost>(res);
}

async function claim(id: string): Promise<TraderBoost> {
  const res = await post(`/nbx/v1/boosts/${id}/claim`);
  assert.equal(res.statusCode, 200, res.body);
  h.checkShape('POST', '/nbx/v1/boosts/:id/claim', 200, json(res));
  return json<TraderBoost>(res);
}

const requestWith = (boostId: string | null, extra: Record<string, unknown> = {}) =>
  post('/nbx/v1/parlay/request', { outcomes: legs(), boostId, ...extra });

describe('parlay boosts over REST', () => {
  test('operator: create 201, list, end; bad bodies 400 and scope 403', async () => {
    const b = await create();
    assert.equal(b.kind, 'PERCENT');
    assert.equal(b.value, 0.2);
    assert.equal(b.active, true);
    const list = await get('/admin/v1/boosts', ADMIN);
    assert.equal(list.statusCode, 200);
    h.checkShape('GET', '/admin/v1/boosts', 200, json(list));
    assert.ok(json<WireBoost[]>(list).some((x) => x.id === b.id));
    const n = json<WireBoost[]>(list).length;
    const url = '/admin/v1/boosts';
    const base = { kind: 'PERCENT', value: 0.2, validTo: iso(60_000), fundingAccountId: FUNDER };
    assertError(await post(url, { ...base, value: 1.5 }, ADMIN), 400, 'VALIDATION_FAILED');
    assertError(
      await post(url, { ...base, kind: 'MULTIPLIER', value: 0.5 }, ADMIN),
      400,
      'VALIDATION_FAILED',
    );
    assertError(await post(url, { ...base, kind: 'ODDS' }, ADMIN), 400, 'VALIDATION_FAILED');
    assertError(await post(url, { ...base, validTo: iso(-1) }, ADMIN), 400, 'VALIDATION_FAILED');
    assertError(await post(url, { ...base, minLegs: 1 }, ADMIN), 400, 'VALIDATION_FAILED');
    assertError(await post(url, { ...base, maxStake: 0.000001 }, ADMIN), 400, 'INVALID_AMOUNT');
    assertError(await post(url, { ...base, fundingAccountId: 'x' }, ADMIN), 400, 'INVALID_ID');
    assertError(
      await post(url, { ...base, fundingAccountId: h.port.newId() }, ADMIN),
      404,
      'ACCOUNT_NOT_FOUND',
    );
    assertError(await post(url, base), 403, 'INSUFFICIENT_SCOPE');
    assert.equal(h.port.reader().boosts().length, n);

    const ended = await post(`/admin/v1/boosts/${b.id}/end`, {}, ADMIN);
    assert.equal(ended.statusCode, 200, ended.body);
    h.checkShape('POST', '/admin/v1/boosts/:id/end', 200, json(ended));
    assert.equal(json<WireBoost>(ended).active, false);
    assertError(await post(`/admin/v1/boosts/${b.id}/end`, {}, ADMIN), 409, 'BOOST_EXPIRED');
    assertError(await post(`/admin/v1/boosts/${h.port.newId()}/end`, {}, ADMIN), 404, 'BOOST_NOT_FOUND');
    assertError(await post('/admin/v1/boosts/nope/end', {}, ADMIN), 400, 'INVALID_ID');
  });

  test('trader: list with claims, claim 200 up to the limit then 409; unknown 404', async () => {
    const b = await create({ kind: 'MULTIPLIER', value: 1.25 });
    const later = await create({ validFrom: iso(60_000) });
    const list = json<TraderBoost[]>(await get('/nbx/v1/boosts'));
    h.checkShape('GET', '/nbx/v1/boosts', 200, list);
    const mine = list.find((x) => x.id === b.id)!;
    assert.deepEqual([mine.claimed, mine.used, mine.remainingClaims, mine.available], [0, 0, 2, 0]);
    assert.equal(
      list.some((x) => x.id === later.id),
      false,
    ); // not valid yet
    assert.deepEqual((await claim(b.id)).claimed, 1);
    const second = await claim(b.id);
    assert.deepEqual([second.claimed, second.remainingClaims, second.available], [2, 0, 2]);
    assertError(await post(`/nbx/v1/boosts/${b.id}/claim`), 409, 'BOOST_CLAIM_LIMIT');
    assertError(await post(`/nbx/v1/boosts/${later.id}/claim`), 409, 'BOOST_NOT_STARTED');
    assertError(await post(`/nbx/v1/boosts/${h.port.newId()}/claim`), 404, 'BOOST_NOT_FOUND');
    assertError(await post('/nbx/v1/boosts/nope/claim'), 400, 'INVALID_ID');
    assertError(
      await post(`/nbx/v1/boosts/${b.id}/claim`, {}, { 'x-test-scopes': 'read:trader' }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });

  test('a boosted request shows price and unboostedPrice; eligibility codes change nothing', async () => {
    const b = await create();
    const before = h.port.reader().parlayRequests(TRADER).length;
    assertError(await requestWith(h.port.newId()), 404, 'BOOST_NOT_FOUND');
    assertError(await requestWith(b.id), 409, 'BOOST_NOT_CLAIMED');
    await claim(b.id);
    const nba = await create({ leagues: ['NBA'] });
    await claim(nba.id);
    assertError(await requestWith(nba.id), 400, 'BOOST_LEAGUE_INELIGIBLE');
    const three = await create({ minLegs: 3 });
    await claim(three.id);
    assertError(await requestWith(three.id), 400, 'BOOST_MIN_LEGS');
    const capped = await create({ maxStake: 5 });
    await claim(capped.id);
    assertError(await requestWith(capped.id, { stake: 6 }), 400, 'BOOST_MAX_STAKE');
    const short = await create({ validTo: iso(1_000) });
    await claim(short.id);
    h.clock.t += 1_000;
    assertError(await requestWith(short.id), 409, 'BOOST_EXPIRED');
    assert.equal(h.port.reader().parlayRequests(TRADER).length, before);

    const res = await requestWith(b.id);
    assert.equal(res.statusCode, 201, res.body);
    h.checkShape('POST', '/nbx/v1/parlay/request', 201, json(res));
    const r = json<{ id: string; price: string; unboostedPrice: string; boostId: string }[]>(res)[0]!;
    assert.equal(r.boostId, b.id);
    const ref = Math.round(Number(r.unboostedPrice) * 1e6);
    assert.equal(r.price, (Math.floor((ref * 800_000) / 1_000_000) / 1e6).toFixed(5));
    assert.ok(Number(r.price) < Number(r.unboostedPrice));
  });

  test('a boosted wager: taker at the boosted price, maker at its quote, the funder pays the cost', async () => {
    const b = await create();
    await claim(b.id);
    const r = json<{ id: string }[]>(await requestWith(b.id))[0]!;
    assert.equal(
      (
        await post(
          '/nbx/v1/parlay/quotes',
          { requestId: r.id, price: 0.25, maxQty: 100_000, expiresInMs: 10_000 },
          M1,
        )
      ).statusCode,
      201,
    );
    const seen = json<{ quotes: { price: number; boostedPrice: number | null }[] }>(
      await get(`/nbx/v1/parlay/request/${r.id}`),
    );
    assert.deepEqual(
      seen.quotes.map((q) => [q.price, q.boostedPrice]),
      [[0.25, 0.2]],
    );
    // stale-quote protection compares maxPrice with the boosted price
    assertError(
      await post(`/nbx/v1/parlay/request/${r.id}/wager`, { stake: 2, maxPrice: 0.19, clientOrderId: 'b1' }),
      409,
      'PARLAY_PRICE_MOVED',
    );
    const funder = h.port.reader().wallet(FUNDER, 'CASH')!.available;
    const res = await post(`/nbx/v1/parlay/request/${r.id}/wager`, {
      stake: 2,
      maxPrice: 0.2,
      clientOrderId: 'b1',
    });
    assert.equal(res.statusCode, 201, res.body);
    h.checkShape('POST', '/nbx/v1/parlay/request/:id/wager', 201, json(res));
    const p = json<{
      price: number;
      unboostedPrice: number;
      stake: number;
      collateral: number;
      fee: number;
      boostId: string;
      boostCost: number;
      qty: number;
    }>(res);
    assert.deepEqual(
      [p.price, p.unboostedPrice, p.qty, p.stake, p.collateral, p.fee, p.boostId, p.boostCost],
      [0.2, 0.25, 1000, 2, 7.5, 0.16, b.id, 0.5],
    );
    assert.equal(h.port.reader().wallet(FUNDER, 'CASH')!.available, funder - 50_000);
    const after = json<WireBoost[]>(await get('/admin/v1/boosts', ADMIN)).find((x) => x.id === b.id)!;
    assert.deepEqual([after.fills, after.cost.CASH], [1, 0.5]);
    const mine = json<TraderBoost[]>(await get('/nbx/v1/boosts')).find((x) => x.id === b.id)!;
    assert.deepEqual([mine.claimed, mine.used, mine.available], [1, 1, 0]);
  });

  test('the funding account cannot pay: 409 BOOST_FUNDS_INSUFFICIENT, nothing moves', async () => {
    const b = await create({ value: 0.9 });
    await claim(b.id);
    const r = json<{ id: string }[]>(await requestWith(b.id))[0]!;
    await post(
      '/nbx/v1/parlay/quotes',
      { requestId: r.id, price: 0.5, maxQty: 1_000_000, expiresInMs: 10_000 },
      M1,
    );
    // stake 50 at 0.05 buys a 1000 payout: the boost costs 450, the funder holds 100
    const before = h.port.reader().wallet(TRADER, 'CASH')!.available;
    assertError(
      await post(`/nbx/v1/parlay/request/${r.id}/wager`, { stake: 50, maxPrice: 0.5, clientOrderId: 'f1' }),
      409,
      'BOOST_FUNDS_INSUFFICIENT',
    );
    assert.equal(h.port.reader().wallet(TRADER, 'CASH')!.available, before);
    assert.equal(h.port.reader().parlayRequest(r.id)!.status, 'Unfilled');
  });
});
