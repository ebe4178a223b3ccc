import {
  F_CREATED_AT,
  F_EXPIRES_AT,
  F_ORIGINAL_QTY,
  F_QTY,
  F_UPDATED_AT,
  FW,
  I_ACCOUNT,
  I_BOOK,
  I_LEVEL,
  I_SIDE,
  I_TIF,
  IW,
  TIF_MASK,
} from './order-pool.ts';
import type { Account, ExchangeState, Pos } from './state.ts';
import { TICKS } from './ticks.ts';
import { CURRENCIES, type OrderRecord, type OrderStatus, type Position, TIFS } from './types.ts';

// Times in records (docs/bench-engine.md "Shared times"). A time in milliseconds is past 2³¹, so V8
// stores it as a heap number; a field that V8 gave the double representation boxes each record's
// value in a 16-byte heap number of its own (two per order record, one per fill), while a tagged
// field points at whatever number it is given, and `ExchangeState.now` is one number per distinct
// command time. V8 picks a field's representation from the values the first objects of a shape
// hold, and objects built by literals with the same keys in the same order share their shape: these
// two, built once when the module loads (before any record), hold null in the time fields, so those
// fields are tagged in every order record and fill. Nothing reads them; each must list the keys of
// its records in their order (the order record's literals here and in matching.ts, the fill's in
// matching.ts): test/exchange/record-shapes.test.ts checks both.
export const TAGGED_TIME_SHAPES: readonly unknown[] = [
  {
    id: '',
    accountId: '',
    outcomeId: '',
    marketId: '',
    currency: '',
    price: 0,
    qty: 0,
    originalQty: 0,
    tif: '',
    expiresAt: null,
    flags: null,
    clientOrderId: null,
    status: '',
    createdAt: null,
    updatedAt: null,
  },
  {
    id: '',
    seq: 0,
    accountId: '',
    orderId: '',
    outcomeId: '',
    marketId: '',
    currency: '',
    price: 0,
    qty: 0,
    isTaker: false,
    isWash: false,
    fee: 0,
    feeCoefficient: 0,
    ts: null,
  },
];

/**
 * `v` (an integer read from a Float64Array) as a small integer when it is one. A number read from
 * a typed array is a heap number until optimized code runs, so the first records stored heap
 * numbers and V8 gave their fields the double representation, which boxes every later value in a
 * heap number of its own, 16 bytes per field and record; stored as small integers, the fields keep
 * the small-integer representation and a record allocates nothing for them (a value past 2³¹ still
 * stores as a number: the field then turns double for every record, as before).
 */
export function small(v: number): number {
  return (v | 0) === v ? v | 0 : v;
}

/** The record of resting order `h`; `id` when the caller has its string (else it is formatted). */
export function orderRecord(s: ExchangeState, h: number, status: OrderStatus, id?: string): OrderRecord {
  const pool = s.pool;
  const market = s.markets[pool.i32[h * IW + I_BOOK]! >> 1]!;
  const exp = pool.f64[h * FW + F_EXPIRES_AT]!;
  // the times as the shared number when they are the command's (no box of their own: see above)
  const now = s.now;
  const created = pool.f64[h * FW + F_CREATED_AT]!;
  const updated = pool.f64[h * FW + F_UPDATED_AT]!;
  return {
    id: id ?? s.orderIdx.idOf(h),
    accountId: s.accounts[pool.i32[h * IW + I_ACCOUNT]!]!.id,
    outcomeId: market.outcomes[pool.i32[h * IW + I_SIDE]!]!.id,
    marketId: market.rec.id,
    currency: CURRENCIES[pool.i32[h * IW + I_BOOK]! & 1]!,
    price: TICKS[pool.i32[h * IW + I_LEVEL]!]!,
    qty: small(pool.f64[h * FW + F_QTY]!),
    originalQty: small(pool.f64[h * FW + F_ORIGINAL_QTY]!),
    tif: TIFS[pool.i32[h * IW + I_TIF]! & TIF_MASK]!,
    expiresAt: exp >= 0 ? exp : null,
    // both maps are usually empty: skip the lookups then
    flags: pool.flags.size > 0 ? (pool.flags.get(h) ?? null) : null,
    clientOrderId: pool.clientOrderId.size > 0 ? (pool.clientOrderId.get(h) ?? null) : null,
    status,
    createdAt: created === now ? now : created,
    updatedAt: updated === now ? now : updated,
  };
}

export function positionRecord(s: ExchangeState, a: Account, p: Pos): Position {
  const market = s.markets[p.key >> 2]!;
  return {
    accountId: a.id,
    outcomeId: market.outcomes[(p.key >> 1) & 1]!.id,
    marketId: market.rec.id,
    currency: CURRENCIES[p.key & 1]!,
    size: p.size,
    cost: p.cost,
  };
}
