// Where the journal lives (docs/journal.md): an append-only segment file with fdatasync on the
// embedded store (file-journal.ts), the journal table on PostgreSQL (SqlJournal, below). The
// sequencer and recovery see only this interface.

import type { Store } from '../store/types.ts';
import { batchJson } from './batch-texts.ts';
import {
  appendCommands,
  type JournalRow,
  journalTail,
  listSnapshots,
  readJournal,
  readSnapshot,
  type SnapshotRow,
  writeSnapshot,
} from './journal-store.ts';

export interface JournalBackend {
  readonly kind: 'file' | 'sql';
  /**
   * Appends commands firstSeq, firstSeq+1, ...; resolves once they are durable. A rejection means
   * "outcome unknown" and the journal accepts nothing more (the sequencer stops: fail-stop).
   * `texts`, when given, are the commands' JSON, one each (batch-texts.ts): stored as they are.
   */
  append(firstSeq: number, cmds: readonly { ts: number }[], texts?: readonly string[]): Promise<void>;
  /** Up to `limit` records with seq > afterSeq (and <= toSeq when given), in order. */
  read<C>(afterSeq: number, limit: number, toSeq?: number): Promise<JournalRow<C>[]>;
  /** Highest journaled seq and its ts ({0, 0} when empty). */
  tail(): Promise<{ seq: number; ts: number }>;
  /** Stores a snapshot durably and keeps only the newest `keep`. Must not stall the event loop. */
  writeSnapshot(snap: SnapshotRow, keep?: number): Promise<void>;
  /** Snapshot seqs and hashes, newest first. */
  listSnapshots(): Promise<{ seq: number; hash: string }[]>;
  readSnapshot(seq: number): Promise<SnapshotRow | undefined>;
  close(): Promise<void>;
}

/** The journal as the `journal` and `snapshots` tables of a store (journal-store.ts). */
export class SqlJournal implements JournalBackend {
  readonly kind = 'sql' as const;
  constructor(readonly store: Store) {}
  append(firstSeq: number, cmds: readonly { ts: number }[], texts?: readonly string[]): Promise<void> {
    return appendCommands(this.store, firstSeq, cmds, undefined, texts && batchJson(texts));
  }
  read<C>(afterSeq: number, limit: number, toSeq?: number): Promise<JournalRow<C>[]> {
    return readJournal<C>(this.store, afterSeq, limit, toSeq);
  }
  tail(): Promise<{ seq: number; ts: number }> {
    return journalTail(this.store);
  }
  writeSnapshot(snap: SnapshotRow, keep = 2): Promise<void> {
    return writeSnapshot(this.store, snap, keep);
  }
  listSnapshots(): Promise<{ seq: number; hash: string }[]> {
    return listSnapshots(this.store);
  }
  readSnapshot(seq: number): Promise<SnapshotRow | undefined> {
    return readSnapshot(this.store, seq);
  }
  async close(): Promise<void> {}
}
