// The sequencer's public types (re-exported by sequencer.ts, where importers take them from) and
// the one record its parts share: a command applied and waiting for its commit.

import type { JournalBackend } from './backend.ts';
import type { AppendGuard } from './journal-store.ts';
import type { ShadowSnapshots } from './shadow-snapshots.ts';

export interface SequencerOptions {
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
   * A condition every journal append of this sequencer must meet, checked in the append statement
   * (journal-store.ts): the scale-out leader's fencing (docs/cluster.md). A refused append
   * acknowledges nothing of its batch and stops the sequencer. Given the batch's last seq.
   */
  appendGuard?: (lastSeq: number) => AppendGuard;
  /**
   * Journal somewhere else than the store's journal table: the embedded store's segment files
   * (file-journal.ts). Commits are then pipelined: the next batch is written while the previous
   * one's fdatasync runs, and acknowledgements still go out strictly in seq order, each only
   * after its own sync returned. Cannot be combined with appendGuard.
   */
  journal?: JournalBackend;
  /**
   * Take snapshots on this thread instead of in line (shadow-snapshots.ts): the sequencer seeds
   * it with the state it starts from unless it already runs, sends it every durable batch, and
   * falls back to in-line snapshots while it is down. Closed with the sequencer.
   */
  shadow?: ShadowSnapshots;
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
  /** Wall time of the serialization (and, on the snapshot thread, of its hash). */
  ms: number;
  /** How long new commands were held for it: 0 on the snapshot thread, `ms` in line. */
  heldMs: number;
  /** Where it was serialized: the snapshot thread, or the sequencer's own (in line, the fallback). */
  thread: 'snapshot' | 'sequencer';
  /** Slices the serialization ran on the sequencer's thread, and the longest one (the longest
   * event-loop block); 0 on the snapshot thread. */
  slices: number;
  sliceMaxMs: number;
}

/**
 * Where an outcome goes: a promise's two resolving functions fit it, and so does an object of the
 * caller's that carries on from the result itself (`Sequencer.submitTo`), so a placement's answer
 * is written from the group commit's own callback instead of through a promise per layer.
 */
export interface Settle<T> {
  resolve(value: T): void;
  reject(err: unknown): void;
}

/** Tells `to` the outcome of a promise: where a path that has no Settle of its own meets one. */
export function settleFrom<T>(p: Promise<T>, to: Settle<T>): void {
  p.then(
    (v) => to.resolve(v),
    (e) => to.reject(e),
  );
}

/** An accepted, applied command waiting for its commit; internal to src/journal/. */
export interface Pending<C, R> {
  seq: number;
  cmd: C;
  result: R;
  /** Told the result once the command is durable, or why it never will be. */
  to: Settle<R>;
}
