// The test-store helper itself: isolated stores per test, cleaned up on close.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { openTestStore, storeKinds } from '../helpers/store.ts';

for (const kind of storeKinds()) {
  test(`${kind}: two test stores are isolated and close() removes what they created`, async () => {
    const [a, b] = await Promise.all([openTestStore(kind), openTestStore(kind)]);
    try {
      await a.query('INSERT INTO server_meta (key, value) VALUES ($1, $2)', ['only-in-a', '1']);
      const inA = await a.query('SELECT key FROM server_meta WHERE key = $1', ['only-in-a']);
      const inB = await b.query('SELECT key FROM server_meta WHERE key = $1', ['only-in-a']);
      assert.equal(inA.rows.length, 1);
      assert.equal(inB.rows.length, 0);
      // Both are fully migrated (journal tables from 003 exist and are empty).
      const j = await b.query<{ n: number }>('SELECT count(*)::bigint AS n FROM journal');
      assert.equal(j.rows[0]!.n, 0);
    } finally {
      await a.close();
      await b.close();
    }
    if (kind === 'pglite') {
      assert.ok(a.dataDir !== undefined && !existsSync(a.dataDir));
      assert.ok(b.dataDir !== undefined && !existsSync(b.dataDir));
    } else {
      const admin = await PostgresStore.open(process.env.DATABASE_URL as string, 1);
      try {
        const r = await admin.query('SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)', [
          [a.schema, b.schema],
        ]);
        assert.equal(r.rows.length, 0);
      } finally {
        await admin.close();
      }
    }
  });
}
