// Fencing and role configuration (docs/cluster.md). A leader whose epoch has been taken over can
// never commit again: its next journal append finds no row with its epoch and inserts nothing, the
// command answers 503 and the process steps down. The role setting refuses a replica of the
// embedded store. The fencing test needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { claimLeadership, doorbellChannel, FencedError, fencedAppend } from '../../src/cluster/leader-row.ts';
import { ClusterNode } from '../../src/cluster/node.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ApiError } from '../../src/errors.ts';
import { appendCommands, journalTail } from '../../src/journal/journal-store.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { createPostgresSchema, type PostgresSchema } from '../helpers/store.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';

test('TICKBOOK_ROLE: replica needs PostgreSQL; bad values are named', () => {
  assert.throws(
    () => loadConfig({ TICKBOOK_ROLE: 'replica' }),
    (e: unknown) =>
      e instanceof ConfigError && /TICKBOOK_ROLE/.test(e.message) && /embedded store/.test(e.message),
  );
  assert.throws(() => loadConfig({ TICKBOOK_ROLE: 'boss' }), ConfigError);
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://x/y', TICKBOOK_ADVERTISE_URL: 'not a url' }),
    ConfigError,
  );
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://x/y', TICKBOOK_MIN_SEQ_WAIT_MS: '-1' }),
    ConfigError,
  );
  assert.equal(loadConfig({}).role, 'leader');
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://x/y' }).role, 'auto');
  assert.equal(
    loadConfig({ DATABASE_URL: 'postgres://x/y', TICKBOOK_ADVERTISE_URL: 'http://a:1/' }).advertiseUrl,
    'http://a:1',
  );
});

let place: PostgresSchema | undefined;
const stores: PostgresStore[] = [];
after(async () => {
  for (const s of stores) await s.close().catch(() => {});
  await place?.drop();
});

test('a leader whose epoch was taken over cannot commit: 503, nothing journaled, steps down', {
  skip,
}, async () => {
  place = await createPostgresSchema('fence_');
  const store = await PostgresStore.open(place.url, 4, `fence-${process.pid}`);
  stores.push(store);
  await store.migrate();
  const config = loadConfig({ DATABASE_URL: place.url, TICKBOOK_ROLE: 'leader', LOG_LEVEL: 'silent' });
  const node = await ClusterNode.open({ config, store, log: pino({ level: 'silent' }) });
  try {
    assert.equal(node.mode, 'leader');
    const ok = await node.submit({ type: 'CreateAccount', accountId: node.newId() });
    assert.equal(ok.ok, true);
    const before = await journalTail(store);

    // A successor's promotion, as seen from the database: the epoch moves on.
    const other = await PostgresStore.open(place.url, 1);
    stores.push(other);
    await other.query('UPDATE cluster_leader SET epoch = epoch + 1 WHERE id = 1');

    await assert.rejects(
      node.submit({ type: 'CreateAccount', accountId: node.newId() }),
      (e: unknown) => e instanceof ApiError && e.statusCode === 503 && e.headers?.['retry-after'] === '1',
    );
    assert.deepEqual(await journalTail(store), before, 'nothing of the fenced batch was appended');
    assert.equal(node.mode, 'down');
    assert.equal(node.ready(), false);
    await assert.rejects(
      node.submit({ type: 'CreateAccount', accountId: node.newId() }),
      (e: unknown) => e instanceof ApiError && e.statusCode === 503,
    );
  } finally {
    await node.close();
  }
});

test('a fenced append racing an epoch bump appends nothing and rings no doorbell', { skip }, async () => {
  const race = await createPostgresSchema('fence_race_');
  const store = await PostgresStore.open(race.url, 2);
  const listener = new pg.Client({ connectionString: race.url });
  const bumper = new pg.Client({ connectionString: race.url });
  try {
    await store.migrate();
    const epoch = await claimLeadership(store, undefined, 'a');
    const channel = await doorbellChannel(store);
    const guard = fencedAppend(channel, epoch);
    const rung: string[] = [];
    await listener.connect();
    listener.on('notification', (n) => rung.push(n.payload ?? ''));
    await listener.query(`LISTEN "${channel}"`);
    const cmd = (seq: number) => ({ type: 'Deposit', n: seq, ts: 1_000 + seq });
    const settle = () => new Promise((r) => setTimeout(r, 300));

    await appendCommands(store, 1, [cmd(1)], guard(1));
    await settle();
    assert.deepEqual(rung, ['1'], 'a committed append rings once, with its last seq');

    // A successor's promotion in flight: its epoch bump holds the leader row while the old
    // leader's append starts, and commits while that append waits for the row.
    await bumper.connect();
    await bumper.query('BEGIN');
    await bumper.query('UPDATE cluster_leader SET epoch = epoch + 1 WHERE id = 1');
    const appending = appendCommands(store, 2, [cmd(2), cmd(3)], guard(3));
    const refused = assert.rejects(appending, FencedError);
    await settle();
    await bumper.query('COMMIT');
    await refused;
    await settle();
    assert.deepEqual(rung, ['1'], 'the refused append rang no doorbell');
    assert.equal((await journalTail(store)).seq, 1, 'nothing of the refused batch was appended');
  } finally {
    await listener.end().catch(() => {});
    await bumper.end().catch(() => {});
    await store.close();
    await race.drop();
  }
});
