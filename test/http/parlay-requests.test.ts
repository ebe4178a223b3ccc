// Tradeable parlays over REST (docs/parlays.md): the authenticated request and its reads and cancel,
// makers' firm quotes (the second replaces the first), the wager (stale quote 409, idempotent
// clientOrderId, two concurrent wagers fill once), positions with per-leg status through
// settlement, limits, and every bad input as a 4xx envelope.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { addOpenGame, marketId, outcomeId, seedAccounts, seedCatalog, seedLiquidity } from './fixture.ts';
import { assertError, type Harness, json, makeHarness } from './harness.ts';

let h: Harness;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
});
after(() => h.close());

let G = 2000;
let T: Record<string, string>;
let TRADER: string;
let M1: Record<string, string>;
let M2: Record<string, string>;

function fresh(scopes: string): { id: string; headers: Record<string, string> } {
  const id = h.port.newId();
  assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: id }).ok);
  assert.ok(
    h.port.applyNow({ type: 'Deposit', accountId: id, currency: 'CASH', amount: 10_000 * 100_000 }).ok,
  );
  return { id, headers: { 'x-test-scopes': scopes, 'x-test-account': id } };
}

beforeEach(() => {
  const t = fresh('read:tape,read:trader,execute:trader');
  T = t.headers;
  TRADER = t.id;
  M1 = fresh('make:parlay,read:trader').headers;
  M2 = fresh('make:parlay,read:trader').headers;
  G++;
  addOpenGame(h.port, G);
  seedLiquidity(h.port, G);
  addOpenGame(h.port, G + 500);
  seedLiquidity(h.port, G + 500);
});

const legs = () => [{ id: outcomeId(G, 'MONEY', 0) }, { id: outcomeId(G + 500, 'TOTAL', 1) }];
const post = (url: string, payload: unknown, headers: Record<string, string> = T) =>
  h.app.inject({ method: 'POST', url, headers, payload: payload as object });
const get = (url: string, headers: Record<string, string> = T) =>
  h.app.inject({ method: 'GET', url, headers });

interface WireRequest {
  id: string;
  status: string;
  price: string;
  unboostedPrice: string;
  legs: { outcomeId: string; price: string; vendor: string }[];
  wager: { parlayId: string; price: number; stake: number; fee: number; qty: number } | null;
  traderId: string;
  quotes: { id: string; price: number; maxQty: number; mine: boolean }[];
  declined: { outcomeId: string; reason: string }[] | null;
}

async function request(body: Record<string, unknown> = {}): Promise<WireRequest> {
  const res = await post('/nbx/v1/parlay/request', { outcomes: legs(), boostId: null, ...body });
  assert.equal(res.statusCode, 201, res.body);
  h.checkShape('POST', '/nbx/v1/parlay/request', 201, json(res));
  return json<WireRequest[]>(res)[0]!;
}

const quote = (requestId: string, price: number, headers = M1, maxQty = 100_000) =>
  post('/nbx/v1/parlay/quotes', { requestId, price, maxQty, expiresInMs: 10_000 }, headers);
const wager = (id: string, maxPrice: number, clientOrderId: string, stake = 10) =>
  post(`/nbx/v1/parlay/request/${id}/wager`, { stake, maxPrice, clientOrderId });

describe('parlay requests over REST', () => {
  test('201 with the production shape: Unfilled, price = unboostedPrice, legs, no wager, no quotes', async () => {
    const r = await request({ stake: 10 });
    assert.equal(r.status, 'Unfilled');
    assert.match(r.price, /^0\.\d{5}$/);
    assert.equal(r.unboostedPrice, r.price);
    assert.deepEqual(
      r.legs.map((l) => l.outcomeId),
      legs().map((l) => l.id),
    );
    assert.equal(r.wager, null);
    assert.equal(r.traderId, TRADER);
    assert.deepEqual(r.quotes, []);
    const again = await get(`/nbx/v1/parlay/request/${r.id}`);
    assert.equal(again.statusCode, 200);
    assert.equal(json<WireRequest>(again).id, r.id);
    const list = json<WireRequest[]>(await get('/nbx/v1/parlay/requests?status=Unfilled'));
    assert.deepEqual(
      list.map((x) => x.id),
      [r.id],
    );
  });

  test('bad input is a 4xx envelope and changes nothing', async () => {
    const before = h.port.reader().parlayRequests(TRADER).length;
    const url = '/nbx/v1/parlay/request';
    assertError(await post(url, { outcomes: legs(), boostId: 'b-1' }), 404, 'BOOST_NOT_FOUND');
    assertError(await post(url, { outcomes: legs().slice(0, 1) }), 400, 'PARLAY_INVALID_LEGS');
    assertError(await post(url, { outcomes: [{ id: 'nope' }, legs()[1]] }), 400, 'VALIDATION_FAILED');
    assertError(await post(url, { outcomes: legs(), stake: 1_000_000 }), 400, 'INVALID_AMOUNT');
    assertError(await post(url, { outcomes: legs(), currency: 'EUR' }), 400, 'INVALID_CURRENCY');
    assertError(await post(url, { outcomes: legs(), extra: 1 }), 400, 'VALIDATION_FAILED');
    const unknown = [{ id: h.port.newId() }, legs()[1]!];
    assertError(await post(url, { outcomes: unknown }), 400, 'CANNOT_PRICE_PARLAY');
    assertError(await post(url, { outcomes: legs() }, {}), 401, 'UNAUTHORIZED');
    assertError(await post(url, { outcomes: legs() }, M1), 403, 'INSUFFICIENT_SCOPE');
    assertError(await get(`/nbx/v1/parlay/request/${h.port.newId()}`), 404, 'PARLAY_REQUEST_NOT_FOUND');
    assertError(await get('/nbx/v1/parlay/request/xyz'), 400, 'INVALID_ID');
    assert.equal(h.port.reader().parlayRequests(TRADER).length, before);
  });

  test('a maker’s second quote replaces its first; quotes need make:parlay', async () => {
    const r = await request();
    const q1 = await quote(r.id, 0.2);
    assert.equal(q1.statusCode, 201, q1.body);
    h.checkShape('POST', '/nbx/v1/parlay/quotes', 201, json(q1));
    assert.equal((await quote(r.id, 0.19)).statusCode, 201);
    assert.equal((await quote(r.id, 0.21, M2)).statusCode, 201);
    const seen = json<WireRequest>(await get(`/nbx/v1/parlay/request/${r.id}`));
    assert.deepEqual(
      seen.quotes.map((q) => q.price),
      [0.19, 0.21],
    );
    assertError(await quote(r.id, 0.2, T), 403, 'INSUFFICIENT_SCOPE');
    assertError(await quote(r.id, 0.1234567), 400, 'INVALID_PRICE');
    assertError(await quote(r.id, 0.2, M1, 1e12), 409, 'INSUFFICIENT_FUNDS');
    assertError(await quote(h.port.newId(), 0.2), 404, 'PARLAY_REQUEST_NOT_FOUND');
  });

  test('wager: stale quote 409, fill at the best quote, idempotent clientOrderId, positions', async () => {
    const r = await request();
    assertError(await wager(r.id, 0.3, 'w0'), 409, 'PARLAY_NO_QUOTE');
    await quote(r.id, 0.25);
    await quote(r.id, 0.2, M2);
    assertError(await wager(r.id, 0.15, 'w0'), 409, 'PARLAY_PRICE_MOVED');
    const before = h.port.reader().wallet(TRADER, 'CASH')!.available;
    const res = await wager(r.id, 0.22, 'w1');
    assert.equal(res.statusCode, 201, res.body);
    h.checkShape('POST', '/nbx/v1/parlay/request/:id/wager', 201, json(res));
    const p = json<{ id: string; price: number; qty: number; stake: number; fee: number; role: string }>(res);
    assert.equal(p.price, 0.2);
    assert.equal(p.role, 'TAKER');
    assert.equal(p.qty, 5000); // 10 Cash at 0.2 buys 50 Cash of payout
    assert.equal(p.stake, 10);
    assert.equal(p.fee, 0.8); // 0.10 × 10 × 40 / 50
    assert.equal(h.port.reader().wallet(TRADER, 'CASH')!.available, before - 1_080_000);
    const replay = await wager(r.id, 0.22, 'w1');
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(json<{ id: string }>(replay).id, p.id);
    assertError(await wager(r.id, 0.22, 'w2'), 409, 'PARLAY_REQUEST_CLOSED');
    const seen = json<WireRequest>(await get(`/nbx/v1/parlay/request/${r.id}`));
    assert.equal(seen.status, 'Filled');
    assert.equal(seen.wager?.parlayId, p.id);
    const mine = json<{ id: string; legs: { status: string }[] }[]>(await get('/nbx/v1/parlays?status=OPEN'));
    assert.deepEqual(
      mine[0]!.legs.map((l) => l.status),
      ['TBD', 'TBD'],
    );
    const maker = json<{ role: string; collateral: number }[]>(await get('/nbx/v1/parlays', M2));
    assert.equal(maker[0]!.role, 'MAKER');
    assert.equal(maker[0]!.collateral, 40);
    const tc = await get('/nbx/v2/emm/account/open-costs-and-credit?currency=CASH');
    assert.equal(json<{ openParlayCost: number }>(tc).openParlayCost, 10);
    const mc = await get('/nbx/v2/emm/account/open-costs-and-credit?currency=CASH', M2);
    assert.equal(json<{ openParlayCost: number }>(mc).openParlayCost, 40);
  });

  test('two concurrent wagers on one request fill at most once', async () => {
    const r = await request();
    await quote(r.id, 0.25);
    const [a, b] = await Promise.all([wager(r.id, 0.3, 'x1'), wager(r.id, 0.3, 'x2')]);
    const codes = [a.statusCode, b.statusCode].sort();
    assert.deepEqual(codes, [201, 409]);
    assert.equal(h.port.reader().parlays(TRADER).length, 1);
  });

  test('cancel, expiry, and a leg market closing declines the request', async () => {
    const r = await request();
    const del = await h.app.inject({ method: 'DELETE', url: `/nbx/v1/parlay/request/${r.id}`, headers: T });
    assert.equal(json<WireRequest>(del).status, 'Cancelled');
    assertError(
      await h.app.inject({ method: 'DELETE', url: `/nbx/v1/parlay/request/${r.id}`, headers: T }),
      409,
      'PARLAY_REQUEST_CLOSED',
    );
    const other = fresh('execute:trader').headers;
    assertError(await get(`/nbx/v1/parlay/request/${r.id}`, other), 404, 'PARLAY_REQUEST_NOT_FOUND');
    const r2 = await request();
    h.clock.t += 31_000;
    assert.equal(json<WireRequest>(await get(`/nbx/v1/parlay/request/${r2.id}`)).status, 'Expired');
    assertError(await quote(r2.id, 0.2), 409, 'PARLAY_REQUEST_CLOSED');
    const r3 = await request();
    assert.ok(
      h.port.applyNow({ type: 'SetMarketStatus', marketId: marketId(G, 'MONEY'), status: 'CLOSED' }).ok,
    );
    const d = json<WireRequest>(await get(`/nbx/v1/parlay/request/${r3.id}`));
    assert.equal(d.status, 'Declined');
    assert.deepEqual(d.declined, [{ outcomeId: outcomeId(G, 'MONEY', 0), reason: 'MARKET_CLOSED' }]);
  });

  test('settlement: both legs win, the taker is paid; legs show WIN', async () => {
    const r = await request();
    await quote(r.id, 0.25);
    assert.equal((await wager(r.id, 0.25, 's1', 5)).statusCode, 201);
    const before = h.port.reader().wallet(TRADER, 'CASH')!.available;
    for (const [m, o] of [
      [marketId(G, 'MONEY'), outcomeId(G, 'MONEY', 0)],
      [marketId(G + 500, 'TOTAL'), outcomeId(G + 500, 'TOTAL', 1)],
    ] as const) {
      assert.ok(h.port.applyNow({ type: 'SetMarketStatus', marketId: m, status: 'CLOSED' }).ok);
      assert.ok(h.port.applyNow({ type: 'SettleMarket', marketId: m, result: o }).ok);
    }
    const [p] = json<{ status: string; payout: number; legs: { status: string }[] }[]>(
      await get('/nbx/v1/parlays'),
    );
    assert.equal(p!.status, 'SETTLED');
    assert.deepEqual(
      p!.legs.map((l) => l.status),
      ['WIN', 'WIN'],
    );
    assert.equal(p!.payout, 20);
    assert.equal(h.port.reader().wallet(TRADER, 'CASH')!.available, before + 2_000_000);
  });

  test('at most PARLAY_MAX_OPEN_REQUESTS open requests per account', async () => {
    for (let i = 0; i < 20; i++) await request();
    assertError(await post('/nbx/v1/parlay/request', { outcomes: legs() }), 409, 'PARLAY_OPEN_REQUEST_LIMIT');
  });
});
