// Order-entry edge cases found under test: a GTT `ttl` past the Date range (bounded at the edge,
// and the wire's time conversion total so a journaled far expiry can never turn reads into 500s),
// and a batch repeating a clientOrderId with other terms (rejected per item, as a single placement
// is). docs/http.md "Trading semantics".

import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { MAX_TTL_MS } from '../../src/runtime/order-entry.ts';
import { isoMillis, isoOrNull } from '../../src/wire/names.ts';
import { addOpenGame, outcomeId, seedAccounts, seedCatalog, seedLiquidity } from './fixture.ts';
import { assertError, type Harness, json, makeHarness, trader } from './harness.ts';

let h: Harness;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
});
after(() => h.close());

let nextGame = 3000;
let G = 0;
let A: Record<string, string>;
let ACC: string;

beforeEach(() => {
  ACC = h.port.newId();
  assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: ACC }).ok);
  assert.ok(
    h.port.applyNow({ type: 'Deposit', accountId: ACC, currency: 'CASH', amount: 10_000 * 100_000 }).ok,
  );
  A = trader(ACC);
  G = nextGame++;
  addOpenGame(h.port, G);
  seedLiquidity(h.port, G);
});

const bid = (over: Record<string, unknown> = {}) => ({
  outcomeId: outcomeId(G, 'MONEY', 0),
  price: 0.4,
  qty: 1000,
  currency: 'CASH',
  tif: 'GTC',
  ...over,
});
const place = (body: unknown) =>
  h.app.inject({ method: 'POST', url: '/nbx/v2/emm/orders/place', headers: A, payload: body as object });
const batch = (items: unknown[]) =>
  h.app.inject({ method: 'POST', url: '/nbx/v2/emm/orders/batch', headers: A, payload: items as never });

interface Order {
  id: string;
  status: string;
  expiresAt: string | null;
  clientOrderId: string | null;
}
type Item = Order | { error: { code: string; details?: { clientOrderId?: string; orderId?: string } } };

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GTT ttl bound', () => {
  test('ttl past the maximum → 400 VALIDATION_FAILED at place and per batch item, nothing applied', async () => {
    const applied = h.port.applied.length;
    for (const ttl of [MAX_TTL_MS + 1, 8_640_000_000_000_000, Number.MAX_SAFE_INTEGER]) {
      const res = await place(bid({ tif: 'GTT', ttl }));
      assertError(res, 400, 'VALIDATION_FAILED');
      h.checkShape('POST', '/nbx/v2/emm/orders/place', 400, json(res));
      const b = json<Item[]>(await batch([bid({ tif: 'GTT', ttl })]));
      assert.equal((b[0] as { error: { code: string } }).error.code, 'VALIDATION_FAILED');
    }
    assert.equal(h.port.applied.length, applied);
  });

  test('ttl at the maximum is accepted; orders/all and kill answer it', async () => {
    const o = json<Order>(await place(bid({ tif: 'GTT', ttl: MAX_TTL_MS })));
    assert.equal(o.status, 'RESTING');
    assert.equal(o.expiresAt, new Date(h.clock.t + MAX_TTL_MS).toISOString());
    assert.equal(
      (await h.app.inject({ method: 'GET', url: '/nbx/v2/emm/orders/all', headers: A })).statusCode,
      200,
    );
    const killed = await h.app.inject({ method: 'DELETE', url: '/nbx/v2/emm/kill', headers: A });
    assert.equal(killed.statusCode, 200);
    assert.deepEqual(
      json<Order[]>(killed).map((x) => x.id),
      [o.id],
    );
  });

  test('the engine refuses an expiry past the Date range; one past year 9999 reads clamped', async () => {
    // Below the edge's 30-day bound the engine is the last guard: an expiry a Date cannot hold is
    // refused (docs/exchange.md "Books and matching"); one a Date holds but RFC 3339 cannot write (past
    // year 9999) is accepted and leaves clamped, so no read turns into a 500.
    const refused = h.port.applyNow({
      type: 'PlaceOrder',
      orderId: h.port.newId(),
      accountId: ACC,
      outcomeId: outcomeId(G, 'MONEY', 0),
      currency: 'CASH',
      price: 400,
      qty: 10,
      tif: 'GTT',
      ttl: 8_640_000_000_000_000,
      flags: null,
      clientOrderId: null,
    });
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.code, 'VALIDATION_FAILED');
    const orderId = h.port.newId();
    const r = h.port.applyNow({
      type: 'PlaceOrder',
      orderId,
      accountId: ACC,
      outcomeId: outcomeId(G, 'MONEY', 0),
      currency: 'CASH',
      price: 400,
      qty: 10,
      tif: 'GTT',
      ttl: 8_640_000_000_000_000 - h.clock.t - 1_000,
      flags: null,
      clientOrderId: null,
    });
    assert.ok(r.ok);
    for (const url of ['/nbx/v2/emm/orders/all', `/nbx/v2/emm/orders/${orderId}`]) {
      const res = await h.app.inject({ method: 'GET', url, headers: A });
      assert.equal(res.statusCode, 200, res.body);
      h.checkShape('GET', url.endsWith('all') ? url : '/nbx/v2/emm/orders/:orderId', 200, json(res));
    }
    const killed = await h.app.inject({ method: 'DELETE', url: '/nbx/v2/emm/kill', headers: A });
    assert.equal(killed.statusCode, 200, killed.body);
    const [o] = json<Order[]>(killed);
    assert.equal(o?.expiresAt, '9999-12-31T23:59:59.999Z');
  });

  test('the wire time conversion is total: clamped to RFC 3339 years 0000–9999', () => {
    assert.equal(isoMillis(0), '1970-01-01T00:00:00.000Z');
    assert.equal(isoMillis(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), '2026-01-02T03:04:05.006Z');
    for (const ms of [8.64e15, 8.64e15 + 1, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, Infinity]) {
      assert.equal(isoMillis(ms), '9999-12-31T23:59:59.999Z');
      assert.equal(isoOrNull(ms), '9999-12-31T23:59:59.999Z');
    }
    for (const ms of [-8.64e15 - 1, -Number.MAX_VALUE, -Infinity]) {
      assert.equal(isoMillis(ms), '0000-01-01T00:00:00.000Z');
    }
    assert.match(isoMillis(Number.NaN), RFC3339);
    assert.equal(isoOrNull(Number.NaN), null);
    assert.equal(isoOrNull(null), null);
  });
});

describe('clientOrderId repeated inside one batch', () => {
  test('other terms → DUPLICATE_CLIENT_ORDER_ID for that item; an identical repeat answers the first', async () => {
    const applied = h.port.applied.length;
    const items = [
      bid({ clientOrderId: 'r-1' }),
      bid({ clientOrderId: 'r-1', price: 0.3 }),
      bid({ clientOrderId: 'r-1', qty: 7 }),
      bid({ clientOrderId: 'r-1', outcomeId: outcomeId(G, 'MONEY', 1) }),
      bid({ clientOrderId: 'r-1', tif: 'GTT', ttl: 60_000 }),
      bid({ clientOrderId: 'r-1' }),
    ];
    const res = await batch(items);
    assert.equal(res.statusCode, 201, res.body);
    const body = json<Item[]>(res);
    h.checkShape('POST', '/nbx/v2/emm/orders/batch', 201, body);
    const first = body[0] as Order;
    assert.equal(first.status, 'RESTING');
    for (const i of [1, 2, 3, 4]) {
      const e = (
        body[i] as { error: { code: string; details?: { clientOrderId?: string; orderId?: string } } }
      ).error;
      assert.equal(e?.code, 'DUPLICATE_CLIENT_ORDER_ID', `item ${i}: ${JSON.stringify(body[i])}`);
      assert.equal(e.details?.clientOrderId, 'r-1');
      assert.equal(e.details?.orderId, first.id);
    }
    assert.deepEqual(body[5], body[0]);
    // One order placed, charged once (1000 × 0.40 = 4.00).
    assert.equal(h.port.applied.length, applied + 1);
    const bal = json<{ balance: number }>(
      await h.app.inject({ method: 'GET', url: '/nbx/v2/emm/account/balance?currency=CASH', headers: A }),
    );
    assert.equal(bal.balance, 9996);
  });

  test('a key placed earlier and repeated in a batch with other terms → DUPLICATE_CLIENT_ORDER_ID', async () => {
    const prior = json<Order>(await place(bid({ clientOrderId: 'r-2' })));
    const body = json<Item[]>(
      await batch([bid({ clientOrderId: 'r-2', price: 0.3 }), bid({ clientOrderId: 'r-2' })]),
    );
    const e = (body[0] as { error: { code: string; details?: { orderId?: string } } }).error;
    assert.equal(e.code, 'DUPLICATE_CLIENT_ORDER_ID');
    assert.equal(e.details?.orderId, prior.id);
    assert.equal((body[1] as Order).id, prior.id);
  });

  test('a repeat whose first item failed validation is judged on its own', async () => {
    const body = json<Item[]>(
      await batch([bid({ clientOrderId: 'r-3', price: 0.333 }), bid({ clientOrderId: 'r-3' })]),
    );
    assert.equal((body[0] as { error: { code: string } }).error.code, 'INVALID_PRICE');
    assert.equal((body[1] as Order).status, 'RESTING');
  });
});
