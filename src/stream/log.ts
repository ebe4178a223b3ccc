// A retention ring for one resumable stream (a book, a shared channel such as the tape, or one
// account's log of an account channel): entries in seq order, each the frames one command
// produced, serialized once (on first read: lazy-frames.ts).
// Retention (docs/stream.md "Retention"): the ring holds at most `retainFrames` frames; age and the
// byte budget shared by every log are enforced by the pool the log charges (retention.ts), which
// evicts oldest-first across all logs, so a quiet log ages out like a busy one.

import { countOf, type Frames, framesOf, textBytes } from './lazy-frames.ts';

/** Bytes charged per frame and per entry beyond the frame text: V8 string and object headers. */
export const FRAME_OVERHEAD = 48;
export const ENTRY_OVERHEAD = 96;

export interface LogEntry {
  /** The stream's own seq (book seq for a book, journal seq otherwise). */
  seq: number;
  journalSeq: number;
  ts: number;
  frames: Frames;
}

/** An entry as the log keeps it: its charge, its place in the log's byte count, and its owner. */
export interface HeldEntry extends LogEntry {
  /** Frames in the entry (counted before they are built). */
  count: number;
  /** The charge: exact for frames built when appended, the builder's estimate for the others. */
  bytes: number;
  /** Bytes appended to the owning log up to and including this entry. */
  cum: number;
  log: StreamLog;
  /** Evicted (the pool's queue still points at it until it reaches it). */
  gone: boolean;
}

/** `book`, or the name of the channel (channels.ts) whose log this is. */
export type LogKind = string;

/**
 * What a log tells the shared pool (retention.ts's RetentionPool): each entry it holds and each it
 * lets go. Declared here so the log does not import the pool that imports it.
 */
export interface RetentionCharges {
  charge(e: HeldEntry): void;
  release(e: HeldEntry): void;
}

export class StreamLog {
  private entries: HeldEntry[] = [];
  private head = 0;
  private frameCount = 0;
  private byteCount = 0;
  private appendedBytes = 0;
  /** Replays reading this log: while any does, the hub keeps it in its map even when empty. */
  readers = 0;

  /**
   * @param floor the seq the stream stood at when the log began: every entry after it is (or was)
   *   in the ring, so a resume from `floor` or later is complete while nothing was evicted past it.
   * @param key the log's key in the hub's map (book key or account id; the channel for a shared one).
   */
  constructor(
    private floor: number,
    private readonly retainFrames: number,
    private readonly pool: RetentionCharges,
    readonly kind: LogKind,
    readonly key: string,
  ) {}

  /** The seq of the newest released entry (or the floor). */
  get lastSeq(): number {
    return this.entries.length > this.head ? this.entries[this.entries.length - 1]!.seq : this.floor;
  }

  get frames(): number {
    return this.frameCount;
  }

  get bytes(): number {
    return this.byteCount;
  }

  get empty(): boolean {
    return this.head === this.entries.length;
  }

  /**
   * Appends a command's entry. Frames nobody reads now stay unbuilt (lazy-frames.ts) and are
   * charged the builder's estimate; with `readNow` (a subscriber is sent them at once) they are
   * built first, so the charge is their text.
   */
  append(e: LogEntry, readNow = false): void {
    this.appendFrames(e.seq, e.journalSeq, e.ts, e.frames, readNow);
  }

  /**
   * `append` without the entry object: the hub appends two or three entries per order, and each
   * `{seq, journalSeq, ts, frames}` it built was garbage the moment the held entry copied it.
   */
  appendFrames(seq: number, journalSeq: number, ts: number, frames: Frames, readNow = false): void {
    if (readNow) framesOf(frames);
    const count = countOf(frames);
    const bytes = ENTRY_OVERHEAD + textBytes(frames) + count * FRAME_OVERHEAD;
    this.appendedBytes += bytes;
    const held: HeldEntry = {
      seq,
      journalSeq,
      ts,
      frames,
      count,
      bytes,
      cum: this.appendedBytes,
      log: this,
      gone: false,
    };
    this.entries.push(held);
    this.frameCount += count;
    this.byteCount += bytes;
    while (this.frameCount > this.retainFrames && this.entries.length - this.head > 1) this.evictOldest();
    this.pool.charge(held);
  }

  /** Drops the oldest entry (the pool calls it for age and budget; append for the frame bound). */
  evictOldest(): HeldEntry | undefined {
    if (this.head === this.entries.length) return undefined;
    const e = this.entries[this.head]!;
    this.entries[this.head] = undefined as unknown as HeldEntry;
    this.head++;
    this.frameCount -= e.count;
    this.byteCount -= e.bytes;
    this.floor = e.seq;
    e.gone = true;
    this.pool.release(e);
    // The pool's queue may point at the entry a while longer: let the frames (or what would build
    // them) go now.
    e.frames = [];
    // Compact once the dead prefix outweighs the live part (amortized O(1) per entry).
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    return e;
  }

  /** True when every entry after `fromSeq` is still held (a resume from it is gap-free). */
  covers(fromSeq: number): boolean {
    return fromSeq >= this.floor && fromSeq <= this.lastSeq;
  }

  /** Index of the first entry with seq > fromSeq (binary search: seqs ascend). */
  private indexAfter(fromSeq: number): number {
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.seq <= fromSeq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Bytes a replay after `fromSeq` would send (charges included), without walking the entries. */
  bytesAfter(fromSeq: number): number {
    const i = this.indexAfter(fromSeq);
    if (i >= this.entries.length) return 0;
    const first = this.entries[i]!;
    return this.appendedBytes - (first.cum - first.bytes);
  }

  /** How many entries (commands) have seq > fromSeq. */
  countAfter(fromSeq: number): number {
    return this.entries.length - this.indexAfter(fromSeq);
  }

  /** The first entry with seq > fromSeq, if held (call covers() first). */
  entryAfter(fromSeq: number): LogEntry | undefined {
    return this.entries[this.indexAfter(fromSeq)];
  }

  /** Entries with seq > fromSeq, oldest first (call covers() first). */
  *after(fromSeq: number): Generator<LogEntry> {
    for (let i = this.indexAfter(fromSeq); i < this.entries.length; i++) yield this.entries[i]!;
  }
}
