// Writing one projection transaction (docs/journal.md, "Projector"): the history rows of a run of
// durable commands and the projector's new watermark, as ONE SQL statement. Each table's rows go
// through unnest() arrays (one parameter per column, any number of rows); the four writes are
// data-modifying CTEs of the watermark UPDATE. A single statement is its own transaction on both
// stores — all of it or none of it, exactly as BEGIN … COMMIT gave — without the BEGIN and COMMIT
// round trips: on PGlite every statement is work on the server's own thread, and those two plus
// one statement per table were most of a small projection's cost.
//
// The CTEs run against one snapshot, so no two of them may touch the same row: the order rows
// (`orders`, inserted or replaced) and the maker deltas (`makerDeltas`, rows projected earlier) are
// disjoint by construction (HistoryBatch.add moves an order out of makerDeltas when it enters
// orders), fill ids and ledger (seq, n) are unique.

import type { HistoryBatch } from './history.ts';

/** The statement and parameters writing `batch` and moving watermark `name` up to `toSeq`. */
export function projectionStatement(
  batch: HistoryBatch,
  name: string,
  toSeq: number,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [name, toSeq];
  const p = (v: unknown[]): string => {
    params.push(v);
    return `$${params.length}`;
  };
  const ctes: string[] = [];
  if (batch.orders.size > 0) {
    const rows = [...batch.orders.values()];
    const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
    ctes.push(`o AS (INSERT INTO order_history (id, account_id, outcome_id, market_id, currency, price, qty,
         original_qty, tif, expires_at, flags, client_order_id, status, created_at, updated_at, seq)
       SELECT * FROM unnest(${p(col((r) => r.order.id))}::uuid[], ${p(col((r) => r.order.accountId))}::uuid[],
         ${p(col((r) => r.order.outcomeId))}::uuid[], ${p(col((r) => r.order.marketId))}::uuid[],
         ${p(col((r) => r.order.currency))}::text[], ${p(col((r) => r.order.price))}::int[],
         ${p(col((r) => r.order.qty))}::bigint[], ${p(col((r) => r.order.originalQty))}::bigint[],
         ${p(col((r) => r.order.tif))}::text[], ${p(col((r) => r.order.expiresAt))}::bigint[],
         ${p(col((r) => r.order.flags))}::text[], ${p(col((r) => r.order.clientOrderId))}::text[],
         ${p(col((r) => r.order.status))}::text[], ${p(col((r) => r.order.createdAt))}::bigint[],
         ${p(col((r) => r.order.updatedAt))}::bigint[], ${p(col((r) => r.seq))}::bigint[])
       ON CONFLICT (id) DO UPDATE SET qty = EXCLUDED.qty, status = EXCLUDED.status,
         price = EXCLUDED.price, original_qty = EXCLUDED.original_qty,
         updated_at = EXCLUDED.updated_at, seq = EXCLUDED.seq)`);
  }
  if (batch.makerDeltas.size > 0) {
    const ds = [...batch.makerDeltas.values()];
    ctes.push(`m AS (UPDATE order_history h SET qty = h.qty - d.q,
         status = CASE WHEN h.qty - d.q <= 0 THEN 'FILLED' ELSE h.status END,
         updated_at = d.ts, seq = d.seq
       FROM unnest(${p([...batch.makerDeltas.keys()])}::uuid[], ${p(ds.map((d) => d.qty))}::bigint[],
         ${p(ds.map((d) => d.ts))}::bigint[], ${p(ds.map((d) => d.seq))}::bigint[]) AS d(id, q, ts, seq)
       WHERE h.id = d.id)`);
  }
  if (batch.fills.length > 0) {
    const f = batch.fills;
    ctes.push(`f AS (INSERT INTO fill_history (id, seq, account_id, order_id, outcome_id, market_id, currency,
         price, qty, is_taker, is_wash, fee, fee_coefficient, ts)
       SELECT * FROM unnest(${p(f.map((x) => x.id))}::text[], ${p(f.map((x) => x.seq))}::bigint[],
         ${p(f.map((x) => x.accountId))}::uuid[], ${p(f.map((x) => x.orderId))}::uuid[],
         ${p(f.map((x) => x.outcomeId))}::uuid[], ${p(f.map((x) => x.marketId))}::uuid[],
         ${p(f.map((x) => x.currency))}::text[], ${p(f.map((x) => x.price))}::int[],
         ${p(f.map((x) => x.qty))}::bigint[], ${p(f.map((x) => x.isTaker))}::bool[],
         ${p(f.map((x) => x.isWash))}::bool[], ${p(f.map((x) => x.fee))}::bigint[],
         ${p(f.map((x) => x.feeCoefficient))}::float8[], ${p(f.map((x) => x.ts))}::bigint[])
       ON CONFLICT (id) DO NOTHING)`);
  }
  if (batch.ledger.length > 0) {
    const l = batch.ledger;
    ctes.push(`l AS (INSERT INTO ledger_history (seq, n, account_id, currency, kind, amount, ref, created_at,
         order_id, fill_id, market_id)
       SELECT * FROM unnest(${p(l.map((x) => x.seq))}::bigint[], ${p(l.map((x) => x.n))}::int[],
         ${p(l.map((x) => x.accountId))}::uuid[], ${p(l.map((x) => x.currency))}::text[],
         ${p(l.map((x) => x.kind))}::text[], ${p(l.map((x) => x.amount))}::bigint[],
         ${p(
           // ref: the engine's single reference, kept for readers of the pre-010 shape
           l.map((x) => x.fillId ?? x.orderId ?? x.marketId),
         )}::text[],
         ${p(l.map((x) => x.createdAt))}::bigint[], ${p(l.map((x) => x.orderId))}::text[],
         ${p(l.map((x) => x.fillId))}::text[], ${p(l.map((x) => x.marketId))}::text[])
       ON CONFLICT (seq, n) DO NOTHING)`);
  }
  // Every data-modifying CTE runs to completion whether or not the outer statement reads it.
  const sql = `${ctes.length > 0 ? `WITH ${ctes.join(',\n')}\n` : ''}UPDATE projection_watermark SET seq = $2 WHERE name = $1 AND seq < $2`;
  return { sql, params };
}
