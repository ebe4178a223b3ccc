// The `/trade` order-entry socket against a real server (docs/order-entry.md): every message type
// answers the REST route's result object and the command's seq once durable; each bad input is
// an error frame with the error envelope and the connection stays usable; idempotency by
// clientOrderId spans REST and the socket; requests pipeline. The same run on PostgreSQL when
// DATABASE_URL is set.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Api } from '../helpers/server.ts';
import { storeKinds } from '../helpers/store.ts';
import { type Frame, TradeClient } from '../helpers/trade-client.ts';
import { orderBody as body, type Desk, desk } from '../helpers/trade-desk.ts';

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

for (const kind of storeKinds()) {
  describe(`/trade order entry (${kind})`, () => {
    let d: Desk;
    before(async () => {
      d = await desk(kind, 'T');
    });
    after(async () => {
      await d.srv.close();
      await d.place.destroy();
    });

    test('every message type answers the REST result object and its seq, once durable', async () => {
      const t = await d.trader('every-type');
      const c = await TradeClient.open(d.url, t.token);
      const [m0, m1] = d.markets;
      const o0 = m0!.outcomeIds[0];

      const placed = await c.request('place', body(o0, 0.4));
      assert.equal(placed.type, 'place');
      assert.ok(Number.isSafeInteger(placed.seq) && placed.seq > 0, JSON.stringify(placed));
      assert.equal(placed.result.status, 'RESTING');
      assert.deepEqual(placed.result.fills, []);
      // The REST read of the same order has the same fields as the socket's result.
      const rest = await t.api.call('GET', `/nbx/v2/emm/orders/${placed.result.id}`);
      assert.equal(rest.status, 200);
      for (const k of Object.keys(rest.body)) assert.deepEqual(placed.result[k], rest.body[k], k);

      const batch = await c.request('batch', [
        body(o0, 0.41),
        body(o0, 0.5, { price: 0.333 }),
        body(m1!.outcomeIds[0], 0.42),
      ]);
      assert.equal(batch.result.length, 3);
      assert.equal(batch.result[0].status, 'RESTING');
      assert.equal(batch.result[1].error.code, 'INVALID_PRICE');
      assert.equal(batch.result[2].status, 'RESTING');
      assert.ok(batch.seq > placed.seq);

      const canceled = await c.request('cancel', { orderId: placed.result.id });
      assert.equal(canceled.result.id, placed.result.id);
      assert.equal(canceled.result.status, 'CANCELED');
      assert.ok(canceled.seq > batch.seq);

      const again = await c.request('cancel', { orderId: placed.result.id });
      assert.equal(again.type, 'error');
      assert.equal(again.error.code, 'ORDER_NOT_FOUND');
      assert.equal(again.error.statusCode, 404);

      const cb = await c.request('cancelBatch', [batch.result[0].id, placed.result.id]);
      assert.equal(cb.result[0].status, 'CANCELED');
      assert.equal(cb.result[1].error.code, 'ORDER_NOT_FOUND');
      const cbObj = await c.request('cancelBatch', { orderIds: [placed.result.id] });
      assert.equal(cbObj.result[0].error.code, 'ORDER_NOT_FOUND');
      assert.equal(cbObj.seq, null, 'nothing journaled');

      const onMarket = await c.request('cancelMarket', { marketId: m1!.id });
      assert.deepEqual(
        onMarket.result.map((o: Frame) => o.id),
        [batch.result[2].id],
      );
      const p2 = await c.request('place', body(o0, 0.43));
      const onEvent = await c.request('cancelEvent', { eventId: d.eventId });
      assert.deepEqual(
        onEvent.result.map((o: Frame) => o.id),
        [p2.result.id],
      );
      const unknownEvent = await c.request('cancelEvent', {
        eventId: '01a20c00-0424-7006-9390-6b6596b47148',
      });
      assert.equal(unknownEvent.error.code, 'EVENT_NOT_FOUND');
      const unknownMarket = await c.request('cancelMarket', {
        marketId: '01a20c00-0424-7006-9390-6b6596b47148',
      });
      assert.equal(unknownMarket.error.code, 'MARKET_NOT_FOUND');

      await c.request('place', body(o0, 0.44));
      await c.request('place', body(o0, 0.45));
      const all = await c.request('cancelAll');
      assert.equal(all.result.length, 2);
      assert.ok(all.result.every((o: Frame) => o.status === 'CANCELED'));
      const none = await c.request('cancelAll');
      assert.deepEqual(none.result, []);
      assert.equal(none.seq, null);
      // The engine's rejections keep their REST codes.
      const poor = await c.request('place', body(o0, 0.5, { qty: 1e12 }));
      assert.equal(poor.error.code, 'INSUFFICIENT_FUNDS');
      c.close();
      // Every frame received validates against the payload the AsyncAPI document declares for it.
      const doc = (await d.admin.call('GET', '/asyncapi.json')).body;
      const ajv = new Ajv({ strict: false });
      addFormats(ajv);
      for (const f of c.frames) {
        const name = f.type === 'error' ? 'trade_error' : `trade_${f.type}_result`;
        const v = ajv.compile(doc.components.messages[name].payload);
        assert.ok(v(f), `${name}: ${ajv.errorsText(v.errors)} in ${JSON.stringify(f)}`);
      }
    });

    test('bad input: an error frame with the envelope each, and the connection stays usable', async () => {
      const t = await d.trader('bad-input');
      const c = await TradeClient.open(d.url, t.token);
      const o0 = d.markets[0]!.outcomeIds[0];
      const cases: [string | Buffer, string, string | null][] = [
        ['{not json', 'MALFORMED_JSON', null],
        [Buffer.from([1, 2, 3]), 'MALFORMED_JSON', null],
        ['[]', 'VALIDATION_FAILED', null],
        [JSON.stringify({ type: 'place' }), 'VALIDATION_FAILED', null],
        [JSON.stringify({ type: 'place', id: { a: 1 } }), 'VALIDATION_FAILED', null],
        // The id is echoed whenever it is one.
        [JSON.stringify({ type: 'place', id: 'x', data: {}, extra: 1 }), 'VALIDATION_FAILED', 'x'],
      ];
      for (const [frame, code, id] of cases) {
        const f = await c.raw(frame);
        assert.equal(f.type, 'error', String(frame));
        assert.equal(f.id, id);
        assert.equal(f.error.code, code, `${String(frame)}: ${JSON.stringify(f)}`);
        assert.equal(f.error.statusCode, 400);
        assert.equal(typeof f.error.message, 'string');
      }
      const unknown = await c.request('teleport', {});
      assert.equal(unknown.error.code, 'VALIDATION_FAILED');
      assert.match(unknown.error.message, /Unknown message type "teleport"/);
      const price = await c.request('place', body(o0, 0.333));
      assert.equal(price.error.code, 'INVALID_PRICE');
      const qty = await c.request('place', body(o0, 0.4, { qty: -5 }));
      assert.equal(qty.error.code, 'INVALID_QTY');
      const missing = await c.request('place', { outcomeId: o0, price: 0.4 });
      assert.equal(missing.error.code, 'VALIDATION_FAILED');
      assert.ok(Array.isArray(missing.error.details));
      const badId = await c.request('cancel', { orderId: 'nope' });
      assert.equal(badId.error.code, 'INVALID_ID');
      const tooMany = await c.request(
        'batch',
        Array.from({ length: 257 }, () => body(o0, 0.4)),
      );
      assert.equal(tooMany.error.code, 'VALIDATION_FAILED');
      const stray = await c.request('cancelAll', { x: 1 });
      assert.equal(stray.error.code, 'VALIDATION_FAILED');
      const ok = await c.request('place', body(o0, 0.4));
      assert.equal(ok.result.status, 'RESTING', 'usable after every bad frame');
      c.close();
    });

    test('scopes and tokens: the upgrade needs execute:trader; each request is checked again', async () => {
      const reader = await d.trader('reader-only', ['read:trader', 'read:tape']);
      await assert.rejects(TradeClient.open(d.url, reader.token), (e: { status: number; body: string }) => {
        assert.equal(e.status, 403);
        assert.equal(JSON.parse(e.body).code, 'INSUFFICIENT_SCOPE');
        return true;
      });
      await assert.rejects(TradeClient.open(d.url), (e: { status: number }) => e.status === 401);
      await assert.rejects(TradeClient.open(d.url, 'garbage'), (e: { status: number; body: string }) => {
        assert.equal(JSON.parse(e.body).code, 'INVALID_TOKEN');
        return true;
      });

      const t = await d.trader('rescoped');
      const c = await TradeClient.open(d.url, t.token);
      // A narrower token of the same client: order entry answers INSUFFICIENT_SCOPE, nothing closes.
      const narrow = await d.admin.call(
        'POST',
        '/nbx/v1/auth/emm-token',
        {
          grant_type: 'client_credentials',
          client_id: t.clientId,
          client_secret: t.secret,
          scope: 'read:trader',
        },
        null,
      );
      assert.equal(narrow.status, 200, JSON.stringify(narrow.body));
      const swapped = await c.request('auth', { token: narrow.body.access_token });
      assert.deepEqual(swapped.result.scopes, ['read:trader']);
      const denied = await c.request('place', body(d.markets[0]!.outcomeIds[0], 0.4));
      assert.equal(denied.error.code, 'INSUFFICIENT_SCOPE');
      assert.equal(denied.error.statusCode, 403);
      const other = await d.trader('another-account');
      const foreign = await c.request('auth', { token: other.token });
      assert.equal(foreign.error.code, 'INVALID_TOKEN');
      const bogus = await c.request('auth', { token: 'garbage' });
      assert.equal(bogus.error.code, 'INVALID_TOKEN');
      await c.request('auth', { token: t.token });
      const placed = await c.request('place', body(d.markets[0]!.outcomeIds[0], 0.4));
      assert.equal(placed.result.status, 'RESTING');
      // Revoking the connection's token: the next request is refused, the connection stays.
      const rev = await d.admin.call(
        'POST',
        '/oauth/revoke',
        { token: t.token, client_id: t.clientId, client_secret: t.secret },
        null,
      );
      assert.equal(rev.status, 200, JSON.stringify(rev.body));
      const after = await c.request('place', body(d.markets[0]!.outcomeIds[0], 0.4));
      assert.equal(after.error.code, 'INVALID_TOKEN');
      c.close();
    });

    test('idempotency by clientOrderId spans REST and the socket', async () => {
      const t = await d.trader('idem');
      const c = await TradeClient.open(d.url, t.token);
      const o0 = d.markets[0]!.outcomeIds[0];
      const viaRest = await t.api.call(
        'POST',
        '/nbx/v2/emm/orders/place',
        body(o0, 0.4, { clientOrderId: 'k-rest' }),
      );
      assert.equal(viaRest.status, 201);
      const repeat = await c.request('place', body(o0, 0.4, { clientOrderId: 'k-rest' }));
      assert.equal(repeat.result.id, viaRest.body.id);
      assert.equal(repeat.replayed, true);
      assert.equal(repeat.seq, null);
      const conflict = await c.request('place', body(o0, 0.41, { clientOrderId: 'k-rest' }));
      assert.equal(conflict.error.code, 'DUPLICATE_CLIENT_ORDER_ID');

      const viaSocket = await c.request('place', body(o0, 0.42, { clientOrderId: 'k-ws' }));
      const restRepeat = await t.api.call(
        'POST',
        '/nbx/v2/emm/orders/place',
        body(o0, 0.42, { clientOrderId: 'k-ws' }),
      );
      assert.equal(restRepeat.status, 201);
      assert.equal(restRepeat.headers['idempotent-replayed'], 'true');
      assert.equal(restRepeat.body.id, viaSocket.result.id);
      // Pipelined repeats of one key on the socket: one order.
      const burst = await Promise.all(
        Array.from({ length: 5 }, () => c.request('place', body(o0, 0.43, { clientOrderId: 'k-burst' }))),
      );
      assert.equal(new Set(burst.map((f) => f.result.id)).size, 1, JSON.stringify(burst));
      const inBatch = await c.request('batch', [
        body(o0, 0.43, { clientOrderId: 'k-burst' }),
        body(o0, 0.44, { clientOrderId: 'k-new' }),
      ]);
      assert.equal(inBatch.result[0].id, burst[0].result.id);
      assert.equal(inBatch.result[1].status, 'RESTING');
      c.close();
    });

    test('after an amend the original placement replays, over either transport', async () => {
      const t = await d.trader('idem-amend');
      const c = await TradeClient.open(d.url, t.token);
      const o0 = d.markets[0]!.outcomeIds[0];
      // Placed over REST, amended and repeated on the socket.
      const viaRest = await t.api.call(
        'POST',
        '/nbx/v2/emm/orders/place',
        body(o0, 0.4, { clientOrderId: 'a-rest' }),
      );
      assert.equal(viaRest.status, 201);
      const moved = await c.request('amend', { orderId: viaRest.body.id, price: 0.38, qty: 60 });
      assert.equal(moved.type, 'amend', JSON.stringify(moved));
      const repeat = await c.request('place', body(o0, 0.4, { clientOrderId: 'a-rest' }));
      assert.equal(repeat.type, 'place', JSON.stringify(repeat));
      assert.equal(repeat.replayed, true);
      assert.equal(repeat.result.id, viaRest.body.id);
      assert.equal(repeat.result.price, 0.38);
      const conflict = await c.request('place', body(o0, 0.38, { clientOrderId: 'a-rest', qty: 60 }));
      assert.equal(conflict.error.code, 'DUPLICATE_CLIENT_ORDER_ID');
      // Placed on the socket, amended and repeated over REST.
      const viaSocket = await c.request('place', body(o0, 0.41, { clientOrderId: 'a-ws' }));
      const cut = await t.api.call('PATCH', `/nbx/v2/emm/orders/${viaSocket.result.id}`, { qty: 30 });
      assert.equal(cut.status, 200, JSON.stringify(cut.body));
      const restRepeat = await t.api.call(
        'POST',
        '/nbx/v2/emm/orders/place',
        body(o0, 0.41, { clientOrderId: 'a-ws' }),
      );
      assert.equal(restRepeat.status, 201, JSON.stringify(restRepeat.body));
      assert.equal(restRepeat.headers['idempotent-replayed'], 'true');
      assert.equal(restRepeat.body.id, viaSocket.result.id);
      assert.equal(restRepeat.body.qty, 30);
      c.close();
    });

    test('pipelining: many requests in flight, answered in commit order; over the bound they wait, none refused', async () => {
      const t = await d.trader('pipeline');
      const c = await TradeClient.open(d.url, t.token);
      const o0 = d.markets[1]!.outcomeIds[1];
      const N = 600; // over twice the bound of 256 in flight
      const frames = Array.from({ length: N }, (_, i) =>
        JSON.stringify({ type: 'place', id: i, data: body(o0, 0.3, { qty: 1 + i }) }),
      );
      const answers = frames.map((_, i) => c.answer(i, 30_000));
      // Sent at once: the server reads up to its bound, then stops reading until answers free places.
      for (let i = 0; i < N; i++) c.ws.send(frames[i]!);
      const got = await Promise.all(answers);
      assert.deepEqual(
        got.filter((f) => f.type !== 'place'),
        [],
        'no request refused',
      );
      // Each placement is the one its frame asked for, placed in the order sent (seqs ascend by id).
      for (let i = 0; i < N; i++) assert.equal(got[i]!.result.originalQty, 1 + i);
      for (let i = 1; i < N; i++) assert.ok(got[i]!.seq > got[i - 1]!.seq, `seq of ${i}`);
      // Answers arrive in commit order: seqs ascend in arrival order.
      const arrival = c.frames.filter((f) => f.type === 'place' && typeof f.id === 'number');
      for (let i = 1; i < arrival.length; i++) assert.ok(arrival[i].seq > arrival[i - 1].seq);
      const after = await c.request('place', body(o0, 0.3));
      assert.equal(after.result.status, 'RESTING');
      c.close();
    });

    test('cancelOnDisconnect=true: closing the socket cancels the resting orders; false keeps them', async () => {
      const o0 = d.markets[0]!.outcomeIds[1];
      const statusOf = async (api: Api, id: string) =>
        (await api.call('GET', `/nbx/v2/emm/orders/${id}`)).body.status as string;
      const armed = await d.trader('cod-armed');
      const c = await TradeClient.open(`${d.url}?cancelOnDisconnect=true`, armed.token);
      const a = await c.request('place', body(o0, 0.2));
      const b = await c.request('place', body(o0, 0.21));
      assert.equal(a.result.status, 'RESTING');
      c.close();
      const deadline = Date.now() + 10_000;
      while ((await statusOf(armed.api, b.result.id)) !== 'CANCELED' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      assert.equal(await statusOf(armed.api, a.result.id), 'CANCELED');
      assert.equal(await statusOf(armed.api, b.result.id), 'CANCELED');

      const kept = await d.trader('cod-off');
      const k = await TradeClient.open(`${d.url}?cancelOnDisconnect=false`, kept.token);
      const stays = await k.request('place', body(o0, 0.22));
      k.close();
      // The armed case took one commit to cancel; wait as long and more before looking.
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await statusOf(kept.api, stays.result.id), 'RESTING');

      await assert.rejects(
        TradeClient.open(`${d.url}?cancelOnDisconnect=yes`, kept.token),
        (e: { status?: number; body?: string }) => {
          assert.equal(e.status, 400);
          assert.equal(JSON.parse(e.body ?? '{}').code, 'VALIDATION_FAILED');
          return true;
        },
      );
    });

    test('GET /trade without an upgrade answers 400; the AsyncAPI document names the channel', async () => {
      const r = await d.admin.call('GET', '/trade');
      assert.equal(r.status, 400);
      assert.equal(r.body.code, 'VALIDATION_FAILED');
      const doc = await d.admin.call('GET', '/asyncapi.json');
      assert.equal(doc.body.channels.trade.address, '/trade');
      assert.ok(doc.body.components.messages.trade_place);
    });
  });
}
