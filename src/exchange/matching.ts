// The matching loop: validation, reservation, price-time matching with self-trade prevention and
// taker fees, and the remainder resting or cancelled, for one PlaceOrder (docs/exchange.md "Books and matching"). It stays one
// unit on purpose: it is the hot path, and reads best as one piece (docs/bench-engine.md).

import { touchBook, touchWallet } from './change-tracking.ts';
import { hasClientOrder } from './client-order-ids.ts';
import { isSafePos, isStr, reject } from './command-checks.ts';
import { isLocked } from './locks-and-fees.ts';
import { checkProtected, mmpCheckLimits, mmpRecordFills } from './mmp.ts';
import { mapClientOrder, repricedTick, STP_CANCEL_BOTH, STP_CANCEL_MAKER, stpCode } from './order-options.ts';
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
  PROTECTED,
} from './order-pool.ts';
import { addPosition, posFor } from './positions.ts';
import { small } from './records.ts';
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
  WALLET_RESERVED,
  WALLET_SLOTS,
} from './state.ts';
import { isTick, ONE, TICK_INDEX, TICKS } from './ticks.ts';
import {
  type CommandResult,
  type DomainEvent,
  type Fill,
  type OrderRecord,
  RESTING_TIFS,
  TIFS,
} from './types.ts';
import {
  feeDenominator,
  feeNumerator,
  MAX_MONEY,
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

/** By TIF code (the index in TIFS): whether the remainder may rest (RESTING_TIFS), one load per order. */
const TIF_CODE_MAY_REST: readonly boolean[] = TIFS.map((tif) => RESTING_TIFS.has(tif));

/** The largest time value ECMAScript's Date represents (ECMA-262 §21.4.1.1). */
const MAX_TIME_MS = 8.64e15;

export function placeOrder(s: ExchangeState, c: Cmd<'PlaceOrder'>): CommandResult {
  // ---- validation: nothing is touched until every check has passed
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  const a = s.accounts[accountIndex]!;
  const currencyIndex = CUR_INDEX[c.currency];
  if (currencyIndex === undefined) return reject('INVALID_CURRENCY');
  const wallets = s.wallets;
  const takerAvailable = accountIndex * WALLET_SLOTS + currencyIndex; // the taker's wallet slots
  const takerReserved = takerAvailable + WALLET_RESERVED;
  const tifCode = TIFS.indexOf(c.tif);
  if (tifCode < 0) return reject('INVALID_TIF');
  let tick = c.price;
  if (!isTick(tick)) return reject('INVALID_PRICE');
  const qty = c.qty;
  let cost = tick * qty * MONEY_PER_TICK_MCU[currencyIndex]!;
  if (!isSafePos(qty)) return reject('INVALID_QTY');
  // The payout bounds the cost, fee and collateral of the order (docs/exchange.md "Exact money").
  if (qty * MONEY_PER_MCU[currencyIndex]! > MAX_MONEY) return reject('AMOUNT_OUT_OF_RANGE');
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
  const clientOrderId = c.clientOrderId ?? null;
  if (clientOrderId !== null && (typeof clientOrderId !== 'string' || clientOrderId.length === 0)) {
    return reject('VALIDATION_FAILED', 'clientOrderId must be a non-empty string');
  }
  if (clientOrderId !== null && hasClientOrder(a, clientOrderId)) return reject('DUPLICATE_CLIENT_ORDER_ID');
  const stp = c.stp === undefined ? STP_CANCEL_BOTH : stpCode(c.stp);
  if (stp < 0) return reject('VALIDATION_FAILED', 'stp: CANCEL_BOTH, CANCEL_TAKER or CANCEL_MAKER');
  const reprice = c.reprice;
  if (reprice !== undefined && (typeof reprice !== 'boolean' || (reprice && c.tif !== 'PO')))
    return reject('VALIDATION_FAILED', 'reprice: a boolean, true only with tif PO');
  const ref = outcomeOf(s, c);
  if (ref === undefined) return reject('OUTCOME_NOT_FOUND');
  const marketIndex = ref >> 1;
  const side = ref & 1;
  const market = s.markets[marketIndex]!;
  if (market.rec.status !== 'OPEN') return reject('MARKET_NOT_OPEN');
  const eventStatus = market.event.status;
  // TRADABLE_EVENT_STATUSES (types.ts), spelled out on the order path.
  if (eventStatus !== 'OPEN_PREGAME' && eventStatus !== 'OPEN_INGAME') return reject('EVENT_NOT_TRADABLE');
  if (isLocked(s, market.event.id, c.ts)) return reject('TRADING_LOCKED');
  const mmpCheck = c.mmp === undefined ? null : checkProtected(s, c, accountIndex, market, currencyIndex);
  if (mmpCheck !== null) return mmpCheck;
  if (reprice === true) {
    // post-only reprice (docs/exchange.md "Books and matching"): rest one tick inside instead
    tick = repricedTick(s, marketIndex * 2 + currencyIndex, side, tick);
    if (tick < 0) return reject('POST_ONLY_WOULD_TAKE', 'no price left below the best opposite bid');
    cost = tick * qty * MONEY_PER_TICK_MCU[currencyIndex]!;
  }
  // Live fills pay a taker fee; its worst case is reserved with the cost so the wallet can never
  // go negative (docs/exchange.md "Fees").
  const live = eventStatus === 'OPEN_INGAME' && s.feePpm > 0;
  const feeCap = live ? maxTakerFee(s.feePpm, tick, qty, c.currency) : 0;
  if (wallets[takerAvailable]! < cost + feeCap) return reject('INSUFFICIENT_FUNDS');

  const bookIndex = marketIndex * 2 + currencyIndex;
  const b = book(s, bookIndex);
  const opp = side ^ 1;
  const oppBase = b.base[opp]!; // nothing in the loop below widens the book
  const minTick = ONE - tick; // resting bids on the other outcome at q >= this cross
  const bestOpp = b.best[opp]!;
  const crosses = bestOpp >= 0 && TICKS[bestOpp]! >= minTick;
  if (c.tif === 'PO' && crosses) return reject('POST_ONLY_WOULD_TAKE');
  if (c.tif === 'FOK' && fillable(s, b, opp, minTick, qty, accountIndex, stp === STP_CANCEL_MAKER) < qty)
    return reject('FOK_NOT_FILLED');

  // ---- accepted: reserve, match, rest or cancel the remainder
  const pool = s.pool;
  const taker = c.orderId;
  const seqNo = s.orderSeq++;
  wallets[takerAvailable]! -= cost + feeCap;
  wallets[takerReserved]! += cost + feeCap;
  touchWallet(s, a, currencyIndex);
  const emit = s.emitEvents;
  const placedAt = s.ev.length; // OrderPlaced goes first; filled in once the outcome is known
  if (emit) s.ev.push(PLACEHOLDER);
  if (clientOrderId !== null) mapClientOrder(s, a, clientOrderId, taker, c.price, tick, qty);

  let rem = qty;
  let nFills = 0;
  let washed = false;
  let feeNum = 0n;
  let feeSoFar = 0;
  const moneyPerTick = MONEY_PER_TICK_MCU[currencyIndex]!;
  if (crosses) {
    const feeDen = live ? feeDenominator(c.currency) : 1n;
    const takerKey = (marketIndex * 2 + side) * 2 + currencyIndex;
    const makerKey = (marketIndex * 2 + opp) * 2 + currencyIndex;
    let takerPos: Pos | null = null;
    let level = bestOpp;
    while (rem > 0 && level >= 0 && TICKS[level]! >= minTick) {
      const slot = oppBase + level;
      const q = TICKS[level]!;
      let h = b.head[slot]!;
      while (rem > 0 && h !== NIL) {
        const makerAccountIndex = pool.i32[h * IW + I_ACCOUNT]!;
        const makerQty = pool.f64[h * FW + F_QTY]!;
        const m = Math.min(rem, makerQty);
        if (nFills === s.fMaker.length) growFills(s);
        s.fMaker[nFills] = h;
        s.fQty[nFills] = m;
        s.fLevel[nFills] = level;
        if (makerAccountIndex === accountIndex) {
          // Self-trade prevention, no money moves (docs/exchange.md "Self-trade prevention"): the
          // maker is cancelled and matching goes on, or the taker's remainder is cancelled — with
          // the maker and a pair of wash records under CANCEL_BOTH.
          if (stp === STP_CANCEL_MAKER) {
            const next = pool.i32[h * IW + I_NEXT]!;
            cancelHandle(s, h, 'WASH', c.ts);
            h = next;
            continue;
          }
          if (stp === STP_CANCEL_BOTH) {
            s.fWash[nFills] = 1;
            s.fFee[nFills] = 0;
            nFills++;
          }
          washed = true;
          break;
        }
        s.fWash[nFills] = 0;
        const mk = s.accounts[makerAccountIndex]!;
        const makerCost = q * m * moneyPerTick;
        const takerCost = (ONE - q) * m * moneyPerTick;
        // maker: reserved collateral becomes position cost
        wallets[makerAccountIndex * WALLET_SLOTS + WALLET_RESERVED + currencyIndex]! -= makerCost;
        touchWallet(s, mk, currencyIndex);
        // taker: reserved at its limit, pays 1000 − q; the improvement goes back to available
        wallets[takerReserved]! -= tick * m * moneyPerTick;
        wallets[takerAvailable]! += (tick - (ONE - q)) * m * moneyPerTick;
        market.collateral[currencyIndex]! += makerCost + takerCost;
        let fee = 0;
        if (live) {
          // Cumulative rounding: fees of one order sum to round(Σ exact) ≤ the reserved cap.
          feeNum += feeNumerator(s.feePpm, ONE - q, m);
          const total = roundHalfUp(feeNum, feeDen);
          fee = total - feeSoFar;
          feeSoFar = total;
          wallets[takerReserved]! -= fee;
          s.fees[currencyIndex]! += fee;
        }
        s.fFee[nFills] = fee;
        nFills++;
        addPosition(s, mk, posFor(mk, makerKey), m, makerCost, market);
        if (takerPos === null) takerPos = posFor(a, takerKey);
        addPosition(s, a, takerPos, m, takerCost, market);
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
      level = b.best[opp]!; // the level emptied: unlink moved best to the next one down
    }
  }

  // ---- events for the fills (materialized after the loop)
  const bookTouched = nFills > 0;
  if (nFills > 0) {
    const outA = market.outcomes[side]!;
    const outB = market.outcomes[opp]!;
    let filledQty = 0;
    let lastQ = -1; // the last traded maker price: the outcomes' last prices, set once below
    let washMaker = NIL;
    const feeCoef = live ? s.feePpm / PPM : 0;
    for (let i = 0; i < nFills; i++) {
      const h = s.fMaker[i]!;
      const m = small(s.fQty[i]!); // records.ts small: the fills keep small-integer fields
      const q = TICKS[s.fLevel[i]!]!;
      const wash = s.fWash[i] === 1;
      if (!wash) {
        filledQty += m;
        lastQ = q;
      } else washMaker = h; // the maker half of the wash: cancelled after its fill record below
      if (!emit) continue;
      const few = i < FILL_SUFFIXES;
      const mkId = s.accounts[pool.i32[h * IW + I_ACCOUNT]!]!.id;
      const makerFill: Fill = {
        id: few ? taker + MAKER_SUFFIX[i] : `${taker}:${i + 1}:m`,
        seq: s.seq,
        accountId: mkId,
        orderId: s.orderIdx.idOf(h),
        outcomeId: outB.id,
        marketId: market.rec.id,
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
        marketId: market.rec.id,
        currency: c.currency,
        price: ONE - q,
        qty: m,
        isTaker: true,
        isWash: wash,
        fee: small(s.fFee[i]!),
        feeCoefficient: feeCoef,
        ts: c.ts,
      };
      s.ev.push({ kind: 'OrderFilled', fill: makerFill });
      s.ev.push({ kind: 'OrderFilled', fill: takerFill });
    }
    if (lastQ >= 0) {
      outA.last[c.currency] = ONE - lastQ;
      outB.last[c.currency] = lastQ;
    }
    if (washMaker !== NIL) cancelHandle(s, washMaker, 'WASH', c.ts);
    market.rec.volume[c.currency] += filledQty;
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
  const mmpFilled =
    nFills > 0 && s.mmpConfigs.size > 0 && mmpRecordFills(s, c, market, accountIndex, side, nFills);
  if (live) {
    // release the unused part of the fee reservation
    wallets[takerReserved]! -= feeCap - feeSoFar;
    wallets[takerAvailable]! += feeCap - feeSoFar;
  }

  const rests = rem > 0 && !washed && TIF_CODE_MAY_REST[tifCode]!;
  if (rests) {
    const h = pool.alloc();
    pool.i32[h * IW + I_BOOK] = bookIndex;
    pool.i32[h * IW + I_ACCOUNT] = accountIndex;
    pool.i32[h * IW + I_SIDE] = side;
    pool.i32[h * IW + I_TIF] = c.mmp === true ? tifCode | PROTECTED : tifCode;
    pool.i32[h * IW + I_LEVEL] = TICK_INDEX[tick]!;
    pool.f64[h * FW + F_QTY] = rem;
    pool.f64[h * FW + F_ORIGINAL_QTY] = qty;
    pool.f64[h * FW + F_CREATED_AT] = c.ts;
    pool.f64[h * FW + F_UPDATED_AT] = c.ts;
    pool.f64[h * FW + F_EXPIRES_AT] = expiresAt;
    pool.f64[h * FW + F_SEQ_NO] = seqNo;
    if (c.flags != null) pool.flags.set(h, c.flags);
    if (clientOrderId !== null) pool.clientOrderId.set(h, clientOrderId);
    s.orderIdx.insertKey(idHash, h); // nothing parsed another id since the validation
    link(s, h, b, a);
    if (expiresAt >= 0) {
      s.expiries.push(expiresAt, seqNo, h);
      s.gttLive++;
    }
    if (emit) placedRecord(s, placedAt, c, a, market, rem, expiresAt, clientOrderId, false, true, tick);
  } else {
    // IOC remainder, wash, or fully filled: release what is still reserved for the remainder
    if (rem > 0) {
      wallets[takerReserved]! -= tick * rem * moneyPerTick;
      wallets[takerAvailable]! += tick * rem * moneyPerTick;
    }
    if (emit) placedRecord(s, placedAt, c, a, market, rem, expiresAt, clientOrderId, washed, false, tick);
  }
  if (rests || bookTouched) touchBook(s, bookIndex);
  if (mmpFilled) mmpCheckLimits(s, c, market); // docs/exchange.md "Market-maker protection"
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
  market: MarketState,
  rem: number,
  expiresAt: number,
  clientOrderId: string | null,
  washed: boolean,
  rests: boolean,
  price: number = c.price,
): void {
  const rec: OrderRecord = {
    id: c.orderId,
    accountId: a.id,
    outcomeId: c.outcomeId,
    marketId: market.rec.id,
    currency: c.currency,
    price,
    qty: rem,
    originalQty: c.qty,
    tif: c.tif,
    expiresAt: expiresAt >= 0 ? expiresAt : null,
    flags: c.flags ?? null,
    clientOrderId: clientOrderId,
    status: rests ? 'RESTING' : rem === 0 ? 'FILLED' : 'CANCELED',
    createdAt: c.ts,
    updatedAt: c.ts,
  };
  s.ev.set(placedAt, { kind: 'OrderPlaced', order: rec });
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

/** Quantity an order could take now before reaching its limit or its own account's order (FOK);
 * with `skipOwn` (STP CANCEL_MAKER) past its own orders. */
export function fillable(
  s: ExchangeState,
  b: Book,
  opp: number,
  minTick: number,
  want: number,
  accountIndex: number,
  skipOwn = false,
): number {
  let got = 0;
  const lo = b.lo[opp]!;
  const base = b.base[opp]!;
  for (let level = b.best[opp]!; level >= lo && TICKS[level]! >= minTick; level--) {
    for (let h = b.head[base + level]!; h !== NIL; h = s.pool.i32[h * IW + I_NEXT]!) {
      if (s.pool.i32[h * IW + I_ACCOUNT] === accountIndex) {
        if (skipOwn) continue; // CANCEL_MAKER: own orders are cancelled, matching goes past them
        return got;
      }
      got += s.pool.f64[h * FW + F_QTY]!;
      if (got >= want) return got;
    }
  }
  return got;
}
