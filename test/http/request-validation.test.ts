// One validation path (docs/http.md "Validation and errors"): bodies are validated without type
// coercion (a value of the wrong JSON type is refused, never converted), querystrings and path
// parameters still coerce from text, and every validation failure — the schema's or a rule the
// route checks itself — carries `details` as an array of {path, message}.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ACCOUNT_A, outcomeId, seedAccounts, seedCatalog, seedLiquidity, teamId } from './fixture.ts';
import { ADMIN, assertError, type Harness, json, makeHarness, TAPE, trader } from './harness.ts';

let h: Harness;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
  seedLiquidity(h.port, 0);
});
after(() => h.close());

const A = trader(ACCOUNT_A);
const send = (method: 'POST' | 'DELETE', url: string, payload: unknown, headers: Record<string, string>) =>
  h.app.inject({
    method,
    url,
    headers: { ...headers, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
  });
const post = (url: string, payload: unknown) => send('POST', url, payload, ADMIN);

interface Envelope {
  code: string;
  message: string;
  details?: { path: string; message: string }[];
}

/** The envelope of a 400 with `code`, whose details name `path`; nothing was applied. */
async function refused(res: Promise<LightMyRequestResponse>, code: string, path: string): Promise<Envelope> {
  const applied = h.port.applied.length;
  const r = await res;
  assertError(r, 400, code);
  assert.equal(h.port.applied.length, applied, 'nothing applied');
  const body = json<Envelope>(r);
  assert.ok(Array.isArray(body.details) && body.details.length >= 1, `details is an array: ${r.body}`);
  assert.ok(
    body.details.some((d) => d.path === path && typeof d.message === 'string' && d.message !== ''),
    `a detail for ${path}: ${r.body}`,
  );
  return body;
}

const bid = (over: Record<string, unknown> = {}) => ({
  outcomeId: outcomeId(0, 'MONEY', 0),
  price: 0.4,
  qty: 1000,
  currency: 'CASH',
  tif: 'GTC',
  ...over,
});

describe('bodies are not coerced', () => {
  const place = (body: unknown) => send('POST', '/nbx/v2/emm/orders/place', body, A);

  test('a number sent as a string or a boolean is refused, with the field’s code', async () => {
    await refused(place(bid({ price: '0.4' })), 'INVALID_PRICE', 'body/price');
    await refused(place(bid({ qty: '1000' })), 'INVALID_QTY', 'body/qty');
    // Coerced, `true` would have been a quantity of 1 and `null` a price of 0.
    await refused(place(bid({ qty: true })), 'INVALID_QTY', 'body/qty');
    await refused(place(bid({ price: null })), 'INVALID_PRICE', 'body/price');
  });

  test('a string field sent as a number or null is refused', async () => {
    await refused(place(bid({ clientOrderId: 12345 })), 'VALIDATION_FAILED', 'body/clientOrderId');
    await refused(
      post('/admin/v1/teams', { league: 'NFL', name: 404, symbol: 'X' }),
      'VALIDATION_FAILED',
      'body/name',
    );
    await refused(
      post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'CASH', amount: '5' }),
      'INVALID_AMOUNT',
      'body/amount',
    );
  });

  test('a batch item gets the body’s rules: a string price is that item’s INVALID_PRICE', async () => {
    const applied = h.port.applied.length;
    const res = await send('POST', '/nbx/v2/emm/orders/batch', [bid({ price: '0.4' })], A);
    assert.equal(res.statusCode, 201, res.body);
    const [item] = json<{ error?: Envelope }[]>(res);
    assert.equal(item?.error?.code, 'INVALID_PRICE');
    assert.ok(Array.isArray(item?.error?.details));
    // The batch is one command even when every item fails; no order was placed.
    assert.ok(h.port.applied.length - applied <= 1);
    const orders = await h.app.inject({ method: 'GET', url: '/nbx/v2/emm/orders/all', headers: A });
    assert.deepEqual(json(orders), []);
  });

  test('a single id is not wrapped into the array the schema asks for', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    await refused(
      send('DELETE', '/nbx/v2/emm/orders/batch', { orderIds: id }, A),
      'VALIDATION_FAILED',
      'body',
    );
  });
});

describe('querystrings and path parameters still coerce from text', () => {
  test('integers and one-element arrays', async () => {
    const fills = await h.app.inject({
      method: 'GET',
      url: '/nbx/v2/emm/fills/all?limit=5&offset=0',
      headers: A,
    });
    assert.equal(fills.statusCode, 200, fills.body);
    const one = outcomeId(0, 'MONEY', 0);
    const pos = await h.app.inject({
      method: 'GET',
      url: `/nbx/v2/emm/positions/all?outcomeIds=${one}`,
      headers: A,
    });
    assert.equal(pos.statusCode, 200, pos.body);
    await refused(
      h.app.inject({ method: 'GET', url: '/nbx/v2/emm/fills/all?limit=many', headers: A }),
      'VALIDATION_FAILED',
      'querystring/limit',
    );
  });
});

describe('rules a route checks itself answer the same envelope', () => {
  const event = {
    type: 'Future',
    description: 'X',
    league: 'NFL',
    scheduledStart: '2026-12-01T00:00:00Z',
  };

  test('a game exactly for events of type Game (stated in the schema)', async () => {
    await refused(post('/admin/v1/events', { ...event, type: 'Game' }), 'VALIDATION_FAILED', 'body/game');
    const game = { homeTeamId: teamId('NFL', 0), awayTeamId: teamId('NFL', 1) };
    await refused(post('/admin/v1/events', { ...event, game }), 'VALIDATION_FAILED', 'body/game');
  });

  test('a leap second is a valid date-time but no time the exchange can hold', async () => {
    await refused(
      post('/admin/v1/events', { ...event, scheduledStart: '2026-12-31T23:59:60Z' }),
      'VALIDATION_FAILED',
      'body/scheduledStart',
    );
  });

  test('market types, any case, checked by the route', async () => {
    const market = {
      type: 'Cricket',
      description: 'x',
      outcomes: [{ description: 'a' }, { description: 'b' }],
    };
    await refused(
      post('/admin/v1/events', { ...event, markets: [market] }),
      'VALIDATION_FAILED',
      'body/markets/0/type',
    );
    await refused(
      h.app.inject({ method: 'GET', url: '/nbx/v2/emm/markets/open?marketType=Cricket', headers: TAPE }),
      'VALIDATION_FAILED',
      'querystring/marketType',
    );
  });

  test('an amount with more than 5 decimals', async () => {
    await refused(
      post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'CASH', amount: 0.000001 }),
      'INVALID_AMOUNT',
      'body/amount',
    );
  });

  test('a malformed id inside a comma-separated list', async () => {
    await refused(
      h.app.inject({ method: 'GET', url: '/nbx/v2/emm/positions/all?outcomeIds=a,b', headers: A }),
      'INVALID_ID',
      'querystring/outcomeIds',
    );
  });
});
