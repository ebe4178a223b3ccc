// The projection as one statement (src/runtime/history-write.ts, docs/journal.md "Projector") must
// write exactly what the same rows written by one statement per table inside a transaction write:
// its data-modifying CTEs share one snapshot, so an order row and a maker delta on the same row
// would silently lose one of the two. Batches of several sizes from a trading workload (placements,
// maker fills on orders of earlier batches, cancels) go through both writers into two stores of the
// same kind; every history table must come out identical.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';
import { HistoryBatch } from '../../src/runtime/history.ts';
import { projectionStatement } from '../../src/runtime/history-write.ts';
import type { Queryable } from '../../src/store/types.ts';
import { openTestStore, storeKinds } from '../helpers/store.ts';
import { setupCommands, tradingCommands } from '../journal/workload.ts';

/** The workload's readable ids ('w-...') as uuids: the history tables store ids as uuid. */
function uuidIds<T>(v: T): T {
  if (typeof v === 'string' && v.startsWith('w-')) {
    const h = createHash('sha1').update(v).digest('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}` as T;
  }
  if (Array.isArray(v)) return v.map(uuidIds) as T;
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, uuidIds(x)])) as T;
  }
  return v;
}

/** The reference: one statement per table inside the caller's transaction (the former writer). */
async function separateStatements(tx: Queryable, batch: HistoryBatch): Promise<void> {
  if (batch.orders.size > 0) {
    const rows = [...batch.orders.values()];
    const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
    await tx.query(
      `INSERT INTO order_history (id, account_id, outcome_id, market_id, currency, price, qty, original_qty, tif,
         expires_at, flags, client_order_id, status, created_at, updated_at, seq)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::int[], $7::bigint[],
         $8::bigint[], $9::text[], $10::bigint[], $11::text[], $12::text[], $13::text[], $14::bigint[], $15::bigint[],
         $16::bigint[])
       ON CONFLICT (id) DO UPDATE SET qty = EXCLUDED.qty, status = EXCLUDED.status,
         updated_at = EXCLUDED.updated_at, seq = EXCLUDED.seq`,
      [
        col((r) => r.order.id),
        col((r) => r.order.accountId),
        col((r) => r.order.outcomeId),
        col((r) => r.order.marketId),
        col((r) => r.order.currency),
        col((r) => r.order.price),
        col((r) => r.order.qty),
        col((r) => r.order.originalQty),
        col((r) => r.order.tif),
        col((r) => r.order.expiresAt),
        col((r) => r.order.flags),
        col((r) => r.order.clientOrderId),
        col((r) => r.order.status),
        col((r) => r.order.createdAt),
        col((r) => r.order.updatedAt),
        col((r) => r.seq),
      ],
    );
  }
  if (batch.makerDeltas.size > 0) {
    const ids = [...batch.makerDeltas.keys()];
    const ds = [...batch.makerDeltas.values()];
    await tx.query(
      `UPDATE order_history o SET qty = o.qty - d.q,
         status = CASE WHEN o.qty - d.q <= 0 THEN 'FILLED' ELSE o.status END,
         updated_at = d.ts, seq = d.seq
       FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::bigint[]) AS d(id, q, ts, seq)
       WHERE o.id = d.id`,
      [ids, ds.map((d) => d.qty), ds.map((d) => d.ts), ds.map((d) => d.seq)],
    );
  }
  if (batch.fills.length > 0) {
    const f = batch.fills;
    await tx.query(
      `INSERT INTO fill_history (id, seq, account_id, order_id, outcome_id, market_id, currency, price, qty, is_taker,
         is_wash, fee, fee_coefficient, ts)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::uuid[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[],
         $8::int[], $9::bigint[], $10::bool[], $11::bool[], $12::bigint[], $13::float8[], $14::bigint[])
       ON CONFLICT (id) DO NOTHING`,
      [
        f.map((x) => x.id),
        f.map((x) => x.seq),
        f.map((x) => x.accountId),
        f.map((x) => x.orderId),
        f.map((x) => x.outcomeId),
        f.map((x) => x.marketId),
        f.map((x) => x.currency),
        f.map((x) => x.price),
        f.map((x) => x.qty),
        f.map((x) => x.isTaker),
        f.map((x) => x.isWash),
        f.map((x) => x.fee),
        f.map((x) => x.feeCoefficient),
        f.map((x) => x.ts),
      ],
    );
  }
  if (batch.ledger.length > 0) {
    const l = batch.ledger;
    await tx.query(
      `INSERT INTO ledger_history (seq, n, account_id, currency, kind, amount, ref, created_at, order_id, fill_id,
         market_id)
       SELECT * FROM unnest($1::bigint[], $2::int[], $3::uuid[], $4::text[], $5::text[], $6::bigint[], $7::text[],
         $8::bigint[], $9::text[], $10::text[], $11::text[])
       ON CONFLICT (seq, n) DO NOTHING`,
      [
        l.map((x) => x.seq),
        l.map((x) => x.n),
        l.map((x) => x.accountId),
        l.map((x) => x.currency),
        l.map((x) => x.kind),
        l.map((x) => x.amount),
        // ref: the engine's single reference, kept for readers of the pre-010 shape
        l.map((x) => x.fillId ?? x.orderId ?? x.marketId),
        l.map((x) => x.createdAt),
        l.map((x) => x.orderId),
        l.map((x) => x.fillId),
        l.map((x) => x.marketId),
      ],
    );
  }
}

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
      const shape = { events: 2, marketsPerEvent: 3, accounts: 8 };
      const ex = new Exchange();
      let seq = 0;
      let ts = 1_700_000_000_000;
      for (const c of setupCommands(shape).map(uuidIds)) {
        ex.apply({ ...(c as Command), ts: ts++ });
        seq++;
      }
      const gen = tradingCommands(shape, 7);
      let makerDeltas = 0;
      for (let rep = 0; rep < 30; rep++) {
        const h = new HistoryBatch();
        for (let i = 0; i < [1, 3, 16, 64, 200][rep % 5]!; i++) {
          const c = { ...uuidIds(gen.next().value as Command), ts: ts++ };
          const r = ex.apply(c);
          seq++;
          if (r.ok) h.add(seq, r.events, c.ts);
        }
        makerDeltas += h.makerDeltas.size;
        await a.transaction(async (tx) => {
          if (!h.empty) await separateStatements(tx, h);
          await tx.query('UPDATE projection_watermark SET seq = $2 WHERE name = $1 AND seq < $2', [
            'history',
            seq,
          ]);
        });
        const st = projectionStatement(h, 'history', seq);
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
