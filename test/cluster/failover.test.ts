// kill -9 of the leader under order flow from several clients, repeatedly (docs/cluster.md
// "Failover"): a replica takes the writer lock and accepts orders within 5 s, every acknowledged
// order is on every process afterwards, money is conserved on every process, and no two processes
// ever lead at once (sampled throughout; leaders' fencing epochs only grow).
// FAILOVER_CYCLES sets the number of cycles (5 by default, CI). Needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createGame, fetchToken } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace } from '../helpers/server.ts';
import { converged, type Proc, req, sleep, startProc, status, until } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';
const CYCLES = Number(process.env.FAILOVER_CYCLES ?? 5);
const DEPOSIT = 100000;

let place: ServerPlace | undefined;
const procs: Proc[] = [];
/** The role watcher runs while this is true; a failed assertion must not leave it running. */
let watching = true;
after(async () => {
  watching = false;
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await place?.destroy();
});

test(`kill -9 of the leader under order flow, ${CYCLES} cycles`, { skip }, async () => {
  place = await serverPlace('postgres');
  for (const n of ['n0', 'n1', 'n2']) procs.push(await startProc(place, `${n}-${process.pid}`));
  const live = () => procs.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
  const admin = await fetchToken(procs[1]!.url, ADMIN_ID, ADMIN_SECRET);
  const [outcomes] = await createGame(procs[2]!.url, admin, [
    { type: 'MONEY', description: 'NYK @ BOS Moneyline' },
  ]);
  const traders: { clientId: string; accountId: string; token: string }[] = [];
  for (const name of ['t0', 't1']) {
    const c = await req(procs[0]!.url, 'POST', '/admin/v1/clients', { token: admin, body: { name } });
    await req(procs[1]!.url, 'POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
      token: admin,
      body: { currency: 'CASH', amount: DEPOSIT },
    });
    traders.push({ ...c.body, token: await fetchToken(procs[2]!.url, c.body.clientId, c.body.clientSecret) });
  }

  // Watch the roles the whole time: at most one leader per sample, epochs never go back.
  let lastEpoch = 0;
  const violations: string[] = [];
  const watcher = (async () => {
    while (watching) {
      const seen = await Promise.all(
        live().map((p) =>
          status(p.url, admin).then(
            (s) => ({ p: p.name, s }),
            () => undefined,
          ),
        ),
      );
      const leaders = seen.filter((x) => x?.s.mode === 'leader');
      if (leaders.length > 1) violations.push(`two leaders: ${leaders.map((l) => l!.p).join(', ')}`);
      for (const l of leaders) {
        if (l!.s.epoch < lastEpoch) violations.push(`epoch went back: ${l!.s.epoch} < ${lastEpoch}`);
        lastEpoch = Math.max(lastEpoch, l!.s.epoch);
      }
      await sleep(100);
    }
  })();

  const acked: { trader: number; orderId: string; seq: number }[] = [];
  const failovers: number[] = [];
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    let stop = false;
    let killedAt = 0;
    let firstAfterKill = 0;
    const loops = Array.from({ length: 6 }, async (_, k) => {
      while (!stop) {
        const trader = k % 2;
        const ps = live();
        const via = ps[Math.floor(rnd() * ps.length)]!;
        const sentAt = Date.now();
        try {
          const r = await req(via.url, 'POST', '/nbx/v2/emm/orders/place', {
            token: traders[trader]!.token,
            body: {
              outcomeId: outcomes![trader],
              price: [0.45, 0.48, 0.5, 0.52, 0.55][Math.floor(rnd() * 5)],
              qty: 100,
              currency: 'CASH',
              tif: 'GTC',
            },
          });
          if (r.status === 201) {
            acked.push({ trader, orderId: r.body.id, seq: Number(r.headers.get('x-tickbook-seq')) });
            // Only a request sent after the kill proves the new leader (an answer already on
            // its way from the old leader may still arrive).
            if (killedAt > 0 && sentAt > killedAt && firstAfterKill === 0) firstAfterKill = Date.now();
          } else {
            assert.equal(r.status, 503, `order answered ${r.status} ${JSON.stringify(r.body)}`);
            await sleep(25);
          }
        } catch (err) {
          if (err instanceof assert.AssertionError) throw err;
          await sleep(25); // connection reset by the kill
        }
      }
    });
    await sleep(400 + Math.floor(rnd() * 800));
    const statuses = await Promise.all(live().map(async (p) => ({ p, s: await status(p.url, admin) })));
    const leader = statuses.find((x) => x.s.mode === 'leader');
    assert.ok(leader, `cycle ${cycle}: a leader before the kill`);
    killedAt = Date.now();
    leader.p.proc.kill('SIGKILL');
    await leader.p.exited;
    await until(
      async () => (firstAfterKill > 0 ? true : undefined),
      10_000,
      `cycle ${cycle}: an order accepted after the kill`,
    );
    const took = firstAfterKill - killedAt;
    failovers.push(took);
    stop = true;
    await Promise.all(loops);
    assert.ok(took <= 5000, `cycle ${cycle}: failover took ${took} ms`);

    // The killed process comes back as a replica of the new leader.
    procs.splice(procs.indexOf(leader.p), 1);
    procs.push(await startProc(place, `${leader.p.name.split('-')[0]}c${cycle}-${process.pid}`));

    const urls = live().map((p) => p.url);
    await converged(urls, admin, 20_000);
    const top = Math.max(...acked.map((a) => a.seq));
    for (const u of urls) {
      for (const o of acked) {
        const got = await req(u, 'GET', `/nbx/v2/emm/orders/${o.orderId}`, {
          token: traders[o.trader]!.token,
          headers: { 'x-tickbook-min-seq': String(top) },
        });
        assert.equal(got.status, 200, `cycle ${cycle}: acknowledged order ${o.orderId} missing on ${u}`);
      }
      let total = 0;
      for (const t of traders) {
        const bal = await req(u, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', { token: t.token });
        const oc = await req(u, 'GET', '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH', {
          token: t.token,
        });
        total += Math.round((bal.body.balance + oc.body.openOrderCost + oc.body.openPositionCost) * 1e5);
      }
      assert.equal(total, traders.length * DEPOSIT * 1e5, `cycle ${cycle}: money not conserved on ${u}`);
    }
  }
  watching = false;
  await watcher;
  assert.deepEqual(violations, []);
  assert.ok(acked.length > 0);
  const sorted = [...failovers].sort((x, y) => x - y);
  process.stdout.write(
    `# failover ms: ${failovers.join(', ')} (median ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted.at(-1)}); ${acked.length} orders acknowledged\n`,
  );
});
