// A byte budget per second for replays (docs/stream.md "Replays and budgets"): a token bucket that holds
// at most one second of its rate. A chunk may overdraw it (a frame is never split); the replay that
// drew it, and every other replay charged to the same bucket, then waits until it is positive again,
// so over any few seconds the bytes sent stay within the rate.

export class ByteBudget {
  private tokens: number;
  private last: number;

  constructor(
    readonly bytesPerSec: number,
    now: number,
  ) {
    this.tokens = bytesPerSec;
    this.last = now;
  }

  /** Bytes that may be sent now (<= 0: none until the bucket refills). */
  available(now: number): number {
    if (now > this.last) {
      this.tokens = Math.min(this.bytesPerSec, this.tokens + ((now - this.last) * this.bytesPerSec) / 1000);
      this.last = now;
    }
    return this.tokens;
  }

  spend(bytes: number): void {
    this.tokens -= bytes;
  }
}
