// The sequencer: the one writer of exchange state (DESIGN.md §1 principle 1).
//
// Apply-then-journal, as LMAX's business logic processor with an output journal: a command is
// applied to the in-memory state machine synchronously, in arrival order, the moment it is
// submitted. A rejected command changed nothing, so it is answered at once and never journaled.
// An accepted command takes the next sequence number and waits in the pending batch; its promise
// resolves only once the batch holding it is durably committed (principle 1: acknowledged only
// once durable).
//
// Group commit: at most one commit is in flight. While it runs, newly accepted commands pile up
// and all go out together in the next commit — one multi-row INSERT in one transaction — so the
// number of commits per second, not the number of commands, is what the store has to sustain.
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
import type { Queryable, Store } from '../store/types.ts';
import type { JournalBackend } from './backend.ts';
import { sha256Chunked } from './file-journal.ts';
import { appendCommands, writeSnapshot } from './journal-store.ts';

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

/** A command submitted while a snapshot is being serialized: applied once it is done. */
interface Held<C, R> {
  cmds: readonly Submittable<C>[];
  many: boolean;
  resolve: (r: R | R[]) => void;
  reject: (e: unknown) => void;
}

interface Pending<C, R> {
  seq: number;
  cmd: C;
  result: R;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
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

/**
 * Events: 'fatal' (error) once, when the sequencer stops; 'snapshot' (SnapshotStats) after a
 * snapshot is stored; 'snapshotError' (error) when storing one failed (not fatal: the journal is
 * intact, recovery just replays more).
 */
export class Sequencer<C extends { ts: number }, R> extends EventEmitter {
  private pending: Pending<C, R>[] = [];
  private committing = false;
  private seq: number;
  private lastTs: number;
  private durableSeq: number;
  private stopError: SequencerStoppedError | undefined;
  private closed = false;
  private readonly committedListeners: ((b: CommittedBatch<C, R>) => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private readonly snapshotEvery: number;
  private readonly maxBatch: number;
  private lastSnapshotSeq: number;
  private snapshotWrite: Promise<void> | undefined;
  /** True while a snapshot is being serialized: submits wait in `held`, unapplied. */
  private holding = false;
  private held: Held<C, R>[] = [];
  private durableWaiters: { seq: number; resolve: (ok: boolean) => void }[] = [];
  private readonly inTransaction: SequencerOptions<C, R>['inTransaction'];
  private readonly gatherMs: number;
  private readonly journal: JournalBackend | undefined;

  constructor(
    private readonly machine: StateMachine<C, R>,
    private readonly isAccepted: (r: R) => boolean,
    private readonly store: Store,
    private readonly clock: () => number = Date.now,
    options: SequencerOptions<C, R> = {},
  ) {
    super();
    this.seq = options.lastSeq ?? 0;
    this.durableSeq = this.seq;
    this.lastTs = options.lastTs ?? 0;
    this.snapshotEvery = options.snapshotEvery ?? 100_000;
    this.maxBatch = options.maxBatch ?? 10_000;
    this.lastSnapshotSeq = options.lastSnapshotSeq ?? this.seq;
    this.inTransaction = options.inTransaction;
    this.gatherMs = options.gatherMs ?? 0;
    this.journal = options.journal;
    if (this.journal !== undefined && this.inTransaction !== undefined) {
      throw new Error('a sequencer over a journal backend has no SQL transaction to share');
    }
  }

  /** Highest seq known durable: a read model holding version <= committedSeq shows durable state. */
  get committedSeq(): number {
    return this.durableSeq;
  }

  /** Highest seq applied to the state machine (committed or waiting for its commit). */
  get appliedSeq(): number {
    return this.seq;
  }

  /** True once the sequencer has stopped after a failure (see the header). */
  get stopped(): boolean {
    return this.stopError !== undefined;
  }

  /** Applies the command now; resolves with its result once durable (rejections at once). */
  submit(cmd: Submittable<C>): Promise<R> {
    const gate = this.gate();
    if (gate !== undefined) return Promise.reject(gate);
    if (this.holding) return this.hold([cmd], false) as Promise<R>;
    let applied: { result: R; pending?: Promise<R> };
    try {
      applied = this.applyOne(cmd);
    } catch (err) {
      return Promise.reject(err);
    }
    if (applied.pending === undefined) return Promise.resolve(applied.result);
    this.kick();
    return applied.pending;
  }

  /**
   * Applies every command in order and resolves with one result per command once all accepted
   * ones are durable. They are normally committed together (they may span two commits when the
   * batch exceeds maxBatch). If a command's apply throws, the sequencer stops (fail-stop).
   */
  submitMany(cmds: readonly Submittable<C>[]): Promise<R[]> {
    const gate = this.gate();
    if (gate !== undefined) return Promise.reject(gate);
    if (this.holding) return this.hold(cmds, true) as Promise<R[]>;
    const results: R[] = [];
    const waits: Promise<R>[] = [];
    for (const cmd of cmds) {
      let applied: { result: R; pending?: Promise<R> };
      try {
        applied = this.applyOne(cmd);
      } catch {
        break; // applyOne stopped the sequencer; handled below
      }
      results.push(applied.result);
      if (applied.pending !== undefined) waits.push(applied.pending);
    }
    if (this.stopError !== undefined) {
      for (const w of waits) w.catch(() => {});
      return Promise.reject(this.stopError);
    }
    this.kick();
    return Promise.all(waits).then(() => results);
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
    if (!this.committing && this.pending.length === 0 && this.held.length === 0) {
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
    await this.snapshotNow();
  }

  /** Takes a snapshot of the current state now (all applied commands must be durable first). */
  async snapshotNow(): Promise<void> {
    // Waits for durability of what is applied, not for idleness: under a steady stream of
    // commands the sequencer may never be idle. On close nothing new arrives, so flush() ends.
    if (this.closed) await this.flush();
    else await this.whenDurable(this.seq);
    // The commit loop may start one meanwhile: at most one snapshot at a time.
    while (this.snapshotWrite !== undefined) await this.snapshotWrite;
    if (this.stopError === undefined && this.seq > this.lastSnapshotSeq) {
      // Commands applied meanwhile are in the state: the snapshot is at this.seq, stored once
      // that seq is durable.
      const seq = this.seq;
      this.beginSnapshot(seq, this.whenDurable(seq));
      await this.snapshotWrite;
    }
  }

  /** Resolves true once seq is durable, false if the sequencer stops first. */
  private whenDurable(seq: number): Promise<boolean> {
    if (this.durableSeq >= seq) return Promise.resolve(true);
    if (this.stopError !== undefined) return Promise.resolve(false);
    return new Promise((resolve) => this.durableWaiters.push({ seq, resolve }));
  }

  private setDurable(seq: number): void {
    this.durableSeq = seq;
    if (this.durableWaiters.length === 0) return;
    const due = this.durableWaiters.filter((w) => w.seq <= seq);
    this.durableWaiters = this.durableWaiters.filter((w) => w.seq > seq);
    for (const w of due) w.resolve(true);
  }

  // ------------------------------------------------------------------ internals

  private gate(): Error | undefined {
    if (this.stopError !== undefined) return this.stopError;
    if (this.closed) return new SequencerStoppedError('sequencer is closed');
    return undefined;
  }

  private applyOne(input: Submittable<C>): { result: R; pending?: Promise<R> } {
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
    if (!this.isAccepted(result)) return { result };
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
    const pending = new Promise<R>((resolve, reject) => {
      this.pending.push({ seq, cmd, result, resolve, reject });
    });
    return { result, pending };
  }

  private gatherDelay(): Promise<void> {
    return new Promise((resolve) => {
      if (this.gatherMs > 0) setTimeout(resolve, this.gatherMs);
      else setImmediate(resolve);
    });
  }

  private kick(): void {
    if (this.committing || this.pending.length === 0 || this.stopError !== undefined) return;
    this.committing = true;
    void (this.journal === undefined ? this.commitLoop() : this.pipelinedLoop(this.journal));
  }

  private async commitLoop(): Promise<void> {
    while (this.pending.length > 0 && this.stopError === undefined) {
      // Let the event loop's poll phase run before forming the batch: requests that arrived while
      // the previous commit ran are read and applied now and join this commit. Without it, an
      // embedded store whose queries run on this thread (PGlite) blocks reading during a commit,
      // and the next commit would start with the one command that got in: batches of 1.
      await this.gatherDelay();
      if (this.stopError !== undefined) break;
      const batch =
        this.pending.length <= this.maxBatch ? this.pending : this.pending.slice(0, this.maxBatch);
      this.pending = batch === this.pending ? [] : this.pending.slice(batch.length);
      const firstSeq = batch[0]!.seq;
      const lastSeq = batch[batch.length - 1]!.seq;
      // A snapshot must show exactly the commands up to some seq. Right now every applied
      // command is in `batch` or `pending`; when pending is empty the state is exactly
      // "after lastSeq", so this is the moment to start it: new commands are held (not applied)
      // while the state is serialized in slices, and the bytes are stored once lastSeq is
      // durable (docs/journal.md, "Snapshots").
      let snapDurable: ((ok: boolean) => void) | undefined;
      if (
        this.pending.length === 0 &&
        lastSeq - this.lastSnapshotSeq >= this.snapshotEvery &&
        this.snapshotWrite === undefined
      ) {
        this.beginSnapshot(
          lastSeq,
          new Promise<boolean>((resolve) => {
            snapDurable = resolve;
          }),
        );
      }
      const cmds = batch.map((p) => p.cmd);
      try {
        const extra = this.inTransaction;
        if (extra === undefined) {
          // One statement is its own transaction: all of the batch or none of it. Not wrapped in
          // store.transaction(): the BEGIN/COMMIT round trips cost 4-5x the INSERT itself on
          // PGlite (measured 34 ms against 7 ms per commit, docs/journal.md).
          await appendCommands(this.store, firstSeq, cmds);
        } else {
          await this.store.transaction(async (tx) => {
            await appendCommands(tx, firstSeq, cmds);
            await extra(tx, { firstSeq, lastSeq, commands: cmds, results: batch.map((p) => p.result) });
          });
        }
      } catch (err) {
        const stopped = new SequencerStoppedError(
          `journal commit of seq ${firstSeq}..${lastSeq} failed; restart from the journal`,
          err,
        );
        for (const p of batch) p.reject(stopped);
        this.stop(stopped);
        snapDurable?.(false);
        break;
      }
      this.setDurable(lastSeq);
      snapDurable?.(true);
      for (const p of batch) p.resolve(p.result);
      this.notify(firstSeq, lastSeq, cmds, batch);
    }
    this.committing = false;
    if (this.pending.length > 0 && this.stopError === undefined) {
      this.kick();
      return;
    }
    this.settleIdle();
  }

  /**
   * Commit loop over a JournalBackend: cut a batch, hand it to the journal (which writes it now
   * and syncs it after the sync in flight), then form the next batch while that sync runs. At
   * most two batches are unacknowledged: the one syncing and the one written behind it. Results
   * are delivered in seq order only, each after its batch's sync returned.
   */
  private async pipelinedLoop(journal: JournalBackend): Promise<void> {
    let previous: Promise<void> = Promise.resolve();
    while (this.pending.length > 0 && this.stopError === undefined) {
      await this.gatherDelay();
      if (this.stopError !== undefined) break;
      const batch =
        this.pending.length <= this.maxBatch ? this.pending : this.pending.slice(0, this.maxBatch);
      this.pending = batch === this.pending ? [] : this.pending.slice(batch.length);
      const firstSeq = batch[0]!.seq;
      const lastSeq = batch[batch.length - 1]!.seq;
      // As in commitLoop: with nothing else pending the state is exactly "after lastSeq".
      const snapDue =
        this.pending.length === 0 &&
        lastSeq - this.lastSnapshotSeq >= this.snapshotEvery &&
        this.snapshotWrite === undefined;
      const cmds = batch.map((p) => p.cmd);
      const durable = journal.append(firstSeq, cmds);
      const before = previous;
      previous = before.then(() =>
        durable.then(
          () => {
            if (this.durableSeq !== firstSeq - 1) {
              // An earlier batch failed: this one may not be acknowledged past the hole.
              for (const p of batch) p.reject(this.stopError);
              return;
            }
            this.setDurable(lastSeq);
            for (const p of batch) p.resolve(p.result);
            this.notify(firstSeq, lastSeq, cmds, batch);
          },
          (err) => {
            const stopped = new SequencerStoppedError(
              `journal commit of seq ${firstSeq}..${lastSeq} failed; restart from the journal`,
              err,
            );
            for (const p of batch) p.reject(stopped);
            this.stop(stopped);
          },
        ),
      );
      if (snapDue)
        this.beginSnapshot(
          lastSeq,
          previous.then(() => this.durableSeq >= lastSeq),
        );
      // Let this batch's sync start behind the previous one, but no deeper: wait for the
      // previous batch before cutting the next (commands keep arriving into pending meanwhile).
      await before;
    }
    await previous;
    this.committing = false;
    if (this.pending.length > 0 && this.stopError === undefined) {
      this.kick();
      return;
    }
    this.settleIdle();
  }

  private notify(firstSeq: number, lastSeq: number, cmds: C[], batch: Pending<C, R>[]): void {
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

  /**
   * Starts a snapshot of the state as it is now (exactly the commands up to `seq`): serializes it
   * in slices with event-loop turns between them, holding new commands meanwhile, then hashes and
   * stores the bytes (in chunks, off the request path) once `durable` says seq is durable.
   */
  private beginSnapshot(seq: number, durable: Promise<boolean>): void {
    this.lastSnapshotSeq = seq;
    this.snapshotWrite = this.serializeHolding()
      .then(async (s) => {
        if (!(await durable)) return; // the commit failed: the sequencer has stopped
        const hash = await sha256Chunked(s.bytes);
        const snap = { seq, hash, state: s.bytes };
        if (this.journal !== undefined) await this.journal.writeSnapshot(snap);
        else await writeSnapshot(this.store, snap);
        const stats: SnapshotStats = {
          seq,
          bytes: s.bytes.byteLength,
          ms: s.ms,
          slices: s.slices,
          sliceMaxMs: s.sliceMaxMs,
        };
        this.emit('snapshot', stats);
      })
      .then(undefined, (err) => {
        this.emit('snapshotError', err);
      })
      .finally(() => {
        this.snapshotWrite = undefined;
      });
  }

  /**
   * Serializes the state; the first slice runs now (synchronously, so no command can slip in
   * before it), the rest each after a setImmediate, so I/O (reads, which do not mutate) is served
   * between slices. Submits meanwhile wait in `held` and are applied, in order, when it is done.
   */
  private async serializeHolding(): Promise<{
    bytes: Uint8Array;
    ms: number;
    slices: number;
    sliceMaxMs: number;
  }> {
    const t0 = performance.now();
    const gen = this.machine.snapshotSlices?.();
    if (gen === undefined) {
      const bytes = this.machine.snapshot();
      const ms = performance.now() - t0;
      return { bytes, ms, slices: 1, sliceMaxMs: ms };
    }
    this.holding = true;
    try {
      let slices = 0;
      let sliceMaxMs = 0;
      for (;;) {
        const t = performance.now();
        const step = gen.next();
        slices++;
        sliceMaxMs = Math.max(sliceMaxMs, performance.now() - t);
        if (step.done) return { bytes: step.value, ms: performance.now() - t0, slices, sliceMaxMs };
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.holding = false;
      this.release();
    }
  }

  private hold(cmds: readonly Submittable<C>[], many: boolean): Promise<R | R[]> {
    return new Promise<R | R[]>((resolve, reject) => {
      this.held.push({ cmds, many, resolve, reject });
    });
  }

  /** Applies the commands held during a serialization, in arrival order. */
  private release(): void {
    const held = this.held;
    this.held = [];
    for (const h of held) {
      if (h.many) this.submitMany(h.cmds).then(h.resolve, h.reject);
      else this.submit(h.cmds[0]!).then(h.resolve, h.reject);
    }
    if (!this.committing && this.pending.length === 0) this.settleIdle();
  }

  /** Wakes flush() waiters, unless commands still wait for a serialization to end. */
  private settleIdle(): void {
    if (this.held.length > 0 && this.stopError === undefined) return;
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private stop(err: SequencerStoppedError): void {
    if (this.stopError !== undefined) return;
    this.stopError = err;
    const pending = this.pending;
    this.pending = [];
    for (const p of pending) p.reject(err);
    const held = this.held;
    this.held = [];
    for (const h of held) h.reject(err);
    for (const w of this.durableWaiters.splice(0)) w.resolve(false);
    for (const w of this.idleWaiters.splice(0)) w();
    // 'fatal' without a listener would not throw (not named 'error'), so an owner that forgot to
    // listen still gets rejections on every submit.
    this.emit('fatal', err);
  }
}
