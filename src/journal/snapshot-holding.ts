// Snapshot scheduling for the sequencer (docs/journal.md, "Snapshots"). Two ways to get the bytes:
//   - on the snapshot thread (shadow-snapshots.ts), the default when the owner gives one: a second
//     state, fed each durable batch, serializes itself there; no command waits for it;
//   - in line, the fallback while no snapshot thread runs: serializing this state in slices while
//     new commands are held unapplied.
// Either way the bytes are stored once the snapshot's seq is durable. Owned by one Sequencer,
// which tells it of every durable batch and decides the moment to begin an in-line one.

import type { EventEmitter } from 'node:events';
import type { StateMachine } from '../exchange/types.ts';
import type { Store } from '../store/types.ts';
import type { JournalBackend } from './backend.ts';
import type { BatchTexts } from './batch-texts.ts';
import { sha256Chunked } from './file-journal.ts';
import { writeSnapshot } from './journal-store.ts';
import type { SequencerStoppedError, SnapshotStats, Submittable } from './sequencer-types.ts';
import type { ShadowSnapshots } from './shadow-snapshots.ts';

/** A submit that arrived while a snapshot was being serialized: applied once it is done. */
export interface Held<C, R> {
  cmds: readonly Submittable<C>[];
  many: boolean;
  /** The submitter's array for the commands' seqs (Sequencer.submit), filled once they apply. */
  seqs: number[] | undefined;
  resolve: (r: R | R[]) => void;
  reject: (e: unknown) => void;
}

export class SnapshotHolding<C, R> {
  /** Seq of the newest snapshot begun (or stored before the start). */
  lastSeq: number;
  /** The snapshot being serialized or stored; at most one at a time. */
  write: Promise<void> | undefined;
  /** True while a snapshot is being serialized: submits wait in `held`, unapplied. */
  holding = false;
  held: Held<C, R>[] = [];

  constructor(
    private readonly machine: StateMachine<C, R>,
    private readonly store: Store,
    private readonly journal: JournalBackend | undefined,
    /** Receives 'snapshot' and 'snapshotError' (the Sequencer). */
    private readonly events: EventEmitter,
    /** Applies the commands held during a serialization, in arrival order. */
    private readonly release: (held: Held<C, R>[]) => void,
    private readonly every: number,
    lastSeq: number,
    /** The snapshot thread, when the owner runs one; undefined: always in line. */
    private readonly shadow: ShadowSnapshots | undefined,
  ) {
    this.lastSeq = lastSeq;
  }

  /**
   * Whether an in-line snapshot at `seq` is due (the caller checks the state is exactly "after
   * seq"). Never while the snapshot thread runs: it takes them (committed, below).
   */
  dueAt(seq: number): boolean {
    return seq - this.lastSeq >= this.every && this.write === undefined && this.shadow?.live !== true;
  }

  /**
   * A batch is durable: the snapshot thread gets it, and takes a snapshot when one is due. Its
   * state is exactly "after lastSeq" once it has applied the batch (it applies in seq order), so
   * any batch boundary will do, without waiting for a moment when nothing is pending.
   */
  committed(firstSeq: number, lastSeq: number, cmds: readonly C[], texts: BatchTexts): void {
    const shadow = this.shadow;
    if (shadow?.live !== true) return;
    shadow.apply(firstSeq, cmds.length, texts);
    if (lastSeq - this.lastSeq >= this.every && this.write === undefined) this.beginShadow(shadow);
  }

  /**
   * Asks the snapshot thread for the state after the last batch it was sent (durable: it is sent
   * only durable batches) and stores the bytes. If the thread fails meanwhile, the snapshot is
   * reported lost and the next one is due at once, in line.
   */
  beginShadow(shadow: ShadowSnapshots): void {
    const before = this.lastSeq;
    // The seq asked for: more batches may be posted before the answer, so shadow.seq moves on.
    const at = shadow.seq;
    this.lastSeq = at;
    this.write = shadow
      .snapshot()
      .then(async (s) => {
        const snap = { seq: s.seq, hash: s.hash, state: s.bytes };
        if (this.journal !== undefined) await this.journal.writeSnapshot(snap);
        else await writeSnapshot(this.store, snap);
        const stats: SnapshotStats = {
          seq: s.seq,
          bytes: s.bytes.byteLength,
          ms: s.ms,
          heldMs: 0,
          thread: 'snapshot',
          slices: 0,
          sliceMaxMs: 0,
        };
        this.events.emit('snapshot', stats);
      })
      .then(undefined, (err) => {
        if (this.lastSeq === at) this.lastSeq = before;
        this.events.emit('snapshotError', err);
      })
      .finally(() => {
        this.write = undefined;
      });
  }

  /**
   * A submitTo held: the caller's own resolve and reject are kept, so once released its answer is
   * told inside the group commit's acknowledgement, in seq order with the others (no promise).
   */
  holdTo(
    cmd: Submittable<C>,
    to: { resolve: (r: R) => void; reject: (e: unknown) => void },
    seqs?: number[],
  ): void {
    this.held.push({
      cmds: [cmd],
      many: false,
      seqs,
      resolve: to.resolve as (r: R | R[]) => void,
      reject: to.reject,
    });
  }

  hold(cmds: readonly Submittable<C>[], many: boolean, seqs?: number[]): Promise<R | R[]> {
    return new Promise<R | R[]>((resolve, reject) => {
      this.held.push({ cmds, many, seqs, resolve, reject });
    });
  }

  /** The sequencer stopped: held commands are never applied. */
  rejectHeld(err: SequencerStoppedError): void {
    const held = this.held;
    this.held = [];
    for (const h of held) h.reject(err);
  }

  /**
   * Starts a snapshot of the state as it is now (exactly the commands up to `seq`): serializes it
   * in slices with event-loop turns between them, holding new commands meanwhile, then hashes and
   * stores the bytes (in chunks, off the request path) once `durable` says seq is durable.
   */
  begin(seq: number, durable: Promise<boolean>): void {
    this.lastSeq = seq;
    this.write = this.serializeHolding(seq)
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
          heldMs: s.heldMs,
          thread: 'sequencer',
          slices: s.slices,
          sliceMaxMs: s.sliceMaxMs,
        };
        this.events.emit('snapshot', stats);
      })
      .then(undefined, (err) => {
        this.events.emit('snapshotError', err);
      })
      .finally(() => {
        this.write = undefined;
      });
  }

  /**
   * Serializes the state; the first slice runs now (synchronously, so no command can slip in
   * before it), the rest each after a setImmediate, so I/O (reads, which do not mutate) is served
   * between slices. Submits meanwhile wait in `held` and are applied, in order, when it is done.
   * The bytes, exactly the state after `seq`, also start a snapshot thread if one may start (one
   * failed before): they are what it needs, and nothing has been applied past `seq` yet.
   */
  private async serializeHolding(seq: number): Promise<{
    bytes: Uint8Array;
    ms: number;
    heldMs: number;
    slices: number;
    sliceMaxMs: number;
  }> {
    const t0 = performance.now();
    const gen = this.machine.snapshotSlices?.();
    if (gen === undefined) {
      const bytes = this.machine.snapshot();
      if (this.shadow?.canStart === true) this.shadow.seed(bytes, seq);
      const ms = performance.now() - t0;
      return { bytes, ms, heldMs: ms, slices: 1, sliceMaxMs: ms };
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
        if (step.done) {
          if (this.shadow?.canStart === true) this.shadow.seed(step.value, seq);
          const ms = performance.now() - t0;
          return { bytes: step.value, ms, heldMs: ms, slices, sliceMaxMs };
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.holding = false;
      const held = this.held;
      this.held = [];
      this.release(held);
    }
  }
}
