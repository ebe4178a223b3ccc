// A parlay request's and a parlay position's wire JSON written as text: the bytes the routes'
// response schemas serialize requestToWire and parlayToWire to (src/wire/parlays.ts; the keys in
// the schemas' order), without building the wire objects first. The request's answer carries each
// leg's whole market (the production shape), and the schema's serializer picked the type of every
// nullable field by validating it at each answer: that work and the objects were most of a parlay
// request's serialization (docs/bench-parlay-trading.md "Wager round trip with the house quote").
// Strings the engine holds are escaped as JSON.stringify escapes them; the rest are numbers, enum
// names, 5-decimal prices and ISO times.

import type { ExchangeReader } from '../exchange/reader.ts';
import {
  boostPrice,
  type Currency,
  type Id,
  type ParlayRecord,
  type ParlayRequestRecord,
} from '../exchange/types.ts';
import { moneyToUnits, ppmToProbability } from '../exchange/units.ts';
import { marketToWire } from './catalog.ts';
import { isoMillis, isoOrNull } from './names.ts';
import { jsonString } from './order-json.ts';
import { requestStatus } from './parlays.ts';

/** The price source named on every leg: Tickbook's own book (as requestToWire writes it). */
const VENDOR = 'tickbook';

const fiveDecimals = (ppm: number): string => (ppm / 1_000_000).toFixed(5);

const nullableString = (s: string | null | undefined): string =>
  s === null || s === undefined ? 'null' : jsonString(s);

/** Cached outcomes past this many are dropped at once (a catalog holds far fewer). */
const MAX_CACHED = 100_000;

/**
 * Each leg's `outcome` object ({id, description, market}) as UTF-8 JSON bytes, kept per outcome.
 * The market's wire shows its status, volume and outcomes' last prices, which move with the catalog
 * and with the market's book: the bytes are reused while the reader's catalogVersion, the book's seq
 * for the currency and the outcome record stand (as the unauthenticated parlay route keeps its legs,
 * src/http/routes/parlay.ts). Readers without a catalogVersion are written afresh. Bytes, not text:
 * the answer is sent as bytes, and a leg's market is most of it.
 */
export class LegOutcomeText {
  private readonly cache = new Map<string, KeptOutcome>();

  get(reader: ExchangeReader, outcomeId: Id, marketId: Id, currency: Currency): Buffer {
    const outcome = reader.outcome(outcomeId);
    const catalogVersion = reader.catalogVersion;
    const bookSeq = reader.bookSeq(marketId, currency);
    const hit = this.cache.get(outcomeId);
    if (
      hit !== undefined &&
      hit.catalogVersion === catalogVersion &&
      hit.bookSeq === bookSeq &&
      hit.currency === currency &&
      hit.marketId === marketId &&
      hit.outcome === outcome
    )
      return hit.bytes;
    const bytes = Buffer.from(
      JSON.stringify({
        id: outcomeId,
        description: outcome?.description ?? '',
        market: marketToWire(reader, reader.market(marketId)!, currency), // every market is kept
      }),
      'utf8',
    );
    if (typeof catalogVersion !== 'number') return bytes;
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
    this.cache.set(outcomeId, { catalogVersion, bookSeq, currency, marketId, outcome, bytes });
    return bytes;
  }
}

interface KeptOutcome {
  catalogVersion: number;
  bookSeq: number;
  currency: Currency;
  marketId: Id;
  outcome: unknown;
  bytes: Buffer;
}

/**
 * The 201 of a parlay request, `[` + the JSON of requestToWire(reader, r, now, viewer, parlay) +
 * `]` (wireRequestSchema's keys in order), as UTF-8 bytes: the text around the legs' kept outcome
 * bytes, encoded and joined once.
 */
export function requestBody(
  reader: ExchangeReader,
  r: ParlayRequestRecord,
  now: number,
  viewer: Id,
  outcomes: LegOutcomeText,
  parlay?: ParlayRecord,
): Buffer {
  const p = parlay ?? (r.parlayId !== null ? reader.parlay(r.parlayId) : undefined);
  // a boosted request shows the boosted prices (docs/parlays.md "Boosts")
  const boost = r.boostId === undefined ? undefined : reader.boosts().find((b) => b.id === r.boostId);
  const boosted = (ppm: number): number =>
    boost === undefined ? ppm : boostPrice(boost.kind, boost.value, ppm);
  const requestId = jsonString(r.id);
  const chunks: Buffer[] = [];
  let text =
    `[{"id":${requestId},"status":"${requestStatus(r, now)}","price":"${fiveDecimals(boosted(r.refPrice))}"` +
    `,"unboostedPrice":"${fiveDecimals(r.refPrice)}","boostId":${nullableString(r.boostId)},"legs":[`;
  for (let i = 0; i < r.legs.length; i++) {
    const l = r.legs[i]!;
    text +=
      `${i === 0 ? '' : '},'}{"outcomeId":${jsonString(l.outcomeId)},"price":"${fiveDecimals(l.price)}"` +
      `,"vendor":"${VENDOR}","outcome":`;
    chunks.push(Buffer.from(text, 'utf8'), outcomes.get(reader, l.outcomeId, l.marketId, r.currency));
    text = '';
  }
  const wager =
    p === undefined
      ? 'null'
      : `{"parlayId":${jsonString(p.id)},"price":${ppmToProbability(p.price)}` +
        `,"stake":${moneyToUnits(p.stake)},"fee":${moneyToUnits(p.fee)},"qty":${p.qty}` +
        `,"clientOrderId":${nullableString(p.clientOrderId)}}`;
  text +=
    `${r.legs.length === 0 ? '' : '}'}],"wager":${wager},"traderId":${jsonString(r.accountId)}` +
    `,"currency":"${r.currency}","stake":${r.stake === null ? 'null' : moneyToUnits(r.stake)}` +
    `,"createdAt":"${isoMillis(r.createdAt)}","expiresAt":"${isoMillis(r.expiresAt)}","quotes":[`;
  for (let i = 0; i < r.quotes.length; i++) {
    const q = r.quotes[i]!;
    text +=
      `${i === 0 ? '' : ','}{"id":${jsonString(q.quoteId)},"requestId":${requestId}` +
      `,"price":${ppmToProbability(q.price)},"maxQty":${q.maxQty}` +
      `,"createdAt":"${isoMillis(q.createdAt)}","expiresAt":"${isoMillis(q.expiresAt)}"` +
      `,"mine":${q.accountId === viewer},"boostedPrice":${boost === undefined ? 'null' : ppmToProbability(boosted(q.price))}}`;
  }
  text += '],"declined":';
  if (r.declined === null) text += 'null';
  else {
    text += '[';
    for (let i = 0; i < r.declined.length; i++) {
      const d = r.declined[i]!;
      text += `${i === 0 ? '' : ','}{"outcomeId":${jsonString(d.outcomeId)},"reason":${jsonString(d.reason)}}`;
    }
    text += ']';
  }
  chunks.push(Buffer.from(`${text}}]`, 'utf8'));
  return Buffer.concat(chunks);
}

/** JSON of parlayToWire(p, viewer) (parlaySchema's keys in order). */
export function parlayJson(p: ParlayRecord, viewer: Id): string {
  const taker = p.takerAccountId === viewer;
  const payout = taker ? p.takerPayout : p.makerPayout;
  let legs = '';
  for (let i = 0; i < p.legs.length; i++) {
    const l = p.legs[i]!;
    legs +=
      `${i === 0 ? '' : ','}{"outcomeId":${jsonString(l.outcomeId)},"marketId":${jsonString(l.marketId)}` +
      `,"eventId":${jsonString(l.eventId)},"price":${ppmToProbability(l.price)},"status":"${l.status}"}`;
  }
  const settledAt = isoOrNull(p.settledAt);
  return (
    `{"id":${jsonString(p.id)},"requestId":${jsonString(p.requestId)},"role":"${taker ? 'TAKER' : 'MAKER'}"` +
    `,"currency":"${p.currency}","price":${ppmToProbability(p.price)},"qty":${p.qty}` +
    `,"stake":${moneyToUnits(p.stake)},"collateral":${moneyToUnits(p.collateral)},"fee":${moneyToUnits(p.fee)}` +
    `,"clientOrderId":${taker ? nullableString(p.clientOrderId) : 'null'},"status":"${p.status}"` +
    `,"payout":${payout === null ? 'null' : moneyToUnits(payout)},"boostId":${nullableString(p.boostId)}` +
    `,"unboostedPrice":${ppmToProbability(p.quotePrice ?? p.price)}` +
    `,"boostCost":${p.boostCost === undefined ? 'null' : moneyToUnits(p.boostCost)}` +
    `,"legs":[${legs}],"createdAt":"${isoMillis(p.createdAt)}"` +
    `,"settledAt":${settledAt === null ? 'null' : `"${settledAt}"`}}`
  );
}
