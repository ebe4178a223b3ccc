// Parlay requests, quotes and positions on the wire (docs/parlays.md): prices as probabilities,
// money in currency units, times as ISO strings. The legs of a request are written as the
// unauthenticated price route writes them (docs/http.md "Parlay price").

import type { ExchangeReader } from '../exchange/reader.ts';
import { boostPrice, type Id, type ParlayRecord, type ParlayRequestRecord } from '../exchange/types.ts';
import { moneyToUnits, ppmToProbability } from '../exchange/units.ts';
import { marketToWire } from './catalog.ts';
import { isoMillis, isoOrNull } from './names.ts';

/** The price source named on every leg: Tickbook's own book. */
const VENDOR = 'tickbook';

const fiveDecimals = (ppm: number): string => (ppm / 1_000_000).toFixed(5);

/** Status as of `now`: an Unfilled request past its deadline reads Expired before the sweep runs. */
export function requestStatus(r: ParlayRequestRecord, now: number): ParlayRequestRecord['status'] {
  return r.status === 'Unfilled' && r.expiresAt <= now ? 'Expired' : r.status;
}

export function requestToWire(
  reader: ExchangeReader,
  r: ParlayRequestRecord,
  now: number,
  viewer: Id,
  parlay?: ParlayRecord,
) {
  const legs = r.legs.map((l) => {
    const outcome = reader.outcome(l.outcomeId);
    const market = reader.market(l.marketId)!; // the engine keeps every market it ever had
    return {
      outcomeId: l.outcomeId,
      price: fiveDecimals(l.price),
      vendor: VENDOR,
      outcome: {
        id: l.outcomeId,
        description: outcome?.description ?? '',
        market: marketToWire(reader, market, r.currency),
      },
    };
  });
  const p = parlay ?? (r.parlayId !== null ? reader.parlay(r.parlayId) : undefined);
  // a boosted request shows the boosted prices (docs/parlays.md "Boosts")
  const boost = r.boostId === undefined ? undefined : reader.boosts().find((b) => b.id === r.boostId);
  const boosted = (ppm: number): number =>
    boost === undefined ? ppm : boostPrice(boost.kind, boost.value, ppm);
  return {
    id: r.id,
    status: requestStatus(r, now),
    price: fiveDecimals(boosted(r.refPrice)),
    unboostedPrice: fiveDecimals(r.refPrice),
    legs,
    wager:
      p === undefined
        ? null
        : {
            parlayId: p.id,
            price: ppmToProbability(p.price),
            stake: moneyToUnits(p.stake),
            fee: moneyToUnits(p.fee),
            qty: p.qty,
            clientOrderId: p.clientOrderId,
          },
    traderId: r.accountId,
    currency: r.currency,
    stake: r.stake === null ? null : moneyToUnits(r.stake),
    createdAt: isoMillis(r.createdAt),
    expiresAt: isoMillis(r.expiresAt),
    quotes: r.quotes.map((q) => ({
      id: q.quoteId,
      requestId: r.id,
      price: ppmToProbability(q.price),
      maxQty: q.maxQty,
      createdAt: isoMillis(q.createdAt),
      expiresAt: isoMillis(q.expiresAt),
      mine: q.accountId === viewer,
      boostedPrice: boost === undefined ? null : ppmToProbability(boosted(q.price)),
    })),
    declined: r.declined,
    boostId: r.boostId ?? null,
  };
}

/** A parlay as one side sees it: its role and, once settled, what that side received. */
export function parlayToWire(p: ParlayRecord, viewer: Id) {
  const role = p.takerAccountId === viewer ? 'TAKER' : 'MAKER';
  const payout = role === 'TAKER' ? p.takerPayout : p.makerPayout;
  return {
    id: p.id,
    requestId: p.requestId,
    role,
    currency: p.currency,
    price: ppmToProbability(p.price),
    qty: p.qty,
    stake: moneyToUnits(p.stake),
    collateral: moneyToUnits(p.collateral),
    fee: moneyToUnits(p.fee),
    clientOrderId: role === 'TAKER' ? p.clientOrderId : null,
    status: p.status,
    payout: payout === null ? null : moneyToUnits(payout),
    boostId: p.boostId ?? null,
    unboostedPrice: ppmToProbability(p.quotePrice ?? p.price),
    boostCost: p.boostCost === undefined ? null : moneyToUnits(p.boostCost),
    legs: p.legs.map((l) => ({
      outcomeId: l.outcomeId,
      marketId: l.marketId,
      eventId: l.eventId,
      price: ppmToProbability(l.price),
      status: l.status,
    })),
    createdAt: isoMillis(p.createdAt),
    settledAt: isoOrNull(p.settledAt),
  };
}
