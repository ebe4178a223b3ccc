// clientOrderId idempotency of amended orders across restarts (docs/http.md "Trading semantics",
// docs/exchange.md "Placed terms"): the real server runs as a child process; keyed orders are
// placed, then amended (one also cancelled), and a post-only one repriced; the server is killed
// with SIGKILL (the state comes back from the journal) and later stopped and started again (from
// its final snapshot). Each time a retry of each original placement answers the original order as
// a replay, over REST and over the /trade socket, and a retry with other terms, the amended ones
// included, is 409 DUPLICATE_CLIENT_ORDER_ID.

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { bootChild, createGame, fetchToken, httpCall, type Json } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, serverPlace } from '../helpers/server.ts';
import { TradeClient } from '../helpers/trade-client.ts';

const child = fileURLToPath(new URL('./server-child.ts', import.meta.url));
const PLACE = '/nbx/v2/emm/orders/place';

test('a retry of an amended order’s placement replays after kill -9 and after a restart', async () => {
  const place = await serverPlace('pglite');
  let running: ChildProcess | undefined;
  after(async () => {
    running?.kill('SIGKILL');
    await place.destroy();
  });
  let { proc, url, exited } = await bootChild(child, place.env);
  running = proc;
  const admin = await fetchToken(url, ADMIN_ID, ADMIN_SECRET);
  const [outcomes] = await createGame(url, admin, [{ type: 'MONEY', description: 'NYK @ BOS Moneyline' }]);
  assert.ok(outcomes);
  const [home, away] = outcomes as [string, string];
  const clients: { clientId: string; clientSecret: string }[] = [];
  for (const name of ['keyed', 'other']) {
    const c = await httpCall(url, 'POST', '/admin/v1/clients', admin, { name });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const d = await httpCall(url, 'POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, admin, {
      currency: 'CASH',
      amount: 1000,
    });
    assert.ok(d.status < 300, JSON.stringify(d.body));
    clients.push(c.body);
  }
  const tokenOf = (i: number) => fetchToken(url, clients[i]!.clientId, clients[i]!.clientSecret);
  let me = await tokenOf(0);
  const call = (method: string, path: string, body?: unknown) => httpCall(url, method, path, me, body);
  const expect = (r: { status: number; body: Json }, status: number, label = 'setup') =>
    assert.equal(r.status, status, `${label}: ${JSON.stringify(r.body)}`);

  const bid = (clientOrderId: string, price: number, qty: number, extra: object = {}) => ({
    outcomeId: home,
    price,
    qty,
    currency: 'CASH',
    tif: 'GTC',
    clientOrderId,
    ...extra,
  });
  const amended = bid('k-amended', 0.4, 1000);
  const closed = bid('k-closed', 0.3, 500);
  const repriced = bid('k-repriced', 0.5, 200, { tif: 'PO', reprice: true });

  const a = await call('POST', PLACE, amended);
  expect(a, 201);
  expect(await call('PATCH', `/nbx/v2/emm/orders/${a.body.id}`, { price: 0.42, qty: 600 }), 200);
  const c = await call('POST', PLACE, closed);
  expect(c, 201);
  expect(await call('PATCH', `/nbx/v2/emm/orders/${c.body.id}`, { qty: 200 }), 200);
  expect(await call('DELETE', `/nbx/v2/emm/orders/${c.body.id}`), 200);
  // another account's bid at 0.55 on the other outcome: a post-only bid at 0.50 would take it
  expect(
    await httpCall(url, 'POST', PLACE, await tokenOf(1), { ...bid('x', 0.55, 100), outcomeId: away }),
    201,
  );
  const p = await call('POST', PLACE, repriced);
  expect(p, 201);
  assert.ok(p.body.price < 0.45, `repriced inside the other bid: ${p.body.price}`);

  const retries = async (label: string) => {
    me = await tokenOf(0);
    const expected: [object, string, Partial<Record<string, unknown>>][] = [
      [amended, a.body.id, { price: 0.42, qty: 600, originalQty: 600, status: 'RESTING' }],
      [closed, c.body.id, { price: 0.3, originalQty: 200, status: 'CANCELED' }],
      [repriced, p.body.id, { price: p.body.price, qty: 200, status: 'RESTING' }],
    ];
    for (const [request, id, now] of expected) {
      const res = await fetch(url + PLACE, {
        method: 'POST',
        headers: { authorization: `Bearer ${me}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      const r = { status: res.status, body: await res.json() };
      expect(r, 201, label);
      assert.equal(r.body.id, id, `${label}: the original order`);
      assert.equal(res.headers.get('idempotent-replayed'), 'true', `${label}: a replay`);
      for (const [k, v] of Object.entries(now)) assert.equal(r.body[k], v, `${label}: ${k} as it is now`);
    }
    // other terms than the placement's, the amended ones included
    for (const other of [
      { ...amended, price: 0.42, qty: 600 },
      { ...amended, qty: 999 },
      { ...closed, qty: 200 },
      { ...repriced, price: p.body.price, tif: 'PO' },
    ]) {
      const r = await call('POST', PLACE, other);
      expect(r, 409, label);
      assert.equal(r.body.code, 'DUPLICATE_CLIENT_ORDER_ID', label);
    }
    // the /trade socket answers the same through the same order entry
    const ws = await TradeClient.open(`${url.replace('http', 'ws')}/trade`, me);
    try {
      const f = await ws.request('place', amended);
      assert.equal(f.type, 'place', JSON.stringify(f));
      assert.equal(f.result.id, a.body.id);
      assert.equal(f.replayed, true);
      const conflict = await ws.request('place', { ...amended, price: 0.42, qty: 600 });
      assert.equal(conflict.type, 'error', JSON.stringify(conflict));
      assert.equal(conflict.error.code, 'DUPLICATE_CLIENT_ORDER_ID');
    } finally {
      ws.ws.close();
    }
  };

  await retries('before any restart');
  proc.kill('SIGKILL');
  await exited;
  ({ proc, url, exited } = await bootChild(child, place.env));
  running = proc;
  await retries('after kill -9');
  proc.kill('SIGTERM');
  await exited;
  ({ proc, url, exited } = await bootChild(child, place.env));
  running = proc;
  await retries('after a clean restart');
  proc.kill('SIGTERM');
  await exited;
  running = undefined;
});
