// One leader and two replicas on one PostgreSQL schema, each a separate process (docs/cluster.md):
// commands sent to any process are forwarded to the leader, every process ends at the same seq
// with the same state hash, x-tickbook-min-seq gives read-your-writes on replicas, a revocation
// made through one process is honoured by the others within a second. Needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGame, fetchToken } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace } from '../helpers/server.ts';
import { converged, type Proc, req, startProc, status, until } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';

let place: ServerPlace;
const procs: Proc[] = [];

before(async () => {
  if (skip) return;
  place = await serverPlace('postgres', { TICKBOOK_MIN_SEQ_WAIT_MS: '400' });
  // The first process takes the writer lock; the next two find it taken and follow.
  procs.push(await startProc(place, 'leader-a'));
  procs.push(await startProc(place, 'replica-b'));
  procs.push(await startProc(place, 'replica-c'));
});

after(async () => {
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await place?.destroy();
});

test('one leader, two replicas: forwarding, same hash at the same seq, min-seq', { skip }, async () => {
  const [a, b, c] = procs.map((p) => p.url) as [string, string, string];
  // Token issuance through a replica is forwarded to the leader.
  const admin = await fetchToken(b, ADMIN_ID, ADMIN_SECRET);
  const modes = await Promise.all([a, b, c].map(async (u) => (await status(u, admin)).mode));
  assert.deepEqual(modes, ['leader', 'replica', 'replica']);

  // Admin calls through replica c.
  const [outcomes] = await createGame(c, admin, [{ type: 'MONEY', description: 'NYK @ BOS Moneyline' }]);
  const traders: { clientId: string; clientSecret: string; accountId: string; token: string }[] = [];
  for (const [i, u] of [b, c].entries()) {
    const cl = await req(u, 'POST', '/admin/v1/clients', { token: admin, body: { name: `t${i}` } });
    assert.equal(cl.status, 201, JSON.stringify(cl.body));
    const dep = await req(u, 'POST', `/admin/v1/accounts/${cl.body.accountId}/deposits`, {
      token: admin,
      body: { currency: 'CASH', amount: 100000 },
    });
    assert.equal(dep.status, 201, JSON.stringify(dep.body));
    traders.push({ ...cl.body, token: await fetchToken(u, cl.body.clientId, cl.body.clientSecret) });
  }

  // Orders through each process; each ack carries a seq; reading it back on another process
  // with x-tickbook-min-seq finds it at once.
  const urls = [a, b, c];
  for (let i = 0; i < 12; i++) {
    const t = traders[i % 2]!;
    const via = urls[i % 3]!;
    const placed = await req(via, 'POST', '/nbx/v2/emm/orders/place', {
      token: t.token,
      body: { outcomeId: outcomes![i % 2], price: 0.5, qty: 100, currency: 'CASH', tif: 'GTC' },
    });
    assert.equal(placed.status, 201, JSON.stringify(placed.body));
    const seq = Number(placed.headers.get('x-tickbook-seq'));
    assert.ok(seq > 0, 'a write ack carries its seq');
    const other = urls[(i + 1) % 3]!;
    const got = await req(other, 'GET', `/nbx/v2/emm/orders/${placed.body.id}`, {
      token: t.token,
      headers: { 'x-tickbook-min-seq': String(seq) },
    });
    assert.equal(got.status, 200, `order ${placed.body.id} read on ${other} at min-seq ${seq}`);
    assert.ok(Number(got.headers.get('x-tickbook-seq')) >= seq);
  }

  const all = await converged(urls, admin);
  assert.equal(new Set(all.map((s) => s.hash)).size, 1);
  assert.ok(all[0]!.seq > 10);

  // A seq nobody has reached: bounded wait, then 503 with Retry-After.
  const far = await req(b, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', {
    token: traders[0]!.token,
    headers: { 'x-tickbook-min-seq': String(all[0]!.seq + 1000) },
  });
  assert.equal(far.status, 503);
  assert.equal(far.headers.get('retry-after'), '1');
  assert.equal(far.body.code, 'SERVICE_UNAVAILABLE');
  // A malformed min-seq is the client's error.
  for (const bad of ['-1', 'abc', '1e3', '99999999999999999999']) {
    const r = await req(c, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', {
      token: traders[0]!.token,
      headers: { 'x-tickbook-min-seq': bad },
    });
    assert.equal(r.status, 400, `min-seq ${bad}`);
    assert.equal(r.body.code, 'VALIDATION_FAILED');
  }
  // Every answer says its seq, errors included.
  const nf = await req(c, 'GET', '/no/such/route');
  assert.ok(nf.headers.get('x-tickbook-seq') !== null);

  // Metrics: role and lag.
  const m = await (await fetch(`${b}/metrics`)).text();
  assert.match(m, /tickbook_cluster_leader 0/);
  assert.match(m, /tickbook_replica_lag_seq \d+/);
  assert.match(m, /tickbook_replica_lag_ms \d+/);
  const ma = await (await fetch(`${a}/metrics`)).text();
  assert.match(ma, /tickbook_cluster_leader 1/);
  const ready = await req(c, 'GET', '/readyz');
  assert.equal(ready.status, 200);

  // Revocation through replica b: every process rejects the token within a second.
  const t0 = traders[0]!;
  const victim = await fetchToken(a, t0.clientId, t0.clientSecret);
  for (const u of urls) {
    const ok = await req(u, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', { token: victim });
    assert.equal(ok.status, 200);
  }
  const rv = await req(b, 'POST', '/oauth/revoke', {
    body: { token: victim, client_id: t0.clientId, client_secret: t0.clientSecret },
  });
  assert.equal(rv.status, 200, JSON.stringify(rv.body));
  const revokedAt = Date.now();
  for (const u of urls) {
    await until(
      async () =>
        (await req(u, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', { token: victim })).status === 401
          ? true
          : undefined,
      1000 - (Date.now() - revokedAt),
      `revocation honoured by ${u} within 1 s`,
    );
  }
  assert.ok(Date.now() - revokedAt <= 1000);
});
