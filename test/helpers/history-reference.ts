// The history writer before the projection became one statement (src/runtime/history-write.ts):
// one statement per table inside the caller's transaction. The reference the one-statement writer
// is compared with, for equality (test/runtime/history-write.test.ts) and cost
// (bench/projection.ts).

import { createHash } from 'node:crypto';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';
import { HistoryBatch } from '../../src/runtime/history.ts';
import type { Queryable, Store } from '../../src/store/types.ts';
import { setupCommands, tradingCommands } from '../journal/workload.ts';

/** The workload's readable ids ('w-...') as uuids: the history tables store ids as uuid. */
export function uuidIds<T>(v: T): T {
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
export async function separateStatements(tx: Queryable, batch: HistoryBatch): Promise<void> {
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

/** The former projection of one batch: its rows by separateStatements and the watermark, in one transaction. */
export async function projectSeparately(store: Store, batch: HistoryBatch, seq: number): Promise<void> {
  await store.transaction(async (tx) => {
    if (!batch.empty) await separateStatements(tx, batch);
    await tx.query('UPDATE projection_watermark SET seq = $2 WHERE name = $1 AND seq < $2', ['history', seq]);
  });
}

/**
 * A trading workload's history, batch by batch: an Exchange set up with the workload's catalog and
 * accounts (ids as uuids), then `next(n)` applies n trading commands and returns their batch.
 */
export class TradingHistory {
  private readonly ex = new Exchange();
  private readonly gen: Generator<unknown>;
  seq = 0;
  private ts = 1_700_000_000_000;

  constructor(shape: Parameters<typeof setupCommands>[0], seed: number) {
    for (const c of setupCommands(shape).map(uuidIds)) {
      this.ex.apply({ ...(c as Command), ts: this.ts++ });
      this.seq++;
    }
    this.gen = tradingCommands(shape, seed);
  }

  next(n: number): HistoryBatch {
    const h = new HistoryBatch();
    for (let i = 0; i < n; i++) {
      const c = { ...uuidIds(this.gen.next().value as Command), ts: this.ts++ };
      const r = this.ex.apply(c);
      this.seq++;
      if (r.ok) h.add(this.seq, r.events, c.ts);
    }
    return h;
  }
}
