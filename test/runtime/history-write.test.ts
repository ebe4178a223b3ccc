// The projection as one statement (src/runtime/history-write.ts, docs/journal.md "Projector") must
// write exactly what the same rows written by one statement per table inside a transaction write:
// its data-modifying CTEs share one snapshot, so an order row and a maker delta on the same row
// would silently lose one of the two. Batches of several sizes from a trading workload (placements,
// maker fills on orders of earlier batches, cancels) go through both writers into two stores of the
// same kind; every history table must come out identical.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { projectionStatement } from '../../src/runtime/history-write.ts';
import type { Queryable } from '../../src/store/types.ts';
import { projectSeparately, TradingHistory } from '../helpers/history-reference.ts';
import { openTestStore, storeKinds } from '../helpers/store.ts';

async function dump(q: Queryable) {
  return {
    orders: (await q.query('SELECT * FROM order_history ORDER BY id')).rows,
    fills: (await q.query('SELECT * FROM fill_history ORDER BY id')).rows,
    ledger: (await q.query('SELECT * FROM ledger_history ORDER BY seq, n')).rows,
    watermark: (await q.query('SELECT * FROM projection_watermark ORDER BY name')).rows,
  };
}

for (const kind of storeKinds()) {
  test(`${kind}: the one-statement projection writes what separate statements write`, async () => {
    const [a, b] = [await openTestStore(kind), await openTestStore(kind)];
    try {
      const history = new TradingHistory({ events: 2, marketsPerEvent: 3, accounts: 8 }, 7);
      let makerDeltas = 0;
      for (let rep = 0; rep < 30; rep++) {
        const h = history.next([1, 3, 16, 64, 200][rep % 5]!);
        makerDeltas += h.makerDeltas.size;
        await projectSeparately(a, h, history.seq);
        const st = projectionStatement(h, 'history', history.seq);
        await b.query(st.sql, st.params);
      }
      const [da, db] = [await dump(a), await dump(b)];
      assert.ok(makerDeltas > 0 && da.orders.length > 0 && da.fills.length > 0 && da.ledger.length > 0);
      assert.ok(da.orders.some((o) => (o as { status: string }).status === 'FILLED'));
      assert.ok(da.orders.some((o) => (o as { status: string }).status === 'CANCELED'));
      assert.deepEqual(db, da);
    } finally {
      await a.close();
      await b.close();
    }
  });
}
