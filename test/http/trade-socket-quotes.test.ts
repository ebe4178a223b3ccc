// Amend and mass quote on the `/trade` socket (docs/order-entry.md "Messages"): each answers the
// REST route's result object (PATCH /nbx/v2/emm/orders/{orderId}, POST /nbx/v2/emm/quotes) and the
// command's seq once durable, with the REST error codes; a REST amend and a socket amend of two
// equal orders give the same result. The same run on PostgreSQL when DATABASE_URL is set.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { storeKinds } from '../helpers/store.ts';
import { type Frame, TradeClient } from '../helpers/trade-client.ts';
import { orderBody as body, type Desk, desk } from '../helpers/trade-desk.ts';

for (const kind of storeKinds()) {
  describe(`/trade amend and mass quote (${kind})`, () => {
    let d: Desk;
    before(async () => {
      d = await desk(kind, 'Q');
    });
    after(async () => {
      await d.srv.close();
      await d.place.destroy();
    });

    test('amend answers the REST order and its seq once durable; errors carry the REST codes', async () => {
      const t = await d.trader('amend-ws');
      const c = await TradeClient.open(d.url, t.token);
      const o0 = d.markets[0]!.outcomeIds[0];
      const placed = await c.request('place', body(o0, 0.4));
      const id = placed.result.id;

      const smaller = await c.request('amend', { orderId: id, qty: 60 });
      assert.equal(smaller.type, 'amend', JSON.stringify(smaller));
      assert.ok(Number.isSafeInteger(smaller.seq) && smaller.seq > placed.seq, JSON.stringify(smaller));
      assert.equal(smaller.result.id, id);
      assert.equal(smaller.result.status, 'RESTING');
      const rest = await t.api.call('GET', `/nbx/v2/emm/orders/${id}`);
      assert.equal(rest.status, 200);
      for (const k of Object.keys(rest.body)) assert.deepEqual(smaller.result[k], rest.body[k], k);
      assert.equal(rest.body.price, 0.4);

      const moved = await c.request('amend', { orderId: id.toUpperCase(), price: 0.42 });
      assert.equal(moved.result.price, 0.42);
      assert.ok(moved.seq > smaller.seq);

      const same = await c.request('amend', { orderId: id, price: 0.42 });
      assert.equal(same.type, 'error');
      assert.equal(same.error.code, 'AMEND_NO_CHANGE');
      assert.deepEqual(same.error.details, {
        orderId: id,
        price: 0.42,
        qty: moved.result.remainingQty ?? 60,
      });

      const cases: [unknown, string, number][] = [
        [{ orderId: id, price: 0.333 }, 'INVALID_PRICE', 400],
        [{ orderId: id, qty: 0 }, 'INVALID_QTY', 400],
        [{ orderId: id, qty: 1.5 }, 'INVALID_QTY', 400],
        [{ orderId: 'nope', qty: 5 }, 'INVALID_ID', 400],
        [{ orderId: id }, 'VALIDATION_FAILED', 400],
        [{ orderId: id, qty: 5, side: 'BUY' }, 'VALIDATION_FAILED', 400],
        [{ qty: 5 }, 'VALIDATION_FAILED', 400],
        [undefined, 'VALIDATION_FAILED', 400],
        [{ orderId: '00000000-0000-4000-8000-000000000000', qty: 5 }, 'ORDER_NOT_FOUND', 404],
      ];
      for (const [data, code, status] of cases) {
        const f = await c.request('amend', data);
        assert.equal(f.type, 'error', JSON.stringify(data));
        assert.equal(f.error.code, code, `${JSON.stringify(data)}: ${JSON.stringify(f.error)}`);
        assert.equal(f.error.statusCode, status);
      }
      // Another account's order is not found, as on REST.
      const other = await d.trader('amend-other');
      const theirs = await other.api.call('POST', '/nbx/v2/emm/orders/place', body(o0, 0.3));
      assert.equal(theirs.status, 201, JSON.stringify(theirs.body));
      const foreign = await c.request('amend', { orderId: theirs.body.id, qty: 5 });
      assert.equal(foreign.error.code, 'ORDER_NOT_FOUND');
      const ok = await c.request('amend', { orderId: id, qty: 10 });
      assert.equal(ok.type, 'amend', 'usable after every bad frame');
      c.close();
    });

    test('a REST amend and a socket amend of equal orders give the same result', async () => {
      const t = await d.trader('amend-same');
      const c = await TradeClient.open(d.url, t.token);
      const o1 = d.markets[1]!.outcomeIds[0];
      const a = await t.api.call('POST', '/nbx/v2/emm/orders/place', body(o1, 0.35));
      const b = await c.request('place', body(o1, 0.35));
      const viaRest = await t.api.call('PATCH', `/nbx/v2/emm/orders/${a.body.id}`, { price: 0.37, qty: 80 });
      assert.equal(viaRest.status, 200, JSON.stringify(viaRest.body));
      const viaSocket = await c.request('amend', { orderId: b.result.id, price: 0.37, qty: 80 });
      assert.equal(viaSocket.type, 'amend', JSON.stringify(viaSocket));
      const strip = (o: Record<string, unknown>) => {
        const { id: _i, created_at: _c, updated_at: _u, ...rest } = o;
        return rest;
      };
      assert.deepEqual(strip(viaSocket.result), strip(viaRest.body));
      assert.deepEqual(Object.keys(viaSocket.result).sort(), Object.keys(viaRest.body).sort());
      // Error codes agree too.
      const restBad = await t.api.call('PATCH', `/nbx/v2/emm/orders/${a.body.id}`, { price: 0.333 });
      const wsBad = await c.request('amend', { orderId: b.result.id, price: 0.333 });
      assert.equal(wsBad.error.code, restBad.body.code);
      assert.equal(wsBad.error.statusCode, restBad.status);
      c.close();
    });

    test('massQuote answers the REST quote set and its seq; errors carry the REST codes', async () => {
      const t = await d.trader('quote-ws');
      const c = await TradeClient.open(d.url, t.token);
      const m = d.markets[0]!;
      const data = {
        marketId: m.id,
        currency: 'CASH',
        quotes: [
          {
            outcomeId: m.outcomeIds[1],
            levels: [
              { price: 0.2, qty: 50 },
              { price: 0.25, qty: 70 },
            ],
          },
        ],
      };
      const q = await c.request('massQuote', data);
      assert.equal(q.type, 'massQuote', JSON.stringify(q));
      assert.ok(Number.isSafeInteger(q.seq) && q.seq > 0);
      assert.equal(q.result.marketId, m.id);
      assert.equal(q.result.currency, 'CASH');
      assert.deepEqual(
        q.result.orders.map((o: Frame) => [o.price, o.status]),
        [
          [0.25, 'RESTING'],
          [0.2, 'RESTING'],
        ],
      );
      for (const o of q.result.orders) {
        const rest = await t.api.call('GET', `/nbx/v2/emm/orders/${o.id}`);
        for (const k of Object.keys(rest.body)) assert.deepEqual(o[k], rest.body[k], k);
      }
      // The same set again is accepted and changes nothing (same orders); REST agrees.
      const again = await c.request('massQuote', data);
      assert.deepEqual(
        again.result.orders.map((o: Frame) => o.id),
        q.result.orders.map((o: Frame) => o.id),
      );
      const rest = await t.api.call('POST', '/nbx/v2/emm/quotes', data);
      assert.equal(rest.status, 200);
      assert.deepEqual(rest.body, again.result);

      const withLevel = (level: Record<string, unknown>) => ({
        ...data,
        quotes: [{ outcomeId: m.outcomeIds[1], levels: [level] }],
      });
      const cases: [unknown, string][] = [
        [withLevel({ price: 0.333, qty: 5 }), 'INVALID_PRICE'],
        [withLevel({ price: 'x', qty: 5 }), 'INVALID_PRICE'],
        [withLevel({ price: 0.2, qty: -1 }), 'INVALID_QTY'],
        [withLevel({ price: 0.2, qty: 1.5 }), 'INVALID_QTY'],
        [{ ...data, currency: 'GOLD' }, 'INVALID_CURRENCY'],
        [{ ...data, marketId: 'nope' }, 'INVALID_ID'],
        [{ ...data, quotes: [{ outcomeId: 'x', levels: [] }] }, 'INVALID_ID'],
        [{ ...data, quotes: [] }, 'VALIDATION_FAILED'],
        [{ marketId: m.id, currency: 'CASH' }, 'VALIDATION_FAILED'],
        [undefined, 'VALIDATION_FAILED'],
      ];
      for (const [bad, code] of cases) {
        const f = await c.request('massQuote', bad);
        assert.equal(f.type, 'error', JSON.stringify(bad));
        assert.equal(f.error.code, code, `${JSON.stringify(bad)}: ${JSON.stringify(f.error)}`);
        assert.equal(f.error.statusCode, 400);
        if (bad !== undefined) {
          const r = await t.api.call('POST', '/nbx/v2/emm/quotes', bad);
          assert.equal(r.body.code, code, `REST ${JSON.stringify(bad)}`);
        }
      }
      const unknownMarket = await c.request('massQuote', {
        ...data,
        marketId: '00000000-0000-4000-8000-000000000000',
      });
      const restUnknown = await t.api.call('POST', '/nbx/v2/emm/quotes', {
        ...data,
        marketId: '00000000-0000-4000-8000-000000000000',
      });
      assert.equal(unknownMarket.error.code, restUnknown.body.code);
      assert.equal(unknownMarket.error.statusCode, restUnknown.status);
      // Empty levels cancel the set.
      const cleared = await c.request('massQuote', {
        ...data,
        quotes: [{ outcomeId: m.outcomeIds[1], levels: [] }],
      });
      assert.deepEqual(cleared.result.orders, []);
      c.close();
    });

    test('the AsyncAPI document names amend and massQuote with their REST result schemas', async () => {
      const doc = await d.admin.call('GET', '/asyncapi.json');
      const msgs = doc.body.components.messages;
      assert.ok(msgs.trade_amend && msgs.trade_amend_result, Object.keys(msgs).join());
      assert.ok(msgs.trade_massQuote && msgs.trade_massQuote_result);
    });
  });
}
