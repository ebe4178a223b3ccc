// Min-heap of GTT expiries keyed by (expiresAt, seqNo). Entries are never removed on cancel: a
// popped entry is stale when its handle no longer holds the same order (seqNo differs), which the
// caller checks. The key order makes expiry deterministic regardless of handle numbering, so a
// restored state expires orders in the same order as the original.

export class ExpiryHeap {
  private t: number[] = [];
  private s: number[] = [];
  private h: number[] = [];

  get length(): number {
    return this.t.length;
  }

  clear(): void {
    this.t = [];
    this.s = [];
    this.h = [];
  }

  private less(i: number, j: number): boolean {
    return this.t[i]! < this.t[j]! || (this.t[i] === this.t[j] && this.s[i]! < this.s[j]!);
  }

  private swap(i: number, j: number): void {
    const { t, s, h } = this;
    const ti = t[i]!;
    t[i] = t[j]!;
    t[j] = ti;
    const si = s[i]!;
    s[i] = s[j]!;
    s[j] = si;
    const hi = h[i]!;
    h[i] = h[j]!;
    h[j] = hi;
  }

  push(expiresAt: number, seqNo: number, handle: number): void {
    this.t.push(expiresAt);
    this.s.push(seqNo);
    this.h.push(handle);
    let i = this.t.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** Earliest expiry, or Infinity when empty. */
  peekTime(): number {
    return this.t.length > 0 ? this.t[0]! : Number.POSITIVE_INFINITY;
  }

  /** The top entry's seqNo and handle (only when length > 0). */
  peekEntry(): [number, number] {
    return [this.s[0]!, this.h[0]!];
  }

  /** Removes the top entry and returns [seqNo, handle]. */
  pop(): [number, number] {
    const out: [number, number] = [this.s[0]!, this.h[0]!];
    const last = this.t.length - 1;
    this.swap(0, last);
    this.t.pop();
    this.s.pop();
    this.h.pop();
    let i = 0;
    const n = this.t.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
    return out;
  }
}
