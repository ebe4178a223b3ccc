// GET /nbx/v2/emm/transactions (docs/http.md, "Transactions"): the exact row shape, newest first,
// currency/type filters, paging, and every bad input answered with the error envelope.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ACCOUNT_MM,
  addOpenGame,
  marketId,
  outcomeId,
  seedAccounts,
  seedCatalog,
  seedLiquidity,
} from './fixture.ts';
import { assertError, type Harness, json, makeHarness, trader } from './harness.ts';

const URL = '/nbx/v2/emm/transactions';
const G = 2000;

interface Tx {
  id: string;
  kind: string;
  amount: string;
  currency: string;
  createdAt: string | null;
  orderId?: string;
  fillId?: string;
  marketId?: string;
}

let h: Harness;
let acc: string;
let orderId: string;
let t0: string;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
  addOpenGame(h.port, G);
  seedLiquidity(h.port, G);
  t0 = new Date(h.clock.t).toISOString();
  acc = h.port.newId();
  assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: acc }).ok);
  assert.ok(
    h.port.applyNow({ type: 'Deposit', accountId: acc, currency: 'CASH', amount: 10_000 * 100_000 }).ok,
  );
  assert.ok(h.port.applyNow({ type: 'Deposit', accountId: acc, currency: 'COIN', amount: 5 * 100_000 }).ok);
  assert.ok(h.port.applyNow({ type: 'Withdraw', accountId: acc, currency: 'CASH', amount: 1_234_567 }).ok);
  // Crosses the market maker's 0.49 bid on outcome 1: 300 MCU at 0.51 = 1.53 Cash, pregame (no fee).
  const res = await h.app.inject({
    method: 'POST',
    url: '/nbx/v2/emm/orders/place',
    headers: trader(acc),
    payload: { outcomeId: outcomeId(G, 'MONEY', 0), price: 0.55, qty: 300, currency: 'CASH', tif: 'IOC' },
  });
  assert.equal(res.statusCode, 201, res.body);
  orderId = json<{ id: string }>(res).id;
});
after(() => h.close());

const get = (query: string, headers = trader(acc)) =>
  h.app.inject({ method: 'GET', url: `${URL}${query}`, headers });

describe('GET /nbx/v2/emm/transactions', () => {
  test('rows are newest first with exact shapes and 5-decimal string amounts', async () => {
    const res = await get('?currency=CASH');
    assert.equal(res.statusCode, 200);
    const rows = json<Tx[]>(res);
    h.checkShape('GET', URL, 200, rows);
    const fill = rows[0]!;
    assert.equal(typeof fill.fillId, 'string');
    assert.deepEqual(
      rows.map(({ id: _id, ...r }) => r),
      [
        {
          kind: 'FILL_STRAIGHT_TAKER_FUNDS',
          amount: '-1.53000',
          currency: 'CASH',
          createdAt: t0,
          orderId,
          fillId: fill.fillId,
          marketId: marketId(G, 'MONEY'),
        },
        { kind: 'WITHDRAWAL', amount: '-12.34567', currency: 'CASH', createdAt: t0 },
        { kind: 'DEPOSIT', amount: '10000.00000', currency: 'CASH', createdAt: t0 },
      ],
    );
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length);
  });

  test('the maker side carries its own kind, order and fill', async () => {
    const rows = json<Tx[]>(await get('?type=FILL_STRAIGHT_MAKER_FUNDS&limit=1', trader(ACCOUNT_MM)));
    assert.equal(rows.length, 1);
    const r = rows[0]!;
    assert.equal(r.kind, 'FILL_STRAIGHT_MAKER_FUNDS');
    assert.equal(r.amount, '-1.47000');
    assert.equal(r.marketId, marketId(G, 'MONEY'));
    assert.ok(r.orderId && r.fillId && r.orderId !== orderId);
  });

  test('currency, type (list, any case) and paging', async () => {
    const all = json<Tx[]>(await get(''));
    assert.deepEqual(
      all.map((r) => [r.kind, r.currency]),
      [
        ['FILL_STRAIGHT_TAKER_FUNDS', 'CASH'],
        ['WITHDRAWAL', 'CASH'],
        ['DEPOSIT', 'COIN'],
        ['DEPOSIT', 'CASH'],
      ],
    );
    assert.deepEqual(json<Tx[]>(await get('?limit=2&offset=1')), all.slice(1, 3));
    assert.deepEqual(json<Tx[]>(await get('?offset=4')), []);
    assert.deepEqual(
      json<Tx[]>(await get('?type=DEPOSIT')).map((r) => r.currency),
      ['COIN', 'CASH'],
    );
    assert.deepEqual(
      json<Tx[]>(await get('?type=deposit,%20Withdrawal&currency=CASH')).map((r) => r.kind),
      ['WITHDRAWAL', 'DEPOSIT'],
    );
    assert.deepEqual(json<Tx[]>(await get('?type=FEE_STRAIGHT_TAKER_LIVE_FUNDS')), []);
  });

  test('bad input: 400 with the error envelope', async () => {
    for (const [q, code] of [
      ['?type=BOGUS', 'VALIDATION_FAILED'],
      ['?type=DEPOSIT,', 'VALIDATION_FAILED'],
      ['?type=', 'VALIDATION_FAILED'],
      ['?currency=USD', 'INVALID_CURRENCY'],
      ['?limit=0', 'VALIDATION_FAILED'],
      ['?limit=1001', 'VALIDATION_FAILED'],
      ['?limit=abc', 'VALIDATION_FAILED'],
      ['?offset=-1', 'VALIDATION_FAILED'],
    ] as const) {
      const res = await get(q);
      assertError(res, 400, code);
      h.checkShape('GET', URL, 400, json(res));
    }
  });

  test('needs read:trader', async () => {
    assertError(await get('', {} as Record<string, string>), 401, 'UNAUTHORIZED');
    assertError(await get('', { 'x-test-scopes': 'read:tape' }), 403, 'INSUFFICIENT_SCOPE');
  });
});
