// Throttling of failed client authentication (issue 2 item 5): at most `limit` failures per key
// (a client_id, an address) per fixed one-minute window; beyond that the token endpoints answer
// 429 with Retry-After before even checking the secret, so guessing is bounded per client and
// per address.

export class FailureThrottle {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until the first of `keys` that is over its limit may try again; 0 when none is. */
  retryAfter(keys: readonly string[]): number {
    const now = this.now();
    let wait = 0;
    for (const k of keys) {
      const w = this.windows.get(k);
      if (w === undefined || w.resetAt <= now) continue;
      if (w.count >= this.limit) wait = Math.max(wait, Math.ceil((w.resetAt - now) / 1000));
    }
    return wait;
  }

  fail(keys: readonly string[]): void {
    const now = this.now();
    if (this.windows.size > 100_000) this.sweep(now);
    for (const k of keys) {
      const w = this.windows.get(k);
      if (w === undefined || w.resetAt <= now)
        this.windows.set(k, { count: 1, resetAt: now + this.windowMs });
      else w.count++;
    }
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}
