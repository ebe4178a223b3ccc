// The sequencer: the one writer of exchange state (principle 1 of docs/architecture.md "Principles").
//
// Apply-then-journal, as LMAX's business logic processor with an output journal: a command is
// applied to the in-memory state machine synchronously, in arrival order, the moment it is
// submitted. A rejected command changed nothing, so it is answered at once and never journaled.
// An accepted command takes the next sequence number and waits in the pending batch; its promise
// resolves only once the batch holding it is durably committed (principle 1: acknowledged only
// once durable). The group commit is in batch-commit.ts, snapshots in snapshot-holding.ts.
//
// Fail-stop: once a command is applied, memory is ahead of the journal. If a commit then fails,
// memory holds changes the journal may never get, and later commands would build on them. There
// is no safe undo (the state machine has none, and replies may already have been read), so the
// sequencer stops for good: every pending and later submit is rejected with SequencerStoppedError
// and 'fatal' is emitted. The owner must exit; the restart rebuilds state from the journal
// (recover.ts), which is the single source of truth. A rejected submit therefore means "outcome
// unknown" — exactly like a lost connection to a database: the command may or may not be in the
// journal (a COMMIT whose reply was lost is still a commit).

import { EventEmitter } from 'node:events';
import type { StateMachine } from '../exchange/types.ts';
import type { Store } from '../store/types.ts';
import { BatchCommitter } from './batch-commit.ts';
import type { BatchTexts } from './batch-texts.ts';
import { DurableWaiters } from './durable-waiters.ts';
import {
  type CommittedBatch,
  type Pending,
  type SequencerOptions,
  SequencerStoppedError,
  type Settle,
  type Submittable,
} from './sequencer-types.ts';
import type { ShadowSnapshots } from './shadow-snapshots.ts';
import { type Held, SnapshotHolding } from './snapshot-holding.ts';

export type {
  CommittedBatch,
  SequencerOptions,
  Settle,
  SnapshotStats,
  Submittable,
} from './sequencer-types.ts';
export { SequencerStoppedError } from './sequencer-types.ts';

/**
 * Events: 'fatal' (error) once, when the sequencer stops; 'snapshot' (SnapshotStats) after a
 * snapshot is stored; 'snapshotError' (error) when storing one failed (not fatal: the journal is
 * intact, recovery just replays more).
 */
export class Sequencer<C extends { ts: number }, R> extends EventEmitter {
  private seq: number;
  private lastTs: number;
  private stopError: SequencerStoppedError | undefined;
  private closed = false;
  private readonly committedListeners: ((b: CommittedBatch<C, R>) => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private readonly durable: DurableWaiters;
  private readonly snapshots: SnapshotHolding<C, R>;
  private readonly commits: BatchCommitter<C, R>;
  private readonly shadow: ShadowSnapshots | undefined;

  constructor(
    private readonly machine: StateMachine<C, R>,
    private readonly isAccepted: (r: R) => boolean,
    store: Store,
    private readonly clock: () => number = Date.now,
    options: SequencerOptions = {},
  ) {
    super();
    this.seq = options.lastSeq ?? 0;
    this.lastTs = options.lastTs ?? 0;
    if (options.journal !== undefined && options.appendGuard !== undefined) {
      throw new Error('a sequencer over a journal backend has no SQL append to guard');
    }
    this.durable = new DurableWaiters(this.seq);
    this.snapshots = new SnapshotHolding<C, R>(
      machine,
      store,
      options.journal,
      this,
      (held) => this.release(held),
      options.snapshotEvery ?? 100_000,
      options.lastSnapshotSeq ?? this.seq,
      options.shadow,
    );
    this.shadow = options.shadow;
    // The snapshot thread starts from this state: one serialization, before any command.
    if (this.shadow?.canStart === true) this.shadow.seed(machine.snapshot(), this.seq);
    this.commits = new BatchCommitter<C, R>(
      store,
      this.durable,
      this.snapshots,
      {
        stopError: () => this.stopError,
        stop: (err) => this.stop(err),
        notify: (firstSeq, lastSeq, cmds, batch, texts) => this.notify(firstSeq, lastSeq, cmds, batch, texts),
        idle: () => this.settleIdle(),
      },
      options,
    );
  }

  /** Highest seq known durable: a read model holding version <= committedSeq shows durable state. */
  get committedSeq(): number {
    return this.durable.seq;
  }

  /** Highest seq applied to the state machine (committed or waiting for its commit). */
  get appliedSeq(): number {
    return this.seq;
  }

  /** True once the sequencer has stopped after a failure (see the header). */
  get stopped(): boolean {
    return this.stopError !== undefined;
  }

  /**
   * Applies the command now; resolves with its result once durable (rejections at once). `seqs`,
   * when given, receives the command's journal seq at index 0 (0 for a rejection) before the
   * promise resolves: the acknowledgement of an order names the command it was.
   */
  submit(cmd: Submittable<C>, seqs?: number[]): Promise<R> {
    return new Promise<R>((resolve, reject) => this.submitTo(cmd, { resolve, reject }, seqs));
  }

  /**
   * `submit` without a promise: `to` is told the result once durable (a rejection at once, before
   * this returns), or the error. The group commit calls `to` itself, so a caller that writes its
   * answer there skips a promise and a microtask per layer between the commit and the answer
   * (docs/decisions.md "The placement's answer from the group commit"). `to.resolve` runs after the
   * batch's onCommitted listeners; a throw from it is not the sequencer's (see batch-commit.ts).
   */
  submitTo(cmd: Submittable<C>, to: Settle<R>, seqs?: number[]): void {
    const gate = this.gate();
    if (gate !== undefined) {
      to.reject(gate);
      return;
    }
    if (this.snapshots.holding) {
      this.snapshots.holdTo(cmd, to, seqs);
      return;
    }
    let result: R;
    try {
      result = this.applyOne(cmd, to);
    } catch (err) {
      to.reject(err);
      return;
    }
    if (seqs !== undefined) seqs[0] = this.lastApplied;
    if (this.lastApplied === 0) {
      to.resolve(result);
      return;
    }
    this.commits.kick();
  }

  /**
   * Applies every command in order and resolves with one result per command once all accepted
   * ones are durable. They are normally committed together (they may span two commits when the
   * batch exceeds maxBatch). If a command's apply throws, the sequencer stops (fail-stop).
   * `seqs`, when given, receives each command's journal seq in order (0 for a rejection).
   */
  submitMany(cmds: readonly Submittable<C>[], seqs?: number[]): Promise<R[]> {
    const gate = this.gate();
    if (gate !== undefined) return Promise.reject(gate);
    if (this.snapshots.holding) return this.snapshots.hold(cmds, true, seqs) as Promise<R[]>;
    const results: R[] = [];
    return new Promise<R[]>((resolve, reject) => {
      const all = new AllDurable<R>(results, { resolve, reject });
      for (const cmd of cmds) {
        let result: R;
        try {
          result = this.applyOne(cmd, all);
        } catch {
          break; // applyOne stopped the sequencer; handled below
        }
        if (seqs !== undefined) seqs[results.length] = this.lastApplied;
        results.push(result);
        if (this.lastApplied !== 0) all.waiting++;
      }
      if (this.stopError !== undefined) return all.reject(this.stopError);
      this.commits.kick();
      all.applied();
    });
  }

  /** Registers a listener called after each durable commit, in seq order. Returns an unsubscribe. */
  onCommitted(listener: (b: CommittedBatch<C, R>) => void): () => void {
    this.committedListeners.push(listener);
    return () => {
      const i = this.committedListeners.indexOf(listener);
      if (i >= 0) this.committedListeners.splice(i, 1);
    };
  }

  /** Resolves when nothing is pending or in flight (or the sequencer has stopped). */
  flush(): Promise<void> {
    if (!this.commits.busy && this.snapshots.held.length === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Refuses new commands, waits for pending commits, writes a final snapshot (so the next start
   * replays nothing) and waits for snapshot writes. Does not close the store (its owner does).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.snapshotNow();
    } finally {
      await this.shadow?.close();
    }
  }

  /** Takes a snapshot of the current state now (all applied commands must be durable first). */
  async snapshotNow(): Promise<void> {
    // Waits for durability of what is applied, not for idleness: under a steady stream of
    // commands the sequencer may never be idle. On close nothing new arrives, so flush() ends.
    const target = this.seq;
    if (this.closed) await this.flush();
    else await this.durable.when(target);
    // The commit loop may start one meanwhile: at most one snapshot at a time.
    while (this.snapshots.write !== undefined) await this.snapshots.write;
    const shadow = this.shadow;
    if (this.stopError === undefined && shadow?.live === true && shadow.seq > this.snapshots.lastSeq) {
      // The thread has been sent every durable batch, target's included (shadow.seq >= target).
      this.snapshots.beginShadow(shadow);
      await this.snapshots.write;
      if (this.snapshots.lastSeq >= target) return;
      // It failed meanwhile ('snapshotError' said so): take this one in line.
    }
    if (this.stopError === undefined && this.seq > this.snapshots.lastSeq) {
      // Commands applied meanwhile are in the state: the snapshot is at this.seq, stored once
      // that seq is durable.
      const seq = this.seq;
      this.snapshots.begin(seq, this.durable.when(seq));
      await this.snapshots.write;
    }
  }

  // ------------------------------------------------------------------ internals

  private gate(): Error | undefined {
    if (this.stopError !== undefined) return this.stopError;
    if (this.closed) return new SequencerStoppedError('sequencer is closed');
    return undefined;
  }

  /** Journal seq of the command applyOne applied last; 0 when the machine rejected it. */
  private lastApplied = 0;

  /**
   * Applies one command; an accepted one takes the next seq (`lastApplied`) and waits for its
   * commit, which tells `to`. Returns the machine's result (a rejection is nobody's to wait for).
   */
  private applyOne(input: Submittable<C>, to: Settle<R>): R {
    // The clock is read here, outside the state machine (principle 2), and never runs backwards
    // in the journal even if the wall clock does (NTP step): replay sees the same ts order.
    const now = input.ts ?? this.clock();
    const ts = Math.max(now, this.lastTs);
    const cmd = { ...input, ts } as unknown as C;
    let result: R;
    try {
      result = this.machine.apply(cmd);
    } catch (err) {
      // A throwing apply may have changed part of the state: nothing in memory can be trusted.
      this.stop(
        new SequencerStoppedError(
          'state machine threw while applying a command; restart from the journal',
          err,
        ),
      );
      throw this.stopError;
    }
    if (!this.isAccepted(result)) {
      this.lastApplied = 0;
      return result;
    }
    this.lastTs = ts;
    const seq = ++this.seq;
    // A machine that numbers commands itself (Exchange.lastSeq, used in fills) must agree with
    // the journal; disagreement means the sequencer was started with the wrong lastSeq.
    const own = (this.machine as { lastSeq?: unknown }).lastSeq;
    if (typeof own === 'number' && own !== seq) {
      this.stop(
        new SequencerStoppedError(
          `state machine is at seq ${own}, journal at ${seq}: wrong lastSeq at start`,
        ),
      );
      throw this.stopError;
    }
    this.lastApplied = seq;
    this.commits.pending.push({ seq, cmd, result, to });
    return result;
  }

  private notify(
    firstSeq: number,
    lastSeq: number,
    cmds: C[],
    batch: Pending<C, R>[],
    texts: BatchTexts,
  ): void {
    this.snapshots.committed(firstSeq, lastSeq, cmds, texts);
    if (this.committedListeners.length === 0) return;
    const b: CommittedBatch<C, R> = {
      firstSeq,
      lastSeq,
      commands: cmds,
      results: batch.map((p) => p.result),
    };
    for (const l of this.committedListeners) {
      try {
        l(b);
      } catch (err) {
        // A read model's bug must not stop the writer; it is reported, not swallowed.
        this.emit('listenerError', err);
      }
    }
  }

  /** Applies the commands held during a snapshot's serialization, in arrival order. */
  private release(held: Held<C, R>[]): void {
    for (const h of held) {
      if (h.many) this.submitMany(h.cmds, h.seqs).then(h.resolve, h.reject);
      // Answered from its commit like any submitTo, in seq order with the batch (a held submit's
      // resolve is its promise's).
      else this.submitTo(h.cmds[0]!, h, h.seqs);
    }
    if (!this.commits.busy) this.settleIdle();
  }

  /** Wakes flush() waiters, unless commands still wait for a serialization to end. */
  private settleIdle(): void {
    if (this.snapshots.held.length > 0 && this.stopError === undefined) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private stop(err: SequencerStoppedError): void {
    if (this.stopError !== undefined) return;
    this.stopError = err;
    const pending = this.commits.pending;
    this.commits.pending = [];
    for (const p of pending) p.to.reject(err);
    this.snapshots.rejectHeld(err);
    void this.shadow?.close();
    this.durable.stop();
    for (const w of this.idleWaiters.splice(0)) w();
    // 'fatal' without a listener would not throw (not named 'error'), so an owner that forgot to
    // listen still gets rejections on every submit.
    this.emit('fatal', err);
  }
}

/**
 * The one Settle of a submitMany's accepted commands: resolves with every result once the last of
 * them is durable, rejects once on the first failure. `waiting` counts the accepted commands not
 * yet durable, plus one until every command is applied (a commit cannot finish the set early).
 */
class AllDurable<R> implements Settle<R> {
  waiting = 1;
  private failed = false;

  constructor(
    private readonly results: R[],
    private readonly done: Settle<R[]>,
  ) {}

  resolve(): void {
    if (--this.waiting === 0 && !this.failed) this.done.resolve(this.results);
  }

  /** Every command of the set is applied (the commits may already have made some durable). */
  applied(): void {
    this.resolve();
  }

  reject(err: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.done.reject(err);
  }
}
