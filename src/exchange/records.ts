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
    createdAt: pool.f64[h * FW + F_CREATED_AT]!,
    updatedAt: pool.f64[h * FW + F_UPDATED_AT]!,
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
