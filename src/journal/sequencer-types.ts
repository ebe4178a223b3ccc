// The sequencer's public types (re-exported by sequencer.ts, where importers take them from) and
// the one record its parts share: a command applied and waiting for its commit.

import type { Queryable } from '../store/types.ts';
import type { JournalBackend } from './backend.ts';

export interface SequencerOptions<C = unknown, R = unknown> {
  /** Take a state snapshot after this many journaled commands (config.snapshotEvery). */
  snapshotEvery?: number;
  /** Most commands in one group commit. */
  maxBatch?: number;
  /** Sequence number of the last journaled command (from recover()); 0 for an empty journal. */
  lastSeq?: number;
  /** ts of the last journaled command; new stamps never go below it. */
  lastTs?: number;
  /** Seq of the newest stored snapshot (from recover()), so the next one is due on time. */
  lastSnapshotSeq?: number;
  /**
   * Extra milliseconds a batch waits for more commands before its commit starts
   * (GROUP_COMMIT_MAX_WAIT_MS); 0 waits only for one turn of the event loop.
   */
  gatherMs?: number;
  /**
   * Extra writes made inside each journal transaction, after the journal rows (the SQL history
   * read model): they commit or roll back together with the commands that produced them.
   */
  inTransaction?: (tx: Queryable, batch: CommittedBatch<C, R>) => Promise<void>;
  /**
   * Journal somewhere else than the store's journal table: the embedded store's segment files
   * (file-journal.ts). Commits are then pipelined: the next batch is written while the previous
   * one's fdatasync runs, and acknowledgements still go out strictly in seq order, each only
   * after its own sync returned. Cannot be combined with inTransaction.
   */
  journal?: JournalBackend;
}

/** What onCommitted listeners receive: commands firstSeq..lastSeq, now durable. */
export interface CommittedBatch<C, R> {
  firstSeq: number;
  lastSeq: number;
  commands: readonly C[];
  results: readonly R[];
}

export class SequencerStoppedError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'SequencerStoppedError';
  }
}

/** A command without its ts (the sequencer stamps it); distributes over a union of commands. */
export type Submittable<C> = C extends unknown ? Omit<C, 'ts'> & { ts?: number } : never;

/** What the 'snapshot' event carries (docs/journal.md, "Snapshots"). */
export interface SnapshotStats {
  seq: number;
  bytes: number;
  /** Wall time of the serialization: how long new commands were held. */
  ms: number;
  /** Slices the serialization ran in, and the longest one (the longest event-loop block). */
  slices: number;
  sliceMaxMs: number;
}

/** An accepted, applied command waiting for its commit; internal to src/journal/. */
export interface Pending<C, R> {
  seq: number;
  cmd: C;
  result: R;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}
