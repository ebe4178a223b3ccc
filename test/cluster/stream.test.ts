// /tape on every process of a PostgreSQL deployment (docs/cluster.md "Streams"): a client on a
// replica receives the frames of orders placed through the leader, byte for byte the leader's, with
// contiguous seqs, its private channel included; after kill -9 of the leader, the client on the
// promoted replica keeps its connection and its seqs go on without a gap or a duplicate, and a
// client of the dead leader resumes on a replica by seq without loss. A dead-man countdown armed
// on the dead leader fires on the new one; a cancel-on-disconnect on a replica is fired by the
// leader. The UI's viewer credentials work on a replica, and a replica's legacy token listener
// forwards to the leader. Needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createGame, fetchToken } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace } from '../helpers/server.ts';
import { Client, type Frame } from '../stream/helpers.ts';
import { converged, type Proc, req, startProc, status, until } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';
/** The legacy token listeners (LEGACY_AUTH_PORT) of the three processes: base, base+1, base+2. */
const legacyBase = 20_000 + (process.pid % 20_000);

let place: ServerPlace;
const procs: Proc[] = [];
const clients: Client[] = [];

before(async () => {
  if (skip) return;
  place = await serverPlace('postgres');
  for (const [i, n] of ['sa', 'sb', 'sc'].entries()) {
    procs.push(await startProc(place, `${n}-${process.pid}`, { LEGACY_AUTH_PORT: String(legacyBase + i) }));
  }
});

after(async () => {
  for (const c of clients) c.ws.terminate();
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await place?.destroy();
});

const wsUrl = (u: string) => `${u.replace(/^http/, 'ws')}/tape`;

async function open(url: string, token: string): Promise<Client> {
  const c = await Client.open(wsUrl(url), { token });
  clients.push(c);
  return c;
}

/** Book ticks (raw JSON text as sent) of a client, in arrival order. */
const ticks = (c: Client): Frame[] => c.frames.filter((f) => f.type === 'PLACE' || f.type === 'CANCEL');

/** Per book: seqs go up by one per command, parts 1..parts within one seq; no gap, no repeat. */
function assertContiguous(frames: Frame[], from = new Map<string, number>()): Map<string, number> {
  const last = new Map(from);
  const part = new Map<string, number>();
  for (const f of frames) {
    const key = `${f.market.id}:${f.order.currency}`;
    const prev = last.get(key);
    if (f.part === 1) {
      if (prev !== undefined) assert.equal(f.seq, prev + 1, `book ${key}: seq ${f.seq} after ${prev}`);
      last.set(key, f.seq);
    } else {
      assert.equal(f.seq, prev, `book ${key}: part ${f.part} of seq ${f.seq}`);
      assert.equal(f.part, (part.get(key) ?? 0) + 1);
    }
    part.set(key, f.part);
  }
  return last;
}

const order = (outcomeId: string, price: number, qty = 10) => ({
  outcomeId,
  price: Math.round(price * 100) / 100, // on the tick table
  qty,
  currency: 'CASH',
  tif: 'GTC',
});

test('a replica streams the leader’s frames; the stream survives kill -9 of the leader', {
  skip,
}, async () => {
  const [a, b, c] = procs.map((p) => p.url) as [string, string, string];
  const admin = await fetchToken(a, ADMIN_ID, ADMIN_SECRET);
  assert.deepEqual(await Promise.all([a, b, c].map(async (u) => (await status(u, admin)).mode)), [
    'leader',
    'replica',
    'replica',
  ]);
  const [outcomes] = await createGame(a, admin, [{ type: 'MONEY', description: 'NYK @ BOS Moneyline' }]);
  const traders: { clientId: string; clientSecret: string; accountId: string; token: string }[] = [];
  for (const name of ['maker', 'taker']) {
    const cl = await req(a, 'POST', '/admin/v1/clients', { token: admin, body: { name } });
    await req(a, 'POST', `/admin/v1/accounts/${cl.body.accountId}/deposits`, {
      token: admin,
      body: { currency: 'CASH', amount: 1_000_000 },
    });
    traders.push({ ...cl.body, token: await fetchToken(b, cl.body.clientId, cl.body.clientSecret) });
  }
  const [maker, taker] = traders as [(typeof traders)[0], (typeof traders)[0]];
  await converged([a, b, c], admin);

  // The same subscription on the leader and on both replicas; the maker's private channel on b.
  const onA = await open(a, admin);
  const onB = await open(b, maker.token);
  const onC = await open(c, taker.token);
  const adminB = await open(b, admin);
  for (const cl of [onA, onB, onC, adminB]) cl.send({ event: 'subscribe', data: 'tape' });
  for (const cl of [onA, onB, onC, adminB]) await cl.next((f) => f.event === 'subscribed');

  const placed: string[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await req(a, 'POST', '/nbx/v2/emm/orders/place', {
      token: maker.token,
      body: order(outcomes![0]!, 0.4 + i * 0.01),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    placed.push(r.body.id);
  }
  // A taker crossing several resting orders: one command, fills on both sides.
  const cross = await req(a, 'POST', '/nbx/v2/emm/orders/place', {
    token: taker.token,
    body: { ...order(outcomes![1]!, 0.6, 30), tif: 'IOC' },
  });
  assert.equal(cross.status, 201, JSON.stringify(cross.body));

  await until(async () => (ticks(onB).length >= 11 ? true : undefined), 10_000, 'ticks on replica b');
  await until(async () => (ticks(onA).length === ticks(onB).length ? true : undefined), 5000, 'ticks on a');
  await until(async () => (ticks(onC).length === ticks(onB).length ? true : undefined), 5000, 'ticks on c');
  // Byte for byte the leader's frames (the frames are a function of the journal).
  assert.deepEqual(ticks(onB), ticks(onA));
  assert.deepEqual(ticks(onC), ticks(onA));
  assertContiguous(ticks(onB));

  // The maker's private channel on the replica: a place per order and its fills.
  await until(
    async () => (onB.frames.filter((f) => f.event === 'place').length >= 10 ? true : undefined),
    5000,
    'private place events on b',
  );
  await onB.next((f) => f.event === 'fill');
  assert.ok(onB.frames.filter((f) => f.event === 'place').every((f) => placed.includes(f.data.id)));

  // The UI's viewer credentials on a replica work (its token is issued through the leader).
  const cfg = await req(b, 'GET', '/ui/config.json');
  assert.equal(cfg.status, 200);
  assert.ok(cfg.body.viewer !== null, 'a replica publishes the viewer client');
  const viewerToken = await fetchToken(c, cfg.body.viewer.clientId, cfg.body.viewer.clientSecret);
  const viewer = await open(c, viewerToken);
  viewer.send({ event: 'subscribe', data: 'tape' });
  await viewer.next((f) => f.event === 'subscribed');

  // A dead-man countdown armed (through a replica) on the leader about to die: the next leader
  // restores it from the store and fires it.
  const doomed = await req(a, 'POST', '/nbx/v2/emm/orders/place', {
    token: taker.token,
    body: order(outcomes![1]!, 0.1),
  });
  assert.equal(doomed.status, 201, JSON.stringify(doomed.body));
  const armed = await req(c, 'POST', '/nbx/v2/emm/heartbeat', {
    token: taker.token,
    body: { timeoutMs: 3000 },
  });
  assert.equal(armed.status, 200, JSON.stringify(armed.body));

  const isDoomed = (type: string) => (f: Frame) => f.type === type && f.order.id === doomed.body.id;
  await onB.next(isDoomed('PLACE'));

  // kill -9 of the leader. One replica takes over; the other follows it.
  procs[0]!.proc.kill('SIGKILL');
  await procs[0]!.exited;
  const newLeader = await until(
    async () => {
      for (const u of [b, c]) if ((await status(u, admin)).mode === 'leader') return u;
      return undefined;
    },
    15_000,
    'a replica promoted',
  );
  const via = newLeader === b ? c : b;
  // The countdown armed before the failover fires on the new leader: its CANCEL tick reaches the
  // clients of both processes, in seq after everything before the failover.
  await onB.next(isDoomed('CANCEL'), 10_000);
  await onC.next(isDoomed('CANCEL'), 5000);
  await viewer.next(isDoomed('CANCEL'), 5000);
  const gone = await req(via, 'GET', `/nbx/v2/emm/orders/${doomed.body.id}`, { token: taker.token });
  assert.equal(gone.body.status, 'CANCELED');
  assert.deepEqual(ticks(onC), ticks(onB));
  const bookSeqs = assertContiguous(ticks(onB));
  const journalSeqB = Math.max(...ticks(onB).map((f) => f.journalSeq));
  const before = ticks(onB).length;
  const viewerBefore = ticks(viewer).length;
  // Orders through the other process, forwarded to the new leader.
  await until(
    async () => {
      const r = await req(via, 'POST', '/nbx/v2/emm/orders/place', {
        token: maker.token,
        body: order(outcomes![0]!, 0.3),
      });
      return r.status === 201 ? true : undefined;
    },
    10_000,
    'an order accepted after the failover',
  );
  for (let i = 0; i < 5; i++) {
    const r = await req(newLeader, 'POST', '/nbx/v2/emm/orders/place', {
      token: maker.token,
      body: order(outcomes![0]!, 0.2 + i * 0.01),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  // Both connections stayed open (the promoted process's hub is the same hub) and got every frame.
  await until(
    async () => (ticks(onB).length >= before + 6 ? true : undefined),
    10_000,
    'ticks after failover on b',
  );
  await until(async () => (ticks(onC).length === ticks(onB).length ? true : undefined), 5000, 'ticks on c');
  assert.equal(onB.closed, undefined);
  assert.equal(onC.closed, undefined);
  assert.deepEqual(ticks(onC), ticks(onB));
  assertContiguous(ticks(onB).slice(before), bookSeqs);
  assert.ok(
    ticks(onB)
      .slice(before)
      .every((f) => f.journalSeq > journalSeqB),
  );
  await until(
    async () => (ticks(viewer).length === viewerBefore + ticks(onB).length - before ? true : undefined),
    5000,
    'the viewer’s ticks',
  );
  assert.deepEqual(ticks(viewer).slice(viewerBefore), ticks(onB).slice(before));

  // The leader's clients died with it: one resumes on a replica by journal seq, without loss.
  const resumed = await open(via, admin);
  resumed.send({ event: 'subscribe', data: 'tape', fromSeq: journalSeqB });
  const ack = await resumed.next((f) => f.event === 'subscribed');
  assert.equal(ack.data.reset, undefined, 'the replica’s window covers the seq');
  const resumedCount = ticks(onB).length - before;
  await until(async () => (ticks(resumed).length >= resumedCount ? true : undefined), 5000, 'replayed ticks');
  assert.deepEqual(ticks(resumed), ticks(onB).slice(before));

  // Cancel-on-disconnect on a replica: the leader fires it when the replica's socket goes.
  const rest = await req(newLeader, 'POST', '/nbx/v2/emm/orders/place', {
    token: taker.token,
    body: order(outcomes![1]!, 0.1),
  });
  assert.equal(rest.status, 201, JSON.stringify(rest.body));
  const cod = await Client.open(`${wsUrl(via)}?cancelOnDisconnect=true`, { token: taker.token });
  await cod.next((f) => f.event === 'cancel_on_disconnect');
  cod.close();
  await until(
    async () => {
      const o = await req(via, 'GET', `/nbx/v2/emm/orders/${rest.body.id}`, { token: taker.token });
      return o.status === 200 && o.body.status === 'CANCELED' ? true : undefined;
    },
    5000,
    'the taker’s order cancelled on disconnect from a replica',
  );

  // The new leader runs the dead-man countdowns: armed through the replica, fired by the leader.
  const resting = await req(via, 'GET', '/nbx/v2/emm/orders/all?status=RESTING', { token: maker.token });
  assert.equal(resting.status, 200);
  assert.ok(resting.body.length > 0, 'the maker has resting orders');
  const hb = await req(via, 'POST', '/nbx/v2/emm/heartbeat', {
    token: maker.token,
    body: { timeoutMs: 1000 },
  });
  assert.equal(hb.status, 200, JSON.stringify(hb.body));
  const cancels = await onB.next((f) => f.event === 'cancel', 5000, onB.frames.length);
  assert.equal(cancels.event, 'cancel');
  await until(
    async () => {
      const open = await req(via, 'GET', '/nbx/v2/emm/orders/all?status=RESTING', { token: maker.token });
      return open.status === 200 && Array.isArray(open.body) && open.body.length === 0 ? true : undefined;
    },
    5000,
    'the maker’s orders cancelled by the dead-man switch',
  );
});

test('a replica’s legacy token listener forwards to the leader', { skip }, async () => {
  const live = procs.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
  assert.ok(live.length >= 2);
  const admin = await fetchToken(live[0]!.url, ADMIN_ID, ADMIN_SECRET);
  const modes = await Promise.all(live.map(async (p) => ({ p, s: await status(p.url, admin) })));
  const replica = modes.find((m) => m.s.mode === 'replica');
  assert.ok(replica !== undefined);
  const legacy = `http://127.0.0.1:${legacyBase + procs.indexOf(replica.p)}`;
  const forwarded = async () => {
    const m = await (await fetch(`${replica.p.url}/metrics`)).text();
    return Number(/tickbook_cluster_forwarded_total\{outcome="ok"\} (\d+)/.exec(m)?.[1]);
  };
  const before = await forwarded();
  const r = await fetch(`${legacy}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: ADMIN_ID,
      client_secret: ADMIN_SECRET,
      audience: 'http://tickbook.test',
    }),
  });
  const body = await r.json();
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.equal(typeof body.access_token, 'string');
  // Issued by the leader: the replica forwarded it.
  assert.equal(await forwarded(), before + 1);
});
