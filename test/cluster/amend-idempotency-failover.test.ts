// clientOrderId idempotency of amended orders across a failover (docs/cluster.md "Failover",
// docs/exchange.md "Placed terms"): a keyed order is placed and amended on the leader (another one
// also cancelled); the replica, which applied the same commands, reaches the same state hash; the
// leader is killed with SIGKILL, and on the replica that takes over a retry of each original
// placement answers the original order as a replay, while other terms, the amended ones included,
// are 409 DUPLICATE_CLIENT_ORDER_ID. Needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createGame, fetchToken } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace } from '../helpers/server.ts';
import { converged, type Proc, req, startProc, status, until } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';
const PLACE = '/nbx/v2/emm/orders/place';

let place: ServerPlace | undefined;
const procs: Proc[] = [];
after(async () => {
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await place?.destroy();
});

test('an amended order’s placement replays on the new leader after a failover', { skip }, async () => {
  place = await serverPlace('postgres');
  for (const n of ['n0', 'n1']) procs.push(await startProc(place, `${n}-${process.pid}`));
  const admin = await fetchToken(procs[0]!.url, ADMIN_ID, ADMIN_SECRET);
  const [outcomes] = await createGame(procs[0]!.url, admin, [
    { type: 'MONEY', description: 'NYK @ BOS Moneyline' },
  ]);
  const c = await req(procs[0]!.url, 'POST', '/admin/v1/clients', { token: admin, body: { name: 'keyed' } });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  await req(procs[0]!.url, 'POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
    token: admin,
    body: { currency: 'CASH', amount: 1000 },
  });
  const token = await fetchToken(procs[0]!.url, c.body.clientId, c.body.clientSecret);
  const leaderOf = async () => {
    for (const p of procs) {
      if (
        p.proc.exitCode === null &&
        p.proc.signalCode === null &&
        (await status(p.url, admin)).mode === 'leader'
      )
        return p;
    }
    return undefined;
  };
  const leader = await until(leaderOf, 10_000, 'a leader');
  const call = (url: string, method: string, path: string, body?: unknown) =>
    req(url, method, path, { token, ...(body !== undefined ? { body } : {}) });
  const bid = (clientOrderId: string, price: number, qty: number) => ({
    outcomeId: outcomes![0],
    price,
    qty,
    currency: 'CASH',
    tif: 'GTC',
    clientOrderId,
  });
  const amended = bid('k-amended', 0.4, 1000);
  const closed = bid('k-closed', 0.3, 500);
  const a = await call(leader.url, 'POST', PLACE, amended);
  assert.equal(a.status, 201, JSON.stringify(a.body));
  const am = await call(leader.url, 'PATCH', `/nbx/v2/emm/orders/${a.body.id}`, { price: 0.42, qty: 600 });
  assert.equal(am.status, 200, JSON.stringify(am.body));
  const k = await call(leader.url, 'POST', PLACE, closed);
  assert.equal(k.status, 201, JSON.stringify(k.body));
  assert.equal(
    (await call(leader.url, 'PATCH', `/nbx/v2/emm/orders/${k.body.id}`, { qty: 200 })).status,
    200,
  );
  assert.equal((await call(leader.url, 'DELETE', `/nbx/v2/emm/orders/${k.body.id}`)).status, 200);
  // the replica applied the same commands: the same state, placed terms included
  await converged(
    procs.map((p) => p.url),
    admin,
    20_000,
  );

  leader.proc.kill('SIGKILL');
  await leader.exited;
  const next = await until(leaderOf, 15_000, 'the replica to take over');
  assert.notEqual(next, leader);
  for (const [request, id, statusNow] of [
    [amended, a.body.id, 'RESTING'],
    [closed, k.body.id, 'CANCELED'],
  ] as const) {
    const r = await until(
      async () => {
        const x = await call(next.url, 'POST', PLACE, request);
        return x.status === 503 ? undefined : x;
      },
      10_000,
      'an answer from the new leader',
    );
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.headers.get('idempotent-replayed'), 'true');
    assert.equal(r.body.id, id);
    assert.equal(r.body.status, statusNow);
  }
  for (const other of [
    { ...amended, price: 0.42, qty: 600 },
    { ...amended, qty: 999 },
    { ...closed, qty: 200 },
  ]) {
    const r = await call(next.url, 'POST', PLACE, other);
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.equal(r.body.code, 'DUPLICATE_CLIENT_ORDER_ID');
  }
});
