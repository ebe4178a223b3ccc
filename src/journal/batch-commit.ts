// The sequencer's group commit: the queue of applied commands waiting for the journal, and the
// two loops that commit them in batches (docs/journal.md, "Group commit, pipelined").
//
// At most one commit loop runs. While a commit is in flight, newly accepted commands pile up and
// all go out together in the next one — one multi-row INSERT in one transaction, or one write to
// the segment files — so the number of commits per second, not the number of commands, is what
// the store has to sustain. Owned by one Sequencer; a failed commit stops it (fail-stop, see
// sequencer.ts).

import type { Store } from '../store/types.ts';
import type { JournalBackend } from './backend.ts';
import { type BatchTexts, commandTexts } from './batch-texts.ts';
import type { DurableWaiters } from './durable-waiters.ts';
import { appendCommands } from './journal-store.ts';
import { type Pending, type SequencerOptions, SequencerStoppedError } from './sequencer-types.ts';
import type { SnapshotHolding } from './snapshot-holding.ts';

/** What the commit loops need from the Sequencer that owns them. */
export interface CommitHost<C, R> {
  /** The error the sequencer stopped with, or undefined while it runs. */
  stopError(): SequencerStoppedError | undefined;
  stop(err: SequencerStoppedError): void;
  /** Tells onCommitted listeners about a durable batch. */
  /** `texts`: the commands' JSON as the journal stored it (batch-texts.ts). */
  notify(firstSeq: number, lastSeq: number, cmds: C[], batch: Pending<C, R>[], texts: BatchTexts): void;
  /** The loop ended with nothing pending: wake flush() waiters. */
  idle(): void;
}

/**
 * Tells each command of a durable batch its result, in seq order, after the onCommitted listeners
 * (the order promises gave: their callbacks ran after this turn's listeners). A Settle may be a
 * caller's own object that writes its answer right here (Sequencer.submitTo); one that throws must
 * not keep the commands after it from their answers, nor stop the commit loop, so each call is
 * guarded and the error goes to the process's uncaught-exception handling on the next turn, as a
 * throw in a promise callback would surface as an unhandled rejection.
 */
function acknowledge<C, R>(batch: readonly Pending<C, R>[]): void {
  for (const p of batch) {
    try {
      p.to.resolve(p.result);
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}

export class BatchCommitter<C extends { ts: number }, R> {
  /** Accepted, applied commands not yet handed to a commit, in seq order. */
  pending: Pending<C, R>[] = [];
  /** True while a commit loop runs. */
  committing = false;
  private readonly maxBatch: number;
  private readonly gatherMs: number;
  private readonly appendGuard: SequencerOptions['appendGuard'];
  private readonly journal: JournalBackend | undefined;

  constructor(
    private readonly store: Store,
    private readonly durable: DurableWaiters,
    private readonly snapshots: SnapshotHolding<C, R>,
    private readonly host: CommitHost<C, R>,
    options: SequencerOptions,
  ) {
    this.maxBatch = options.maxBatch ?? 10_000;
    this.gatherMs = options.gatherMs ?? 0;
    this.appendGuard = options.appendGuard;
    this.journal = options.journal;
  }

  /** True while anything is pending or being committed. */
  get busy(): boolean {
    return this.committing || this.pending.length > 0;
  }

  /** Starts a commit loop unless one runs, nothing is pending or the sequencer has stopped. */
  kick(): void {
    if (this.committing || this.pending.length === 0 || this.host.stopError() !== undefined) return;
    this.committing = true;
    void (this.journal === undefined ? this.commitLoop() : this.pipelinedLoop(this.journal));
  }

  private gatherDelay(): Promise<void> {
    return new Promise((resolve) => {
      if (this.gatherMs > 0) setTimeout(resolve, this.gatherMs);
      else setImmediate(resolve);
    });
  }

  /** Takes the next batch (at most maxBatch commands) off the front of `pending`. */
  private cut(): Pending<C, R>[] {
    const batch = this.pending.length <= this.maxBatch ? this.pending : this.pending.slice(0, this.maxBatch);
    this.pending = batch === this.pending ? [] : this.pending.slice(batch.length);
    return batch;
  }

  /**
   * The next batch and its seqs, once the event loop's poll phase has run: requests that arrived
   * while the previous commit ran are read and applied now and join this batch. Without it, an
   * embedded store whose queries run on this thread (PGlite) blocks reading during a commit, and
   * the next commit would start with the one command that got in: batches of 1. Undefined when
   * the sequencer stopped meanwhile.
   */
  private async nextBatch(): Promise<
    { batch: Pending<C, R>[]; firstSeq: number; lastSeq: number } | undefined
  > {
    await this.gatherDelay();
    if (this.host.stopError() !== undefined) return undefined;
    const batch = this.cut();
    return { batch, firstSeq: batch[0]!.seq, lastSeq: batch[batch.length - 1]!.seq };
  }

  private async commitLoop(): Promise<void> {
    const host = this.host;
    while (this.pending.length > 0 && host.stopError() === undefined) {
      const next = await this.nextBatch();
      if (next === undefined) break;
      const { batch, firstSeq, lastSeq } = next;
      // A snapshot must show exactly the commands up to some seq. Right now every applied
      // command is in `batch` or `pending`; when pending is empty the state is exactly
      // "after lastSeq", so this is the moment to start it: new commands are held (not applied)
      // while the state is serialized in slices, and the bytes are stored once lastSeq is
      // durable (docs/journal.md, "Snapshots").
      let snapDurable: ((ok: boolean) => void) | undefined;
      if (this.pending.length === 0 && this.snapshots.dueAt(lastSeq)) {
        this.snapshots.begin(
          lastSeq,
          new Promise<boolean>((resolve) => {
            snapDurable = resolve;
          }),
        );
      }
      const cmds = batch.map((p) => p.cmd);
      const json = JSON.stringify(cmds);
      try {
        // One statement is its own transaction: all of the batch or none of it, the guard (the
        // leader's fencing) included. Not wrapped in store.transaction(): BEGIN and COMMIT are
        // round trips of their own, and on PGlite cost 4-5x the INSERT itself (measured 34 ms
        // against 7 ms per commit, docs/journal.md).
        await appendCommands(this.store, firstSeq, cmds, this.appendGuard?.(lastSeq), json);
      } catch (err) {
        const stopped = new SequencerStoppedError(
          `journal commit of seq ${firstSeq}..${lastSeq} failed; restart from the journal`,
          err,
        );
        for (const p of batch) p.to.reject(stopped);
        host.stop(stopped);
        snapDurable?.(false);
        break;
      }
      this.durable.advance(lastSeq);
      snapDurable?.(true);
      host.notify(firstSeq, lastSeq, cmds, batch, json);
      acknowledge(batch);
    }
    this.loopEnded();
  }

  /**
   * Commit loop over a JournalBackend: cut a batch, hand it to the journal (which writes it now
   * and syncs it after the sync in flight), then form the next batch while that sync runs. At
   * most two batches are unacknowledged: the one syncing and the one written behind it. Results
   * are delivered in seq order only, each after its batch's sync returned.
   */
  private async pipelinedLoop(journal: JournalBackend): Promise<void> {
    const host = this.host;
    let previous: Promise<void> = Promise.resolve();
    while (this.pending.length > 0 && host.stopError() === undefined) {
      const next = await this.nextBatch();
      if (next === undefined) break;
      const { batch, firstSeq, lastSeq } = next;
      // As in commitLoop: with nothing else pending the state is exactly "after lastSeq".
      const snapDue = this.pending.length === 0 && this.snapshots.dueAt(lastSeq);
      const cmds = batch.map((p) => p.cmd);
      const texts = commandTexts(cmds);
      const durable = journal.append(firstSeq, cmds, texts);
      const before = previous;
      previous = before.then(() =>
        durable.then(
          () => {
            if (this.durable.seq !== firstSeq - 1) {
              // An earlier batch failed: this one may not be acknowledged past the hole.
              for (const p of batch) p.to.reject(host.stopError());
              return;
            }
            this.durable.advance(lastSeq);
            host.notify(firstSeq, lastSeq, cmds, batch, texts);
            acknowledge(batch);
          },
          (err) => {
            const stopped = new SequencerStoppedError(
              `journal commit of seq ${firstSeq}..${lastSeq} failed; restart from the journal`,
              err,
            );
            for (const p of batch) p.to.reject(stopped);
            host.stop(stopped);
          },
        ),
      );
      if (snapDue)
        this.snapshots.begin(
          lastSeq,
          previous.then(() => this.durable.seq >= lastSeq),
        );
      // Let this batch's sync start behind the previous one, but no deeper: wait for the
      // previous batch before cutting the next (commands keep arriving into pending meanwhile).
      await before;
    }
    await previous;
    this.loopEnded();
  }

  /** Restarts for commands that arrived as the loop exited; otherwise reports idleness. */
  private loopEnded(): void {
    this.committing = false;
    if (this.pending.length > 0 && this.host.stopError() === undefined) {
      this.kick();
      return;
    }
    this.host.idle();
  }
}
