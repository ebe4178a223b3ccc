// What a replica does with the journal rows it reads (docs/cluster.md "Replicas follow the
// journal"): recovery like a restart, then each row applied to its own Exchange in seq order and
// reported to the state feed. A gap, a command that throws or one the machine rejects means
// determinism is broken: the caller stops serving that state and rebuilds it from the store.

import { Exchange } from '../exchange/exchange.ts';
import type { Command, CommandResult } from '../exchange/types.ts';
import { RecoveryError, type RecoveryResult, recover } from '../journal/recover.ts';
import type { Store } from '../store/types.ts';
import type { StateFeed } from './state-feed.ts';

/** Journal rows read per query while following. */
export const FOLLOW_PAGE = 5000;

/** Snapshot + journal; up to `toSeq` when given (a rebuild that keeps the stream continuous). */
export async function recoverState(store: Store, toSeq?: number): Promise<RecoveryResult<Exchange>> {
  return recover<Command, CommandResult, Exchange>(store, () => new Exchange(), {
    isAccepted: (r) => r.ok,
    ...(toSeq !== undefined ? { toSeq } : {}),
  });
}

export type ApplyOutcome =
  | { ok: true; lastTs: number | undefined }
  | { ok: false; reason: string; err: unknown; lastTs: number | undefined };

/**
 * Applies `rows` (the journal after ex.lastSeq) to `ex`, feeding each accepted command to `feed`
 * when something listens, and reports the page durable (a replica applies only committed rows).
 * Stops at the first row that breaks determinism.
 */
export function applyFollowedRows(
  ex: Exchange,
  rows: readonly { seq: number; ts: number; cmd: Command }[],
  feed: StateFeed,
): ApplyOutcome {
  // Read once, after the page arrived and before any row is applied (no await in between): a
  // consumer attached meanwhile sees every row of this page or none, never part of it.
  const feeding = feed.listening;
  let lastTs: number | undefined;
  let good = ex.lastSeq;
  const broken = (reason: string, err: unknown): ApplyOutcome => {
    // The rows applied before are journaled commands: durable, whatever comes next.
    feed.commit(good);
    return { ok: false, reason, err, lastTs };
  };
  for (const row of rows) {
    if (row.seq !== good + 1) {
      return broken('journal gap', new RecoveryError(`journal gap: seq ${row.seq} follows ${good}`));
    }
    let r: CommandResult;
    try {
      r = ex.apply(row.cmd);
    } catch (err) {
      return broken('journaled command threw on a replica', err);
    }
    if (!r.ok) {
      const err = new RecoveryError(`seq ${row.seq} (${row.cmd.type}) rejected: ${r.code}`);
      return broken('journaled command rejected on a replica', err);
    }
    good = row.seq;
    lastTs = row.ts;
    if (feeding) feed.apply(row.cmd, r.events, row.seq);
  }
  feed.commit(good);
  return { ok: true, lastTs };
}
