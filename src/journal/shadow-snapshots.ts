// Snapshots taken off the command path (docs/journal.md, "Snapshots: a shadow state on a worker
// thread"). A worker thread keeps a second state machine, fed the durably committed commands in
// seq order, the same JSON the journal holds; asked for a snapshot it serializes its own state,
// exactly the state after the last batch it was sent, and hands the bytes back. The sequencer never
// holds a command for it.
//
// Snapshots are a shortcut, never the truth (the journal is): a thread that fails, exits, or
// disagrees with the journal (a gap, a command it rejects) is reported through `onFailure` and
// this object goes dead; the sequencer then takes its snapshots in line, as before, and may seed a
// fresh thread from one of those (`seed`).
//
// The thread is generic: `spawn` starts it (the runtime knows which state machine runs there,
// src/runtime/snapshot-thread.ts); the protocol is the messages below.

import type { Worker } from 'node:worker_threads';
import { type BatchTexts, batchJson } from './batch-texts.ts';

/** Messages to the thread, handled in the order they were posted. */
export type ShadowRequest =
  /** Replace the state with a snapshot's bytes, which show the state after `seq`. */
  | { op: 'seed'; seq: number; bytes: Uint8Array }
  /** Apply commands firstSeq, firstSeq+1, … (the JSON of an array); seqs at or below the state's are skipped. */
  | { op: 'apply'; firstSeq: number; json: string }
  /** Serialize the state as it is after every message before this one. */
  | { op: 'snapshot'; id: number };

/** Messages from the thread. */
export type ShadowReply =
  | { op: 'snapshot'; id: number; seq: number; hash: string; bytes: Uint8Array; ms: number }
  /** The thread cannot go on (it exits after sending this). */
  | { op: 'failed'; message: string };

/** A snapshot the thread serialized: `bytes` show exactly the state after `seq`. */
export interface ShadowSnapshot {
  seq: number;
  hash: string;
  bytes: Uint8Array;
  /** Serialization and hash time on the thread. */
  ms: number;
}

export class ShadowThreadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ShadowThreadError';
  }
}

interface Waiting {
  resolve: (s: ShadowSnapshot) => void;
  reject: (e: unknown) => void;
}

export class ShadowSnapshots {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  /** Highest seq posted to the thread (its state once it has caught up). */
  private postedSeq = 0;
  private closed = false;
  /** Threads started so far; a thread that keeps failing is not restarted for ever. */
  private starts = 0;

  constructor(
    /** Starts a thread that speaks the protocol above. */
    private readonly spawn: () => Worker,
    /** Told once per failed thread, with what went wrong (then `live` is false). */
    private readonly onFailure: (err: ShadowThreadError) => void,
    /** Most threads started in this process: the first and this many minus one restarts. */
    private readonly maxStarts = 3,
    /**
     * A snapshot not answered in this long means a thread that is stuck: it is ended like a failed
     * one, so a hung thread cannot hold back every later snapshot (and the final one on close).
     */
    private readonly answerMs = 120_000,
  ) {}

  /** True while a thread runs and has been consistent with the journal so far. */
  get live(): boolean {
    return this.worker !== undefined;
  }

  /** Whether `seed` would start a thread (a restart after a failure counts against maxStarts). */
  get canStart(): boolean {
    return !this.closed && this.worker === undefined && this.starts < this.maxStarts;
  }

  /**
   * Starts a thread holding the state these bytes show (the state after `seq`). The bytes are
   * copied to it (structured clone), so the caller may go on using them.
   */
  seed(bytes: Uint8Array, seq: number): void {
    if (!this.canStart) return;
    this.starts++;
    let w: Worker;
    try {
      w = this.spawn();
    } catch (err) {
      // No thread (e.g. its loader cannot be resolved): snapshots stay in line, the exchange runs.
      this.onFailure(new ShadowThreadError('could not start the snapshot thread', { cause: err }));
      return;
    }
    this.worker = w;
    this.postedSeq = seq;
    w.on('message', (m: ShadowReply) => this.received(w, m));
    w.on('messageerror', (err) => this.fail(w, new ShadowThreadError(`unreadable message: ${err.message}`)));
    w.on('error', (err) =>
      this.fail(w, new ShadowThreadError(`thread failed: ${err.message}`, { cause: err })),
    );
    w.on('exit', (code) => this.fail(w, new ShadowThreadError(`thread exited (code ${code})`)));
    // Idle, the thread must not keep the process alive; it is held while a snapshot is awaited.
    w.unref();
    this.post({ op: 'seed', seq, bytes });
  }

  /**
   * Sends a durably committed batch, `count` commands from firstSeq in order, as the JSON the
   * journal stored (batch-texts.ts): the thread applies what recovery would read back, and the
   * server's thread does not stringify the commands a second time.
   */
  apply(firstSeq: number, count: number, texts: BatchTexts): void {
    if (this.worker === undefined) return;
    const lastSeq = firstSeq + count - 1;
    if (lastSeq <= this.postedSeq) return; // already in the state it was seeded with
    this.postedSeq = lastSeq;
    this.post({ op: 'apply', firstSeq, json: batchJson(texts) });
  }

  /** Seq of the state the thread will snapshot next: the last one posted. */
  get seq(): number {
    return this.postedSeq;
  }

  /** Asks for the state after everything posted so far; rejects if the thread fails first. */
  snapshot(): Promise<ShadowSnapshot> {
    const w = this.worker;
    if (w === undefined) return Promise.reject(new ShadowThreadError('no snapshot thread runs'));
    const id = this.nextId++;
    const expected = this.postedSeq;
    let timer: NodeJS.Timeout | undefined;
    return new Promise<ShadowSnapshot>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      w.ref();
      timer = setTimeout(() => {
        this.fail(w, new ShadowThreadError(`snapshot thread gave no answer in ${this.answerMs} ms`));
      }, this.answerMs);
      timer.unref();
      this.post({ op: 'snapshot', id });
    })
      .finally(() => clearTimeout(timer))
      .then((s) => {
        if (s.seq !== expected) {
          const err = new ShadowThreadError(`snapshot thread is at seq ${s.seq}, expected ${expected}`);
          this.fail(w, err);
          throw err;
        }
        return s;
      });
  }

  /** Ends the thread; pending snapshots are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    if (w === undefined) return;
    this.worker = undefined;
    this.rejectWaiting(new ShadowThreadError('snapshot thread closed'));
    await w.terminate();
  }

  private post(m: ShadowRequest): void {
    try {
      this.worker?.postMessage(m);
    } catch (err) {
      // A message that cannot be cloned: the thread would miss a batch, so it is of no use now.
      if (this.worker !== undefined) {
        this.fail(
          this.worker,
          new ShadowThreadError('could not post to the snapshot thread', { cause: err }),
        );
      }
    }
  }

  private received(w: Worker, m: ShadowReply): void {
    if (m.op === 'failed') {
      this.fail(w, new ShadowThreadError(m.message));
      return;
    }
    const waiting = this.waiting.get(m.id);
    if (waiting === undefined) return;
    this.waiting.delete(m.id);
    if (this.waiting.size === 0) w.unref();
    waiting.resolve({ seq: m.seq, hash: m.hash, bytes: m.bytes, ms: m.ms });
  }

  /** The thread `w` is of no use any more: report it once, reject its waiters, end it. */
  private fail(w: Worker, err: ShadowThreadError): void {
    if (this.worker !== w) return; // closed, or a former thread's late event
    this.worker = undefined;
    this.rejectWaiting(err);
    void w.terminate();
    this.onFailure(err);
  }

  private rejectWaiting(err: ShadowThreadError): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const x of waiting) x.reject(err);
  }
}
