// The amend request the trading panel sends (ui/src/amend.ts), against a mocked fetch: PATCH
// /nbx/v2/emm/orders/{id} with the trader's token and only the fields that changed; a server
// without the route (405, or a 404 that is not ORDER_NOT_FOUND) reads as "not available".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { amendOrder, amendRequest, amendUnavailable } from '../../ui/src/amend.ts';
import { ApiError, signIn, signOut } from '../../ui/src/api.ts';

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

const seen: Seen[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const realFetch = globalThis.fetch;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

before(async () => {
  globalThis.fetch = (async (url: string, init: RequestInit = {}) => {
    const s: Seen = {
      url,
      method: init.method ?? 'GET',
      headers: (init.headers ?? {}) as Record<string, string>,
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    };
    if (url === '/nbx/v1/auth/emm-token')
      return json(200, { access_token: 'tok-1', expires_in: 3600, token_type: 'Bearer', scope: '' });
    seen.push(s);
    return json(answer.status, answer.body);
  }) as typeof fetch;
  await signIn('client-1', 'secret-1');
});

after(() => {
  signOut();
  globalThis.fetch = realFetch;
});

const order = { id: 'ord-7', price: 0.52, qty: 300 };
const wire = (o: Partial<typeof order>) => ({
  ...order,
  ...o,
  outcomeId: 'out-1',
  marketId: 'm-1',
  originalQty: 500,
  currency: 'CASH',
  tif: 'GTC',
  status: 'RESTING',
  created_at: '2026-11-26T00:00:00.000Z',
});

describe('amend', () => {
  it('sends only what changed, qty as the new remaining quantity', async () => {
    answer = { status: 200, body: wire({ qty: 200 }) };
    const o = await amendOrder(order, { price: 0.52, qty: 200 });
    assert.equal(o?.qty, 200);
    const r = seen.at(-1)!;
    assert.equal(r.method, 'PATCH');
    assert.equal(r.url, '/nbx/v2/emm/orders/ord-7');
    assert.equal(r.headers.authorization, 'Bearer tok-1');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.deepEqual(r.body, { qty: 200 });

    answer = { status: 200, body: wire({ price: 0.55 }) };
    await amendOrder(order, { price: 0.55, qty: 300 });
    assert.deepEqual(seen.at(-1)!.body, { price: 0.55 });
    await amendOrder(order, { price: 0.5, qty: 100 });
    assert.deepEqual(seen.at(-1)!.body, { price: 0.5, qty: 100 });
  });

  it('sends nothing when nothing changed; escapes the id', async () => {
    const n = seen.length;
    assert.equal(await amendOrder(order, { price: 0.52, qty: 300 }), undefined);
    assert.equal(seen.length, n);
    assert.equal(
      amendRequest({ ...order, id: 'a/b' }, { price: 0.5, qty: 300 })?.path,
      '/nbx/v2/emm/orders/a%2Fb',
    );
  });

  it('tells a missing route from a rejected amend', async () => {
    const fail = async (status: number, code: string) => {
      answer = { status, body: { statusCode: status, error: 'x', message: code, code } };
      return amendOrder(order, { price: 0.6, qty: 300 }).then(
        () => assert.fail('should reject'),
        (e: unknown) => e,
      );
    };
    const e405 = await fail(405, 'METHOD_NOT_ALLOWED');
    assert.ok(e405 instanceof ApiError && amendUnavailable(e405));
    assert.ok(amendUnavailable(await fail(404, 'ROUTE_NOT_FOUND')));
    const gone = await fail(404, 'ORDER_NOT_FOUND');
    assert.ok(gone instanceof ApiError && !amendUnavailable(gone) && gone.code === 'ORDER_NOT_FOUND');
    assert.ok(!amendUnavailable(await fail(400, 'VALIDATION_FAILED')));
  });
});
