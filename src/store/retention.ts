// Disk retention for a long-running store (docs/disk-use.md). The living demo journals a steady
// stream of market-maker requotes; on the embedded store (PGlite runs PostgreSQL in single-user
// mode: no checkpointer, no autovacuum) that grew the data directory by ~50 MB a minute, mostly
// WAL that no checkpoint ever recycled, plus dead rows that no vacuum ever reclaimed.
//
// One pass (runOnce) does, as configured:
//  1. journal retention: drop journal rows the oldest kept snapshot already covers (recovery loads
//     a snapshot and replays only the rows after it, docs/journal.md);
//  2. history pruning: drop order-history rows of orders cancelled without any fill, older than a
//     cutoff (the demo market maker's requotes; they moved no money and carry no fills);
//  3. VACUUM of the tables it deleted from, then CHECKPOINT, so PostgreSQL can recycle WAL.
// The interface is the Retention class; the journal's own storage may change without touching it
// beyond journalRetention().

import type { Log } from '../observability/log.ts';
import type { Store } from './types.ts';

export interface RetentionPolicy {
  /** Drop journal rows at or below the oldest stored snapshot's seq. */
  pruneJournal: boolean;
  /**
   * How the journal is pruned when it is not the store's table (the embedded store's segment
   * files, docs/journal.md "Retention"): returns what it removed, counted as rows of the report.
   */
  pruneJournalWith?: () => Promise<number>;
  /** Drop cancelled, never-filled orders last updated longer ago than this (ms); 0 keeps them. */
  canceledOrderMaxAgeMs: number;
  /** VACUUM and CHECKPOINT after deleting (the embedded store has no background processes). */
  vacuumAndCheckpoint: boolean;
}

export interface RetentionReport {
  journalRows: number;
  orderRows: number;
  ms: number;
}

export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RetentionReport> | undefined;

  constructor(
    private readonly store: Store,
    private readonly policy: RetentionPolicy,
    private readonly clock: () => number = Date.now,
  ) {}

  /** One retention pass. Safe beside the sequencer: it deletes only rows nothing reads again. */
  async runOnce(): Promise<RetentionReport> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<RetentionReport> {
    const t0 = performance.now();
    let journalRows = 0;
    let orderRows = 0;
    if (this.policy.pruneJournal) journalRows = await this.pruneJournal();
    if (this.policy.canceledOrderMaxAgeMs > 0) {
      const cutoff = this.clock() - this.policy.canceledOrderMaxAgeMs;
      const r = await this.store.query(
        `DELETE FROM order_history WHERE status = 'CANCELED' AND qty = original_qty AND updated_at < $1`,
        [cutoff],
      );
      orderRows = r.affectedRows ?? 0;
    }
    if (this.policy.vacuumAndCheckpoint) {
      if (journalRows > 0 && this.policy.pruneJournalWith === undefined)
        await this.store.exec('VACUUM journal');
      if (orderRows > 0) await this.store.exec('VACUUM order_history');
      await this.store.exec('CHECKPOINT');
    }
    return { journalRows, orderRows, ms: performance.now() - t0 };
  }

  /** Journal rows the oldest kept snapshot covers; both snapshots stay restorable. */
  private async pruneJournal(): Promise<number> {
    if (this.policy.pruneJournalWith !== undefined) return this.policy.pruneJournalWith();
    const s = await this.store.query<{ seq: number | string | null }>(
      'SELECT min(seq) AS seq FROM snapshots',
    );
    const covered = Number(s.rows[0]?.seq ?? 0);
    if (!(covered > 0)) return 0;
    const r = await this.store.query('DELETE FROM journal WHERE seq <= $1', [covered]);
    return r.affectedRows ?? 0;
  }

  /** Runs a pass every `everyMs`, logging what it removed; failures are logged, not thrown. */
  start(everyMs: number, log: Log): void {
    this.stop();
    this.timer = setInterval(() => {
      this.runOnce().then(
        (r) => {
          if (r.journalRows + r.orderRows > 0) log.info(r, 'retention pass');
        },
        (err: unknown) => log.warn({ err }, 'retention pass failed'),
      );
    }, everyMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a running pass. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => {});
  }
}
