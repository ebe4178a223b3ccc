// Snapshot scheduling for the sequencer: when one is due, serializing the state in slices while
// new commands are held unapplied, and storing the bytes once the snapshot's seq is durable
// (docs/journal.md, "Snapshots"). Owned by one Sequencer, which decides the moment to begin.

import type { EventEmitter } from 'node:events';
import type { StateMachine } from '../exchange/types.ts';
import type { Store } from '../store/types.ts';
import type { JournalBackend } from './backend.ts';
import { sha256Chunked } from './file-journal.ts';
import { writeSnapshot } from './journal-store.ts';
import type { SequencerStoppedError, SnapshotStats, Submittable } from './sequencer-types.ts';

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
  ) {
    this.lastSeq = lastSeq;
  }

  /** Whether a snapshot at `seq` is due (the caller checks the state is exactly "after seq"). */
  dueAt(seq: number): boolean {
    return seq - this.lastSeq >= this.every && this.write === undefined;
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
    this.write = this.serializeHolding()
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
      const held = this.held;
      this.held = [];
      this.release(held);
    }
  }
}
