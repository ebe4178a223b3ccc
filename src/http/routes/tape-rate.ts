// The /tape message limit (docs/stream.md "Close codes"): a token bucket per connection, counted as
// if each message had been read when it arrived. Node reads a socket only when the event loop gets
// to it, so after the server itself was busy for a while, every message sent meanwhile is read in
// one burst; a limit counted at read time would close honest clients for the server's own stall.
// The StallClock measures those stalls, and a bucket adds the messages its rate would have allowed
// during them to what it may hold.

/** Milliseconds the event loop could not run timers, summed since start. */
export class StallClock {
  stalledMs = 0;
  private last = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs = 20) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.last = performance.now();
    this.timer = setInterval(() => {
      const t = performance.now();
      const late = t - this.last - this.intervalMs;
      // A few ms of timer jitter are not a stall.
      if (late > 5) this.stalledMs += late;
      this.last = t;
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Includes the stall in progress (the timer has not run yet if the loop is still catching up). */
  now(): number {
    if (this.timer === undefined) return this.stalledMs;
    const late = performance.now() - this.last - this.intervalMs;
    return this.stalledMs + (late > 5 ? late : 0);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** `rate` messages per second on average, bursts of `rate`, plus what arrived during stalls. */
export class MessageBucket {
  private tokens: number;
  private last = performance.now();
  private stallMark: number;

  constructor(
    private readonly rate: number,
    private readonly stalls: StallClock,
  ) {
    this.tokens = rate;
    this.stallMark = stalls.now();
  }

  /** Counts one message; false when the connection is over its limit. */
  take(): boolean {
    const t = performance.now();
    const stalled = this.stalls.now();
    // Messages read now may have arrived during a stall since the last one: that time raises the
    // bucket's ceiling once, by what the rate allows in it.
    const cap = this.rate + (Math.max(0, stalled - this.stallMark) * this.rate) / 1000;
    this.stallMark = stalled;
    const refilled = this.tokens + ((t - this.last) * this.rate) / 1000;
    this.tokens = refilled > cap ? Math.max(this.tokens, cap) : refilled;
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
