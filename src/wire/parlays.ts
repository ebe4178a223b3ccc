// Parlay requests, quotes and positions on the wire (docs/parlays.md): prices as probabilities,
// money in currency units, times as ISO strings. The legs of a request are written as the
// unauthenticated price route writes them (docs/http.md "Parlay price").

import type { ExchangeReader } from '../exchange/reader.ts';
import {
  boostPrice,
  CURRENCIES,
  type Id,
  OUTCOME_STATUSES,
  type ParlayRecord,
  type ParlayRequestRecord,
} from '../exchange/types.ts';
import { moneyToUnits, ppmToProbability } from '../exchange/units.ts';
import { marketToWire } from './catalog.ts';
import { isoMillis, isoOrNull } from './names.ts';
import { isoTime, nullableIsoTime, uuid, type Wire } from './schema.ts';

/** A price as a probability. */
export const probability = {
  type: 'number',
  exclusiveMinimum: 0,
  exclusiveMaximum: 1,
  description: 'Probability with at most 6 decimals',
} as const;

/** A parlay position as one side sees it (parlayToWire): REST's parlays and the stream's
 * parlayFill and parlayUpdate frames. */
export const parlaySchema = {
  type: 'object',
  properties: {
    id: uuid,
    requestId: uuid,
    role: { type: 'string', enum: ['TAKER', 'MAKER'] },
    currency: { type: 'string', enum: [...CURRENCIES] },
    price: probability,
    qty: { type: 'integer', description: 'Payout, minimum currency units' },
    stake: { type: 'number', description: 'The taker’s stake, currency units' },
    collateral: { type: 'number', description: 'The maker’s collateral, currency units' },
    fee: { type: 'number', description: 'The taker’s fee, currency units' },
    clientOrderId: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['OPEN', 'SETTLED'] },
    payout: { type: ['number', 'null'], description: 'What the caller received at settlement' },
    boostId: { type: ['string', 'null'], description: 'The boost of a boosted fill, or null' },
    unboostedPrice: { ...probability, description: 'The maker’s quoted price (= price when not boosted)' },
    boostCost: {
      type: ['number', 'null'],
      description: 'What the boost’s funding account paid at the fill, currency units, or null',
    },
    legs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          outcomeId: uuid,
          marketId: uuid,
          eventId: uuid,
          price: probability,
          status: { type: 'string', enum: [...OUTCOME_STATUSES] },
        },
        required: ['outcomeId', 'marketId', 'eventId', 'price', 'status'],
      },
    },
    createdAt: isoTime,
    settledAt: nullableIsoTime,
  },
  required: [
    'id',
    'requestId',
    'role',
    'currency',
    'price',
    'qty',
    'stake',
    'collateral',
    'fee',
    'clientOrderId',
    'status',
    'payout',
    'boostId',
    'unboostedPrice',
    'boostCost',
    'legs',
    'createdAt',
    'settledAt',
  ],
} as const;

export type WireParlay = Wire<typeof parlaySchema>;

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
export function parlayToWire(p: ParlayRecord, viewer: Id): WireParlay {
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
