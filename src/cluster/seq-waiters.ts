// Requests waiting for this process to reach a journal seq (x-tickbook-min-seq, docs/cluster.md
// "Read your writes"): each resolves true once the state it answers from is at or after its seq,
// false at its timeout.

export class SeqWaiters {
  private readonly waiters = new Set<{ seq: number; done: (ok: boolean) => void }>();

  /** `current()` is the seq answered from now; `kick` asks for the journal to be read at once. */
  constructor(private readonly current: () => number) {}

  wait(seq: number, timeoutMs: number, kick: () => void): Promise<boolean> {
    if (this.current() >= seq) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const w = {
        seq,
        done: (ok: boolean) => {
          clearTimeout(t);
          this.waiters.delete(w);
          resolve(ok);
        },
      };
      const t = setTimeout(() => w.done(this.current() >= seq), timeoutMs);
      this.waiters.add(w);
      kick();
    });
  }

  /** The seq moved: resolve every waiter it reached. */
  wake(): void {
    const s = this.current();
    for (const w of this.waiters) if (w.seq <= s) w.done(true);
  }

  /** Shutdown: every waiter answers false. */
  close(): void {
    for (const w of this.waiters) w.done(false);
  }
}
