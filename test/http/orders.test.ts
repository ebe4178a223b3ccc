// Order entry and account routes: synchronous placement with
// fills, every rejection code, batches in one commit, idempotent clientOrderId, cancels of every
// kind, another account's orders invisible, balances/positions/fills moving by exactly the right
// amounts (pregame and with the live taker fee).

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  ACCOUNT_MM,
  addOpenGame,
  eventId,
  marketId,
  outcomeId,
  seedAccounts,
  seedCatalog,
  seedLiquidity,
} from './fixture.ts';
import { assertError, type Harness, json, makeHarness, trader as traderHeaders } from './harness.ts';

// One app for the file (building it compiles every route schema, ~0.7 s); each test isolates itself
// with fresh accounts and its own new OPEN_PREGAME game with fresh liquidity.
let h: Harness;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
});
after(() => h.close());

let nextGame = 1000;
let A: Record<string, string>;
let B: Record<string, string>;
let ACC_A: string;
/** Game of the current test: OPEN_PREGAME, the market maker's bids on all three markets. */
let G = 0;

function freshAccount(): { id: string; headers: Record<string, string> } {
  const id = h.port.newId();
  assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: id }).ok);
  assert.ok(
    h.port.applyNow({ type: 'Deposit', accountId: id, currency: 'CASH', amount: 10_000 * 100_000 }).ok,
  );
  assert.ok(
    h.port.applyNow({ type: 'Deposit', accountId: id, currency: 'COIN', amount: 1_000_000 * 100_000 }).ok,
  );
  return { id, headers: traderHeaders(id) };
}

beforeEach(() => {
  const a = freshAccount();
  A = a.headers;
  ACC_A = a.id;
  B = freshAccount().headers;
  G = nextGame++;
  addOpenGame(h.port, G);
  seedLiquidity(h.port, G);
});

interface Order {
  id: string;
  status: string;
  qty: number;
  originalQty: number;
  filledQty: number;
  price: number;
  clientOrderId: string | null;
  fills: {
    price: number;
    qty: number;
    isTaker: boolean;
    fee: number;
    transactions: { kind: string; amount: number }[];
  }[];
}

const place = (body: unknown, headers: Record<string, string> = A) =>
  h.app.inject({ method: 'POST', url: '/nbx/v2/emm/orders/place', headers, payload: body as object });
const get = (url: string, headers: Record<string, string> = A) =>
  h.app.inject({ method: 'GET', url, headers });
const del = (url: string, headers: Record<string, string> = A, payload?: unknown) =>
  h.app.inject({
    method: 'DELETE',
    url,
    headers,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
const balance = async (headers: Record<string, string> = A, currency = 'CASH') =>
  json<{ balance: number }>(await get(`/nbx/v2/emm/account/balance?currency=${currency}`, headers)).balance;
const bid = (over: Record<string, unknown> = {}) => ({
  outcomeId: outcomeId(G, 'MONEY', 0),
  price: 0.4,
  qty: 1000,
  currency: 'CASH',
  tif: 'GTC',
  ...over,
});

describe('placing', () => {
  test('a resting bid: 201, RESTING, no fills, its cost reserved', async () => {
    const res = await place(bid());
    assert.equal(res.statusCode, 201, res.body);
    const o = json<Order>(res);
    h.checkShape('POST', '/nbx/v2/emm/orders/place', 201, o);
    assert.equal(o.status, 'RESTING');
    assert.equal(o.price, 0.4);
    assert.deepEqual(o.fills, []);
    // 0.40 × 1000 MCU = 400 MCU = 4.00 Cash reserved.
    assert.equal(await balance(), 9996);
    const oc = json(await get('/nbx/v2/emm/account/open-costs-and-credit?currency=CASH'));
    h.checkShape('GET', '/nbx/v2/emm/account/open-costs-and-credit', 200, oc);
    assert.deepEqual(oc, {
      openPositionCost: 0,
      openOrderCost: 4,
      openParlayCost: 0,
      credit: 0,
      currency: 'CASH',
    });
    const book = json<{ book: { bids: { price: number; qty: number }[] } }[]>(
      await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(G)}?currency=CASH`),
    )[0]!.book;
    assert.deepEqual(book.bids.at(-1), { price: 0.4, qty: 1000 });
  });

  test('a crossing bid fills at the maker price; balance, position and fills move exactly', async () => {
    // Bid 0.55 on outcome 0 meets the maker's 0.49 bid on outcome 1: the taker pays 1 − 0.49 = 0.51.
    const o = json<Order>(await place(bid({ price: 0.55, qty: 300 })));
    assert.equal(o.status, 'FILLED');
    assert.equal(o.filledQty, 300);
    assert.deepEqual(
      o.fills.map((f) => [f.price, f.qty, f.isTaker, f.fee]),
      [[0.51, 300, true, 0]],
    );
    assert.deepEqual(o.fills[0]!.transactions, [{ kind: 'TRADE', amount: -1.53 }]);
    assert.equal(await balance(), 10000 - 1.53);
    const positions = json(await get('/nbx/v2/emm/positions/all?currency=CASH'));
    h.checkShape('GET', '/nbx/v2/emm/positions/all', 200, positions);
    assert.deepEqual(positions, [
      {
        marketId: marketId(G, 'MONEY'),
        outcomeId: outcomeId(G, 'MONEY', 0),
        size: 300,
        cost: 1.53,
        currency: 'CASH',
      },
    ]);
    const fills = json<Order['fills']>(await get('/nbx/v2/emm/fills/all?currency=CASH'));
    h.checkShape('GET', '/nbx/v2/emm/fills/all', 200, fills);
    assert.equal(fills.length, 1);
    const mm = json<(Order['fills'][number] & { orderId: string })[]>(
      await get('/nbx/v2/emm/fills/all?limit=1', traderHeaders(ACCOUNT_MM)),
    );
    assert.deepEqual(
      mm.map((f) => [f.price, f.qty, f.isTaker]),
      [[0.49, 300, false]],
    );
    const oc = json(await get('/nbx/v2/emm/account/open-costs-and-credit'));
    assert.deepEqual(oc, {
      openPositionCost: 1.53,
      openOrderCost: 0,
      openParlayCost: 0,
      credit: 0,
      currency: 'CASH',
    });
  });

  test('IOC: fills what it can, the remainder is cancelled and released', async () => {
    const o = json<Order>(
      await place(bid({ outcomeId: outcomeId(G, 'SPREAD', 0), price: 0.52, qty: 2000, tif: 'IOC' })),
    );
    // Offers: 590 at 0.51, 580 at 0.52.
    assert.equal(o.status, 'CANCELED');
    assert.equal(o.filledQty, 1170);
    assert.equal(o.qty, 830);
    assert.deepEqual(
      o.fills.map((f) => [f.price, f.qty]),
      [
        [0.51, 590],
        [0.52, 580],
      ],
    );
    assert.equal(await balance(), Number((10000 - (0.51 * 590 + 0.52 * 580) / 100).toFixed(5)));
  });

  test('live taker fee: qty 200 at 0.61 costs 1.22, fee 1.4274 MCU = 0.014274 → 0.01427 at 1e-5 (docs/exchange.md "Fees")', async () => {
    const m = json<Order>(await place(bid({ outcomeId: outcomeId(2, 'MONEY', 1), price: 0.39, qty: 200 })));
    assert.equal(m.status, 'RESTING');
    const o = json<Order>(
      await place(bid({ outcomeId: outcomeId(2, 'MONEY', 0), price: 0.61, qty: 200 }), B),
    );
    assert.equal(o.status, 'FILLED');
    assert.equal(o.fills[0]!.fee, 0.01427);
    assert.deepEqual(o.fills[0]!.transactions, [
      { kind: 'TRADE', amount: -1.22 },
      { kind: 'FEE', amount: -0.01427 },
    ]);
    assert.equal(await balance(B), Number((10000 - 1.22 - 0.01427).toFixed(5)));
  });

  test('GTT: rests with expiresAt = placement time + ttl; flags and clientOrderId echoed', async () => {
    const o = json<Order & { expiresAt: string; flags: string; tif: string }>(
      await place(bid({ tif: 'GTT', ttl: 60_000, flags: 'mm1', clientOrderId: 'gtt-1' })),
    );
    assert.equal(o.status, 'RESTING');
    assert.equal(o.tif, 'GTT');
    assert.equal(o.expiresAt, new Date(h.clock.t + 60_000).toISOString());
    assert.equal(o.flags, 'mm1');
    assert.equal(o.clientOrderId, 'gtt-1');
    assertError(await place(bid({ tif: 'GTC', ttl: 5 })), 400, 'VALIDATION_FAILED');
  });

  test('COIN wallet and CASH wallet are separate', async () => {
    const o = json<Order>(await place(bid({ currency: 'COIN', price: 0.25, qty: 10 })));
    assert.equal(o.status, 'RESTING');
    // COIN: 1 MCU = 1 Coin; 0.25 × 10 = 2.5 Coin.
    assert.equal(await balance(A, 'COIN'), 1_000_000 - 2.5);
    assert.equal(await balance(A, 'CASH'), 10000);
    const legacy = json(await get('/emm/v2/account/balance'));
    h.checkShape('GET', '/emm/v2/account/balance', 200, legacy);
    assert.deepEqual(legacy, { balance: 10000, currency: 'CASH' });
  });
});

describe('self-trade prevention and post-only reprice', () => {
  const own = async () => {
    const r = await place(bid({ price: 0.5 }));
    assert.equal(r.statusCode, 201, r.body);
    return json<Order>(r).id;
  };
  test('without the options the journaled command carries no stp or reprice key', async () => {
    await own();
    // What the journal holds is the command's JSON: an absent option is an undefined value in
    // memory (the command is built with every key it can carry, src/runtime/place-command.ts).
    const text = JSON.stringify(h.port.applied.at(-1));
    const cmd = JSON.parse(text) as Record<string, unknown>;
    assert.equal(cmd.type, 'PlaceOrder');
    assert.ok(!('stp' in cmd) && !('reprice' in cmd) && !('mmp' in cmd) && !('ttl' in cmd), text);
  });
  test('CANCEL_TAKER: the taker is cancelled, the own resting order stays', async () => {
    const resting = await own();
    const r = await place(bid({ outcomeId: outcomeId(G, 'MONEY', 1), price: 0.5, stp: 'CANCEL_TAKER' }));
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(json<Order>(r).status, 'CANCELED');
    assert.equal(json<Order>(await get(`/nbx/v2/emm/orders/${resting}`)).status, 'RESTING');
  });
  test('CANCEL_MAKER: the own resting order is cancelled, the taker rests', async () => {
    const resting = await own();
    const r = await place(bid({ outcomeId: outcomeId(G, 'MONEY', 1), price: 0.5, stp: 'CANCEL_MAKER' }));
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(json<Order>(r).status, 'RESTING');
    assert.equal(json<Order>(await get(`/nbx/v2/emm/orders/${resting}`)).status, 'CANCELED');
  });
  test('a crossing PO with reprice rests one tick inside, taking nothing', async () => {
    const r = await place(bid({ price: 0.55, tif: 'PO', reprice: true, clientOrderId: 'k-po' }));
    assert.equal(r.statusCode, 201, r.body);
    const o = json<Order>(r);
    h.checkShape('POST', '/nbx/v2/emm/orders/place', 201, o);
    assert.equal(o.status, 'RESTING');
    assert.ok(o.price < 0.55, `${o.price}`);
    assert.deepEqual(o.fills, []);
    // A retry of the request replays it: the terms compared are the request's, not the repriced order's.
    const again = await place(bid({ price: 0.55, tif: 'PO', reprice: true, clientOrderId: 'k-po' }));
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(json<Order>(again), o);
  });
});

describe('rejections', () => {
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['price off the table', { price: 0.051 }, 400, 'INVALID_PRICE'],
    ['price with 4 decimals', { price: 0.4321 }, 400, 'INVALID_PRICE'],
    ['price ≥ 1', { price: 1.5 }, 400, 'INVALID_PRICE'],
    ['price not a number', { price: 'abc' }, 400, 'INVALID_PRICE'],
    ['qty 0', { qty: 0 }, 400, 'INVALID_QTY'],
    ['qty fractional', { qty: 1.5 }, 400, 'INVALID_QTY'],
    ['qty negative', { qty: -3 }, 400, 'INVALID_QTY'],
    ['unknown tif', { tif: 'DAY' }, 400, 'INVALID_TIF'],
    ['unknown currency', { currency: 'USD' }, 400, 'INVALID_CURRENCY'],
    ['malformed outcome id', { outcomeId: 'abc' }, 400, 'INVALID_ID'],
    ['GTT without ttl', { tif: 'GTT' }, 400, 'VALIDATION_FAILED'],
    ['flags over 8 chars', { flags: '123456789' }, 400, 'VALIDATION_FAILED'],
    ['unknown stp mode', { stp: 'CANCEL_NONE' }, 400, 'VALIDATION_FAILED'],
    ['reprice without PO', { reprice: true }, 400, 'VALIDATION_FAILED'],
    ['reprice not a boolean', { tif: 'PO', reprice: 'yes' }, 400, 'VALIDATION_FAILED'],
    ['unknown field', { colour: 'red' }, 400, 'VALIDATION_FAILED'],
    ['unknown outcome', { outcomeId: '00000000-0000-4000-8000-000000000000' }, 404, 'OUTCOME_NOT_FOUND'],
    [
      'event not tradable (CLOSED_PREGAME)',
      { outcomeId: outcomeId(1, 'MONEY', 0) },
      409,
      'EVENT_NOT_TRADABLE',
    ],
    ['insufficient funds', { price: 0.5, qty: 3_000_000 }, 409, 'INSUFFICIENT_FUNDS'],
    ['post-only would take', { price: 0.55, tif: 'PO' }, 409, 'POST_ONLY_WOULD_TAKE'],
    ['fill-or-kill not fillable', { price: 0.52, qty: 5000, tif: 'FOK' }, 409, 'FOK_NOT_FILLED'],
  ];
  for (const [name, over, status, code] of cases) {
    test(`${name} → ${status} ${code}, nothing applied`, async () => {
      const applied = h.port.applied.length;
      const res = await place(bid(over));
      assertError(res, status, code);
      h.checkShape('POST', '/nbx/v2/emm/orders/place', status, json(res));
      assert.equal(h.port.applied.length, applied);
      assert.equal(await balance(), 10000);
    });
  }
  test('market not open → 409 MARKET_NOT_OPEN', async () => {
    assert.ok(
      h.port.applyNow({ type: 'SetMarketStatus', marketId: marketId(5, 'MONEY'), status: 'CLOSED' }).ok,
    );
    assertError(await place(bid({ outcomeId: outcomeId(5, 'MONEY', 0) })), 409, 'MARKET_NOT_OPEN');
  });
  test('trading lock → 409 TRADING_LOCKED; cancels still work', async () => {
    const o = json<Order>(await place(bid({ outcomeId: outcomeId(10, 'MONEY', 0) })));
    const t = h.clock.t;
    assert.ok(
      h.port.applyNow({
        type: 'SetLock',
        lock: { id: h.port.newId(), eventId: eventId(10), reason: 'x', createdAt: t, expiresAt: null },
      }).ok,
    );
    assertError(await place(bid({ outcomeId: outcomeId(10, 'MONEY', 0) })), 409, 'TRADING_LOCKED');
    assert.equal((await del(`/nbx/v2/emm/orders/${o.id}`)).statusCode, 200);
  });
  test('scopes: read-only client cannot trade; a client without account has no balance', async () => {
    assertError(
      await place(bid(), { 'x-test-scopes': 'read:trader', 'x-test-account': ACC_A }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    assertError(
      await get('/nbx/v2/emm/account/balance', { 'x-test-scopes': 'read:trader' }),
      404,
      'ACCOUNT_NOT_FOUND',
    );
    assertError(await get('/nbx/v2/emm/account/balance?currency=EUR'), 400, 'INVALID_CURRENCY');
  });
});

describe('clientOrderId idempotency', () => {
  test('same key ⇒ same order, charged once; same key with other terms ⇒ 409', async () => {
    const first = await place(bid({ clientOrderId: 'k-1' }));
    const second = await place(bid({ clientOrderId: 'k-1' }));
    assert.equal(first.statusCode, 201);
    assert.equal(second.statusCode, 201);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(json<Order>(second).id, json<Order>(first).id);
    assert.deepEqual(json(second), json(first));
    assert.equal(await balance(), 9996);
    assertError(await place(bid({ clientOrderId: 'k-1', price: 0.3 })), 409, 'DUPLICATE_CLIENT_ORDER_ID');
    // Another account may use the same key.
    assert.notEqual(json<Order>(await place(bid({ clientOrderId: 'k-1' }), B)).id, json<Order>(first).id);
  });
  test('after an amend (qty, then price) the original request still replays; other terms ⇒ 409', async () => {
    const amend = (id: string, payload: unknown) =>
      h.app.inject({
        method: 'PATCH',
        url: `/nbx/v2/emm/orders/${id}`,
        headers: A,
        payload: payload as object,
      });
    const first = json<Order>(await place(bid({ clientOrderId: 'k-am' })));
    assert.equal(first.status, 'RESTING');
    const cut = await amend(first.id, { qty: 600 });
    assert.equal(cut.statusCode, 200, cut.body);
    const afterQty = await place(bid({ clientOrderId: 'k-am' }));
    assert.equal(afterQty.statusCode, 201, afterQty.body);
    assert.equal(afterQty.headers['idempotent-replayed'], 'true');
    // The order as it is now, as a replay of a partly filled order answers.
    assert.deepEqual(
      (({ id, qty, originalQty, price }) => ({ id, qty, originalQty, price }))(json<Order>(afterQty)),
      { id: first.id, qty: 600, originalQty: 600, price: 0.4 },
    );
    const moved = await amend(first.id, { price: 0.35 });
    assert.equal(moved.statusCode, 200, moved.body);
    const afterPrice = await place(bid({ clientOrderId: 'k-am' }));
    assert.equal(afterPrice.statusCode, 201, afterPrice.body);
    assert.equal(afterPrice.headers['idempotent-replayed'], 'true');
    assert.equal(json<Order>(afterPrice).id, first.id);
    assert.equal(json<Order>(afterPrice).price, 0.35);
    // Still one order, reserved once at its current terms: 0.35 × 600 MCU = 2.10 Cash.
    assert.equal(await balance(), 9997.9);
    // Other terms than the placement's are a conflict, the order's current terms included.
    assertError(await place(bid({ clientOrderId: 'k-am', qty: 999 })), 409, 'DUPLICATE_CLIENT_ORDER_ID');
    assertError(await place(bid({ clientOrderId: 'k-am', price: 0.45 })), 409, 'DUPLICATE_CLIENT_ORDER_ID');
    assertError(
      await place(bid({ clientOrderId: 'k-am', price: 0.35, qty: 600 })),
      409,
      'DUPLICATE_CLIENT_ORDER_ID',
    );
    // A batch repeating the original request answers the same order too.
    const batch = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/batch',
      headers: A,
      payload: [bid({ clientOrderId: 'k-am' }), bid({ clientOrderId: 'k-am', qty: 7 })],
    });
    assert.equal(batch.statusCode, 201, batch.body);
    const items = json<(Order | { error: { code: string } })[]>(batch);
    assert.equal((items[0] as Order).id, first.id);
    assert.equal((items[1] as { error: { code: string } }).error.code, 'DUPLICATE_CLIENT_ORDER_ID');
  });
  test('a filled order replays with its fills', async () => {
    const first = json<Order>(await place(bid({ price: 0.55, qty: 100, clientOrderId: 'k-2' })));
    const again = json<Order>(await place(bid({ price: 0.55, qty: 100, clientOrderId: 'k-2' })));
    assert.deepEqual(again, first);
    assert.equal(again.fills.length, 1);
  });
});

describe('batches', () => {
  test('one result per item, in order, one commit', async () => {
    const applied = h.port.applied.length;
    const res = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/batch',
      headers: A,
      payload: [
        bid({ clientOrderId: 'b-1' }),
        bid({ price: 0.333 }),
        bid({ price: 0.55, qty: 100 }),
        bid({ outcomeId: outcomeId(1, 'MONEY', 0) }),
        bid({ clientOrderId: 'b-1' }),
        { nonsense: true },
      ],
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = json<(Order | { error: { code: string } })[]>(res);
    h.checkShape('POST', '/nbx/v2/emm/orders/batch', 201, body);
    assert.equal(body.length, 6);
    assert.equal((body[0] as Order).status, 'RESTING');
    assert.equal((body[1] as { error: { code: string } }).error.code, 'INVALID_PRICE');
    assert.equal((body[2] as Order).status, 'FILLED');
    assert.equal((body[3] as { error: { code: string } }).error.code, 'EVENT_NOT_TRADABLE');
    assert.deepEqual(body[4], body[0]);
    assert.equal((body[5] as { error: { code: string } }).error.code, 'VALIDATION_FAILED');
    assert.equal(h.port.applied.length, applied + 2);
  });
  test('more than 256 items or an empty batch → 400', async () => {
    const post = (payload: unknown[]) =>
      h.app.inject({
        method: 'POST',
        url: '/nbx/v2/emm/orders/batch',
        headers: A,
        payload: payload as never,
      });
    assertError(await post(Array.from({ length: 257 }, () => bid())), 400, 'VALIDATION_FAILED');
    assertError(await post([]), 400, 'VALIDATION_FAILED');
  });
});

describe('cancels and reads', () => {
  test('cancel one: collateral released; another account sees 404 and cannot cancel', async () => {
    const o = json<Order>(await place(bid()));
    assertError(await get(`/nbx/v2/emm/orders/${o.id}`, B), 404, 'ORDER_NOT_FOUND');
    assertError(await del(`/nbx/v2/emm/orders/${o.id}`, B), 404, 'ORDER_NOT_FOUND');
    const mine = await get(`/nbx/v2/emm/orders/${o.id}`);
    assert.equal(json<Order>(mine).status, 'RESTING');
    h.checkShape('GET', '/nbx/v2/emm/orders/:orderId', 200, json(mine));
    const res = await del(`/nbx/v2/emm/orders/${o.id}`);
    assert.equal(res.statusCode, 200);
    h.checkShape('DELETE', '/nbx/v2/emm/orders/:orderId', 200, json(res));
    assert.equal(json<Order>(res).status, 'CANCELED');
    assert.equal(await balance(), 10000);
    assertError(await del(`/nbx/v2/emm/orders/${o.id}`), 404, 'ORDER_NOT_FOUND');
    assert.equal(json<Order>(await get(`/nbx/v2/emm/orders/${o.id}`)).status, 'CANCELED');
    assertError(await get('/nbx/v2/emm/orders/not-an-id'), 400, 'INVALID_ID');
    assertError(await get('/nbx/v2/emm/orders/00000000-0000-4000-8000-000000000000'), 404, 'ORDER_NOT_FOUND');
  });

  test('batch cancel: one result per id, unknown and foreign ids are ORDER_NOT_FOUND', async () => {
    const o1 = json<Order>(await place(bid()));
    const o2 = json<Order>(await place(bid({ price: 0.3 })));
    const foreign = json<Order>(await place(bid(), B));
    const unknown = '00000000-0000-4000-8000-000000000000';
    const res = await del('/nbx/v2/emm/orders/batch', A, [o1.id, unknown, foreign.id, o2.id]);
    assert.equal(res.statusCode, 200, res.body);
    const body = json<(Order | { error: { code: string } })[]>(res);
    h.checkShape('DELETE', '/nbx/v2/emm/orders/batch', 200, body);
    assert.equal((body[0] as Order).status, 'CANCELED');
    assert.equal((body[1] as { error: { code: string } }).error.code, 'ORDER_NOT_FOUND');
    assert.equal((body[2] as { error: { code: string } }).error.code, 'ORDER_NOT_FOUND');
    assert.equal((body[3] as Order).id, o2.id);
    assert.equal(json<Order>(await get(`/nbx/v2/emm/orders/${foreign.id}`, B)).status, 'RESTING');
    const wrapped = await del('/nbx/v2/emm/orders/batch', B, { orderIds: [foreign.id] });
    assert.equal((json<Order[]>(wrapped)[0] as Order).status, 'CANCELED');
    assertError(await del('/nbx/v2/emm/orders/batch', A, ['nope']), 400, 'VALIDATION_FAILED');
  });

  test('kill, by event, by market', async () => {
    const mmBefore = h.port.reader().openOrders(ACCOUNT_MM).length;
    await place(bid());
    await place(bid({ outcomeId: outcomeId(G, 'TOTAL', 1), price: 0.2 }));
    const g2 = nextGame++;
    const g3 = nextGame++;
    addOpenGame(h.port, g2);
    addOpenGame(h.port, g3);
    assert.equal((await place(bid({ outcomeId: outcomeId(g2, 'MONEY', 0), price: 0.2 }))).statusCode, 201);
    assert.equal((await place(bid({ outcomeId: outcomeId(g3, 'SPREAD', 0), price: 0.2 }))).statusCode, 201);
    const byMarket = await del(`/nbx/v2/emm/orders/market/${marketId(G, 'TOTAL')}`);
    assert.equal(json<Order[]>(byMarket).length, 1);
    h.checkShape('DELETE', '/nbx/v2/emm/orders/market/:marketId', 200, json(byMarket));
    const byEvent = await del(`/nbx/v2/emm/orders/event/${eventId(G)}`);
    assert.equal(json<Order[]>(byEvent).length, 1);
    assertError(
      await del('/nbx/v2/emm/orders/event/00000000-0000-4000-8000-000000000000'),
      404,
      'EVENT_NOT_FOUND',
    );
    assertError(
      await del('/nbx/v2/emm/orders/market/00000000-0000-4000-8000-000000000000'),
      404,
      'MARKET_NOT_FOUND',
    );
    assertError(await del('/nbx/v2/emm/orders/market/x'), 400, 'INVALID_ID');
    const killed = await del('/nbx/v2/emm/kill');
    assert.equal(json<Order[]>(killed).length, 2);
    assert.deepEqual(json(await del('/nbx/v2/emm/kill')), []);
    assert.equal(h.port.reader().openOrders(ACC_A).length, 0);
    assert.equal(await balance(), 10000);
    // The market maker's orders were never touched.
    assert.equal(h.port.reader().openOrders(ACCOUNT_MM).length, mmBefore);
  });

  test('orders/all: newest first, status and currency filters, pages', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      h.clock.t += 1;
      ids.push(json<Order>(await place(bid({ price: [0.1, 0.15, 0.2, 0.25, 0.3][i] }))).id);
    }
    h.clock.t += 1;
    const filled = json<Order>(await place(bid({ price: 0.55, qty: 10 })));
    await del(`/nbx/v2/emm/orders/${ids[0]}`);
    const all = json<Order[]>(await get('/nbx/v2/emm/orders/all'));
    h.checkShape('GET', '/nbx/v2/emm/orders/all', 200, all);
    assert.deepEqual(
      all.map((o) => o.id),
      [filled.id, ...ids.slice().reverse()],
    );
    assert.deepEqual(
      json<Order[]>(await get('/nbx/v2/emm/orders/all?status=RESTING&limit=2&offset=1')).map((o) => o.id),
      [ids[3], ids[2]],
    );
    assert.deepEqual(
      json<Order[]>(await get('/nbx/v2/emm/orders/all?status=CANCELED')).map((o) => o.id),
      [ids[0]],
    );
    assert.deepEqual(json(await get('/nbx/v2/emm/orders/all?currency=COIN')), []);
    assert.deepEqual(json(await get('/nbx/v2/emm/orders/all', B)), []);
    assertError(await get('/nbx/v2/emm/orders/all?status=OPEN'), 400, 'VALIDATION_FAILED');
    assertError(await get('/nbx/v2/emm/orders/all?limit=0'), 400, 'VALIDATION_FAILED');
  });

  test('positions filter by outcomeIds (repeated or comma-separated)', async () => {
    await place(bid({ price: 0.55, qty: 100 }));
    await place(bid({ outcomeId: outcomeId(G, 'TOTAL', 0), price: 0.55, qty: 100 }));
    const all = json<{ outcomeId: string }[]>(await get('/nbx/v2/emm/positions/all'));
    assert.equal(all.length, 2);
    const one = outcomeId(G, 'TOTAL', 0);
    assert.deepEqual(
      json<{ outcomeId: string }[]>(await get(`/nbx/v2/emm/positions/all?outcomeIds=${one}`)).map(
        (p) => p.outcomeId,
      ),
      [one],
    );
    const both = `${outcomeId(G, 'MONEY', 0)},${one}`;
    assert.equal(json<unknown[]>(await get(`/nbx/v2/emm/positions/all?outcomeIds=${both}`)).length, 2);
    assert.equal(
      json<unknown[]>(
        await get(`/nbx/v2/emm/positions/all?outcomeIds=${outcomeId(G, 'MONEY', 0)}&outcomeIds=${one}`),
      ).length,
      2,
    );
    assertError(await get('/nbx/v2/emm/positions/all?outcomeIds=bad'), 400, 'INVALID_ID');
    assert.deepEqual(json(await get('/nbx/v2/emm/positions/all?currency=COIN')), []);
  });
});
