// Fitting a game's means to its books (docs/pricing.md). For every open MONEY, SPREAD and TOTAL market
// of the game with a price, the mid price p of outcome 0 is read as the model's probability of
// that outcome's half-line and solved for the mean:
//   P(V > line) = Φ((μ − line)/σ) = p   ⇒   μ = line + σ·Φ⁻¹(p)
// (line = 0 for MONEY, −strike for SPREAD, strike for TOTAL; V = M or T). The game's μ_M and μ_T
// are weighted means of these per-market estimates. A price error δp moves the estimate by
// σ·δp/φ(z), so each estimate is weighted by φ(z)² (inverse variance for an equal price error on
// every market): markets priced near 50/50 pin the mean down, long shots barely count. A market
// with a bid on one side only is a quarter as trusted as a two-sided one. Mids are clamped to
// [0.01, 0.99] so a stale extreme book cannot throw the mean to infinity.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Currency, EventRecord, MarketRecord } from '../exchange/types.ts';
import { halfLineOf } from './half-lines.ts';
import { normPdf, Z_OF_HALF_TICK } from './normal.ts';

export type FitReader = Pick<ExchangeReader, 'market' | 'bestBid'>;

export interface GameFit {
  /** Fitted mean of the home margin, or null when no MONEY/SPREAD market has a price. */
  muMargin: number | null;
  /** Fitted mean of the total, or null when no TOTAL market has a price. */
  muTotal: number | null;
  /** Markets that contributed to each mean. */
  marginMarkets: number;
  totalMarkets: number;
}

/**
 * Mid of outcome 0 of a market in half ticks (1/2000 of probability), negative when neither side
 * has a bid; `twoSided` says whether both had one. Half ticks keep the mid an exact integer.
 */
export function marketMidHalfTicks(
  reader: Pick<ExchangeReader, 'bestBid'>,
  market: MarketRecord,
  currency: Currency,
): { half: number; twoSided: boolean } {
  const bid0 = reader.bestBid(market.outcomeIds[0], currency);
  const bid1 = reader.bestBid(market.outcomeIds[1], currency);
  if (bid0 && bid1) return { half: bid0.price + 1000 - bid1.price, twoSided: true };
  if (bid0) return { half: 2 * bid0.price, twoSided: false };
  if (bid1) return { half: 2 * (1000 - bid1.price), twoSided: false };
  return { half: -1, twoSided: false };
}

/** φ(Φ⁻¹(i/2000))², the weight of a market whose mid is i half ticks. */
const WEIGHT_OF_HALF_TICK: Float64Array = (() => {
  const t = new Float64Array(2001);
  for (let i = 1; i < 2000; i++) t[i] = normPdf(Z_OF_HALF_TICK[i]!) ** 2; // the table has 2001 entries
  return t;
})();

export function fitGame(
  reader: FitReader,
  event: EventRecord,
  currency: Currency,
  sdMargin: number,
  sdTotal: number,
): GameFit {
  let wM = 0;
  let sM = 0;
  let nM = 0;
  let wT = 0;
  let sT = 0;
  let nT = 0;
  for (const marketId of event.marketIds) {
    const market = reader.market(marketId);
    if (market?.status !== 'OPEN') continue;
    if (market.type !== 'MONEY' && market.type !== 'SPREAD' && market.type !== 'TOTAL') continue;
    const h = halfLineOf(market, 0);
    if (!h) continue;
    const m = marketMidHalfTicks(reader, market, currency);
    if (m.half < 0) continue;
    const half = Math.min(1980, Math.max(20, m.half)); // [0.01, 0.99]
    // half is clamped to [20, 1980] above; both tables have 2001 entries.
    const z = Z_OF_HALF_TICK[half]!;
    const w = WEIGHT_OF_HALF_TICK[half]! * (m.twoSided ? 1 : 0.25);
    if (h.variable === 'M') {
      sM += w * (h.line + sdMargin * z);
      wM += w;
      nM++;
    } else {
      sT += w * (h.line + sdTotal * z);
      wT += w;
      nT++;
    }
  }
  return {
    muMargin: nM > 0 ? sM / wM : null,
    muTotal: nT > 0 ? sT / wT : null,
    marginMarkets: nM,
    totalMarkets: nT,
  };
}

/**
 * What a fit reads of the exchange, as a version: the catalog's (statuses, lines, the game's
 * markets) and each of the game's books' seq (both outcomes' best bids). A reader without them (a
 * test double) has none, and its fits are keyed by lastSeq alone.
 */
type VersionedReader = FitReader & Partial<Pick<ExchangeReader, 'lastSeq' | 'catalogVersion' | 'bookSeq'>>;

/** The game's books' seqs in `event.marketIds` order, or undefined when the reader has none. */
function bookSeqs(reader: VersionedReader, event: EventRecord, currency: Currency): number[] | undefined {
  if (reader.bookSeq === undefined || typeof reader.catalogVersion !== 'number') return undefined;
  const out: number[] = [];
  for (const id of event.marketIds) out.push(reader.bookSeq(id, currency));
  return out;
}

/** Whether every book of the game still has the seq `seqs` holds (no array made: this is the hit path). */
function sameBooks(
  reader: VersionedReader,
  event: EventRecord,
  currency: Currency,
  seqs: readonly number[] | undefined,
): boolean {
  const ids = event.marketIds;
  if (seqs === undefined || reader.bookSeq === undefined || seqs.length !== ids.length) return false;
  for (let i = 0; i < ids.length; i++) if (reader.bookSeq(ids[i]!, currency) !== seqs[i]) return false;
  return true;
}

/**
 * fitGame, memoized per reader, event and currency while what it reads stands: the same
 * `lastSeq` (no command since), or else the same catalog version and the same seq on every book
 * of the game. Every accepted command bumps lastSeq, every catalog change the catalog version, and
 * every change of a book its seq (src/exchange/reader.ts), so either way the memo returns exactly
 * what fitGame would. The second key is what makes it last: on a parlay desk most commands are
 * requests, quotes and wagers, which touch no book, so a game's fit is reused across them instead
 * of refitted for every request. A quote otherwise spends most of its time here: the fit reads
 * both sides of every market of the game.
 */
export function fitGameCached(
  reader: VersionedReader,
  event: EventRecord,
  currency: Currency,
  sdMargin: number,
  sdTotal: number,
): GameFit {
  const seq = reader.lastSeq;
  if (typeof seq !== 'number') return fitGame(reader, event, currency, sdMargin, sdTotal);
  let perReader = memo.get(reader);
  if (!perReader) {
    perReader = new Map();
    memo.set(reader, perReader);
  }
  const key = currency === 'CASH' ? event.id : `${event.id}:${currency}`;
  const hit = perReader.get(key);
  if (hit && hit.sdMargin === sdMargin && hit.sdTotal === sdTotal) {
    if (hit.seq === seq) return hit.fit;
    if (hit.catalog === reader.catalogVersion && sameBooks(reader, event, currency, hit.books)) {
      hit.seq = seq;
      return hit.fit;
    }
  }
  if (!hit && perReader.size >= MEMO_LIMIT) perReader.clear();
  const fit = Object.freeze(fitGame(reader, event, currency, sdMargin, sdTotal));
  perReader.set(key, {
    seq,
    catalog: reader.catalogVersion,
    books: bookSeqs(reader, event, currency),
    sdMargin,
    sdTotal,
    fit,
  });
  return fit;
}

interface MemoEntry {
  /** The lastSeq the fit was last known good at. */
  seq: number;
  /** The catalog version and the game's books' seqs it was made at (undefined: the reader has none). */
  catalog: number | undefined;
  books: number[] | undefined;
  sdMargin: number;
  sdTotal: number;
  fit: GameFit;
}
/** Bounded: a slate has hundreds of games, not tens of thousands. */
const MEMO_LIMIT = 10_000;
const memo = new WeakMap<object, Map<string, MemoEntry>>();
