// A maker's firm quote on a parlay request (docs/parlays.md "Quotes"), the one implementation behind
// `POST /nbx/v1/parlay/quotes` and the `/trade` socket's `parlayQuote` message: the per-account quote
// rate, the price check, the engine command, and the REST 201 body. One instance per exchange port,
// so REST and the socket count against the same rate window.

import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { Id } from '../exchange/types.ts';
import { probabilityToPpm } from '../exchange/units.ts';
import type { ExchangePort } from '../runtime/exchange-port.ts';
import { requestToWire } from '../wire/parlays.ts';
import { acceptedEvents } from './routes/exchange-common.ts';

/** The quote body (the REST schema `quoteBodySchema`, already validated). */
export interface QuoteRequest {
  requestId: string;
  price: number;
  maxQty: number;
  expiresInMs: number;
}

export class ParlayQuoteEntry {
  private readonly windows = new Map<Id, { start: number; n: number }>();

  constructor(
    private readonly port: ExchangePort,
    private readonly rate: number,
    private readonly now: () => number,
  ) {}

  /** Quotes (replacing the caller's earlier quote on the request); answers the wire quote and its seq. */
  async quote(accountId: Id, body: QuoteRequest) {
    const t = this.now();
    const w = this.windows.get(accountId);
    if (w === undefined || t - w.start >= 1000) this.windows.set(accountId, { start: t, n: 1 });
    else if (++w.n > this.rate)
      throw new ApiError('RATE_LIMITED', `At most ${this.rate} quotes per second`, undefined, {
        'retry-after': '1',
      });
    const price = probabilityToPpm(body.price);
    if (price === null) throw new ApiError('INVALID_PRICE', 'price: a probability with at most 6 decimals');
    const requestId = body.requestId.toLowerCase();
    const quoteId = this.port.newId();
    const seqs: number[] = [];
    const result = await this.port.submit(
      {
        type: 'ParlayQuote',
        quoteId,
        requestId,
        accountId,
        price,
        maxQty: body.maxQty,
        expiresAt: t + body.expiresInMs,
      },
      seqs,
    );
    acceptedEvents(result);
    const reader = this.port.reader();
    const r = reader.parlayRequest(requestId)!;
    const wire = requestToWire(reader, r, this.now(), accountId).quotes.find((q) => q.id === quoteId)!;
    return { wire, seq: seqs[0] ?? null };
  }
}

const entries = new WeakMap<ExchangePort, ParlayQuoteEntry>();

/** The quote service of a port (made on first use with the server's quote rate and clock). */
export function parlayQuoteEntry(
  port: ExchangePort,
  config: Pick<Config, 'parlayQuoteRate'>,
  now: () => number,
) {
  let e = entries.get(port);
  if (e === undefined) {
    e = new ParlayQuoteEntry(port, config.parlayQuoteRate, now);
    entries.set(port, e);
  }
  return e;
}
