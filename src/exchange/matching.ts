// The matching loop: validation, reservation, price-time matching with self-trade prevention and
// taker fees, and the remainder resting or cancelled, for one PlaceOrder (docs/exchange.md "Books and matching"). It stays one
// unit on purpose: it is the hot path, and reads best as one piece (docs/bench-engine.md).

import { touchBook, touchWallet } from './change-tracking.ts';
import { isSafePos, isStr, reject } from './command-checks.ts';
import { isLocked } from './locks-and-fees.ts';
import {
  F_CREATED_AT,
  F_EXPIRES_AT,
  F_ORIGINAL_QTY,
  F_QTY,
  F_SEQ_NO,
  F_UPDATED_AT,
  FW,
  I_ACCOUNT,
  I_BOOK,
  I_LEVEL,
  I_NEXT,
  I_SIDE,
  I_TIF,
  IW,
  NIL,
} from './order-pool.ts';
import { addPosition, posFor } from './positions.ts';
import { book, cancelHandle, link, unlink } from './resting-orders.ts';
import {
  type Account,
  accountOf,
  type Book,
  type Cmd,
  CUR_INDEX,
  type ExchangeState,
  type MarketState,
  ok,
  outcomeOf,
  type Pos,
  WS,
} from './state.ts';
import { isTick, ONE, TICK_INDEX, TICKS } from './ticks.ts';
import { type CommandResult, type DomainEvent, type Fill, type OrderRecord, TIFS } from './types.ts';
import {
  feeDenominator,
  feeNumerator,
  MONEY_PER_MCU,
  MONEY_PER_TICK_MCU,
  maxTakerFee,
  PPM,
  roundHalfUp,
} from './units.ts';

/** Fill id suffixes `:${n}:m` / `:${n}:t` for the first matches of an order, built once: a fill id
 * is then one concatenation (taker id + suffix) instead of three. */
const FILL_SUFFIXES = 256;
const MAKER_SUFFIX = Array.from({ length: FILL_SUFFIXES }, (_, i) => `:${i + 1}:m`);
const TAKER_SUFFIX = Array.from({ length: FILL_SUFFIXES }, (_, i) => `:${i + 1}:t`);

/** Reserves OrderPlaced's slot at the head of a PlaceOrder's events; always overwritten. */
const PLACEHOLDER: DomainEvent = { kind: 'LocksChanged' };

/** The largest time value ECMAScript's Date represents (ECMA-262 §21.4.1.1). */
const MAX_TIME_MS = 8.64e15;

export function placeOrder(s: ExchangeState, c: Cmd<'PlaceOrder'>): CommandResult {
  // ---- validation: nothing is touched until every check has passed
  const ai = accountOf(s, c);
  if (ai === undefined) return reject('ACCOUNT_NOT_FOUND');
  const a = s.accounts[ai]!;
  const ci = CUR_INDEX[c.currency];
  if (ci === undefined) return reject('INVALID_CURRENCY');
  const wal = s.wal;
  const aw = ai * WS + ci; // the taker's available slot; reserved is aw + 2
  const tifCode = TIFS.indexOf(c.tif);
  if (tifCode < 0) return reject('INVALID_TIF');
  const tick = c.price;
  if (!isTick(tick)) return reject('INVALID_PRICE');
  const qty = c.qty;
  const cost = tick * qty * MONEY_PER_TICK_MCU[ci]!;
  if (!isSafePos(qty) || !Number.isSafeInteger(qty * MONEY_PER_MCU[ci]!)) return reject('INVALID_QTY');
  let expiresAt = -1;
  if (c.tif === 'GTT') {
    // The expiry must be a time a Date can hold (ECMAScript's ±8.64e15 ms), or every read of the
    // order fails; the edge bounds ttl far tighter (30 days, docs/exchange.md "Books and matching").
    if (!isSafePos(c.ttl) || !Number.isSafeInteger(c.ts + c.ttl) || c.ts + c.ttl > MAX_TIME_MS) {
      return reject('VALIDATION_FAILED', 'GTT needs a positive integer ttl (ms)');
    }
    expiresAt = c.ts + c.ttl;
  }
  if (c.flags != null && (typeof c.flags !== 'string' || c.flags.length > 8)) {
    return reject('VALIDATION_FAILED', 'flags: at most 8 characters');
  }
  if (!isStr(c.orderId)) return reject('VALIDATION_FAILED', 'orderId required');
  // The id is parsed once: the index keeps it as its current key until the order rests below.
  const idHash = s.orderIdx.key(c.orderId);
  if (s.orderIdx.findKey(idHash) >= 0) return reject('ALREADY_EXISTS', `order ${c.orderId} exists`);
  const coid = c.clientOrderId ?? null;
  if (coid !== null && (typeof coid !== 'string' || coid.length === 0)) {
    return reject('VALIDATION_FAILED', 'clientOrderId must be a non-empty string');
  }
  if (coid !== null && a.clientOrders.has(coid)) return reject('DUPLICATE_CLIENT_ORDER_ID');
  const ref = outcomeOf(s, c);
  if (ref === undefined) return reject('OUTCOME_NOT_FOUND');
  const mi = ref >> 1;
  const side = ref & 1;
  const ms = s.markets[mi]!;
  if (ms.rec.status !== 'OPEN') return reject('MARKET_NOT_OPEN');
  const es = ms.event.status;
  // TRADABLE_EVENT_STATUSES (types.ts), spelled out on the order path.
  if (es !== 'OPEN_PREGAME' && es !== 'OPEN_INGAME') return reject('EVENT_NOT_TRADABLE');
  if (isLocked(s, ms.event.id, c.ts)) return reject('TRADING_LOCKED');
  // Live fills pay a taker fee; its worst case is reserved with the cost so the wallet can never
  // go negative (docs/exchange.md "Fees").
  const live = es === 'OPEN_INGAME' && s.feePpm > 0;
  const feeCap = live ? maxTakerFee(s.feePpm, tick, qty, c.currency) : 0;
  if (wal[aw]! < cost + feeCap) return reject('INSUFFICIENT_FUNDS');

  const bi = mi * 2 + ci;
  const b = book(s, bi);
  const opp = side ^ 1;
  const oppBase = b.base[opp]!; // nothing in the loop below widens the book
  const minTick = ONE - tick; // resting bids on the other outcome at q >= this cross
  const bestOpp = b.best[opp]!;
  const crosses = bestOpp >= 0 && TICKS[bestOpp]! >= minTick;
  if (c.tif === 'PO' && crosses) return reject('POST_ONLY_WOULD_TAKE');
  if (c.tif === 'FOK' && fillable(s, b, opp, minTick, qty, ai) < qty) return reject('FOK_NOT_FILLED');

  // ---- accepted: reserve, match, rest or cancel the remainder
  const pool = s.pool;
  const taker = c.orderId;
  const seqNo = s.orderSeq++;
  wal[aw]! -= cost + feeCap;
  wal[aw + 2]! += cost + feeCap;
  touchWallet(s, a, ci);
  const emit = s.emitEvents;
  const placedAt = s.ev.length; // OrderPlaced goes first; filled in once the outcome is known
  if (emit) s.ev.push(PLACEHOLDER);
  if (coid !== null) a.clientOrders.set(coid, taker);

  let rem = qty;
  let nFills = 0;
  let washed = false;
  let feeNum = 0n;
  let feeSoFar = 0;
  const mpt = MONEY_PER_TICK_MCU[ci]!;
  if (crosses) {
    const feeDen = live ? feeDenominator(c.currency) : 1n;
    const takerKey = (mi * 2 + side) * 2 + ci;
    const makerKey = (mi * 2 + opp) * 2 + ci;
    let takerPos: Pos | null = null;
    let li = bestOpp;
    while (rem > 0 && li >= 0 && TICKS[li]! >= minTick) {
      const slot = oppBase + li;
      const q = TICKS[li]!;
      let h = b.head[slot]!;
      while (rem > 0 && h !== NIL) {
        const mAi = pool.i32[h * IW + I_ACCOUNT]!;
        const makerQty = pool.f64[h * FW + F_QTY]!;
        const m = Math.min(rem, makerQty);
        if (nFills === s.fMaker.length) growFills(s);
        s.fMaker[nFills] = h;
        s.fQty[nFills] = m;
        s.fLevel[nFills] = li;
        if (mAi === ai) {
          // Self-trade prevention: both orders are cancelled, no money moves (docs/exchange.md "Books and matching").
          s.fWash[nFills] = 1;
          s.fFee[nFills] = 0;
          nFills++;
          washed = true;
          break;
        }
        s.fWash[nFills] = 0;
        const mk = s.accounts[mAi]!;
        const makerCost = q * m * mpt;
        const takerCost = (ONE - q) * m * mpt;
        // maker: reserved collateral becomes position cost
        wal[mAi * WS + 2 + ci]! -= makerCost;
        touchWallet(s, mk, ci);
        // taker: reserved at its limit, pays 1000 − q; the improvement goes back to available
        wal[aw + 2]! -= tick * m * mpt;
        wal[aw]! += (tick - (ONE - q)) * m * mpt;
        ms.collateral[ci]! += makerCost + takerCost;
        let fee = 0;
        if (live) {
          // Cumulative rounding: fees of one order sum to round(Σ exact) ≤ the reserved cap.
          feeNum += feeNumerator(s.feePpm, ONE - q, m);
          const total = roundHalfUp(feeNum, feeDen);
          fee = total - feeSoFar;
          feeSoFar = total;
          wal[aw + 2]! -= fee;
          s.fees[ci]! += fee;
        }
        s.fFee[nFills] = fee;
        nFills++;
        addPosition(s, mk, posFor(mk, makerKey), m, makerCost, ms);
        if (takerPos === null) takerPos = posFor(a, takerKey);
        addPosition(s, a, takerPos, m, takerCost, ms);
        rem -= m;
        const next = pool.i32[h * IW + I_NEXT]!;
        const left = makerQty - m;
        b.qty[slot]! -= m;
        pool.f64[h * FW + F_UPDATED_AT] = c.ts;
        if (left === 0) unlink(s, h, b, slot);
        else pool.f64[h * FW + F_QTY] = left;
        h = next;
      }
      if (washed || rem === 0) break;
      li = b.best[opp]!; // the level emptied: unlink moved best to the next one down
    }
  }

  // ---- events for the fills (materialized after the loop)
  const bookTouched = nFills > 0;
  if (nFills > 0) {
    const outA = ms.outcomes[side]!;
    const outB = ms.outcomes[opp]!;
    let filledQty = 0;
    let lastQ = -1; // the last traded maker price: the outcomes' last prices, set once below
    let washMaker = NIL;
    const feeCoef = live ? s.feePpm / PPM : 0;
    for (let i = 0; i < nFills; i++) {
      const h = s.fMaker[i]!;
      const m = s.fQty[i]!;
      const q = TICKS[s.fLevel[i]!]!;
      const wash = s.fWash[i] === 1;
      if (!wash) {
        filledQty += m;
        lastQ = q;
      } else {
        // the maker half of the wash: cancel the resting order (after its fill record below)
        washMaker = h;
      }
      if (!emit) continue;
      const few = i < FILL_SUFFIXES;
      const mkId = s.accounts[pool.i32[h * IW + I_ACCOUNT]!]!.id;
      const makerFill: Fill = {
        id: few ? taker + MAKER_SUFFIX[i] : `${taker}:${i + 1}:m`,
        seq: s.seq,
        accountId: mkId,
        orderId: s.orderIdx.idOf(h),
        outcomeId: outB.id,
        marketId: ms.rec.id,
        currency: c.currency,
        price: q,
        qty: m,
        isTaker: false,
        isWash: wash,
        fee: 0,
        feeCoefficient: 0,
        ts: c.ts,
      };
      const takerFill: Fill = {
        id: few ? taker + TAKER_SUFFIX[i] : `${taker}:${i + 1}:t`,
        seq: s.seq,
        accountId: a.id,
        orderId: taker,
        outcomeId: outA.id,
        marketId: ms.rec.id,
        currency: c.currency,
        price: ONE - q,
        qty: m,
        isTaker: true,
        isWash: wash,
        fee: s.fFee[i]!,
        feeCoefficient: feeCoef,
        ts: c.ts,
      };
      s.ev.push({ kind: 'OrderFilled', fill: makerFill }, { kind: 'OrderFilled', fill: takerFill });
    }
    if (lastQ >= 0) {
      outA.last[c.currency] = ONE - lastQ;
      outB.last[c.currency] = lastQ;
    }
    if (washMaker !== NIL) cancelHandle(s, washMaker, 'WASH', c.ts);
    ms.rec.volume[c.currency] += filledQty;
    if (feeSoFar > 0 && emit) {
      s.ev.push({
        kind: 'LedgerEntry',
        accountId: a.id,
        currency: c.currency,
        entryKind: 'FEE',
        amount: -feeSoFar,
        ref: taker,
      });
    }
  }
  if (live) {
    // release the unused part of the fee reservation
    wal[aw + 2]! -= feeCap - feeSoFar;
    wal[aw]! += feeCap - feeSoFar;
  }

  const rests = rem > 0 && !washed && (tifCode === 0 || tifCode === 1 || tifCode === 4);
  if (rests) {
    const h = pool.alloc();
    pool.i32[h * IW + I_BOOK] = bi;
    pool.i32[h * IW + I_ACCOUNT] = ai;
    pool.i32[h * IW + I_SIDE] = side;
    pool.i32[h * IW + I_TIF] = tifCode;
    pool.i32[h * IW + I_LEVEL] = TICK_INDEX[tick]!;
    pool.f64[h * FW + F_QTY] = rem;
    pool.f64[h * FW + F_ORIGINAL_QTY] = qty;
    pool.f64[h * FW + F_CREATED_AT] = c.ts;
    pool.f64[h * FW + F_UPDATED_AT] = c.ts;
    pool.f64[h * FW + F_EXPIRES_AT] = expiresAt;
    pool.f64[h * FW + F_SEQ_NO] = seqNo;
    if (c.flags != null) pool.flags.set(h, c.flags);
    if (coid !== null) pool.clientOrderId.set(h, coid);
    s.orderIdx.insertKey(idHash, h); // nothing parsed another id since the validation
    link(s, h, b, a);
    if (expiresAt >= 0) {
      s.expiries.push(expiresAt, seqNo, h);
      s.gttLive++;
    }
    if (emit) placedRecord(s, placedAt, c, a, ms, rem, expiresAt, coid, false, true);
  } else {
    // IOC remainder, wash, or fully filled: release what is still reserved for the remainder
    if (rem > 0) {
      wal[aw + 2]! -= tick * rem * mpt;
      wal[aw]! += tick * rem * mpt;
    }
    if (emit) placedRecord(s, placedAt, c, a, ms, rem, expiresAt, coid, washed, false);
  }
  if (rests || bookTouched) touchBook(s, bi);
  return ok(s);
}

/**
 * OrderPlaced of a placement (and OrderCanceled for a remainder that did not rest), built from the
 * validated command: the same values `orderRecord` would read back from the pool (`c.outcomeId` is
 * the outcome's id, `c.tif` one of TIFS, `c.price` the level's tick), one literal for every
 * OrderPlaced, so its readers see one shape.
 */
export function placedRecord(
  s: ExchangeState,
  placedAt: number,
  c: Cmd<'PlaceOrder'>,
  a: Account,
  ms: MarketState,
  rem: number,
  expiresAt: number,
  coid: string | null,
  washed: boolean,
  rests: boolean,
): void {
  const rec: OrderRecord = {
    id: c.orderId,
    accountId: a.id,
    outcomeId: c.outcomeId,
    marketId: ms.rec.id,
    currency: c.currency,
    price: c.price,
    qty: rem,
    originalQty: c.qty,
    tif: c.tif,
    expiresAt: expiresAt >= 0 ? expiresAt : null,
    flags: c.flags ?? null,
    clientOrderId: coid,
    status: rests ? 'RESTING' : rem === 0 ? 'FILLED' : 'CANCELED',
    createdAt: c.ts,
    updatedAt: c.ts,
  };
  s.ev[placedAt] = { kind: 'OrderPlaced', order: rec };
  if (!rests && rem > 0) s.ev.push({ kind: 'OrderCanceled', order: rec, reason: washed ? 'WASH' : 'IOC' });
}

export function growFills(s: ExchangeState): void {
  const n = s.fMaker.length * 2;
  const g = <T extends Int32Array | Float64Array | Uint8Array>(o: T, a: T): T => {
    a.set(o as never);
    return a;
  };
  s.fMaker = g(s.fMaker, new Int32Array(n));
  s.fQty = g(s.fQty, new Float64Array(n));
  s.fLevel = g(s.fLevel, new Int32Array(n));
  s.fFee = g(s.fFee, new Float64Array(n));
  s.fWash = g(s.fWash, new Uint8Array(n));
}

/** Quantity an order could take now before reaching its limit or its own account's order (FOK). */
export function fillable(
  s: ExchangeState,
  b: Book,
  opp: number,
  minTick: number,
  want: number,
  ai: number,
): number {
  let got = 0;
  const lo = b.lo[opp]!;
  const base = b.base[opp]!;
  for (let li = b.best[opp]!; li >= lo && TICKS[li]! >= minTick; li--) {
    for (let h = b.head[base + li]!; h !== NIL; h = s.pool.i32[h * IW + I_NEXT]!) {
      if (s.pool.i32[h * IW + I_ACCOUNT] === ai) return got;
      got += s.pool.f64[h * FW + F_QTY]!;
      if (got >= want) return got;
    }
  }
  return got;
}
