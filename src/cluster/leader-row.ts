// The `cluster_leader` row (migration 008, docs/cluster.md "Failover and fencing"): who leads, where
// commands are forwarded to, and the fencing epoch every leader commit checks. One module holds
// every statement on it, so the fencing protocol reads in one place.

import type { AppendGuard } from '../journal/journal-store.ts';
import type { Queryable } from '../store/types.ts';

/** A journal commit refused because another process became the leader since (docs/cluster.md). */
export class FencedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FencedError';
  }
}

/** Where a store's doorbell rings: per schema, since one database may hold several stores. */
export async function doorbellChannel(q: Queryable): Promise<string> {
  const r = await q.query<{ c: string }>("SELECT 'tickbook_journal_' || md5(current_schema()) AS c");
  return r.rows[0]!.c;
}

/**
 * Takes the leadership (the writer lock is held): increments the epoch and writes this process's
 * URL. The UPDATE waits for any transaction of a previous leader holding the row FOR SHARE, so once
 * it returns no such transaction is in flight, and none of that leader's later ones can commit.
 */
export async function claimLeadership(q: Queryable, url: string | undefined, node: string): Promise<number> {
  const r = await q.query<{ epoch: number }>(
    `INSERT INTO cluster_leader (id, epoch, url, node, since) VALUES (1, 1, $1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET epoch = cluster_leader.epoch + 1, url = EXCLUDED.url,
       node = EXCLUDED.node, since = EXCLUDED.since
     RETURNING epoch`,
    [url ?? null, node, Date.now()],
  );
  return Number(r.rows[0]!.epoch);
}

/**
 * The check every journal append of the leader of `epoch` makes, in the append statement itself
 * (journal-store.ts, AppendGuard): FOR SHARE holds off a successor's epoch bump until the append
 * commits; a bumped epoch finds no row and nothing is appended. The doorbell rides in the same
 * statement, evaluated only once rows were inserted, and NOTIFY is delivered only at commit.
 */
export function fencedAppend(channel: string, epoch: number): (lastSeq: number) => AppendGuard {
  return (lastSeq) => ({
    sql: 'SELECT 1 FROM cluster_leader WHERE id = 1 AND epoch = $3 FOR SHARE',
    params: [epoch, channel, String(lastSeq)],
    onAppended: 'pg_notify($4, $5)',
    refused: () => new FencedError(`epoch ${epoch} is no longer the leader's: another process took the lock`),
  });
}

/** Publishes the leader's URL (known only once it listens), if it still leads at `epoch`. */
export async function advertiseLeader(q: Queryable, url: string | undefined, epoch: number): Promise<void> {
  await q.query('UPDATE cluster_leader SET url = $1 WHERE id = 1 AND epoch = $2', [url ?? null, epoch]);
}

/** Who leads now: the URL to forward to and the epoch (none before the first leader). */
export async function readLeaderRow(q: Queryable): Promise<{ url: string | undefined; epoch: number }> {
  const r = await q.query<{ url: string | null; epoch: number }>(
    'SELECT url, epoch FROM cluster_leader WHERE id = 1',
  );
  const row = r.rows[0];
  return { url: row?.url ?? undefined, epoch: row === undefined ? 0 : Number(row.epoch) };
}

/**
 * For a writer that is not a server (the CLI's seed and import, holding the writer lock): bumps
 * the epoch so that a leader whose lock session died unnoticed is fenced out before this writer
 * commits, as at a promotion, and clears the URL (no server leads while it runs). Returns false on
 * a store without the table (the embedded store before its first PostgreSQL migration, or PGlite,
 * where the lock is the process's own).
 */
export async function fenceOutLeader(q: Queryable, who: string): Promise<boolean> {
  const r = await q.query<{ epoch: number }>(
    `UPDATE cluster_leader SET epoch = epoch + 1, url = NULL, node = $1, since = $2 WHERE id = 1
     RETURNING epoch`,
    [who, Date.now()],
  );
  return r.rows.length === 1;
}
