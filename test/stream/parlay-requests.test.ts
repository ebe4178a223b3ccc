// The makers' `parlayRequests` channel and the parlay frames of the private channel against a real
// server (docs/stream.md "Channels", docs/parlays.md "Quotes"): a maker subscribed with make:parlay
// sees a request when it is made and when it ends; the taker sees the quotes arrive and both sides
// their fill; a token without make:parlay is refused; a maker's quote over `/trade` replaces its
// REST quote; every frame matches its published schema.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { serverMessages } from '../../src/stream/message-schemas.ts';
import { kcAtBuf } from '../helpers/parlay-desk.ts';
import { ADMIN_ID, ADMIN_SECRET, Api, type ServerPlace, serverPlace, start } from '../helpers/server.ts';
import { TradeClient } from '../helpers/trade-client.ts';
import { Client, type Frame, isEvent } from './helpers.ts';

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
function conforms(name: string, f: Frame): void {
  const v = ajv.compile(serverMessages[name]!.payload);
  assert.ok(v(f), `${name}: ${JSON.stringify(v.errors)} ${JSON.stringify(f)}`);
}

type Srv = Awaited<ReturnType<typeof start>>;

describe('parlay frames on /tape', () => {
  let place: ServerPlace;
  let srv: Srv;
  let admin: Api;
  let outcomes: string[];
  let tapeUrl: string;
  const mk = async (name: string, scopes?: string[]) => {
    const c = await admin.call('POST', '/admin/v1/clients', { name, ...(scopes ? { scopes } : {}) });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    await admin.call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
      currency: 'CASH',
      amount: 100_000,
    });
    const token = await admin.tokenFor(c.body.clientId, c.body.clientSecret);
    return { accountId: c.body.accountId as string, token, api: new Api(srv, token) };
  };

  before(async () => {
    place = await serverPlace('pglite', { TICKBOOK_DEMO: 'false' });
    srv = await start(place);
    admin = new Api(srv);
    admin.token = await admin.tokenFor(ADMIN_ID, ADMIN_SECRET);
    tapeUrl = `${srv.url.replace('http', 'ws')}/tape`;
    assert.equal((await admin.call('POST', '/admin/v1/leagues', { code: 'NFL', name: 'NFL' })).status, 201);
    const markets = await kcAtBuf(admin);
    const liquidity = await mk('liquidity');
    for (const m of markets)
      for (const o of m.outcomeIds)
        assert.equal(
          (
            await liquidity.api.call('POST', '/nbx/v2/emm/orders/place', {
              outcomeId: o,
              price: 0.45,
              qty: 1000,
              currency: 'CASH',
              tif: 'GTC',
            })
          ).status,
          201,
        );
    outcomes = [markets[0]!.outcomeIds[0], markets[1]!.outcomeIds[1]];
  });
  after(async () => {
    await srv.close();
    await place.destroy();
  });

  test('a maker sees the request and its end; the taker its quotes; both sides the fill', async () => {
    const taker = await mk('taker');
    const maker = await mk('maker', ['make:parlay', 'read:trader', 'execute:trader']);
    const m = await Client.open(tapeUrl, { token: maker.token });
    m.send({ event: 'subscribe', data: 'parlayRequests' });
    await m.next(isEvent('subscribed'));
    const t = await Client.open(tapeUrl, { token: taker.token });

    const req = await taker.api.call('POST', '/nbx/v1/parlay/request', {
      outcomes: outcomes.map((id) => ({ id })),
      stake: 25,
    });
    assert.equal(req.status, 201, JSON.stringify(req.body));
    const id: string = req.body[0].id;
    const made = await m.next(isEvent('parlayRequest', (d) => d.id === id));
    conforms('parlayRequest', made);
    assert.equal(made.data.status, 'Unfilled');
    assert.equal(made.data.stake, 25);
    assert.equal(made.data.currency, 'CASH');
    assert.equal(made.data.refPrice.toFixed(5), req.body[0].price);
    assert.deepEqual(
      made.data.legs.map((l: { outcomeId: string }) => l.outcomeId),
      outcomes,
    );
    assert.equal(made.data.expiresAt, req.body[0].expiresAt);

    const q = await maker.api.call('POST', '/nbx/v1/parlay/quotes', {
      requestId: id,
      price: 0.25,
      maxQty: 10_000,
      expiresInMs: 60_000,
    });
    assert.equal(q.status, 201, JSON.stringify(q.body));
    const seen = await t.next(isEvent('parlayQuote', (d) => d.id === q.body.id));
    conforms('parlayQuote', seen);
    assert.deepEqual(
      { requestId: seen.data.requestId, price: seen.data.price, maxQty: seen.data.maxQty },
      { requestId: id, price: 0.25, maxQty: 10_000 },
    );
    // Quotes are not published to the other makers.
    assert.equal(
      m.frames.some((f) => f.event === 'parlayQuote'),
      false,
    );

    const w = await taker.api.call('POST', `/nbx/v1/parlay/request/${id}/wager`, {
      stake: 25,
      maxPrice: 0.25,
      clientOrderId: 'w-1',
    });
    assert.equal(w.status, 201, JSON.stringify(w.body));
    const end = await m.next(isEvent('parlayRequest', (d) => d.id === id && d.status === 'Filled'));
    conforms('parlayRequest', end);
    const tf = await t.next(isEvent('parlayFill', (d) => d.requestId === id));
    conforms('parlayFill', tf);
    assert.equal(tf.data.role, 'TAKER');
    assert.equal(tf.data.id, w.body.id);
    const mp = await Client.open(tapeUrl, { token: maker.token });
    mp.send({ event: 'subscribe', data: 'private', fromSeq: 1 });
    const mf = await mp.next(isEvent('parlayFill', (d) => d.requestId === id));
    conforms('parlayFill', mf);
    assert.equal(mf.data.role, 'MAKER');

    // A cancelled request ends on the channel too.
    const r2 = await taker.api.call('POST', '/nbx/v1/parlay/request', {
      outcomes: outcomes.map((x) => ({ id: x })),
    });
    assert.equal(r2.status, 201);
    await m.next(isEvent('parlayRequest', (d) => d.id === r2.body[0].id && d.status === 'Unfilled'));
    assert.equal((await taker.api.call('DELETE', `/nbx/v1/parlay/request/${r2.body[0].id}`)).status, 200);
    const c2 = await m.next(
      isEvent('parlayRequest', (d) => d.id === r2.body[0].id && d.status === 'Cancelled'),
    );
    assert.equal(c2.data.stake, null);
    for (const c of [m, t, mp]) c.close();
  });

  test('the channel needs make:parlay', async () => {
    const trader = await mk('no-make', ['read:tape', 'read:trader', 'execute:trader']);
    const c = await Client.open(tapeUrl, { token: trader.token });
    c.send({ event: 'subscribe', data: 'parlayRequests' });
    const e = await c.next(isEvent('error'));
    assert.equal(e.data.code, 'INSUFFICIENT_SCOPE');
    c.close();
  });

  test('a quote over /trade replaces the maker’s REST quote; parlayQuote needs make:parlay', async () => {
    const taker = await mk('taker2');
    const maker = await mk('maker2', ['make:parlay', 'read:trader', 'execute:trader']);
    const req = await taker.api.call('POST', '/nbx/v1/parlay/request', {
      outcomes: outcomes.map((id) => ({ id })),
    });
    assert.equal(req.status, 201);
    const id: string = req.body[0].id;
    const rest = await maker.api.call('POST', '/nbx/v1/parlay/quotes', {
      requestId: id,
      price: 0.3,
      maxQty: 1000,
      expiresInMs: 60_000,
    });
    assert.equal(rest.status, 201);
    const sock = await TradeClient.open(`${srv.url.replace('http', 'ws')}/trade`, maker.token);
    const a = await sock.request('parlayQuote', {
      requestId: id,
      price: 0.28,
      maxQty: 2000,
      expiresInMs: 60_000,
    });
    assert.equal(a.type, 'parlayQuote', JSON.stringify(a));
    assert.ok(Number.isSafeInteger(a.seq) && a.seq > 0);
    assert.equal(a.result.price, 0.28);
    assert.equal(a.result.maxQty, 2000);
    assert.equal(a.result.mine, true);
    const seen = await taker.api.call('GET', `/nbx/v1/parlay/request/${id}`);
    const live = (seen.body.quotes as { id: string; price: number }[]).map((x) => x.id);
    assert.deepEqual(live, [a.result.id], 'the socket quote replaced the REST one');
    // Same validation as REST: a price with too many decimals, an unknown request.
    const bad = await sock.request('parlayQuote', {
      requestId: id,
      price: 1.5,
      maxQty: 10,
      expiresInMs: 1000,
    });
    assert.equal(bad.type, 'error');
    assert.equal(bad.error.code, 'INVALID_PRICE');
    sock.close();
    // A trader without make:parlay is refused on the socket.
    const plain = await TradeClient.open(`${srv.url.replace('http', 'ws')}/trade`, taker.token);
    const refused = await plain.request('parlayQuote', {
      requestId: id,
      price: 0.2,
      maxQty: 10,
      expiresInMs: 1000,
    });
    assert.equal(refused.error.code, 'INSUFFICIENT_SCOPE');
    plain.close();
  });
});
