// /tape with real `ws` clients against a listening server: authentication, every channel and
// message type, unsubscribe, resume, heartbeats, the protocol ping timeout, bad input, and the
// dead-man switch (REST countdown and cancel-on-disconnect).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, isEvent, isTick, type Trader, type World, world } from './helpers.ts';

describe('/tape', () => {
  let w: World;
  let alice: Trader;
  let bob: Trader;
  let reader: Trader;
  before(async () => {
    w = await world({ STREAM_HEARTBEAT_MS: '200', STREAM_PING_MS: '300' });
    alice = await w.trader('alice');
    bob = await w.trader('bob');
    reader = await w.trader('reader', ['read:tape']);
  });
  after(async () => {
    await w.close();
  });

  const place = (t: Trader, outcomeId: string, price: number, qty: number, tif = 'GTC') =>
    t.api.call('POST', '/nbx/v2/emm/orders/place', { outcomeId, price, qty, currency: 'CASH', tif });

  test('refuses an upgrade without a valid token, or without a stream scope, before upgrading', async () => {
    const none = await Client.open(w.wsUrl).catch((e) => e);
    assert.equal(none.status, 401);
    const body = JSON.parse(none.body);
    assert.equal(body.code, 'UNAUTHORIZED');
    assert.equal(body.statusCode, 401);
    assert.match(none.headers['www-authenticate'], /^Bearer/);
    const bad = await Client.open(w.wsUrl, { token: 'not-a-token' }).catch((e) => e);
    assert.equal(bad.status, 401);
    assert.equal(JSON.parse(bad.body).code, 'INVALID_TOKEN');
    const execOnly = await w.trader('exec-only', ['execute:trader']);
    const adminOnly = await Client.open(w.wsUrl, { token: execOnly.token }).catch((e) => e);
    assert.equal(adminOnly.status, 403);
    assert.equal(JSON.parse(adminOnly.body).code, 'INSUFFICIENT_SCOPE');
    const wrongPath = await Client.open(w.wsUrl.replace('/tape', '/tapes'), { token: reader.token }).catch(
      (e) => e,
    );
    assert.equal(wrongPath.status, 404);
    // A plain GET explains itself.
    const plain = await reader.api.call('GET', '/tape');
    assert.equal(plain.status, 400);
    assert.equal(plain.body.code, 'VALIDATION_FAILED');
  });

  // The upgrade reads the channel table: a scope only some channel accepts (make:parlay, the
  // makers' parlayRequests) opens the stream, and every other channel is refused at subscribe.
  test('a token with only a channel scope of the table connects to that channel alone', async () => {
    const maker = await w.trader('maker-only', ['make:parlay']);
    const c = await Client.open(w.wsUrl, { token: maker.token });
    c.send({ event: 'subscribe', data: 'parlayRequests' });
    await c.next(isEvent('subscribed', (d) => d.channel === 'parlayRequests'));
    for (const channel of ['tape', 'lifecycle', 'private', w.markets[0]!.id]) {
      const from = c.frames.length;
      c.send({ event: 'subscribe', data: channel });
      const e = await c.next(isEvent('error'), 5000, from);
      assert.equal(e.data.code, 'INSUFFICIENT_SCOPE', channel);
    }
    assert.equal(c.frames.filter((f) => f.event === 'subscribed').length, 1);
    c.close();
    // Refused before the upgrade, the scopes that would open it are named from the table.
    const execOnly = await w.trader('exec-only-2', ['execute:trader']);
    const refused = await Client.open(w.wsUrl, { token: execOnly.token }).catch((e) => e);
    assert.equal(refused.status, 403);
    const body = JSON.parse(refused.body);
    assert.equal(body.code, 'INSUFFICIENT_SCOPE');
    assert.deepEqual(body.details.acceptedScopes, ['read:tape', 'read:trader', 'make:parlay']);
  });

  test('accepts the token as access_token or as a bearer.<token> subprotocol', async () => {
    const q = await Client.open(`${w.wsUrl}?access_token=${encodeURIComponent(reader.token)}`);
    q.send({ event: 'subscribe', data: 'tape' });
    await q.next(isEvent('subscribed', (d) => d.channel === 'tape'));
    q.close();
    const p = await Client.open(w.wsUrl, { protocols: ['tickbook', `bearer.${reader.token}`] });
    assert.equal(p.ws.protocol, 'tickbook');
    p.send({ event: 'subscribe', data: 'lifecycle' });
    await p.next(isEvent('subscribed', (d) => d.channel === 'lifecycle'));
    p.close();
  });

  test('market channel: snapshot with the REST seq, then PLACE and CANCEL ticks with fills', async () => {
    const m = w.markets[0]!;
    const c = await Client.open(w.wsUrl, { token: reader.token });
    c.send({ event: 'subscribe', data: m.id });
    await c.next(isEvent('subscribed', (d) => d.channel === m.id && d.currency === 'CASH'));
    const snap = await c.next(isEvent('book'));
    const rest = await reader.api.call('GET', `/nbx/v2/emm/book/${m.id}?currency=CASH`);
    assert.equal(snap.data.seq, rest.body.seq);
    assert.equal(snap.data.reset, false);
    assert.deepEqual(snap.data.outcomeLadders, rest.body.outcomeLadders);

    const a = await place(alice, m.outcomeIds[0], 0.6, 1000);
    assert.equal(a.status, 201);
    const t1 = await c.next(isTick('PLACE', (f) => f.order.id === a.body.id));
    assert.equal(t1.seq, snap.data.seq + 1);
    assert.equal(t1.part, 1);
    assert.equal(t1.parts, 1);
    assert.ok(Number.isInteger(t1.journalSeq) && t1.journalSeq > 0);
    assert.deepEqual(Object.keys(t1.order), [
      'id',
      'price',
      'qty',
      'originalQty',
      'currency',
      'marketId',
      'outcomeId',
      'status',
      'created_at',
    ]);
    assert.equal(t1.order.status, 'RESTING');
    assert.deepEqual(t1.fills, []);
    assert.equal(t1.market.id, m.id);
    assert.equal(t1.market.type, 'TOTAL');
    assert.equal(t1.market.strike, 40.5);
    assert.equal(t1.market.volume, 0);
    // The REST book at this point carries the same seq.
    assert.equal((await reader.api.call('GET', `/nbx/v2/emm/book/${m.id}?currency=CASH`)).body.seq, t1.seq);

    const b = await place(bob, m.outcomeIds[1], 0.45, 400, 'IOC');
    assert.equal(b.body.status, 'FILLED');
    const t2 = await c.next(isTick('PLACE', (f) => f.order.id === b.body.id));
    assert.equal(t2.seq, t1.seq + 1);
    assert.equal(t2.order.status, 'FILLED');
    assert.equal(t2.fills.length, 2);
    const maker = t2.fills.find((f: { isTaker: boolean }) => !f.isTaker);
    assert.equal(maker.orderId, a.body.id);
    assert.equal(maker.qty, 400);
    assert.equal(maker.price, 0.6);
    assert.equal(t2.market.volume, 400);

    const del = await alice.api.call('DELETE', `/nbx/v2/emm/orders/${a.body.id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    const t3 = await c.next(isTick('CANCEL', (f) => f.order.id === a.body.id));
    assert.equal(t3.seq, t2.seq + 1);
    assert.equal(t3.order.status, 'CANCELED');
    assert.equal(t3.order.qty, 600);

    // Unsubscribe: acknowledged, and no more ticks for that book.
    c.send({ event: 'unsubscribe', data: m.id });
    await c.next(isEvent('unsubscribed', (d) => d.channel === m.id));
    const n = c.frames.length;
    const a2 = await place(alice, m.outcomeIds[0], 0.3, 10);
    const other = await Client.open(w.wsUrl, { token: reader.token });
    other.send({ event: 'subscribe', data: m.id });
    await other.next(isEvent('book', (d) => d.seq >= t3.seq + 1));
    assert.equal(c.frames.slice(n).filter((f) => f.type !== undefined).length, 0);
    await alice.api.call('DELETE', `/nbx/v2/emm/orders/${a2.body.id}`);
    c.close();
    other.close();
  });

  test('resume with fromSeq replays exactly the missed ticks; an unknown window answers a reset snapshot', async () => {
    const m = w.markets[1]!;
    const c = await Client.open(w.wsUrl, { token: reader.token });
    c.send({ event: 'subscribe', data: m.id });
    const snap = await c.next(isEvent('book'));
    c.close();
    const ids: string[] = [];
    for (const price of [0.2, 0.25, 0.3, 0.35, 0.4])
      ids.push((await place(alice, m.outcomeIds[0], price, 10)).body.id);
    const r = await Client.open(w.wsUrl, { token: reader.token });
    r.send({ event: 'subscribe', data: m.id, fromSeq: snap.data.seq });
    const ack = await r.next(isEvent('subscribed'));
    assert.equal(ack.data.replayed, 5);
    await r.next(isTick('PLACE', (f) => f.order.id === ids[4]));
    const ticks = r.frames.filter((f) => f.type === 'PLACE');
    assert.deepEqual(
      ticks.map((t) => t.seq),
      [1, 2, 3, 4, 5].map((k) => snap.data.seq + k),
    );
    assert.equal(r.frames.filter((f) => f.event === 'book').length, 0);
    // A seq in the future (or evicted) cannot be replayed: a fresh snapshot marked reset.
    r.send({ event: 'subscribe', data: m.id, fromSeq: snap.data.seq + 1000 });
    const reset = await r.next(isEvent('book', (d) => d.reset === true));
    assert.equal(reset.data.seq, snap.data.seq + 5);
    r.close();
    for (const id of ids) await alice.api.call('DELETE', `/nbx/v2/emm/orders/${id}`);
  });

  test('private channel: place, fill and cancel of the own account only, resumable', async () => {
    const m = w.markets[0]!;
    const a = await Client.open(w.wsUrl, { token: alice.token });
    const b = await Client.open(w.wsUrl, { token: bob.token });
    const o = await place(alice, m.outcomeIds[0], 0.55, 100);
    const p = await a.next(isEvent('place', (d) => d.id === o.body.id));
    assert.ok(p.journalSeq > 0);
    await place(bob, m.outcomeIds[1], 0.45, 30, 'IOC');
    const fill = await a.next(isEvent('fill', (d) => d.orderId === o.body.id));
    assert.deepEqual(Object.keys(fill.data), [
      'id',
      'orderId',
      'price',
      'qty',
      'createdAt',
      'isWash',
      'isTaker',
      'marketId',
      'outcomeId',
      'currency',
    ]);
    assert.equal(fill.data.currency, 'CASH');
    assert.equal(fill.data.qty, 30);
    assert.equal(fill.data.isTaker, false);
    await b.next(isEvent('fill', (d) => d.isTaker === true));
    await alice.api.call('DELETE', `/nbx/v2/emm/orders/${o.body.id}`);
    const cancel = await a.next(isEvent('cancel', (d) => d.id === o.body.id));
    assert.equal(cancel.data.status, 'CANCELLED');
    assert.equal(cancel.data.qty, 70);
    assert.equal(cancel.data.originalQty, 100);
    // Bob never sees Alice's private events.
    assert.equal(b.frames.filter((f) => f.event === 'place' && f.data.id === o.body.id).length, 0);
    // Resume from before the place: the three missed events replay in order.
    const r = await Client.open(w.wsUrl, { token: alice.token });
    r.send({ event: 'subscribe', data: 'private', fromSeq: p.journalSeq - 1 });
    await r.next(isEvent('cancel', (d) => d.id === o.body.id));
    const kinds = r.frames.filter((f) => ['place', 'fill', 'cancel'].includes(f.event)).map((f) => f.event);
    assert.deepEqual(kinds, ['place', 'fill', 'cancel']);
    // A read:tape-only token has no private channel.
    const t = await Client.open(w.wsUrl, { token: reader.token });
    t.send({ event: 'subscribe', data: 'private' });
    const e = await t.next(isEvent('error'));
    assert.equal(e.data.code, 'INSUFFICIENT_SCOPE');
    for (const c of [a, b, r, t]) c.close();
  });

  test('tape and lifecycle: EVENT_GOLIVE ticks come before the drain CANCEL ticks', async () => {
    const c = await Client.open(w.wsUrl, { token: reader.token });
    c.send({ event: 'subscribe', data: 'tape' });
    c.send({ event: 'subscribe', data: 'lifecycle' });
    await c.next(isEvent('subscribed', (d) => d.channel === 'lifecycle'));
    const o = await place(alice, w.markets[1]!.outcomeIds[0], 0.4, 50);
    await c.next(isTick('PLACE', (f) => f.order.id === o.body.id));
    const r = await w.admin.call('POST', `/admin/v1/events/${w.eventId}/status`, { status: 'OPEN_INGAME' });
    assert.ok(r.status === 200, JSON.stringify(r.body));
    const cancel = await c.next(isTick('CANCEL', (f) => f.order.id === o.body.id));
    const golive = c.frames.filter((f) => f.type === 'EVENT_GOLIVE');
    assert.equal(golive.length, 2);
    assert.ok(c.frames.indexOf(golive[0]) < c.frames.indexOf(cancel));
    assert.equal(golive[0].eventId, w.eventId);
    assert.equal(golive[0].journalSeq, cancel.journalSeq);
    c.close();
  });

  test('application heartbeats per channel carry the latest seq', async () => {
    const m = w.markets[0]!;
    const c = await Client.open(w.wsUrl, { token: alice.token });
    c.send({ event: 'subscribe', data: m.id });
    const snap = await c.next(isEvent('book'));
    const hb = await c.next(
      isEvent('heartbeat', (d) => d.channel === m.id),
      2000,
    );
    assert.equal(hb.data.seq, snap.data.seq);
    assert.equal(hb.data.currency, 'CASH');
    const hp = await c.next(
      isEvent('heartbeat', (d) => d.channel === 'private'),
      2000,
    );
    assert.equal(hp.data.journalSeq, w.srv.runtime.sequencer.committedSeq);
    c.close();
  });

  test('a client that does not answer protocol pings is closed', async () => {
    const c = await Client.open(w.wsUrl, { token: reader.token, autoPong: false });
    const closed = await c.waitClose(3000);
    assert.equal(closed.code, 1006);
    const ok = await Client.open(w.wsUrl, { token: reader.token });
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(ok.closed, undefined);
    ok.close();
  });

  test('bad input answers error frames or a documented close, never a crash', async () => {
    const c = await Client.open(w.wsUrl, { token: reader.token });
    const expectError = async (msg: unknown, code: string) => {
      const from = c.frames.length;
      c.send(msg);
      const e = await c.next(isEvent('error'), 2000, from);
      assert.equal(e.data.code, code, JSON.stringify(msg));
    };
    await expectError('not json', 'BAD_JSON');
    await expectError('[1,2]', 'BAD_MESSAGE');
    await expectError({ event: 'dance', data: 'tape' }, 'UNKNOWN_EVENT');
    await expectError({ event: 'subscribe', data: 'nowhere' }, 'UNKNOWN_CHANNEL');
    await expectError(
      { event: 'subscribe', data: '00000000-0000-4000-8000-000000000000' },
      'UNKNOWN_CHANNEL',
    );
    await expectError({ event: 'subscribe', data: 42 }, 'BAD_MESSAGE');
    await expectError({ event: 'subscribe', data: w.markets[0]!.id, currency: 'EUR' }, 'BAD_MESSAGE');
    await expectError({ event: 'subscribe', data: w.markets[0]!.id, fromSeq: -1 }, 'BAD_MESSAGE');
    await expectError({ event: 'unsubscribe', data: 'tape' }, 'NOT_SUBSCRIBED');
    await expectError({ event: 'cancel_on_disconnect', data: true }, 'INSUFFICIENT_SCOPE');
    const from = c.frames.length;
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    assert.equal((await c.next(isEvent('error'), 2000, from)).data.code, 'BAD_MESSAGE');
    // A frame over the 4 KiB limit: close 1009.
    c.send({ event: 'subscribe', data: 'x'.repeat(10_000) });
    assert.equal((await c.waitClose()).code, 1009);
    // A subscribe flood: more than 100 messages in a second closes with 4029.
    const f = await Client.open(w.wsUrl, { token: reader.token });
    for (let i = 0; i < 150; i++) f.send({ event: 'subscribe', data: w.markets[i % 2]!.id });
    assert.equal((await f.waitClose()).code, 4029);
    // The server is still fine.
    const g = await Client.open(w.wsUrl, { token: reader.token });
    g.send({ event: 'subscribe', data: 'tape' });
    await g.next(isEvent('subscribed'));
    g.close();
  });

  test('dead-man switch: the REST countdown cancels every resting order once, within timeout + 250 ms', async () => {
    const carol = await w.trader('carol');
    const bad = [
      {},
      { timeoutMs: 999 },
      { timeoutMs: 300_001 },
      { timeoutMs: 'x' },
      { timeoutMs: 1000, x: 1 },
    ];
    for (const body of bad) {
      const r = await carol.api.call('POST', '/nbx/v2/emm/heartbeat', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.statusCode, 400);
    }
    assert.equal((await reader.api.call('POST', '/nbx/v2/emm/heartbeat', { timeoutMs: 1000 })).status, 403);
    // Arm and disarm.
    const armed = await carol.api.call('POST', '/nbx/v2/emm/heartbeat', { timeoutMs: 1000 });
    assert.equal(armed.status, 200);
    assert.equal(armed.body.armed, true);
    const dis = await carol.api.call('POST', '/nbx/v2/emm/heartbeat', { timeoutMs: 0 });
    assert.deepEqual(dis.body, { armed: false, timeoutMs: 0, deadline: null, fired: null });

    const priv = await Client.open(w.wsUrl, { token: carol.token });
    // The event is live now; markets stay open.
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await place(carol, w.markets[0]!.outcomeIds[1], 0.1, 10)).body.id);
    const t0 = Date.now();
    await carol.api.call('POST', '/nbx/v2/emm/heartbeat', { timeoutMs: 1000 });
    const report = await priv.next(isEvent('deadman'), 3000);
    const elapsed = Date.now() - t0;
    assert.ok(elapsed < 1250, `fired after ${elapsed} ms`);
    assert.equal(report.data.reason, 'timeout');
    assert.equal(report.data.canceled, 3);
    assert.ok(report.data.journalSeq > 0);
    assert.equal(w.srv.runtime.reader().openOrders(carol.accountId).length, 0);
    const next = await carol.api.call('POST', '/nbx/v2/emm/heartbeat', { timeoutMs: 0 });
    assert.deepEqual(next.body.fired, report.data);
    const again = await carol.api.call('POST', '/nbx/v2/emm/heartbeat', { timeoutMs: 0 });
    assert.equal(again.body.fired, null);
    priv.close();
  });

  test('dead-man switch: cancel-on-disconnect cancels the account resting orders when the socket goes', async () => {
    const dave = await w.trader('dave');
    const c = await Client.open(w.wsUrl, { token: dave.token });
    c.send({ event: 'cancel_on_disconnect', data: true });
    await c.next(isEvent('cancel_on_disconnect', (d) => d.armed === true));
    for (let i = 0; i < 2; i++) await place(dave, w.markets[1]!.outcomeIds[1], 0.1, 10);
    assert.equal(w.srv.runtime.reader().openOrders(dave.accountId).length, 2);
    const watcher = await Client.open(w.wsUrl, { token: dave.token });
    c.ws.terminate();
    const report = await watcher.next(isEvent('deadman'), 3000);
    assert.equal(report.data.reason, 'disconnect');
    assert.equal(report.data.canceled, 2);
    assert.equal(w.srv.runtime.reader().openOrders(dave.accountId).length, 0);
    watcher.close();
  });

  test('/asyncapi.json is served and /metrics counts the stream', async () => {
    const doc = await reader.api.call('GET', '/asyncapi.json');
    assert.equal(doc.status, 200);
    assert.equal(doc.body.asyncapi, '3.0.0');
    const metrics = await reader.api.call('GET', '/metrics');
    assert.match(String(metrics.body), /tickbook_stream_connections/);
    assert.match(String(metrics.body), /tickbook_stream_frames_sent_total/);
  });
});
