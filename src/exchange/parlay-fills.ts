// The wager on a parlay request (docs/parlays.md "Money of a fill"): it fills at the best live quote
// whose price is not above the taker's maxPrice, once per request, idempotent by clientOrderId. The
// taker pays stake = price × payout plus the fee, the maker locks payout − stake, and the payout is
// held as parlay collateral until the parlay settles (parlay-settlement.ts).

import { boostPrice } from './boost-types.ts';
import { touchWallet } from './change-tracking.ts';
import { isSafePos, reject } from './command-checks.ts';
import { boostedFillMoney, usableBoost, useBoost } from './parlay-boosts.ts';
import { closeRequest, legClosedReason, openRequest } from './parlay-requests.ts';
import {
  CURRENCY_INDEX,
  fillMoney,
  indexParlay,
  isPpmPrice,
  parlayView,
  qtyForStake,
  wagerKey,
} from './parlay-state.ts';
import { accountOf, type Cmd, type ExchangeState, ok, WALLET_SLOTS } from './state.ts';
import type {
  BoostRecord,
  CommandResult,
  Currency,
  Id,
  Money,
  ParlayLedgerKind,
  ParlayQuoteRecord,
  ParlayRecord,
} from './types.ts';
import { MONEY_PER_MCU } from './units.ts';

export function parlayWager(s: ExchangeState, c: Cmd<'ParlayWager'>): CommandResult {
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  const taker = s.accounts[accountIndex]!;
  const cid = c.clientOrderId ?? null;
  if (cid !== null && (typeof cid !== 'string' || cid.length === 0 || cid.length > 64))
    return reject('VALIDATION_FAILED', 'clientOrderId: 1..64 characters or null');
  if (cid !== null) {
    const done = s.parlay.clientWagers.get(wagerKey(taker.id, cid));
    if (done !== undefined)
      return reject('ALREADY_EXISTS', 'clientOrderId already used by a wager', { parlayId: done });
  }
  const r = openRequest(s, c.requestId, c.ts);
  if ('ok' in r) return r;
  if (r.accountId !== taker.id) return reject('PARLAY_REQUEST_NOT_FOUND');
  if (!isSafePos(c.stake)) return reject('INVALID_AMOUNT', 'stake: positive Money');
  if (!isPpmPrice(c.maxPrice)) return reject('INVALID_PRICE', 'maxPrice: integer 1..999999 ppm');
  for (const leg of r.legs) {
    const why = legClosedReason(s, s.marketIdx.get(leg.marketId)!, c.ts);
    if (why !== null) return reject(why, undefined, { outcomeId: leg.outcomeId });
  }
  let boost: BoostRecord | null = null;
  if (r.boostId !== undefined) {
    const leagues = r.legs.map((l) => s.markets[s.marketIdx.get(l.marketId)!]!.event.league);
    const b = usableBoost(s, r.boostId, taker.id, leagues, c.stake, c.ts);
    if ('ok' in b) return b;
    boost = b;
  }
  const currencyIndex = CURRENCY_INDEX(r.currency);
  const perMcu = MONEY_PER_MCU[currencyIndex]!;
  const pick = bestQuote(s, r.quotes, c.stake, c.maxPrice, currencyIndex, c.ts, boost);
  if ('ok' in pick) return pick;
  const { quote, qty, makerIndex } = pick;
  const m =
    boost === null
      ? { ...fillMoney(quote.price, qty, perMcu), boostCost: 0, price: quote.price }
      : boostedFillMoney(boost, quote.price, qty, perMcu);
  const takerAvailable = accountIndex * WALLET_SLOTS + currencyIndex;
  const makerAvailable = makerIndex * WALLET_SLOTS + currencyIndex;
  const fundingIndex = boost === null ? -1 : s.accountIdx.get(boost.fundingAccountId)!;
  const fundingAvailable = fundingIndex * WALLET_SLOTS + currencyIndex;
  // what each wallet pays (one account may be two of the three sides)
  const need = new Map<number, Money>([[takerAvailable, m.stake + m.fee]]);
  need.set(makerAvailable, (need.get(makerAvailable) ?? 0) + m.collateral);
  if (boost !== null) need.set(fundingAvailable, (need.get(fundingAvailable) ?? 0) + m.boostCost);
  if (s.wallets[takerAvailable]! < need.get(takerAvailable)!)
    return reject('INSUFFICIENT_FUNDS', 'available funds do not cover the stake and the fee');
  if (boost !== null && s.wallets[fundingAvailable]! < need.get(fundingAvailable)!)
    return reject('BOOST_FUNDS_INSUFFICIENT', 'the boost’s funding account cannot pay its cost', {
      boostId: boost.id,
      boostCost: m.boostCost,
    });

  // ---- accepted: move the money
  s.wallets[takerAvailable]! -= m.stake + m.fee;
  s.wallets[makerAvailable]! -= m.collateral;
  if (boost !== null) {
    s.wallets[fundingAvailable]! -= m.boostCost;
    touchWallet(s, s.accounts[fundingIndex]!, currencyIndex);
    useBoost(s, boost, taker.id, currencyIndex, m.boostCost);
  }
  s.parlay.collateral[currencyIndex]! += m.payout;
  s.fees[currencyIndex]! += m.fee;
  touchWallet(s, taker, currencyIndex);
  touchWallet(s, s.accounts[makerIndex]!, currencyIndex);
  const p: ParlayRecord = {
    id: r.id,
    requestId: r.id,
    quoteId: quote.quoteId,
    currency: r.currency,
    takerAccountId: taker.id,
    makerAccountId: quote.accountId,
    price: m.price,
    qty,
    stake: m.stake,
    collateral: m.collateral,
    fee: m.fee,
    clientOrderId: cid,
    // a literal with every field: a spread plus `status` put that field out of the object
    legs: r.legs.map((l) => ({
      outcomeId: l.outcomeId,
      marketId: l.marketId,
      eventId: l.eventId,
      price: l.price,
      status: 'TBD',
    })),
    status: 'OPEN',
    takerPayout: null,
    makerPayout: null,
    createdAt: c.ts,
    settledAt: null,
  };
  if (boost !== null) {
    p.boostId = boost.id;
    p.quotePrice = quote.price;
    p.boostCost = m.boostCost;
  }
  s.parlay.parlays.set(p.id, p);
  if (cid !== null) s.parlay.clientWagers.set(wagerKey(taker.id, cid), p.id);
  indexParlay(s.parlay, p, (marketId) => s.marketIdx.get(marketId)!);
  r.parlayId = p.id;
  closeRequest(s, r, 'Filled', c.ts);
  if (s.emitEvents) {
    ledger(s, taker.id, r.currency, 'FILL_PARLAY_TAKER_FUNDS', -m.stake, p.id);
    if (m.fee > 0) ledger(s, taker.id, r.currency, 'FEE_PARLAY_TAKER_FUNDS', -m.fee, p.id);
    ledger(s, quote.accountId, r.currency, 'FILL_PARLAY_MAKER_FUNDS', -m.collateral, p.id);
    if (boost !== null)
      ledger(s, boost.fundingAccountId, r.currency, 'FILL_PARLAY_BOOST_FUNDS', -m.boostCost, p.id);
    s.ev.push({ kind: 'ParlayChanged', parlay: parlayView(p) });
  }
  return ok(s);
}

/**
 * The quote a wager fills: the lowest price (earliest quote on a tie) among live quotes — not
 * expired, price ≤ maxPrice, maxQty covering the stake's payout, the maker's available funds
 * covering its collateral. A quote whose maker can no longer cover it is not live. No quote:
 * PARLAY_PRICE_MOVED when a live one exists above maxPrice (stale-quote protection), else
 * PARLAY_NO_QUOTE.
 */
function bestQuote(
  s: ExchangeState,
  quotes: readonly ParlayQuoteRecord[],
  stake: Money,
  maxPrice: number,
  currencyIndex: number,
  ts: number,
  boost: BoostRecord | null,
): { quote: ParlayQuoteRecord; qty: number; makerIndex: number } | CommandResult {
  const perMcu = MONEY_PER_MCU[currencyIndex]!;
  let best: { quote: ParlayQuoteRecord; qty: number; makerIndex: number } | null = null;
  let above: number | null = null;
  for (const q of quotes) {
    if (q.expiresAt <= ts) continue;
    // a boosted request: the taker's price is the quote's boosted price (docs/parlays.md "Boosts")
    const price = boost === null ? q.price : boostPrice(boost.kind, boost.value, q.price);
    const qty = qtyForStake(stake, price, perMcu);
    if (qty < 1 || qty > q.maxQty || !Number.isSafeInteger(qty * perMcu)) continue;
    const makerIndex = s.accountIdx.get(q.accountId)!;
    if (s.wallets[makerIndex * WALLET_SLOTS + currencyIndex]! < fillMoney(q.price, qty, perMcu).collateral)
      continue;
    if (price > maxPrice) {
      if (above === null || price < above) above = price;
      continue;
    }
    if (best === null || q.price < best.quote.price) best = { quote: q, qty, makerIndex };
  }
  if (best !== null) return best;
  if (above !== null)
    return reject('PARLAY_PRICE_MOVED', 'the best live quote is above maxPrice', { bestPrice: above });
  return reject('PARLAY_NO_QUOTE', 'no live quote can fill this stake');
}

export function ledger(
  s: ExchangeState,
  accountId: Id,
  currency: Currency,
  entryKind: ParlayLedgerKind | 'FILL_PARLAY_BOOST_FUNDS',
  amount: Money,
  ref: Id,
): void {
  s.ev.push({ kind: 'LedgerEntry', accountId, currency, entryKind, amount, ref });
}
