// What every stream log together may hold (docs/stream.md "Retention"): one byte budget and one age
// for all of them. Entries are charged in release order, which is journal order, so one queue of
// them is also oldest-first across logs: trimming by age or by budget pops its head and evicts that
// entry from its log. A quiet log therefore ages out on the timer (the hub's sweep) although
// nothing is appended to it, and the budget never lets the newest frames push out nothing while the
// oldest ones elsewhere stay.

import type { HeldEntry, StreamLog } from './log.ts';

export class RetentionPool {
  private queue: HeldEntry[] = [];
  private head = 0;
  /** Bytes charged by the entries still held (every log's `bytes` together). */
  bytes = 0;
  frames = 0;
  /**
   * Journal seq of the newest entry trimmed by age or budget: any log's entries at or before it may
   * be gone, so a log created later (an account whose log was removed) starts there.
   */
  trimmedJournalSeq = 0;

  constructor(
    readonly budgetBytes: number,
    readonly retainMs: number,
    /** A log the pool trimmed to nothing (the hub may drop it from its map). */
    private readonly onEmpty: (log: StreamLog) => void,
  ) {}

  charge(e: HeldEntry): void {
    this.queue.push(e);
    this.bytes += e.bytes;
    this.frames += e.count;
    if (this.bytes > this.budgetBytes) this.trim(Number.NEGATIVE_INFINITY);
  }

  /** Called by a log for every entry it evicts, whoever asked. */
  release(e: HeldEntry): void {
    this.bytes -= e.bytes;
    this.frames -= e.count;
  }

  /**
   * Evicts, oldest first, every entry older than the retention age at `now` and then as many as the
   * budget requires (`now = -Infinity`: the budget alone), but at most `max` entries: true when it
   * stopped there with more to evict.
   */
  trim(now: number, max = Number.POSITIVE_INFINITY): boolean {
    const cutoff = now - this.retainMs;
    let evicted = 0;
    let more = false;
    while (this.head < this.queue.length) {
      const e = this.queue[this.head]!;
      if (!e.gone) {
        if (this.bytes <= this.budgetBytes && e.ts >= cutoff) break;
        if (evicted === max) {
          more = true;
          break;
        }
        evicted++;
        // The head of the queue is the oldest entry still held, hence its log's oldest one.
        e.log.evictOldest();
        if (e.journalSeq > this.trimmedJournalSeq) this.trimmedJournalSeq = e.journalSeq;
        if (e.log.empty) this.onEmpty(e.log);
      }
      this.queue[this.head] = undefined as unknown as HeldEntry;
      this.head++;
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return more;
  }
}
