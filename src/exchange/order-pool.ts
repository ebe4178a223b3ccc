// Resting orders as integer handles into two interleaved typed arrays (for O(1) cancel
// through a linked queue and an id map, no per-order objects). Handle h owns the IW Int32 slots
// `i32[h*IW ..]` and the FW Float64 slots `f64[h*FW ..]`: fields an operation reads together share
// one or two cache lines (a layout with one array per field touched ~15 lines per order). Arrays
// grow by doubling; freed handles are recycled through a free list (LIFO, threaded through I_NEXT). Each order sits on two
// intrusive doubly linked lists at once:
//   - its price level's FIFO queue (I_PREV/I_NEXT),
//   - its account's open orders (I_APREV/I_ANEXT), for openOrders() and cancel-all.
// The canonical order of snapshots and hashes is acceptance order (F_SEQ_NO), recovered by sorting
// live handles at snapshot time (queue order within a level is acceptance order, so restoring
// orders in that order rebuilds every queue exactly).
//
// The order id lives in the order's own slots: a canonical UUID (what the edge mints) as four Int32
// words at I_ID (16 bytes; the 36-character string with its pointer took ~64 bytes of heap, a third
// of the memory per resting order), any other id string in `strIds` with ID_STR set in I_TIF
// (id-index.ts parses, compares and formats them).

export const NIL = -1;

/** Int32 fields. */
export const I_PREV = 0;
export const I_NEXT = 1;
export const I_APREV = 2;
export const I_ANEXT = 3;
/** Book index (market index × 2 + currency index). */
export const I_BOOK = 4;
export const I_ACCOUNT = 5;
/** Side = outcome index 0/1. */
export const I_SIDE = 6;
/** TIF code (index into TIFS) in the low 3 bits, ID_STR above. */
export const I_TIF = 7;
/** Index into TICKS (the level index), not the tick itself. */
export const I_LEVEL = 8;
/** The id's hash in the id index, kept so removing the order never reparses the id. */
export const I_HASH = 9;
/** Four words: the order id as a UUID (id-index.ts). */
export const I_ID = 10;
export const IW = 14;
/** Set in I_TIF when the order id is not a canonical UUID: the string is in `strIds`. */
export const ID_STR = 8;
export const TIF_MASK = 7;
/** Set in I_TIF when the order is protected by market-maker protection (mmp.ts). */
export const PROTECTED = 16;

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
  /** Head of the free list, threaded through I_NEXT of the freed handles (no array of its own). */
  private freeHead = NIL;

  i32: Int32Array;
  f64: Float64Array;
  /** Rare optional strings, kept out of the arrays. */
  flags = new Map<number, string>();
  clientOrderId = new Map<number, string>();
  /** Ids that are not canonical UUIDs (ID_STR), by handle. An entry outlives its order until the
   * handle is reused, as the words do: a placement builds its fill events after the loop that
   * freed the makers it filled, and reads their ids then. */
  strIds = new Map<number, string>();

  constructor(capacity = 1024) {
    this.capacity = capacity;
    this.i32 = new Int32Array(capacity * IW);
    this.f64 = new Float64Array(capacity * FW);
  }

  /** A fresh handle (its slots hold stale values: the caller sets every one). */
  alloc(): number {
    this.size++;
    const f = this.freeHead;
    if (f !== NIL) {
      this.freeHead = this.i32[f * IW + I_NEXT]!;
      return f;
    }
    if (this.top === this.capacity) {
      this.capacity *= 2;
      const i = new Int32Array(this.capacity * IW);
      i.set(this.i32);
      this.i32 = i;
      const d = new Float64Array(this.capacity * FW);
      d.set(this.f64);
      this.f64 = d;
    }
    return this.top++;
  }

  release(h: number): void {
    this.size--;
    this.f64[h * FW + F_QTY] = 0;
    if (this.flags.size > 0) this.flags.delete(h);
    if (this.clientOrderId.size > 0) this.clientOrderId.delete(h);
    this.i32[h * IW + I_NEXT] = this.freeHead;
    this.freeHead = h;
  }
}
