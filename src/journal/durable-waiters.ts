// The sequencer's durability mark and the promises waiting for it to pass a seq (snapshotNow and
// the snapshots the pipelined loop schedules wait on it). Owned by one Sequencer.

export class DurableWaiters {
  /** Highest seq known durable. */
  seq: number;
  private stopped = false;
  private waiters: { seq: number; resolve: (ok: boolean) => void }[] = [];

  constructor(seq: number) {
    this.seq = seq;
  }

  /** Resolves true once seq is durable, false if the sequencer stops first. */
  when(seq: number): Promise<boolean> {
    if (this.seq >= seq) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /** Records that everything up to seq is durable and wakes the waiters it satisfies. */
  advance(seq: number): void {
    this.seq = seq;
    if (this.waiters.length === 0) return;
    const due = this.waiters.filter((w) => w.seq <= seq);
    this.waiters = this.waiters.filter((w) => w.seq > seq);
    for (const w of due) w.resolve(true);
  }

  /** The sequencer stopped: nothing more becomes durable; every waiter, now and later, gets false. */
  stop(): void {
    this.stopped = true;
    for (const w of this.waiters.splice(0)) w.resolve(false);
  }
}
