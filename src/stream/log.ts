// A retention ring for one resumable stream (a book, the tape, the lifecycle feed, an account's
// private events): entries in seq order, each the frames one command produced, serialized once.
// Retention (docs/stream.md "Retention"): an entry is kept for `retainMs` and the ring holds at most
// `retainFrames` frames, so the window is at least retainMs unless more than retainFrames frames
// arrived within it, in which case it is the last retainFrames frames.

export interface LogEntry {
  /** The stream's own seq (book seq for a book, journal seq otherwise). */
  seq: number;
  journalSeq: number;
  ts: number;
  frames: string[];
}

export class StreamLog {
  private entries: LogEntry[] = [];
  private head = 0;
  private frameCount = 0;

  /**
   * @param floor the seq the stream stood at when the log began: every entry after it is (or was)
   *   in the ring, so a resume from `floor` or later is complete while nothing was evicted past it.
   */
  constructor(
    private floor: number,
    private readonly retainFrames: number,
    private readonly retainMs: number,
  ) {}

  /** The seq of the newest released entry (or the floor). */
  get lastSeq(): number {
    return this.entries.length > this.head ? this.entries[this.entries.length - 1]!.seq : this.floor;
  }

  get frames(): number {
    return this.frameCount;
  }

  append(e: LogEntry, now: number): void {
    this.entries.push(e);
    this.frameCount += e.frames.length;
    this.evict(now);
  }

  evict(now: number): void {
    const cutoff = now - this.retainMs;
    while (this.head < this.entries.length) {
      const e = this.entries[this.head]!;
      if (this.frameCount <= this.retainFrames && e.ts >= cutoff) break;
      this.frameCount -= e.frames.length;
      this.floor = e.seq;
      this.entries[this.head] = undefined as unknown as LogEntry;
      this.head++;
    }
    // Compact once the dead prefix outweighs the live part (amortized O(1) per entry).
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** True when every entry after `fromSeq` is still held (a resume from it is gap-free). */
  covers(fromSeq: number): boolean {
    return fromSeq >= this.floor && fromSeq <= this.lastSeq;
  }

  /** Entries with seq > fromSeq, oldest first (call covers() first). */
  *after(fromSeq: number): Generator<LogEntry> {
    // Binary search: seqs ascend.
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.seq <= fromSeq) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.entries.length; i++) yield this.entries[i]!;
  }
}
