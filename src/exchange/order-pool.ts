// Resting orders as integer handles into typed-array columns (DESIGN.md §10: O(1) cancel through a
// linked queue and an id map, no per-order objects). A handle indexes every column; columns grow by
// doubling; freed handles are recycled through a free list. Each order sits on three intrusive
// doubly linked lists at once:
//   - its price level's FIFO queue (prev/next),
//   - its account's open orders (aPrev/aNext), for openOrders() and cancel-all,
//   - the global list in acceptance order (gPrev/gNext), which is the canonical order used by
//     snapshots and hashes (queue order within a level is acceptance order, so restoring orders in
//     this order rebuilds every queue exactly).

export const NIL = -1;

export const TIF_CODES = ['GTC', 'GTT', 'IOC', 'FOK', 'PO'] as const;

export class OrderPool {
  capacity: number;
  /** Next never-used handle. */
  top = 0;
  /** Number of live orders. */
  size = 0;
  private free: Int32Array;
  private freeTop = 0;

  ids: string[] = [];
  prev!: Int32Array;
  next!: Int32Array;
  aPrev!: Int32Array;
  aNext!: Int32Array;
  gPrev!: Int32Array;
  gNext!: Int32Array;
  /** Book index (market index × 2 + currency index). */
  book!: Int32Array;
  account!: Int32Array;
  /** Side (outcome index 0/1) and TIF code share no column: both are tiny. */
  side!: Uint8Array;
  tif!: Uint8Array;
  /** Index into TICKS (the level index), not the tick itself. */
  level!: Int16Array;
  qty!: Float64Array;
  originalQty!: Float64Array;
  createdAt!: Float64Array;
  updatedAt!: Float64Array;
  /** GTT expiry, or -1. */
  expiresAt!: Float64Array;
  /** Global acceptance number: the time priority, stable across snapshot/restore. */
  seqNo!: Float64Array;
  /** Rare optional strings, kept out of the columns. */
  flags = new Map<number, string>();
  clientOrderId = new Map<number, string>();

  constructor(capacity = 1024) {
    this.capacity = capacity;
    this.free = new Int32Array(capacity);
    this.allocColumns(capacity);
  }

  private allocColumns(n: number): void {
    const grow = <T extends Int32Array | Uint8Array | Int16Array | Float64Array>(
      old: T | undefined,
      make: (n: number) => T,
    ): T => {
      const a = make(n);
      if (old) a.set(old as never);
      return a;
    };
    this.prev = grow(this.prev, (k) => new Int32Array(k));
    this.next = grow(this.next, (k) => new Int32Array(k));
    this.aPrev = grow(this.aPrev, (k) => new Int32Array(k));
    this.aNext = grow(this.aNext, (k) => new Int32Array(k));
    this.gPrev = grow(this.gPrev, (k) => new Int32Array(k));
    this.gNext = grow(this.gNext, (k) => new Int32Array(k));
    this.book = grow(this.book, (k) => new Int32Array(k));
    this.account = grow(this.account, (k) => new Int32Array(k));
    this.side = grow(this.side, (k) => new Uint8Array(k));
    this.tif = grow(this.tif, (k) => new Uint8Array(k));
    this.level = grow(this.level, (k) => new Int16Array(k));
    this.qty = grow(this.qty, (k) => new Float64Array(k));
    this.originalQty = grow(this.originalQty, (k) => new Float64Array(k));
    this.createdAt = grow(this.createdAt, (k) => new Float64Array(k));
    this.updatedAt = grow(this.updatedAt, (k) => new Float64Array(k));
    this.expiresAt = grow(this.expiresAt, (k) => new Float64Array(k));
    this.seqNo = grow(this.seqNo, (k) => new Float64Array(k));
  }

  /** A fresh handle (its columns hold stale values: the caller sets every one). */
  alloc(): number {
    this.size++;
    if (this.freeTop > 0) return this.free[--this.freeTop];
    if (this.top === this.capacity) {
      this.capacity *= 2;
      this.allocColumns(this.capacity);
      const f = new Int32Array(this.capacity);
      f.set(this.free);
      this.free = f;
    }
    return this.top++;
  }

  release(h: number): void {
    this.size--;
    this.qty[h] = 0;
    if (this.flags.size > 0) this.flags.delete(h);
    if (this.clientOrderId.size > 0) this.clientOrderId.delete(h);
    this.free[this.freeTop++] = h;
  }
}
