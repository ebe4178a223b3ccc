// The projection as one statement (src/runtime/history-write.ts, docs/journal.md "Projector") must
// write exactly what the same rows written by one statement per table inside a transaction write:
// its data-modifying CTEs share one snapshot, so an order row and a maker delta on the same row
// would silently lose one of the two. Batches of several sizes from a trading workload (placements,
// maker fills on orders of earlier batches, cancels) go through both writers into two stores of the
// same kind; every history table must come out identical.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, OrderRecord } from '../../src/exchange/types.ts';
import { HistoryBatch } from '../../src/runtime/history.ts';
import { projectionStatement } from '../../src/runtime/history-write.ts';
import { HistoryProjector } from '../../src/runtime/projector.ts';
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

/** An order record of the test account, market and outcome; `over` sets any other field. */
function testOrder(id: string, over: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id,
    accountId: '0190a3c4-0000-7000-8000-0000000000a1',
    outcomeId: '0190a3c4-0000-7000-8000-0000000000b1',
    marketId: '0190a3c4-0000-7000-8000-0000000000c1',
    currency: 'CASH',
    price: 47,
    qty: 1_000,
    originalQty: 1_000,
    tif: 'GTC',
    expiresAt: null,
    flags: null,
    clientOrderId: null,
    status: 'CANCELED',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...over,
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

for (const kind of storeKinds()) {
  test(`${kind}: a run projected a second time changes nothing, maker deltas included`, async () => {
    const store = await openTestStore(kind);
    try {
      const history = new TradingHistory({ events: 2, marketsPerEvent: 3, accounts: 8 }, 11);
      const first = history.next(64);
      const st0 = projectionStatement(first, 'history', history.seq);
      await store.query(st0.sql, st0.params);
      // The next run's maker fills fall on rows the first one wrote: a second application would
      // subtract them again.
      const h = history.next(64);
      assert.ok(h.makerDeltas.size > 0 && h.fills.length > 0 && h.ledger.length > 0);
      const st = projectionStatement(h, 'history', history.seq);
      await store.query(st.sql, st.params);
      const once = await dump(store);
      await store.query(st.sql, st.params);
      assert.deepEqual(await dump(store), once);
      // An earlier run again, after a later one: nothing either.
      await store.query(st0.sql, st0.params);
      assert.deepEqual(await dump(store), once);
    } finally {
      await store.close();
    }
  });

  test(`${kind}: a client's free text and null columns arrive as sent`, async () => {
    const store = await openTestStore(kind);
    try {
      const id = '0190a3c4-0000-7000-8000-000000000001';
      const order = testOrder(id, {
        qty: 1_000_000,
        originalQty: 1_000_000,
        flags: 'a,b {c}',
        clientOrderId: 'x,"y"\\z NULL',
        status: 'RESTING',
      });
      const h = new HistoryBatch();
      h.add(1, [{ kind: 'OrderPlaced', order }], 1_700_000_000_000);
      const st = projectionStatement(h, 'history', 1);
      await store.query(st.sql, st.params);
      const rows = (await store.query('SELECT * FROM order_history')).rows as Record<string, unknown>[];
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.flags, 'a,b {c}');
      assert.equal(rows[0]!.client_order_id, 'x,"y"\\z NULL');
      assert.equal(rows[0]!.expires_at, null);
      assert.equal(rows[0]!.id, id);
      assert.equal(Number(rows[0]!.qty), 1_000_000);
    } finally {
      await store.close();
    }
  });

  test(`${kind}: a run of one ledger row with null references writes NULLs, not empty strings`, async () => {
    // A one-value joined column of null is '' and string_to_array('') is an empty array: the row
    // gets its NULL from unnest padding the shorter arrays, which this pins down.
    const store = await openTestStore(kind);
    try {
      const x = new Exchange();
      const accountId = '0190a3c4-0000-7000-8000-0000000000a1';
      assert.ok(x.apply({ type: 'CreateAccount', ts: 1_700_000_000_000, accountId } as Command).ok);
      const r = x.apply({ type: 'Deposit', ts: 1_700_000_000_001, accountId, currency: 'CASH', amount: 500 });
      assert.ok(r.ok);
      const h = new HistoryBatch();
      h.add(2, r.events, 1_700_000_000_001);
      assert.equal(h.ledger.length, 1, 'one ledger row');
      const st = projectionStatement(h, 'history', 2);
      await store.query(st.sql, st.params);
      const rows = (await store.query('SELECT * FROM ledger_history')).rows as Record<string, unknown>[];
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.account_id, accountId);
      assert.equal(Number(rows[0]!.amount), 500);
      assert.equal(rows[0]!.ref, null);
      assert.equal(rows[0]!.order_id, null);
      assert.equal(rows[0]!.fill_id, null);
      assert.equal(rows[0]!.market_id, null);
    } finally {
      await store.close();
    }
  });
}

for (const kind of storeKinds()) {
  test(`${kind}: an order id used again fails the plain statement; the tolerant one replaces the row`, async () => {
    const store = await openTestStore(kind);
    try {
      const order = testOrder('0190a3c4-0000-7000-8000-000000000002');
      const first = new HistoryBatch();
      first.add(1, [{ kind: 'OrderPlaced', order }], 1_700_000_000_000);
      const st1 = projectionStatement(first, 'history', 1);
      await store.query(st1.sql, st1.params);
      const again = new HistoryBatch();
      again.add(
        2,
        [{ kind: 'OrderPlaced', order: { ...order, price: 52, status: 'RESTING' } }],
        1_700_000_000_001,
      );
      const plain = projectionStatement(again, 'history', 2);
      await assert.rejects(
        store.query(plain.sql, plain.params),
        (err: { code?: string }) => err.code === '23505',
      );
      assert.deepEqual(
        (await store.query('SELECT seq FROM projection_watermark')).rows.map((r) => Number(r.seq)),
        [1],
      );
      const tolerant = projectionStatement(again, 'history', 2, true);
      await store.query(tolerant.sql, tolerant.params);
      const rows = (await store.query('SELECT price, status, seq FROM order_history')).rows;
      assert.deepEqual(
        rows.map((r) => [r.price, r.status, Number(r.seq)]),
        [[52, 'RESTING', 2]],
      );
      assert.deepEqual(
        (await store.query('SELECT seq FROM projection_watermark')).rows.map((r) => Number(r.seq)),
        [2],
      );
    } finally {
      await store.close();
    }
  });
}

test('pglite: the projector retries a run that hit a used order id with the tolerant statement', async () => {
  const store = await openTestStore('pglite', { thread: 'worker' });
  try {
    const projector = await HistoryProjector.open(store);
    const order = testOrder('0190a3c4-0000-7000-8000-000000000003');
    const wm = projector.watermark;
    projector.enqueue(wm + 1, [{ ok: true, events: [{ kind: 'OrderPlaced', order }] }]);
    await projector.drain();
    projector.enqueue(wm + 2, [
      { ok: true, events: [{ kind: 'OrderPlaced', order: { ...order, price: 52 } }] },
    ]);
    await projector.drain();
    assert.equal(projector.watermark, wm + 2);
    const rows = (await store.query('SELECT price FROM order_history WHERE id = $1', [order.id])).rows;
    assert.deepEqual(rows, [{ price: 52 }]);
    await projector.close();
  } finally {
    await store.close();
  }
});
