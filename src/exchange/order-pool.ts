// Resting orders as integer handles into two interleaved typed arrays (DESIGN.md §10: O(1) cancel
// through a linked queue and an id map, no per-order objects). Handle h owns the 12 Int32 slots
// `i32[h*IW .. h*IW+11]` and the 6 Float64 slots `f64[h*FW .. h*FW+5]`: fields an operation reads
// together share one or two cache lines (a layout with one array per field touched ~15 lines per
// order). Arrays grow by doubling; freed handles are recycled through a free list (LIFO). Each
// order sits on two intrusive doubly linked lists at once:
//   - its price level's FIFO queue (I_PREV/I_NEXT),
//   - its account's open orders (I_APREV/I_ANEXT), for openOrders() and cancel-all.
// The canonical order of snapshots and hashes is acceptance order (F_SEQ_NO), recovered by sorting
// live handles at snapshot time (queue order within a level is acceptance order, so restoring
// orders in that order rebuilds every queue exactly). Slots 4–5 held a global acceptance-order list
// until unlinking from it proved to cost two cache misses per fill/cancel; they are unused.

export const NIL = -1;

/** Int32 fields. */
export const I_PREV = 0;
export const I_NEXT = 1;
export const I_APREV = 2;
export const I_ANEXT = 3;
// Slots 4–5: unused (were the global acceptance-order list; see the header).
/** Book index (market index × 2 + currency index). */
export const I_BOOK = 6;
export const I_ACCOUNT = 7;
/** Side = outcome index 0/1. */
export const I_SIDE = 8;
export const I_TIF = 9;
/** Index into TICKS (the level index), not the tick itself. */
export const I_LEVEL = 10;
/** IdIndex.hashOf(id), kept so removing the order from the id index never rereads the id string. */
export const I_HASH = 11;
export const IW = 12;

/** Float64 fields (Money/Qty/Millis are safe integers, exact in float64). */
export const F_QTY = 0; // remaining
export const F_ORIGINAL_QTY = 1;
export const F_CREATED_AT = 2;
export const F_UPDATED_AT = 3;
/** GTT expiry, or -1. */
export const F_EXPIRES_AT = 4;
/** Global acceptance number: the time priority, stable across snapshot/restore. */
export const F_SEQ_NO = 5;
export const FW = 6;

export class OrderPool {
  capacity: number;
  /** Next never-used handle. */
  top = 0;
  /** Number of live orders. */
  size = 0;
  private free: Int32Array;
  private freeTop = 0;

  ids: string[] = [];
  i32: Int32Array;
  f64: Float64Array;
  /** Rare optional strings, kept out of the arrays. */
  flags = new Map<number, string>();
  clientOrderId = new Map<number, string>();

  constructor(capacity = 1024) {
    this.capacity = capacity;
    this.free = new Int32Array(capacity);
    this.i32 = new Int32Array(capacity * IW);
    this.f64 = new Float64Array(capacity * FW);
  }

  /** A fresh handle (its slots hold stale values: the caller sets every one). */
  alloc(): number {
    this.size++;
    if (this.freeTop > 0) return this.free[--this.freeTop]!;
    if (this.top === this.capacity) {
      this.capacity *= 2;
      const i = new Int32Array(this.capacity * IW);
      i.set(this.i32);
      this.i32 = i;
      const f = new Float64Array(this.capacity * FW);
      f.set(this.f64);
      this.f64 = f;
      const fr = new Int32Array(this.capacity);
      fr.set(this.free);
      this.free = fr;
    }
    return this.top++;
  }

  release(h: number): void {
    this.size--;
    this.f64[h * FW + F_QTY] = 0;
    if (this.flags.size > 0) this.flags.delete(h);
    if (this.clientOrderId.size > 0) this.clientOrderId.delete(h);
    this.free[this.freeTop++] = h;
  }
}
