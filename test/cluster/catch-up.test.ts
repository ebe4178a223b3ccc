// A replica started against a long journal (docs/cluster.md "Replicas follow the journal"): it recovers and
// follows until it stands at the leader's seq with the leader's state hash, then reports ready.
// CATCHUP_COMMANDS sets the journal length (50,000 in CI; bench/cluster.ts measures 1M).
// Needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { fetchToken } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace } from '../helpers/server.ts';
import { converged, fillJournal, type Proc, req, startProc, until } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';
const N = Number(process.env.CATCHUP_COMMANDS ?? 50_000);

let place: ServerPlace | undefined;
const procs: Proc[] = [];
after(async () => {
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await place?.destroy();
});

test(`a replica catches up with a journal of ${N} commands and reports ready`, { skip }, async () => {
  place = await serverPlace('postgres');
  await fillJournal(place.env.DATABASE_URL!, place.env, N);
  procs.push(await startProc(place, `cu-leader-${process.pid}`));
  const admin = await fetchToken(procs[0]!.url, ADMIN_ID, ADMIN_SECRET);
  const t0 = Date.now();
  const replica = await startProc(place, `cu-replica-${process.pid}`, { TICKBOOK_ROLE: 'replica' });
  procs.push(replica);
  await until(
    async () => ((await req(replica.url, 'GET', '/readyz')).status === 200 ? true : undefined),
    120_000,
    'replica ready',
  );
  const all = await converged(
    procs.map((p) => p.url),
    admin,
  );
  const ms = Date.now() - t0;
  assert.ok(all[0]!.seq >= N, `seq ${all[0]!.seq} covers the ${N} journaled commands`);
  assert.equal(all[1]!.mode, 'replica');
  process.stdout.write(`# replica caught up with ${all[0]!.seq} commands in ${ms} ms (start included)\n`);
});
