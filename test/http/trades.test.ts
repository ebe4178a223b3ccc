// GET /nbx/v2/emm/markets/{id}/trades: a market's trades, newest first, one row per match seen from
// the taker; every bad input a 4xx in the error envelope. The SQL side (the projector's rows on
// PGlite) is checked in test/integration/trading-flow.test.ts.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addOpenGame, marketId, outcomeId, seedAccounts, seedCatalog, seedLiquidity } from './fixture.ts';
import { assertError, type Harness, json, makeHarness, TAPE, trader } from './harness.ts';

let h: Harness;
const G = 4100;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
  addOpenGame(h.port, G);
  seedLiquidity(h.port, G);
});
after(() => h.close());

interface Trade {
  id: string;
  outcomeId: string;
  price: number;
  qty: number;
  created_at: string;
}

const trades = (url: string, headers: Record<string, string> = TAPE) =>
  h.app.inject({ method: 'GET', url, headers });

describe('market trades', () => {
  test('each taker match, newest first, with the outcome bought and the price paid', async () => {
    const acc = h.port.newId();
    assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: acc }).ok);
    assert.ok(
      h.port.applyNow({ type: 'Deposit', accountId: acc, currency: 'CASH', amount: 10_000 * 100_000 }).ok,
    );
    const spread = marketId(G, 'SPREAD');
    const url = `/nbx/v2/emm/markets/${spread}/trades?currency=CASH`;
    assert.deepEqual(json(await trades(url)), []);
    // Offers on outcome 0: 590 at 0.51, 580 at 0.52 (the fixture's ladder): two matches.
    const placed = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/place',
      headers: trader(acc),
      payload: { outcomeId: outcomeId(G, 'SPREAD', 0), price: 0.52, qty: 1000, currency: 'CASH', tif: 'IOC' },
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const res = await trades(url);
    assert.equal(res.statusCode, 200);
    h.checkShape('GET', '/nbx/v2/emm/markets/:marketId/trades', 200, json(res));
    const rows = json<Trade[]>(res);
    assert.deepEqual(
      rows.map((r) => [r.outcomeId, r.price, r.qty]),
      [
        [outcomeId(G, 'SPREAD', 0), 0.52, 410],
        [outcomeId(G, 'SPREAD', 0), 0.51, 590],
      ],
    );
    // limit keeps the newest.
    assert.deepEqual(
      json<Trade[]>(await trades(`${url}&limit=1`)).map((r) => r.qty),
      [410],
    );
    // Unchanged book: the same bytes and ETag, and a 304 for a client that has them.
    const again = await trades(url);
    assert.equal(again.body, res.body);
    assert.equal(again.headers.etag, res.headers.etag);
    const unchanged = await trades(url, { ...TAPE, 'if-none-match': String(res.headers.etag) });
    assert.equal(unchanged.statusCode, 304);
    // A new trade moves the book's seq, so the cached answer is rebuilt with it first.
    const more = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/place',
      headers: trader(acc),
      payload: { outcomeId: outcomeId(G, 'SPREAD', 0), price: 0.52, qty: 100, currency: 'CASH', tif: 'IOC' },
    });
    assert.equal(more.statusCode, 201, more.body);
    const after = json<Trade[]>(await trades(url));
    assert.deepEqual(
      after.map((r) => [r.price, r.qty]),
      [
        [0.52, 100],
        [0.52, 410],
        [0.51, 590],
      ],
    );
    // The other currency's book had no trade.
    assert.deepEqual(json(await trades(`/nbx/v2/emm/markets/${spread}/trades?currency=COIN`)), []);
  });

  test('rows read while the history is behind the state are answered, not kept', async () => {
    const acc = h.port.newId();
    assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: acc }).ok);
    assert.ok(
      h.port.applyNow({ type: 'Deposit', accountId: acc, currency: 'CASH', amount: 10_000 * 100_000 }).ok,
    );
    const total = marketId(G, 'TOTAL');
    const url = `/nbx/v2/emm/markets/${total}/trades?currency=CASH`;
    const placed = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/place',
      headers: trader(acc),
      payload: { outcomeId: outcomeId(G, 'TOTAL', 0), price: 0.52, qty: 100, currency: 'CASH', tif: 'IOC' },
    });
    assert.equal(placed.statusCode, 201, placed.body);
    // The history one command behind (the trade applied, not yet projected): no rows yet.
    const history = h.port.history;
    const real = history.marketTrades;
    history.marketTrades = async (q) => {
      const t = await real(q);
      return { fills: t.fills.filter((f) => f.seq < t.asOf), asOf: t.asOf - 1 };
    };
    try {
      assert.deepEqual(json(await trades(url)), []);
    } finally {
      history.marketTrades = real;
    }
    // Once the history holds it, the same unchanged book answers the trade.
    assert.deepEqual(
      json<Trade[]>(await trades(url)).map((r) => [r.price, r.qty]),
      [[0.51, 100]],
    );
  });

  test('bad input: 400 in the envelope; unknown market 404; no token 401', async () => {
    const m = marketId(G, 'MONEY');
    for (const [q, code] of [
      ['', 'VALIDATION_FAILED'],
      ['?currency=EUR', 'INVALID_CURRENCY'],
      ['?currency=CASH&limit=0', 'VALIDATION_FAILED'],
      ['?currency=CASH&limit=1001', 'VALIDATION_FAILED'],
      ['?currency=CASH&limit=ten', 'VALIDATION_FAILED'],
      ['?currency=CASH&extra=1', 'VALIDATION_FAILED'],
    ] as const) {
      assertError(await trades(`/nbx/v2/emm/markets/${m}/trades${q}`), 400, code);
    }
    assertError(await trades('/nbx/v2/emm/markets/not-a-uuid/trades?currency=CASH'), 400, 'INVALID_ID');
    assertError(
      await trades(
        `/nbx/v2/emm/markets/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/trades?currency=CASH`,
      ),
      404,
      'MARKET_NOT_FOUND',
    );
    assertError(await trades(`/nbx/v2/emm/markets/${m}/trades?currency=CASH`, {}), 401, 'UNAUTHORIZED');
  });
});
