// Scale-out on PostgreSQL (docs/cluster.md): a leader and a replica as separate processes on one
// schema. Three measurements, one run:
//   1. Replica lag under order load: autocannon places orders on the leader (the bench:orders-http
//      load); meanwhile a probe places an order on the leader, takes the seq of its ack and reads
//      the order back on the replica with x-tickbook-min-seq — the time that read takes, against
//      the same read on the leader (baseline: one round trip), is the lag a client sees. The
//      replica's own tickbook_replica_lag_ms gauge is sampled too. A /tape client on each process
//      (subscribed to `tape`) times the probe order's tick from the leader's ack: the stream lag.
//   2. Read throughput of the replica against the leader's, same route, interleaved rounds.
//   3. Failover: kill -9 of the leader, time until an order sent through the replica is accepted
//      by the new leader (the replica itself); the killed process comes back as a replica.
//
//   DATABASE_URL=postgres://… node --import tsx bench/cluster.ts [--seconds 8] [--rounds 3] [--cycles 5]

import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import WebSocket from 'ws';
import { fillJournal, type Proc, req, sleep, startProc, status } from '../test/cluster/helpers.ts';
import { createGame, fetchToken } from '../test/helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, serverPlace } from '../test/helpers/server.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    cycles: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    catchup: { type: 'string', default: '0' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const CYCLES = Number(values.cycles);
const CONNECTIONS = Number(values.connections);
/** With --catchup N: also time a replica catching up with a journal of N commands (1M: minutes). */
const CATCHUP = Number(values.catchup);

if (!process.env.DATABASE_URL) {
  process.stderr.write('bench/cluster.ts needs DATABASE_URL (PostgreSQL)\n');
  process.exit(2);
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const median = (xs: number[]) => pct(xs, 50);
const f1 = (x: number) => x.toFixed(1);

const place = await serverPlace('postgres', { LOG_LEVEL: 'warn' });
const procs: Proc[] = [];
const cleanup = async () => {
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await place.destroy();
};
process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));

try {
  procs.push(await startProc(place, `bench-a-${process.pid}`));
  procs.push(await startProc(place, `bench-b-${process.pid}`));
  const [leader, replica] = procs as [Proc, Proc];
  const admin = await fetchToken(leader.url, ADMIN_ID, ADMIN_SECRET);
  const outcomes = await createGame(
    leader.url,
    admin,
    Array.from({ length: 10 }, (_, i) => ({ type: 'SPREAD', strike: -0.5 - i, description: `Spread ${i}` })),
  );
  const tokens: string[] = [];
  for (const name of ['maker', 'taker']) {
    const c = await req(leader.url, 'POST', '/admin/v1/clients', { token: admin, body: { name } });
    await req(leader.url, 'POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
      token: admin,
      body: { currency: 'CASH', amount: 1e9 },
    });
    tokens.push(await fetchToken(leader.url, c.body.clientId, c.body.clientSecret));
  }
  const prices = [0.46, 0.47, 0.48, 0.49, 0.5, 0.51, 0.52];
  let n = 0;
  const orderBody = () => {
    const k = n++;
    const m = outcomes[k % outcomes.length]!;
    const side = (k >> 3) & 1;
    return {
      side,
      body: {
        outcomeId: m[side],
        price: prices[(k * 7) % prices.length],
        qty: 100,
        currency: 'CASH',
        tif: 'GTC',
      },
    };
  };

  // ---------------------------------------------------------------- 1. lag under order load
  // Tape clients on both processes: when does the probe order's tick arrive, from its ack?
  const tickLag = { leader: [] as number[], replica: [] as number[] };
  const acked = new Map<string, number>();
  const early = { leader: new Map<string, number>(), replica: new Map<string, number>() };
  const sockets: WebSocket[] = [];
  for (const [who, url] of [
    ['leader', leader.url],
    ['replica', replica.url],
  ] as const) {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/tape`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ event: 'subscribe', data: 'tape' }));
    ws.on('message', (d) => {
      const m = /"type":"PLACE","order":\{"id":"([^"]+)"/.exec(d.toString());
      if (m === null) return;
      const at = acked.get(m[1]!);
      if (at !== undefined) tickLag[who].push(performance.now() - at);
      else early[who].set(m[1]!, performance.now());
    });
    sockets.push(ws);
  }
  const replicaMs: number[] = [];
  const leaderMs: number[] = [];
  const gauge: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const o = orderBody();
      const placed = await req(leader.url, 'POST', '/nbx/v2/emm/orders/place', {
        token: tokens[o.side],
        body: o.body,
      });
      if (placed.status !== 201) continue;
      const ackAt = performance.now();
      acked.set(placed.body.id, ackAt);
      for (const who of ['leader', 'replica'] as const) {
        const e = early[who].get(placed.body.id);
        // The tick came before the ack reached the probe: lag 0 from the client's view.
        if (e !== undefined) tickLag[who].push(Math.max(0, e - ackAt));
      }
      const seq = placed.headers.get('x-tickbook-seq')!;
      const path = `/nbx/v2/emm/orders/${placed.body.id}`;
      const h = { 'x-tickbook-min-seq': seq };
      let t = performance.now();
      const r = await req(replica.url, 'GET', path, { token: tokens[o.side], headers: h });
      if (r.status === 200) replicaMs.push(performance.now() - t);
      t = performance.now();
      await req(leader.url, 'GET', path, { token: tokens[o.side], headers: h });
      leaderMs.push(performance.now() - t);
      await sleep(5);
    }
  })();
  const sampler = (async () => {
    while (probing) {
      const m = await (await fetch(`${replica.url}/metrics`)).text();
      const v = /tickbook_replica_lag_ms (\d+)/.exec(m);
      if (v) gauge.push(Number(v[1]));
      await sleep(50);
    }
  })();
  const load = await autocannon({
    url: `${leader.url}/nbx/v2/emm/orders/place`,
    connections: CONNECTIONS,
    duration: SECONDS,
    method: 'POST',
    requests: [
      {
        setupRequest: (r) => {
          const o = orderBody();
          return {
            ...r,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[o.side]}` },
            body: JSON.stringify(o.body),
          };
        },
      },
    ],
  });
  probing = false;
  await Promise.all([probe, sampler]);
  await sleep(500); // the last probe's ticks
  for (const ws of sockets) ws.terminate();
  const st = await status(replica.url, admin);

  // ---------------------------------------------------------------- 2. read throughput
  const readPath = '/nbx/v2/emm/events?limit=100';
  const reads: { leader: number; replica: number }[] = [];
  const readOnce = async (url: string) =>
    (
      await autocannon({
        url: url + readPath,
        connections: CONNECTIONS,
        duration: Math.max(3, Math.floor(SECONDS / 2)),
        headers: { authorization: `Bearer ${tokens[0]}` },
      })
    ).requests.average;
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first, so neither always gets the quieter moment.
    if (i % 2 === 0) {
      const l = await readOnce(leader.url);
      reads.push({ leader: l, replica: await readOnce(replica.url) });
    } else {
      const r = await readOnce(replica.url);
      reads.push({ leader: await readOnce(leader.url), replica: r });
    }
  }

  // ---------------------------------------------------------------- 3. failover
  const failover: number[] = [];
  for (let c = 0; c < CYCLES; c++) {
    const all = await Promise.all(procs.map(async (p) => ({ p, s: await status(p.url, admin) })));
    const lead = all.find((x) => x.s.mode === 'leader')!.p;
    const other = all.find((x) => x.p !== lead)!.p;
    const killedAt = performance.now();
    lead.proc.kill('SIGKILL');
    let took = Number.NaN;
    while (performance.now() - killedAt < 30_000) {
      const o = orderBody();
      try {
        const r = await req(other.url, 'POST', '/nbx/v2/emm/orders/place', {
          token: tokens[o.side],
          body: o.body,
        });
        if (r.status === 201) {
          took = performance.now() - killedAt;
          break;
        }
      } catch {
        // connection trouble during the switch
      }
      await sleep(10);
    }
    failover.push(took);
    await lead.exited;
    procs.splice(procs.indexOf(lead), 1);
    procs.push(await startProc(place, `bench-c${c}-${process.pid}`));
  }

  // ---------------------------------------------------------------- 4. catch-up (optional)
  let catchup = '';
  if (CATCHUP > 0) {
    const cu = await serverPlace('postgres', { LOG_LEVEL: 'warn' });
    try {
      const t0 = performance.now();
      await fillJournal(cu.env.DATABASE_URL!, cu.env, CATCHUP);
      const fillS = (performance.now() - t0) / 1000;
      const t1 = performance.now();
      const r = await startProc(cu, `bench-cu-${process.pid}`, { TICKBOOK_ROLE: 'replica' });
      const bootMs = performance.now() - t1;
      while ((await req(r.url, 'GET', '/readyz')).status !== 200) await sleep(100);
      const readyMs = performance.now() - t1;
      r.proc.kill('SIGKILL');
      await r.exited;
      catchup = `${CATCHUP} commands (journal filled in ${fillS.toFixed(0)} s): listening after ${(bootMs / 1000).toFixed(1)} s, ready after ${(readyMs / 1000).toFixed(1)} s`;
    } finally {
      await cu.destroy();
    }
  }

  // ---------------------------------------------------------------- report
  const ratios = reads.map((r) => r.replica / r.leader);
  const lagEst = replicaMs.map((x, i) => x - (leaderMs[i] ?? 0));
  const rows = [
    [
      'order load on the leader',
      `${Math.round(load.requests.average)} orders/s, p99 ${load.latency.p99} ms, non-2xx ${load.non2xx}`,
    ],
    [
      'read-your-write on the replica (min-seq)',
      `p50 ${f1(median(replicaMs))} ms, p99 ${f1(pct(replicaMs, 99))} ms (${replicaMs.length} probes)`,
    ],
    ['same read on the leader (baseline)', `p50 ${f1(median(leaderMs))} ms, p99 ${f1(pct(leaderMs, 99))} ms`],
    ['replica lag (replica − leader read)', `p50 ${f1(median(lagEst))} ms, p99 ${f1(pct(lagEst, 99))} ms`],
    [
      'tickbook_replica_lag_ms gauge',
      `p50 ${median(gauge)} ms, p99 ${pct(gauge, 99)} ms, max ${Math.max(...gauge)} (${gauge.length} samples)`,
    ],
    [
      '/tape tick after the ack, leader | replica',
      `p50 ${f1(median(tickLag.leader))} | ${f1(median(tickLag.replica))} ms, p99 ${f1(pct(tickLag.leader, 99))} | ${f1(pct(tickLag.replica, 99))} ms (${tickLag.leader.length} | ${tickLag.replica.length} probes)`,
    ],
    ['replica after the load', `seq ${st.seq}, lagSeq ${st.lagSeq}`],
    [
      `reads ${readPath}, req/s leader | replica`,
      reads.map((r) => `${Math.round(r.leader)} | ${Math.round(r.replica)}`).join('; '),
    ],
    [
      'replica/leader read ratio per round',
      `${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
    ],
    [
      `failover (kill -9 → first order accepted), ${CYCLES} cycles`,
      `median ${Math.round(median(failover))} ms, max ${Math.round(Math.max(...failover))} ms (${failover.map((x) => Math.round(x)).join(', ')})`,
    ],
  ];
  if (catchup) rows.push(['replica catch-up from the journal alone', catchup]);
  const w = Math.max(...rows.map((r) => r[0]!.length));
  process.stdout.write(
    `\nbench:cluster — ${SECONDS}s order load, ${CONNECTIONS} connections, ${ROUNDS} read rounds\n`,
  );
  for (const [k, v] of rows) process.stdout.write(`${k!.padEnd(w)}  ${v}\n`);
} finally {
  await cleanup();
}
