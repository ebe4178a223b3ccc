// Disk retention (docs/disk-use.md): journal rows the oldest kept snapshot covers go, newer ones
// stay; only cancelled never-filled orders past the cutoff leave the order history; a pass with
// everything off removes nothing. Runs on PGlite, and on PostgreSQL when DATABASE_URL is set.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Retention } from '../../src/store/retention.ts';
import { openTestStore, storeKinds, type TestStore } from '../helpers/store.ts';

const OWNER = '00000000-0000-7000-8000-000000000001';

async function order(store: TestStore, n: number, status: string, qty: number, updatedAt: number) {
  const id = `00000000-0000-7000-8000-${String(n).padStart(12, '0')}`;
  await store.query(
    `INSERT INTO order_history (id, account_id, outcome_id, market_id, currency, price, qty, original_qty,
       tif, status, created_at, updated_at, seq)
     VALUES ($1, $2, $2, $2, 'CASH', 50, $3, 100, 'GTC', $4, $5, $5, $6)`,
    [id, OWNER, qty, status, updatedAt, n],
  );
}

for (const kind of storeKinds()) {
  describe(`retention on ${kind}`, () => {
    const stores: TestStore[] = [];
    after(async () => {
      for (const s of stores) await s.close();
    });

    test('prunes covered journal rows and stale cancelled orders, keeps the rest', async () => {
      const store = await openTestStore(kind);
      stores.push(store);
      for (let seq = 1; seq <= 50; seq++) {
        await store.query('INSERT INTO journal (seq, ts, cmd) VALUES ($1, $2, $3)', [seq, seq, '{}']);
      }
      for (const seq of [20, 40]) {
        await store.query('INSERT INTO snapshots (seq, hash, state) VALUES ($1, $2, $3)', [
          seq,
          'h',
          new Uint8Array([1]),
        ]);
      }
      const now = 10_000_000;
      await order(store, 1, 'CANCELED', 100, now - 7200_000); // stale, never filled: goes
      await order(store, 2, 'CANCELED', 40, now - 7200_000); // partly filled: stays
      await order(store, 3, 'CANCELED', 100, now - 60_000); // recent: stays
      await order(store, 4, 'FILLED', 0, now - 7200_000); // filled: stays
      await order(store, 5, 'RESTING', 100, now - 7200_000); // resting: stays

      const off = new Retention(store, {
        pruneJournal: false,
        canceledOrderMaxAgeMs: 0,
        vacuumAndCheckpoint: false,
      });
      assert.deepEqual({ ...(await off.runOnce()), ms: 0 }, { journalRows: 0, orderRows: 0, ms: 0 });

      const r = new Retention(
        store,
        { pruneJournal: true, canceledOrderMaxAgeMs: 3600_000, vacuumAndCheckpoint: kind === 'pglite' },
        () => now,
      );
      const report = await r.runOnce();
      assert.equal(report.journalRows, 20, 'rows 1..20 are covered by the oldest snapshot');
      assert.equal(report.orderRows, 1);
      const j = await store.query<{ min: number; n: number }>(
        'SELECT min(seq)::int AS min, count(*)::int AS n FROM journal',
      );
      assert.deepEqual(j.rows[0], { min: 21, n: 30 });
      const left = await store.query<{ seq: number }>('SELECT seq FROM order_history ORDER BY seq');
      assert.deepEqual(
        left.rows.map((x) => Number(x.seq)),
        [2, 3, 4, 5],
      );
      // A second pass finds nothing more.
      const again = await r.runOnce();
      assert.equal(again.journalRows + again.orderRows, 0);
    });
  });
}
