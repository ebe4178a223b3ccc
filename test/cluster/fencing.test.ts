// Fencing and role configuration (docs/cluster.md). A leader whose epoch has been taken over can
// never commit again: its next journal transaction finds no row with its epoch, rolls back, the
// command answers 503 and the process steps down. The role setting refuses a replica of the
// embedded store. The fencing test needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pino from 'pino';
import { ClusterNode } from '../../src/cluster/node.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { ApiError } from '../../src/errors.ts';
import { journalTail } from '../../src/journal/journal-store.ts';
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
    assert.deepEqual(await journalTail(store), before, 'the fenced batch was rolled back');
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
