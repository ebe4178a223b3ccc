// SQL access to the journal and snapshot tables (migration 003_journal.sql), shared by the
// sequencer, recovery, replicas and tests. Plain PostgreSQL SQL, so both store backends run it.
//
// Appending a batch is ONE statement whatever its size: the commands travel as a single jsonb
// array parameter and are unnested server-side. That keeps the statement count per group commit
// at one (PGlite runs 4–13k statements/s, DESIGN.md §1 principle 6) and avoids PostgreSQL's
// 65,535 bind-parameter limit that a VALUES list with 3 parameters per row would hit at 21k rows.

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
 * Appends commands with consecutive sequence numbers firstSeq, firstSeq+1, ... in one statement.
 * Each command must carry a numeric `ts`. The primary key on seq makes a second writer (or a
 * sequencer that lost track of the tail) fail instead of silently interleaving.
 */
export async function appendCommands(
  q: Queryable,
  firstSeq: number,
  cmds: readonly { ts: number }[],
): Promise<void> {
  if (cmds.length === 0) return;
  await q.query(
    `INSERT INTO journal (seq, ts, cmd)
     SELECT $1::bigint + (x.o - 1), (x.c->>'ts')::bigint, x.c
     FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(c, o)`,
    [firstSeq, JSON.stringify(cmds)],
  );
}

/** Up to `limit` journal rows with seq > afterSeq (and <= toSeq when given), in order. */
export async function readJournal<C>(
  q: Queryable,
  afterSeq: number,
  limit: number,
  toSeq?: number,
): Promise<JournalRow<C>[]> {
  // The page comes back as ONE json text ([[seq, ts, cmd], ...]) parsed by one JSON.parse: on
  // PGlite the per-row cost of the wire protocol and result decoding dominates replay, and
  // aggregating server-side halves the read time (docs/journal.md). Same SQL on both backends.
  const r = await q.query<{ page: string | null }>(
    `SELECT json_agg(json_build_array(seq, ts, cmd) ORDER BY seq)::text AS page
     FROM (SELECT seq, ts, cmd FROM journal WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3) p`,
    [afterSeq, toSeq ?? Number.MAX_SAFE_INTEGER, limit],
  );
  const page = r.rows[0]?.page;
  if (page === null || page === undefined) return [];
  return (JSON.parse(page) as [number, number, C][]).map(([seq, ts, cmd]) => ({ seq, ts, cmd }));
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
