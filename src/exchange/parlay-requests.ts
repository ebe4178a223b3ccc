// Parlay requests for quote and makers' firm quotes (docs/parlays.md "Lifecycle"): a request is
// made, quoted by makers, and closes when it is filled (parlay-fills.ts), cancelled, expires (its
// own deadline, swept by `Expire`) or is declined because a leg's market stopped trading. Quotes
// move no money: the maker's collateral is checked when it quotes and taken only by a fill.

import { touchWallet } from './change-tracking.ts';
import { isSafePos, isStr, reject } from './command-checks.ts';
import { isLocked } from './locks-and-fees.ts';
import { usableBoost } from './parlay-boosts.ts';
import {
  accountParlays,
  CURRENCY_INDEX,
  fillMoney,
  indexAdd,
  indexDelete,
  isPpmPrice,
  PARLAY_ENGINE_MAX_LEGS,
  requestView,
} from './parlay-state.ts';
import { accountOf, type Cmd, CUR_INDEX, type ExchangeState, ok, WALLET_SLOTS } from './state.ts';
import {
  type CommandResult,
  type Id,
  type ParlayRequestLeg,
  type ParlayRequestRecord,
  type ParlayRequestStatus,
  TRADABLE_EVENT_STATUSES,
} from './types.ts';
import { MONEY_PER_MCU } from './units.ts';

/** The largest time value ECMAScript's Date represents (ECMA-262 §21.4.1.1). */
const MAX_TIME_MS = 8.64e15;

export function parlayRequest(s: ExchangeState, c: Cmd<'ParlayRequest'>): CommandResult {
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  if (CUR_INDEX[c.currency] === undefined) return reject('INVALID_CURRENCY');
  if (!isStr(c.requestId)) return reject('VALIDATION_FAILED', 'requestId required');
  if (s.parlay.requests.has(c.requestId)) return reject('ALREADY_EXISTS', `request ${c.requestId} exists`);
  if (!isPpmPrice(c.refPrice)) return reject('INVALID_PRICE', 'refPrice: integer 1..999999 ppm');
  if (c.stake !== null && !isSafePos(c.stake))
    return reject('INVALID_AMOUNT', 'stake: positive Money or null');
  if (!Number.isSafeInteger(c.expiresAt) || c.expiresAt <= c.ts || c.expiresAt > MAX_TIME_MS)
    return reject('VALIDATION_FAILED', 'expiresAt must be a time after ts');
  if (!Array.isArray(c.legs) || c.legs.length < 2 || c.legs.length > PARLAY_ENGINE_MAX_LEGS)
    return reject('PARLAY_INVALID_LEGS', `a parlay has 2..${PARLAY_ENGINE_MAX_LEGS} legs`);
  const legs: ParlayRequestLeg[] = [];
  const markets = new Set<number>();
  for (const leg of c.legs) {
    const ref = leg && typeof leg.outcomeId === 'string' ? s.outcomeRef.get(leg.outcomeId) : undefined;
    if (ref === undefined) return reject('OUTCOME_NOT_FOUND', `outcome ${String(leg?.outcomeId)} not found`);
    if (!isPpmPrice(leg.price)) return reject('INVALID_PRICE', 'leg price: integer 1..999999 ppm');
    const market = s.markets[ref >> 1]!;
    if (markets.has(market.idx))
      return reject('PARLAY_INVALID_LEGS', 'two legs in one market', { marketId: market.rec.id });
    markets.add(market.idx);
    const why = legClosedReason(s, market.idx, c.ts);
    if (why !== null) return reject(why, undefined, { outcomeId: leg.outcomeId });
    legs.push({
      outcomeId: leg.outcomeId,
      marketId: market.rec.id,
      eventId: market.event.id,
      price: leg.price,
    });
  }
  let boostId: Id | null = null;
  if (c.boostId !== undefined && c.boostId !== null) {
    const leagues = legs.map((l) => s.markets[s.marketIdx.get(l.marketId)!]!.event.league);
    const b = usableBoost(s, c.boostId, s.accounts[accountIndex]!.id, leagues, c.stake, c.ts);
    if ('ok' in b) return b;
    boostId = b.id;
  }
  const r: ParlayRequestRecord = {
    id: c.requestId,
    accountId: s.accounts[accountIndex]!.id,
    currency: c.currency,
    legs,
    refPrice: c.refPrice,
    stake: c.stake,
    status: 'Unfilled',
    declined: null,
    quotes: [],
    parlayId: null,
    createdAt: c.ts,
    updatedAt: c.ts,
    expiresAt: c.expiresAt,
  };
  if (boostId !== null) r.boostId = boostId; // absent otherwise: unboosted records keep their bytes
  s.parlay.requests.set(r.id, r);
  s.parlay.open.set(r.id, r);
  accountParlays(s.parlay, r.accountId).requests.push(r.id);
  for (const m of markets) indexAdd(s.parlay.openByMarket, m, r.id);
  requestChanged(s, r);
  return ok(s);
}

/** Why a leg in market `marketIndex` cannot be part of a new request or fill, or null. */
export function legClosedReason(
  s: ExchangeState,
  marketIndex: number,
  ts: number,
): 'MARKET_NOT_OPEN' | 'EVENT_NOT_TRADABLE' | 'TRADING_LOCKED' | null {
  const market = s.markets[marketIndex]!;
  if (market.rec.status !== 'OPEN') return 'MARKET_NOT_OPEN';
  if (!TRADABLE_EVENT_STATUSES.includes(market.event.status)) return 'EVENT_NOT_TRADABLE';
  if (isLocked(s, market.event.id, ts)) return 'TRADING_LOCKED';
  return null;
}

/** The open request `requestId` as of `ts`, or the rejection of a command that needs one. */
export function openRequest(
  s: ExchangeState,
  requestId: Id,
  ts: number,
): ParlayRequestRecord | CommandResult {
  const r = typeof requestId === 'string' ? s.parlay.requests.get(requestId) : undefined;
  if (r === undefined) return reject('PARLAY_REQUEST_NOT_FOUND');
  if (r.status !== 'Unfilled' || r.expiresAt <= ts)
    return reject('PARLAY_REQUEST_CLOSED', `request is ${r.status === 'Unfilled' ? 'Expired' : r.status}`);
  return r;
}

export function parlayCancel(s: ExchangeState, c: Cmd<'ParlayCancel'>): CommandResult {
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  const r = openRequest(s, c.requestId, c.ts);
  if ('ok' in r) return r;
  if (r.accountId !== s.accounts[accountIndex]!.id) return reject('PARLAY_REQUEST_NOT_FOUND');
  closeRequest(s, r, 'Cancelled', c.ts);
  return ok(s);
}

/**
 * A maker's firm quote: replaces the same maker's earlier quote on the request. The maker must
 * hold, available now, the collateral of a fill of maxQty at its price (docs/parlays.md "Quotes").
 */
export function parlayQuote(s: ExchangeState, c: Cmd<'ParlayQuote'>): CommandResult {
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  if (!isStr(c.quoteId)) return reject('VALIDATION_FAILED', 'quoteId required');
  const r = openRequest(s, c.requestId, c.ts);
  if ('ok' in r) return r;
  const maker = s.accounts[accountIndex]!;
  if (maker.id === r.accountId) return reject('VALIDATION_FAILED', 'a maker cannot quote its own request');
  if (!isPpmPrice(c.price)) return reject('INVALID_PRICE', 'price: integer 1..999999 ppm');
  const currencyIndex = CURRENCY_INDEX(r.currency);
  const perMcu = MONEY_PER_MCU[currencyIndex]!;
  if (!isSafePos(c.maxQty) || !Number.isSafeInteger(c.maxQty * perMcu)) return reject('INVALID_QTY');
  if (!Number.isSafeInteger(c.expiresAt) || c.expiresAt <= c.ts || c.expiresAt > MAX_TIME_MS)
    return reject('VALIDATION_FAILED', 'expiresAt must be a time after ts');
  const { collateral } = fillMoney(c.price, c.maxQty, perMcu);
  if (s.wallets[accountIndex * WALLET_SLOTS + currencyIndex]! < collateral)
    return reject('INSUFFICIENT_FUNDS', 'available funds do not cover the quote’s collateral');
  const quote = {
    quoteId: c.quoteId,
    accountId: maker.id,
    price: c.price,
    maxQty: c.maxQty,
    createdAt: c.ts,
    expiresAt: c.expiresAt,
  };
  const i = r.quotes.findIndex((q) => q.accountId === maker.id);
  if (i >= 0) r.quotes.splice(i, 1);
  r.quotes.push(quote);
  r.updatedAt = c.ts;
  requestChanged(s, r);
  return ok(s);
}

/** Closes an open request (filled, cancelled, expired, declined): off the open indexes. */
export function closeRequest(
  s: ExchangeState,
  r: ParlayRequestRecord,
  status: Exclude<ParlayRequestStatus, 'Unfilled'>,
  ts: number,
): void {
  r.status = status;
  r.updatedAt = ts;
  s.parlay.open.delete(r.id);
  for (const leg of r.legs) indexDelete(s.parlay.openByMarket, s.marketIdx.get(leg.marketId)!, r.id);
  requestChanged(s, r);
}

/** The expiry sweep's part (cancels.ts `expire`): open requests whose deadline is ≤ ts expire. */
export function expireParlayRequests(s: ExchangeState, ts: number): void {
  if (s.parlay.open.size === 0) return;
  const due: ParlayRequestRecord[] = [];
  for (const r of s.parlay.open.values()) if (r.expiresAt <= ts) due.push(r);
  for (const r of due) closeRequest(s, r, 'Expired', ts);
}

/** Earliest deadline of an open request, or +∞ (the scheduler's next `Expire`). */
export function nextParlayExpiry(s: ExchangeState): number {
  let t = Number.POSITIVE_INFINITY;
  for (const r of s.parlay.open.values()) if (r.expiresAt < t) t = r.expiresAt;
  return t;
}

/**
 * A market changed status (closed, settled, its event left trading): every open request with a leg
 * there is declined, with the reason per affected leg.
 */
export function declineRequestsOnMarket(s: ExchangeState, marketIndex: number, ts: number): void {
  const ids = s.parlay.openByMarket.get(marketIndex);
  if (ids === undefined) return;
  const market = s.markets[marketIndex]!;
  let reason: string | null = null;
  if (market.rec.status === 'SETTLED') reason = 'MARKET_SETTLED';
  else if (market.rec.status !== 'OPEN') reason = 'MARKET_CLOSED';
  else if (!TRADABLE_EVENT_STATUSES.includes(market.event.status)) reason = 'EVENT_NOT_TRADABLE';
  if (reason === null) return;
  for (const id of [...ids]) {
    const r = s.parlay.open.get(id)!;
    r.declined = r.legs
      .filter((l) => l.marketId === market.rec.id)
      .map((l) => ({ outcomeId: l.outcomeId, reason: reason as string }));
    closeRequest(s, r, 'Declined', ts);
  }
}

export function requestChanged(s: ExchangeState, r: ParlayRequestRecord): void {
  if (s.emitEvents) s.ev.push({ kind: 'ParlayRequestChanged', request: requestView(r) });
}

/** Wallet change of a parlay's money movement, for the change events. */
export function touchParlayWallet(s: ExchangeState, accountIndex: number, currencyIndex: number): void {
  touchWallet(s, s.accounts[accountIndex]!, currencyIndex);
}
