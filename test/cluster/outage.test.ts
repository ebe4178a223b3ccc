// PostgreSQL going away under a running server (docs/cluster.md "When PostgreSQL goes away"):
// the process stays up, commands answer 503 with Retry-After, reads are served from memory,
// /readyz is unready; when the database is back the process rebuilds its state from the journal,
// takes its writer lock again and accepts commands. The database "goes away" behind a TCP proxy
// the test owns (the shared PostgreSQL server is never stopped), or by terminating this
// process's sessions by application_name. Needs DATABASE_URL.

import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { createGame, fetchToken } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace } from '../helpers/server.ts';
import { type Proc, req, sleep, startProc, until } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';

/** A TCP proxy in front of PostgreSQL that the test can cut and restore. */
class PgProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  constructor(
    private readonly host: string,
    private readonly target: number,
  ) {}

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const up = net.connect(this.target, this.host);
      for (const s of [client, up]) {
        this.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          this.sockets.delete(s);
          client.destroy();
          up.destroy();
        });
      }
      client.pipe(up);
      up.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    for (const c of this.sockets) c.destroy();
    if (s) await new Promise((resolve) => s.close(resolve));
  }
}

async function setup(place: ServerPlace, url: string) {
  const admin = await fetchToken(url, ADMIN_ID, ADMIN_SECRET);
  const [outcomes] = await createGame(url, admin, [{ type: 'MONEY', description: 'NYK @ BOS Moneyline' }]);
  const cl = await req(url, 'POST', '/admin/v1/clients', { token: admin, body: { name: 't' } });
  await req(url, 'POST', `/admin/v1/accounts/${cl.body.accountId}/deposits`, {
    token: admin,
    body: { currency: 'CASH', amount: 100000 },
  });
  const token = await fetchToken(url, cl.body.clientId, cl.body.clientSecret);
  const order = (price = 0.4) =>
    req(url, 'POST', '/nbx/v2/emm/orders/place', {
      token,
      body: { outcomeId: outcomes![0], price, qty: 100, currency: 'CASH', tif: 'GTC' },
    });
  void place;
  return { admin, token, order };
}

const procs: Proc[] = [];
const places: ServerPlace[] = [];
after(async () => {
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  for (const p of places) await p.destroy();
});

test('database cut behind a proxy: 503 for commands, reads from memory, unready, then back', {
  skip,
}, async () => {
  const place = await serverPlace('postgres');
  places.push(place);
  const u = new URL(process.env.DATABASE_URL!);
  const proxy = new PgProxy(u.hostname, Number(u.port || 5432));
  await proxy.start();
  const viaProxy = new URL(place.env.DATABASE_URL!);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const p = await startProc(place, `outage-${process.pid}`, { DATABASE_URL: viaProxy.toString() });
  procs.push(p);
  const { token, order } = await setup(place, p.url);
  const before = await order();
  assert.equal(before.status, 201);

  await proxy.stop();
  try {
    for (let i = 0; i < 3; i++) {
      const r = await order();
      assert.equal(r.status, 503, `command during the outage: ${r.status} ${JSON.stringify(r.body)}`);
      assert.equal(r.headers.get('retry-after'), '1');
      assert.equal(r.body.code, 'SERVICE_UNAVAILABLE');
    }
    const got = await req(p.url, 'GET', `/nbx/v2/emm/orders/${before.body.id}`, { token });
    assert.equal(got.status, 200, 'reads are served from memory');
    const bal = await req(p.url, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', { token });
    assert.equal(bal.status, 200);
    assert.equal((await req(p.url, 'GET', '/readyz')).status, 503);
    assert.equal((await req(p.url, 'GET', '/healthz')).status, 200);
    await sleep(1500); // the retry loop runs against the dead address meanwhile
    assert.equal(p.proc.exitCode, null, 'the process is still running');
  } finally {
    await proxy.start();
  }
  const back = await until(
    async () => {
      const r = await order(0.41);
      return r.status === 201 ? r : undefined;
    },
    15_000,
    'commands accepted again after the database is back',
  );
  assert.equal(back.status, 201);
  assert.equal((await req(p.url, 'GET', '/readyz')).status, 200);
  const again = await req(p.url, 'GET', `/nbx/v2/emm/orders/${before.body.id}`, { token });
  assert.equal(again.status, 200, 'the order acknowledged before the outage is still there');
  await proxy.stop();
});

test('sessions terminated mid-flow: no crash, no 5xx but 503, acknowledged orders kept', {
  skip,
}, async () => {
  const place = await serverPlace('postgres');
  places.push(place);
  const name = `term-${process.pid}-${Date.now() % 100000}`;
  const p = await startProc(place, name);
  procs.push(p);
  const { token, order } = await setup(place, p.url);
  const acked: string[] = [];
  const statuses = new Map<number, number>();
  let stop = false;
  const loops = Array.from({ length: 4 }, async () => {
    while (!stop) {
      const r = await order();
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status === 201) acked.push(r.body.id);
      else await sleep(20);
    }
  });
  await sleep(400);
  const admin = await PostgresStore.open(process.env.DATABASE_URL!, 1);
  try {
    for (let k = 0; k < 3; k++) {
      const t = await admin.query<{ n: number }>(
        'SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1',
        [name],
      );
      assert.ok(t.rows[0]!.n > 0, 'the process has sessions to terminate');
      await sleep(700);
    }
  } finally {
    await admin.close();
  }
  await until(
    async () => ((await req(p.url, 'GET', '/readyz')).status === 200 ? true : undefined),
    15_000,
    'ready again',
  );
  const ackedBefore = acked.length;
  await until(async () => (acked.length > ackedBefore ? true : undefined), 10_000, 'orders accepted again');
  stop = true;
  await Promise.all(loops);
  assert.equal(p.proc.exitCode, null, 'the process survived');
  for (const s of statuses.keys()) assert.ok(s === 201 || s === 503, `status ${s} seen`);
  for (const id of acked) {
    const got = await req(p.url, 'GET', `/nbx/v2/emm/orders/${id}`, { token });
    assert.equal(got.status, 200, `acknowledged order ${id} lost`);
  }
});
