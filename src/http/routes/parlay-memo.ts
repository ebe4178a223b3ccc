// What the parlay route (src/http/routes/parlay.ts) keeps between quotes: offers already priced for
// the current exchange state (docs/http.md, "What every request pays").

import type { ExchangeReader } from '../../exchange/reader.ts';
import type { Currency } from '../../exchange/types.ts';

/**
 * An offer's JSON around its id and expiresAt, as UTF-8 bytes: the body is
 * `[{"id":"` + id + head + expiresAt + tail. Bytes, so that a quote is sent as a Buffer: a string
 * body would be measured (Buffer.byteLength for content-length) and encoded again on every send.
 */
export interface OfferParts {
  head: Buffer;
  tail: Buffer;
}

const OPEN = Buffer.from('[{"id":"', 'latin1');

/** The 201 body: the offer's parts around `id` and `expiresAt` (both ASCII). */
export function offerBody(parts: OfferParts, id: string, expiresAt: string): Buffer {
  const { head, tail } = parts;
  const buf = Buffer.allocUnsafe(OPEN.length + id.length + head.length + expiresAt.length + tail.length);
  let at = OPEN.copy(buf, 0);
  at += buf.write(id, at, 'latin1');
  at += head.copy(buf, at);
  at += buf.write(expiresAt, at, 'latin1');
  tail.copy(buf, at);
  return buf;
}

/** Distinct parlays remembered per exchange state; past this the memo starts over. */
const QUOTE_MEMO_ENTRIES = 4096;

/**
 * Offers already priced, as their JSON around id and expiresAt, keyed by the requested outcome
 * ids and currency, for one reader and one `lastSeq`. priceParlay is a pure function of the
 * reader's state, the request and the pricing parameters (src/pricing/parlay.ts), and every
 * accepted command bumps lastSeq (src/exchange/reader.ts), so while lastSeq stands the same legs
 * get the same offer: a repeat costs a Map lookup instead of the pricing and the leg JSON. Any new
 * state empties the memo; it holds at most QUOTE_MEMO_ENTRIES offers. Readers without lastSeq (test
 * doubles) are priced every time.
 */
export class QuoteMemo {
  private reader: ExchangeReader | undefined;
  private seq = -1;
  private readonly offers = new Map<string, OfferParts>();

  get(r: ExchangeReader, key: string): OfferParts | undefined {
    if (r !== this.reader || r.lastSeq !== this.seq) return undefined;
    return this.offers.get(key);
  }

  set(r: ExchangeReader, key: string, parts: OfferParts): void {
    const seq = r.lastSeq;
    if (typeof seq !== 'number') return;
    if (r !== this.reader || seq !== this.seq || this.offers.size >= QUOTE_MEMO_ENTRIES) {
      this.offers.clear();
      this.reader = r;
      this.seq = seq;
    }
    this.offers.set(key, parts);
  }
}

/** The memo key of a request: its outcome ids in order and its currency. */
export function quoteKey(outcomeIds: readonly string[], currency: Currency): string {
  let key = currency;
  for (let i = 0; i < outcomeIds.length; i++) key += `,${outcomeIds[i]}`;
  return key;
}
