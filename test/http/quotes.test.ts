// Amend, queue position and mass quote over HTTP (docs/http.md "Amend and mass quote"): the answers'
// shapes, priority kept or lost as the queue route reports it, a re-queue that fills, every bad
// input a 4xx with its code, another account's orders invisible, the quote set all or nothing.

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { addOpenGame, marketId, outcomeId, seedAccounts, seedCatalog, seedLiquidity } from './fixture.ts';
import { assertError, type Harness, json, makeHarness, trader as traderHeaders } from './harness.ts';

let h: Harness;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
});
after(() => h.close());

let nextGame = 2000;
let A: Record<string, string>;
let B: Record<string, string>;
let G = 0;

function freshAccount(cash = 10_000): Record<string, string> {
  const id = h.port.newId();
  assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: id }).ok);
  assert.ok(h.port.applyNow({ type: 'Deposit', accountId: id, currency: 'CASH', amount: cash * 100_000 }).ok);
  return traderHeaders(id);
}

beforeEach(() => {
  A = freshAccount();
  B = freshAccount();
  G = nextGame++;
  addOpenGame(h.port, G);
  seedLiquidity(h.port, G); // the market maker bids 0.48/0.47/0.46 on outcome 0, 0.49/0.48 on 1
});

interface Order {
  id: string;
  status: string;
  qty: number;
  originalQty: number;
  filledQty: number;
  price: number;
  outcomeId: string;
  fills?: unknown[];
}
interface Queue {
  orderId: string;
  outcomeId: string;
  price: number;
  ordersAhead: number;
  qtyAhead: number;
}

const o0 = () => outcomeId(G, 'MONEY', 0);
const o1 = () => outcomeId(G, 'MONEY', 1);
const place = async (body: Record<string, unknown>, headers = A) => {
  const res = await h.app.inject({
    method: 'POST',
    url: '/nbx/v2/emm/orders/place',
    headers,
    payload: { outcomeId: o0(), price: 0.4, qty: 1000, currency: 'CASH', tif: 'GTC', ...body },
  });
  assert.equal(res.statusCode, 201, res.body);
  return json<Order>(res);
};
const patch = (id: string, payload: unknown, headers = A) =>
  h.app.inject({ method: 'PATCH', url: `/nbx/v2/emm/orders/${id}`, headers, payload: payload as object });
const queue = (id: string, headers = A) =>
  h.app.inject({ method: 'GET', url: `/nbx/v2/emm/orders/${id}/queue`, headers });
const quote = (payload: unknown, headers = A) =>
  h.app.inject({ method: 'POST', url: '/nbx/v2/emm/quotes', headers, payload: payload as object });
const quoteBody = (quotes: [string, [number, number][]][], over: Record<string, unknown> = {}) => ({
  marketId: marketId(G, 'MONEY'),
  currency: 'CASH',
  quotes: quotes.map(([outcome, levels]) => ({
    outcomeId: outcome,
    levels: levels.map(([price, qty]) => ({ price, qty })),
  })),
  ...over,
});

describe('amend', () => {
  test('a smaller qty keeps the place; more qty goes to the back; the answer is the order as GET shows it', async () => {
    const a = await place({ price: 0.4, qty: 1000 });
    const b = await place({ price: 0.4, qty: 500 }, B);
    const q = json<Queue>(await queue(b.id, B));
    h.checkShape('GET', '/nbx/v2/emm/orders/:orderId/queue', 200, q);
    assert.deepEqual(q, { orderId: b.id, outcomeId: o0(), price: 0.4, ordersAhead: 1, qtyAhead: 1000 });

    const res = await patch(a.id, { qty: 600 });
    assert.equal(res.statusCode, 200, res.body);
    const amended = json<Order>(res);
    h.checkShape('PATCH', '/nbx/v2/emm/orders/:orderId', 200, amended);
    assert.equal(amended.qty, 600);
    assert.equal(amended.originalQty, 600);
    const got = await h.app.inject({ method: 'GET', url: `/nbx/v2/emm/orders/${a.id}`, headers: A });
    assert.deepEqual(json(got), amended);
    assert.equal(json<Queue>(await queue(a.id)).ordersAhead, 0);

    assert.equal((await patch(a.id, { qty: 700 })).statusCode, 200);
    assert.deepEqual(json<Queue>(await queue(a.id)), {
      orderId: a.id,
      outcomeId: o0(),
      price: 0.4,
      ordersAhead: 1,
      qtyAhead: 500,
    });
  });

  test('a new price that crosses fills as a new taker', async () => {
    const a = await place({ price: 0.4, qty: 300 });
    const res = await patch(a.id, { price: 0.55 });
    assert.equal(res.statusCode, 200, res.body);
    const o = json<Order>(res);
    assert.equal(o.status, 'FILLED');
    assert.equal(o.filledQty, 300);
    assert.equal(o.price, 0.55);
  });

  test('bad input: each a 4xx with its code, nothing changed', async () => {
    const a = await place({ price: 0.4, qty: 1000 });
    const po = await place({ price: 0.3, qty: 10, tif: 'PO' });
    const before = json(await h.app.inject({ method: 'GET', url: `/nbx/v2/emm/orders/${a.id}`, headers: A }));
    assertError(await patch('not-a-uuid', { qty: 5 }), 400, 'INVALID_ID');
    assertError(await patch(h.port.newId(), { qty: 5 }), 404, 'ORDER_NOT_FOUND');
    assertError(await patch(a.id, { qty: 5 }, B), 404, 'ORDER_NOT_FOUND');
    assertError(await patch(a.id, {}), 400, 'VALIDATION_FAILED');
    assertError(await patch(a.id, { qty: 5, side: 'x' }), 400, 'VALIDATION_FAILED');
    assertError(await patch(a.id, { price: 0.402 }), 400, 'INVALID_PRICE');
    assertError(await patch(a.id, { price: 1.5 }), 400, 'INVALID_PRICE');
    assertError(await patch(a.id, { qty: 0 }), 400, 'INVALID_QTY');
    assertError(await patch(a.id, { qty: 2.5 }), 400, 'INVALID_QTY');
    const same = await patch(a.id, { price: 0.4, qty: 1000 });
    assertError(same, 400, 'AMEND_NO_CHANGE');
    assert.deepEqual(json<{ details: unknown }>(same).details, { orderId: a.id, price: 0.4, qty: 1000 });
    assertError(await patch(a.id, { qty: 10_000_000 }), 409, 'INSUFFICIENT_FUNDS');
    assertError(await patch(po.id, { price: 0.55 }), 409, 'POST_ONLY_WOULD_TAKE');
    assertError(await queue(a.id, B), 404, 'ORDER_NOT_FOUND');
    assertError(await queue('nope'), 400, 'INVALID_ID');
    const after = json(await h.app.inject({ method: 'GET', url: `/nbx/v2/emm/orders/${a.id}`, headers: A }));
    assert.deepEqual(after, before);
    assert.ok(
      h.port.applyNow({ type: 'SetMarketStatus', marketId: marketId(G, 'MONEY'), status: 'CLOSED' }).ok,
    );
    assertError(await patch(po.id, { qty: 5 }), 404, 'ORDER_NOT_FOUND'); // closing cancelled it
  });
});

describe('mass quote', () => {
  test('replaces the set; unchanged levels keep their place; the answer lists the resulting quotes', async () => {
    const res = await quote(
      quoteBody([
        [
          o0(),
          [
            [0.45, 100],
            [0.44, 100],
          ],
        ],
        [o1(), [[0.5, 50]]],
      ]),
    );
    assert.equal(res.statusCode, 200, res.body);
    const set = json<{ orders: Order[] }>(res);
    h.checkShape('POST', '/nbx/v2/emm/quotes', 200, set);
    assert.deepEqual(set.orders.map((o) => [o.outcomeId === o0() ? 0 : 1, o.price, o.qty]).sort(), [
      [0, 0.44, 100],
      [0, 0.45, 100],
      [1, 0.5, 50],
    ]);
    const at45 = set.orders.find((o) => o.price === 0.45)!;
    await place({ price: 0.45, qty: 10 }, B); // behind the quote
    const again = json<{ orders: Order[] }>(
      await quote(
        quoteBody([
          [
            o0(),
            [
              [0.45, 100],
              [0.43, 20],
            ],
          ],
        ]),
      ),
    );
    assert.deepEqual(
      again.orders.map((o) => [o.price, o.qty]),
      [
        [0.45, 100],
        [0.43, 20],
      ],
    );
    assert.equal(again.orders[0]!.id, at45.id);
    assert.equal(json<Queue>(await queue(at45.id)).ordersAhead, 0);
    // the outcome not listed keeps its quote
    assert.equal(json<Queue>(await queue(set.orders.find((o) => o.price === 0.5)!.id)).ordersAhead, 0);
    // an empty level list cancels the outcome's set
    const none = json<{ orders: Order[] }>(await quote(quoteBody([[o0(), []]])));
    assert.deepEqual(none.orders, []);
  });

  test('bad input and refusals: a 4xx with its code, and nothing changes', async () => {
    const first = json<{ orders: Order[] }>(await quote(quoteBody([[o0(), [[0.45, 100]]]])));
    const poor = freshAccount(1);
    const eleven = Array.from({ length: 11 }, (_, i): [number, number] => [0.3 + i * 0.005, 1]);
    assertError(await quote(quoteBody([[o0(), [[0.45, 1]]]], { marketId: 'x' })), 400, 'INVALID_ID');
    assertError(
      await quote(quoteBody([[o0(), [[0.45, 1]]]], { marketId: h.port.newId() })),
      404,
      'MARKET_NOT_FOUND',
    );
    assertError(await quote(quoteBody([[o0(), [[0.45, 1]]]], { currency: 'EUR' })), 400, 'INVALID_CURRENCY');
    assertError(await quote(quoteBody([[outcomeId(G, 'TOTAL', 0), [[0.45, 1]]]])), 404, 'OUTCOME_NOT_FOUND');
    assertError(await quote(quoteBody([['nope', [[0.45, 1]]]])), 400, 'INVALID_ID');
    assertError(await quote(quoteBody([[o0(), [[0.452, 1]]]])), 400, 'INVALID_PRICE');
    assertError(await quote(quoteBody([[o0(), [[0.45, -1]]]])), 400, 'INVALID_QTY');
    assertError(await quote(quoteBody([[o0(), [[0.45, 1.5]]]])), 400, 'INVALID_QTY');
    assertError(await quote(quoteBody([[o0(), eleven]])), 400, 'VALIDATION_FAILED');
    assertError(
      await quote(
        quoteBody([
          [
            o0(),
            [
              [0.45, 1],
              [0.45, 2],
            ],
          ],
        ]),
      ),
      400,
      'VALIDATION_FAILED',
    );
    assertError(
      await quote(
        quoteBody([
          [o0(), []],
          [o0(), []],
        ]),
      ),
      400,
      'VALIDATION_FAILED',
    );
    assertError(await quote(quoteBody([])), 400, 'VALIDATION_FAILED');
    assertError(await quote(quoteBody([[o0(), [[0.55, 1]]]])), 409, 'POST_ONLY_WOULD_TAKE');
    assertError(
      await quote(
        quoteBody([
          [o0(), [[0.45, 1]]],
          [o1(), [[0.55, 1]]],
        ]),
      ),
      409,
      'POST_ONLY_WOULD_TAKE',
    );
    // 1 Cash: either level alone fits (0.675 and 0.66 Cash), the set of both does not
    const one = (levels: [number, number][]) => quote(quoteBody([[o0(), levels]]), poor);
    assertError(
      await one([
        [0.45, 150],
        [0.44, 150],
      ]),
      409,
      'INSUFFICIENT_FUNDS',
    );
    assert.equal((await one([[0.45, 150]])).statusCode, 200);
    assertError(
      await quote(quoteBody([[o0(), [[0.45, 1]]]]), { 'x-test-scopes': 'read:trader' }),
      403,
      'INSUFFICIENT_SCOPE',
    );
    assert.equal(json<Queue>(await queue(first.orders[0]!.id)).ordersAhead, 0);
    assert.ok(
      h.port.applyNow({ type: 'SetMarketStatus', marketId: marketId(G, 'MONEY'), status: 'CLOSED' }).ok,
    );
    assertError(await quote(quoteBody([[o0(), [[0.45, 1]]]])), 409, 'MARKET_NOT_OPEN');
  });
});
