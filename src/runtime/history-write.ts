// Writing one projection transaction (docs/journal.md, "Projector"): the history rows of a run of
// durable commands and the projector's new watermark, as ONE SQL statement. Each table's rows go
// through unnest() arrays (one parameter per column, any number of rows); the writes are
// data-modifying CTEs of the watermark UPDATE.
//
// A text column crosses to the SQL thread as ONE string, its values joined by commas, which the
// database splits (`string_to_array`) and casts: a thousand-row projection sends a few flat strings
// instead of arrays of a thousand strings each, so the structured clone on the event loop copies
// them in one piece, the SQL thread does not rebuild a thousand strings a column, and PGlite does
// not quote and escape each of them into an array literal in JavaScript (docs/bench-projection.md).
// Only text that cannot hold a comma is joined: ids (UUIDs, or a fill id made of one, src/ids.ts)
// and the engine's enumerations; a client's free text (`flags`, `client_order_id`) still goes as an
// array. An empty value is NULL only where the column is nullable (`string_to_array`'s third
// argument). Numbers and booleans stay arrays: their clone is cheaper than writing them as text on
// the event loop, which was measured to cost the main thread more than it saved.
//
// A single statement is its own transaction on both stores — all of it or none of it, exactly as
// BEGIN … COMMIT gave — without the BEGIN and COMMIT round trips: on PGlite every statement is
// work on the server's own thread, and those two plus one statement per table were most of a
// small projection's cost.
//
// The CTEs run against one snapshot, so no two of them may touch the same row: the order rows
// (`orders`, inserted or replaced) and the maker deltas (`makerDeltas`, rows projected earlier) are
// disjoint by construction (HistoryBatch.add moves an order out of makerDeltas when it enters
// orders), fill ids and ledger (seq, n) are unique.
//
// Rows that cannot exist yet are plain inserts: fills, ledger rows and the orders placed in this
// run. An INSERT … ON CONFLICT is a speculative insertion, which probes the unique index before
// the insert and writes one more WAL record per row to confirm it (with the joined columns above,
// the SQL thread's CPU per projected command fell by a tenth to a quarter per round:
// docs/bench-projection.md). Only orders placed in an earlier run (a cancel, an amend) keep the
// upsert. What ON CONFLICT DO NOTHING guarded against, the same
// seqs projected twice, is checked once for the whole statement instead: every write runs only
// while the watermark is below `toSeq`, so a run already projected changes nothing (the maker
// deltas included, which a second application would have subtracted again).

import type { OrderRecord } from '../exchange/types.ts';
import type { HistoryBatch } from './history.ts';

type OrderRow = { order: OrderRecord; seq: number };

/** The statement and parameters writing `batch` and moving watermark `name` up to `toSeq`. */
export function projectionStatement(
  batch: HistoryBatch,
  name: string,
  toSeq: number,
  /**
   * The statement as it was before plain inserts: every order row an upsert, fills and ledger rows
   * skipped when their key exists. Only for a run whose plain statement failed on a unique key (an
   * order id used again after its order ended: ids are meant never to repeat, src/ids.ts, but the
   * engine refuses only the ids of live orders), so that one row cannot stop the history.
   */
  tolerant = false,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [name, toSeq];
  const p = (v: unknown): string => {
    params.push(v);
    return `$${params.length}`;
  };
  /** A text column of comma-free values as one joined string, split back into a `type` array in SQL. */
  const list = (v: readonly unknown[], type: string): string =>
    `string_to_array(${p(v.join(','))}, ',')::${type}[]`;
  const uuids = (v: readonly unknown[]): string => list(v, 'uuid');
  const texts = (v: readonly unknown[]): string => list(v, 'text');
  /** The same for a nullable column: null (joined as '') becomes NULL. */
  const nullable = (v: readonly unknown[], type: string): string =>
    `string_to_array(${p(v.join(','))}, ',', '')::${type}[]`;
  // One-time filter (an InitPlan): true while this run is not projected yet.
  const fresh = 'NOT EXISTS (SELECT 1 FROM projection_watermark WHERE name = $1 AND seq >= $2)';
  const orderRows = (rows: OrderRow[]): string => {
    const col = <T>(f: (r: OrderRow) => T) => rows.map(f);
    return `INSERT INTO order_history (id, account_id, outcome_id, market_id, currency, price, qty,
         original_qty, tif, expires_at, flags, client_order_id, status, created_at, updated_at, seq)
       SELECT * FROM unnest(${uuids(col((r) => r.order.id))}, ${uuids(col((r) => r.order.accountId))},
         ${uuids(col((r) => r.order.outcomeId))}, ${uuids(col((r) => r.order.marketId))},
         ${texts(col((r) => r.order.currency))}, ${p(col((r) => r.order.price))}::int[],
         ${p(col((r) => r.order.qty))}::bigint[], ${p(col((r) => r.order.originalQty))}::bigint[],
         ${texts(col((r) => r.order.tif))}, ${p(col((r) => r.order.expiresAt))}::bigint[],
         ${p(col((r) => r.order.flags))}::text[], ${p(col((r) => r.order.clientOrderId))}::text[],
         ${texts(col((r) => r.order.status))}, ${p(col((r) => r.order.createdAt))}::bigint[],
         ${p(col((r) => r.order.updatedAt))}::bigint[], ${p(col((r) => r.seq))}::bigint[])
       WHERE ${fresh}`;
  };
  const ctes: string[] = [];
  if (batch.orders.size > 0) {
    const placed: OrderRow[] = [];
    const earlier: OrderRow[] = [];
    for (const r of batch.orders.values()) (r.placed && !tolerant ? placed : earlier).push(r);
    if (placed.length > 0) ctes.push(`o AS (${orderRows(placed)})`);
    if (earlier.length > 0) {
      ctes.push(`u AS (${orderRows(earlier)}
       ON CONFLICT (id) DO UPDATE SET qty = EXCLUDED.qty, status = EXCLUDED.status,
         price = EXCLUDED.price, original_qty = EXCLUDED.original_qty,
         updated_at = EXCLUDED.updated_at, seq = EXCLUDED.seq)`);
    }
  }
  if (batch.makerDeltas.size > 0) {
    const ds = [...batch.makerDeltas.values()];
    ctes.push(`m AS (UPDATE order_history h SET qty = h.qty - d.q,
         status = CASE WHEN h.qty - d.q <= 0 THEN 'FILLED' ELSE h.status END,
         updated_at = d.ts, seq = d.seq
       FROM unnest(${uuids([...batch.makerDeltas.keys()])}, ${p(ds.map((d) => d.qty))}::bigint[],
         ${p(ds.map((d) => d.ts))}::bigint[], ${p(ds.map((d) => d.seq))}::bigint[]) AS d(id, q, ts, seq)
       WHERE h.id = d.id AND ${fresh})`);
  }
  if (batch.fills.length > 0) {
    const f = batch.fills;
    ctes.push(`f AS (INSERT INTO fill_history (id, seq, account_id, order_id, outcome_id, market_id, currency,
         price, qty, is_taker, is_wash, fee, fee_coefficient, ts)
       SELECT * FROM unnest(${texts(f.map((x) => x.id))}, ${p(f.map((x) => x.seq))}::bigint[],
         ${uuids(f.map((x) => x.accountId))}, ${uuids(f.map((x) => x.orderId))},
         ${uuids(f.map((x) => x.outcomeId))}, ${uuids(f.map((x) => x.marketId))},
         ${texts(f.map((x) => x.currency))}, ${p(f.map((x) => x.price))}::int[],
         ${p(f.map((x) => x.qty))}::bigint[], ${p(f.map((x) => x.isTaker))}::bool[],
         ${p(f.map((x) => x.isWash))}::bool[], ${p(f.map((x) => x.fee))}::bigint[],
         ${p(f.map((x) => x.feeCoefficient))}::float8[], ${p(f.map((x) => x.ts))}::bigint[])
       WHERE ${fresh}${tolerant ? ' ON CONFLICT (id) DO NOTHING' : ''})`);
  }
  if (batch.ledger.length > 0) {
    const l = batch.ledger;
    ctes.push(`l AS (INSERT INTO ledger_history (seq, n, account_id, currency, kind, amount, ref, created_at,
         order_id, fill_id, market_id)
       SELECT * FROM unnest(${p(l.map((x) => x.seq))}::bigint[], ${p(l.map((x) => x.n))}::int[],
         ${uuids(l.map((x) => x.accountId))}, ${texts(l.map((x) => x.currency))},
         ${texts(l.map((x) => x.kind))}, ${p(l.map((x) => x.amount))}::bigint[],
         ${nullable(
           // ref: the engine's single reference, kept for readers of the pre-010 shape
           l.map((x) => x.fillId ?? x.orderId ?? x.marketId),
           'text',
         )},
         ${p(l.map((x) => x.createdAt))}::bigint[], ${nullable(
           l.map((x) => x.orderId),
           'text',
         )},
         ${nullable(
           l.map((x) => x.fillId),
           'text',
         )}, ${nullable(
           l.map((x) => x.marketId),
           'text',
         )})
       WHERE ${fresh}${tolerant ? ' ON CONFLICT (seq, n) DO NOTHING' : ''})`);
  }
  // Every data-modifying CTE runs to completion whether or not the outer statement reads it.
  const sql = `${ctes.length > 0 ? `WITH ${ctes.join(',\n')}\n` : ''}UPDATE projection_watermark SET seq = $2 WHERE name = $1 AND seq < $2`;
  return { sql, params };
}
