// SQL access to the journal and snapshot tables (migration 003_journal.sql), shared by the
// sequencer, recovery, replicas and tests. Plain PostgreSQL SQL, so both store backends run it.
//
// Appending a batch is ONE statement whatever its size: the commands travel as a single json
// array parameter and are unnested server-side. That keeps the statement count per group commit
// at one (PGlite runs 4–13k statements/s, principle 6 of docs/architecture.md "Principles") and avoids PostgreSQL's
// 65,535 bind-parameter limit that a VALUES list with 3 parameters per row would hit at 21k rows.
// cmd is a json (text) column (migration 006): json_array_elements hands each command's own text
// to the row unchanged, and reading it back costs no conversion (docs/journal.md).

import type { Queryable, Store } from '../store/types.ts';

export interface JournalRow<C> {
  seq: number;
  ts: number;
  cmd: C;
}

export interface SnapshotRow {
  seq: number;
  hash: string;
  state: Uint8Array;
}

/**
 * A condition an append must meet, checked by the append statement itself: the scale-out leader's
 * fencing (docs/cluster.md, "Failover and fencing"). In the same statement rather than in a
 * transaction around it, so a group commit is one round trip, not four (BEGIN, INSERT, check,
 * COMMIT), and the check's row locks are held exactly until the rows are committed.
 */
export interface AppendGuard {
  /** A SELECT yielding at least one row when the append may go ahead; its parameters are $3, $4, … */
  sql: string;
  params: readonly unknown[];
  /**
   * An SQL expression evaluated once, only when the rows were inserted (the leader's doorbell,
   * `pg_notify(…)`); it may use the parameters too. Not in the guard's own select list: there
   * PostgreSQL evaluates it when the scan reads the row, before FOR SHARE waits for the lock and
   * re-checks the row, so a guard refused after that wait would still have queued it.
   */
  onAppended?: string;
  /** The error thrown when it yields none (then nothing was appended). */
  refused(): Error;
}

const APPEND_ROWS = `INSERT INTO journal (seq, ts, cmd)
     SELECT $1::bigint + (x.o - 1), (x.c->>'ts')::bigint, x.c
     FROM json_array_elements($2::json) WITH ORDINALITY AS x(c, o)`;

/**
 * Appends commands with consecutive sequence numbers firstSeq, firstSeq+1, ... in one statement
 * (with `guard`, only when it holds). Each command must carry a numeric `ts`. The primary key on
 * seq makes a second writer (or a sequencer that lost track of the tail) fail instead of silently
 * interleaving.
 */
export async function appendCommands(
  q: Queryable,
  firstSeq: number,
  cmds: readonly { ts: number }[],
  guard?: AppendGuard,
  /** The batch's JSON array text when the caller has it already (batch-texts.ts). */
  json: string = JSON.stringify(cmds),
): Promise<void> {
  if (cmds.length === 0) return;
  if (guard === undefined) {
    await q.query(APPEND_ROWS, [firstSeq, json]);
    return;
  }
  // MATERIALIZED: the guard runs once, whole (its row locks taken), before any row is inserted; no
  // row qualifies when it yields nothing. The outer SELECT yields a row, and evaluates onAppended,
  // only when rows were inserted: its WHERE is checked before its select list is computed.
  const r = await q.query<{ n: number | string }>(
    `WITH guard AS MATERIALIZED (${guard.sql}),
     ins AS (${APPEND_ROWS}
       WHERE EXISTS (SELECT 1 FROM guard) RETURNING 1)
     SELECT c.n${guard.onAppended === undefined ? '' : `, ${guard.onAppended}`}
     FROM (SELECT count(*) AS n FROM ins) c WHERE c.n > 0`,
    [firstSeq, json, ...guard.params],
  );
  if (r.rows.length !== 1 || Number(r.rows[0]!.n) !== cmds.length) throw guard.refused();
}

/** Up to `limit` journal rows with seq > afterSeq (and <= toSeq when given), in order. */
export async function readJournal<C>(
  q: Queryable,
  afterSeq: number,
  limit: number,
  toSeq?: number,
): Promise<JournalRow<C>[]> {
  // Seqs have no gaps, so the next `limit` rows are normally exactly the seqs (afterSeq, last]. The
  // page is read as that bounded range, never as "seq > afterSeq ORDER BY seq LIMIT n": PGlite has
  // no autovacuum, so the journal has no planner statistics, and for an open-ended range the
  // planner bitmap-scanned and sorted every row after afterSeq to keep `limit` of them — each page
  // cost O(rows left): 47 s to read 889k rows, against ~4 s bounded (docs/journal.md). A range scans
  // only its own rows whatever the statistics. seq is the primary key, so a count equal to the
  // range's width proves the page is contiguous, and the seqs need not travel: the page is the
  // commands' json texts joined into one array (one string, one JSON.parse; per-row result
  // decoding dominates on PGlite). ts is the command's own ts (the column is copied from it).
  const end = toSeq ?? Number.MAX_SAFE_INTEGER;
  const last = Math.min(end, afterSeq + limit);
  if (last <= afterSeq) return [];
  const r = await q.query<{ n: number | string; page: string | null }>(
    `SELECT count(*) AS n, '[' || string_agg(cmd::text, ',' ORDER BY seq) || ']' AS page
     FROM journal WHERE seq > $1 AND seq <= $2`,
    [afterSeq, last],
  );
  const n = Number(r.rows[0]?.n ?? 0);
  const page = r.rows[0]?.page;
  if (n === last - afterSeq && page !== null && page !== undefined) {
    return (JSON.parse(page) as C[]).map((cmd, i) => ({
      seq: afterSeq + 1 + i,
      ts: (cmd as { ts: number }).ts,
      cmd,
    }));
  }
  // A short page: the end of the journal (or of toSeq), or a gap in the seqs (recovery reports
  // it). Read with explicit seqs; at the end this scans no more than the rows counted above.
  const g = await q.query<{ page: string | null }>(
    `SELECT json_agg(json_build_array(seq, ts, cmd) ORDER BY seq)::text AS page
     FROM (SELECT seq, ts, cmd FROM journal WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3) p`,
    [afterSeq, end, limit],
  );
  const rows = g.rows[0]?.page;
  if (rows === null || rows === undefined) return [];
  return (JSON.parse(rows) as [number, number, C][]).map(([seq, ts, cmd]) => ({ seq, ts, cmd }));
}

/** Highest journaled seq and its ts, or {seq: 0, ts: 0} for an empty journal. */
export async function journalTail(q: Queryable): Promise<{ seq: number; ts: number }> {
  const r = await q.query<{ seq: number | string; ts: number | string }>(
    'SELECT seq, ts FROM journal ORDER BY seq DESC LIMIT 1',
  );
  const row = r.rows[0];
  return row === undefined ? { seq: 0, ts: 0 } : { seq: Number(row.seq), ts: Number(row.ts) };
}

/** Stores a snapshot and drops all but the newest `keep` snapshots, in one transaction. */
export async function writeSnapshot(store: Store, snap: SnapshotRow, keep = 2): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.query(
      'INSERT INTO snapshots (seq, hash, state) VALUES ($1, $2, $3) ON CONFLICT (seq) DO UPDATE SET hash = EXCLUDED.hash, state = EXCLUDED.state, created_at = now()',
      [snap.seq, snap.hash, snap.state],
    );
    await tx.query(
      'DELETE FROM snapshots WHERE seq NOT IN (SELECT seq FROM snapshots ORDER BY seq DESC LIMIT $1)',
      [keep],
    );
  });
}

/** Snapshot sequence numbers, newest first (without their bytes). */
export async function listSnapshots(q: Queryable): Promise<{ seq: number; hash: string }[]> {
  const r = await q.query<{ seq: number | string; hash: string }>(
    'SELECT seq, hash FROM snapshots ORDER BY seq DESC',
  );
  return r.rows.map((x) => ({ seq: Number(x.seq), hash: x.hash }));
}

/** One snapshot with its bytes, or undefined. */
export async function readSnapshot(q: Queryable, seq: number): Promise<SnapshotRow | undefined> {
  const r = await q.query<{ seq: number | string; hash: string; state: Uint8Array }>(
    'SELECT seq, hash, state FROM snapshots WHERE seq = $1',
    [seq],
  );
  const row = r.rows[0];
  return row === undefined ? undefined : { seq: Number(row.seq), hash: row.hash, state: toBytes(row.state) };
}

// node-postgres returns a Buffer (a Uint8Array subclass); PGlite a plain Uint8Array. Normalize so
// that callers comparing bytes (tests, deepEqual) see one type.
function toBytes(v: Uint8Array): Uint8Array {
  return v.constructor === Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}
