// Markets and books (docs/http.md "Markets and books", docs/exchange.md "Books and matching", docs/http.md "Markets and books"),
// the tick table and the trading locks. Every answer is cached bytes: catalog-only answers are keyed
// by catalogVersion, answers that carry books (or volume and last prices, which move with fills)
// also by the bookSeq of every book they show, so a book is re-serialized only when it moved.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError } from '../../errors.ts';
import type { ExchangeReader } from '../../exchange/reader.ts';
import { TICKS } from '../../exchange/ticks.ts';
import type { Currency, Id, MarketRecord } from '../../exchange/types.ts';
import { tickToPrice } from '../../exchange/units.ts';
import { bookToWire, type WireBook } from '../../wire/book.ts';
import { locksToWire, marketToWire } from '../../wire/catalog.ts';
import { MARKET_TYPE_FILTER_VALUES, parseMarketType } from '../../wire/names.ts';
import {
  cachedBody,
  JSON_TYPE,
  LruCache,
  sendCached,
  VersionedBody,
  VersionedCache,
} from '../response-cache.ts';
import { bookSchema, locksSchema, marketSchema, marketWithBookSchema } from '../schemas/catalog.ts';
import {
  authErrors,
  bearer,
  currency,
  errorEnvelope,
  eventParams,
  marketParams,
  notModified,
  uuid,
} from '../schemas/common.ts';
import { type ExchangeRouteOptions, throwValidation } from './exchange-common.ts';

interface BookEntry {
  seq: number;
  catalogVersion: number;
  asOfMs: number;
  wire: WireBook;
}

/**
 * Book wire objects per (market, currency), rebuilt when the book's seq or the catalog moved. `asOf`
 * is when the edge first saw that seq, and survives catalog-only rebuilds, so it says how old the
 * book's state is rather than when a cache happened to be refilled.
 */
export class BookWireCache {
  private readonly lru: LruCache<string, BookEntry>;
  constructor(
    capacity: number,
    private readonly now: () => number,
  ) {
    this.lru = new LruCache(capacity);
  }
  get(r: ExchangeReader, m: MarketRecord, cur: Currency): WireBook {
    const key = `${m.id}:${cur}`;
    const seq = r.bookSeq(m.id, cur);
    const hit = this.lru.get(key);
    if (hit && hit.seq === seq && hit.catalogVersion === r.catalogVersion) return hit.wire;
    const asOfMs = hit && hit.seq === seq ? hit.asOfMs : this.now();
    const wire = bookToWire(r, m, cur, asOfMs);
    this.lru.set(key, { seq, catalogVersion: r.catalogVersion, asOfMs, wire });
    return wire;
  }
}

/** Market with its book, fields in the production order (docs/http.md "Markets and books") (book right after eventId). */
function marketWithBook(r: ExchangeReader, m: MarketRecord, cur: Currency, book: WireBook) {
  const { id, type, description, status, eventId, ...rest } = marketToWire(r, m, cur);
  return { id, type, description, status, eventId, book, ...rest };
}

/** Version of an answer showing these markets' books: catalog version plus each book's seq. */
function booksVersion(r: ExchangeReader, marketIds: readonly Id[], cur: Currency): string {
  let v = `${r.catalogVersion}`;
  for (const id of marketIds) v += `:${r.bookSeq(id, cur)}`;
  return v;
}

const currencyRequired = {
  type: 'object',
  properties: { currency: { ...currency, description: 'Currency of the books (required)' } },
  required: ['currency'],
} as const;
const currencyOptional = {
  type: 'object',
  properties: {
    currency: { ...currency, default: 'CASH', description: 'Currency of volume and last (default CASH)' },
  },
} as const;
const marketsByEventsBody = {
  type: 'object',
  properties: {
    eventIds: { type: 'array', items: uuid, minItems: 1, maxItems: 50 },
    currency,
  },
  required: ['eventIds', 'currency'],
  additionalProperties: false,
} as const;
const openMarketsQuery = {
  type: 'object',
  properties: {
    league: { type: 'string', maxLength: 32 },
    marketType: {
      type: 'string',
      maxLength: 32,
      description: `A code or a human name, any case: ${MARKET_TYPE_FILTER_VALUES.join(', ')}`,
    },
    currency: currencyOptional.properties.currency,
  },
} as const;

/** The answers of a cached read of one id: the body, not modified, a bad id or currency, unknown. */
function cachedRead(body: object) {
  return { 200: body, 304: notModified, 400: errorEnvelope, 404: errorEnvelope, ...authErrors };
}

// Request types derived from the schemas above (docs/http.md "Validation and errors").
type EventParams = FromSchema<typeof eventParams>;
type MarketParams = FromSchema<typeof marketParams>;
type CurrencyRequired = FromSchema<typeof currencyRequired>;
type CurrencyOptional = FromSchema<typeof currencyOptional>;
type MarketsByEventsBody = FromSchema<typeof marketsByEventsBody>;
type OpenMarketsQuery = FromSchema<typeof openMarketsQuery>;

/**
 * LRU bounds. Keys are only ids that exist (unknown ones answer 404 first) × currency, so these
 * hold every book of a large slate while capping memory: an event answer with 10 deep books is
 * ~65 KB, so 4,096 of them stay under ~270 MB even in the worst case; single books are smaller.
 */
const EVENT_ENTRIES = 4_096;
const BOOK_ENTRIES = 16_384;
/** Punctuation spliced between cached event arrays by getMarketsByEvents (allocated once). */
const OPEN_BRACKET = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_BRACKET = Buffer.from(']');

export default async function marketRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const guard = app.requireScope('read:tape');
  const books = new BookWireCache(BOOK_ENTRIES, opts.now ?? Date.now);
  const byEvent = new VersionedCache<string>(EVENT_ENTRIES);
  const bookBodies = new VersionedCache<string>(BOOK_ENTRIES);
  const marketBodies = new VersionedCache<string>(BOOK_ENTRIES);
  const openLists = new VersionedCache<string>(1024);
  const openSelections = new LruCache<string, { catalogVersion: number; markets: MarketRecord[] }>(1024);
  const ticks = cachedBody(TICKS.map(tickToPrice)); // a constant: serialized once
  const locks = new VersionedBody();

  /** Cached bytes of one event's markets with books, or undefined for an unknown event. */
  function eventMarketsBody(r: ExchangeReader, eventId: Id, cur: Currency) {
    const e = r.event(eventId);
    if (!e) return undefined;
    return byEvent.get(`${eventId}:${cur}`, booksVersion(r, e.marketIds, cur), () => {
      const out = [];
      for (const mid of e.marketIds) {
        const m = r.market(mid);
        if (m) out.push(marketWithBook(r, m, cur, books.get(r, m, cur)));
      }
      return out;
    });
  }

  app.get<{ Params: EventParams; Querystring: CurrencyRequired }>(
    '/nbx/v2/emm/events/getMarketsByEvent/:eventId',
    {
      preHandler: guard,
      attachValidation: true,
      schema: {
        tags: ['markets'],
        summary: 'Markets of an event with their orderbooks',
        description:
          'docs/http.md "Markets and books": bare array of the event’s markets, each with its book in the chosen currency.',
        security: bearer,
        params: eventParams,
        querystring: currencyRequired,
        response: cachedRead({ type: 'array', items: marketWithBookSchema }),
      },
    },
    (request, reply) => {
      throwValidation(request, {
        'params/eventId': 'INVALID_ID',
        'querystring/currency': 'INVALID_CURRENCY',
      });
      const id = request.params.eventId.toLowerCase();
      const body = eventMarketsBody(port.reader(), id, request.query.currency);
      if (!body) throw new ApiError('EVENT_NOT_FOUND', `Event ${id} not found`);
      return sendCached(request, reply, body);
    },
  );

  /**
   * The market a request's path names, in its currency, as bytes cached per catalog version and the
   * book's seq (the book, volume and last prices move with fills); 404 when the market is unknown.
   */
  function marketBody(
    request: FastifyRequest<{ Params: MarketParams; Querystring: CurrencyRequired }>,
    bodies: VersionedCache<string>,
    build: (r: ExchangeReader, m: MarketRecord, cur: Currency) => unknown,
  ) {
    throwValidation(request, { 'params/marketId': 'INVALID_ID', 'querystring/currency': 'INVALID_CURRENCY' });
    const r = port.reader();
    const id = request.params.marketId.toLowerCase();
    const cur = request.query.currency;
    const m = r.market(id);
    if (!m) throw new ApiError('MARKET_NOT_FOUND', `Market ${id} not found`);
    return bodies.get(`${id}:${cur}`, `${r.catalogVersion}:${r.bookSeq(id, cur)}`, () => build(r, m, cur));
  }

  app.post<{ Body: MarketsByEventsBody }>(
    '/nbx/v2/emm/events/getMarketsByEvents',
    {
      preHandler: guard,
      attachValidation: true,
      schema: {
        tags: ['markets'],
        summary: 'Markets of several events with their orderbooks',
        description:
          'One bare array of the markets of every known event, in the order of eventIds; ids of unknown events are skipped.',
        security: bearer,
        body: marketsByEventsBody,
        response: { 200: { type: 'array', items: marketWithBookSchema }, 400: errorEnvelope, ...authErrors },
      },
    },
    (request, reply) => {
      throwValidation(request, { 'body/currency': 'INVALID_CURRENCY' });
      const r = port.reader();
      const { currency: cur } = request.body;
      // Splice the per-event cached arrays: no serialization, only copying bytes.
      const parts: Buffer[] = [OPEN_BRACKET];
      let first = true;
      const seen = new Set<string>();
      for (const raw of request.body.eventIds) {
        const id = raw.toLowerCase();
        if (seen.has(id)) continue;
        seen.add(id);
        const body = eventMarketsBody(r, id, cur)?.body;
        if (!body || body.length <= 2) continue;
        if (!first) parts.push(COMMA);
        parts.push(body.subarray(1, body.length - 1));
        first = false;
      }
      parts.push(CLOSE_BRACKET);
      return reply.code(200).header('content-type', JSON_TYPE).send(Buffer.concat(parts));
    },
  );

  app.get<{ Params: MarketParams; Querystring: CurrencyRequired }>(
    '/nbx/v2/emm/book/:marketId',
    {
      preHandler: guard,
      attachValidation: true,
      schema: {
        tags: ['markets'],
        summary: 'One market’s orderbook',
        security: bearer,
        params: marketParams,
        querystring: currencyRequired,
        response: cachedRead(bookSchema),
      },
    },
    (request, reply) => {
      const body = marketBody(request, bookBodies, (r, m, cur) => books.get(r, m, cur));
      return sendCached(request, reply, body);
    },
  );

  app.get<{ Querystring: OpenMarketsQuery }>(
    '/nbx/v2/emm/markets/open',
    {
      preHandler: guard,
      attachValidation: true,
      schema: {
        tags: ['markets'],
        summary: 'Open markets',
        description:
          'Markets with status OPEN, without books, in event listing order. marketType accepts the code ("SPREAD", as every market\'s `type` carries it) or the human name ("Spread"), in any case.',
        security: bearer,
        querystring: openMarketsQuery,
        response: {
          200: { type: 'array', items: marketSchema },
          304: notModified,
          400: errorEnvelope,
          ...authErrors,
        },
      },
    },
    (request, reply) => {
      throwValidation(request, { 'querystring/currency': 'INVALID_CURRENCY' });
      const q = request.query;
      let type: ReturnType<typeof parseMarketType>;
      if (q.marketType !== undefined) {
        type = parseMarketType(q.marketType);
        // Code or human name, any case (docs/http.md): a match the schema cannot state as an enum.
        if (!type) {
          const path = 'querystring/marketType';
          const message = `must be one of ${MARKET_TYPE_FILTER_VALUES.join(', ')}`;
          throw new ApiError('VALIDATION_FAILED', `${path} ${message}`, [{ path, message }]);
        }
      }
      const r = port.reader();
      const league = q.league?.toUpperCase();
      const cur = q.currency;
      const select = (): MarketRecord[] => {
        const out: MarketRecord[] = [];
        for (const e of r.eventsSorted()) {
          if (league !== undefined && e.league.toUpperCase() !== league) continue;
          for (const mid of e.marketIds) {
            const m = r.market(mid);
            if (m && m.status === 'OPEN' && (type === undefined || m.type === type)) out.push(m);
          }
        }
        return out;
      };
      // Which markets are listed depends on the catalog only: selected once per catalog version.
      const key = `${league ?? ''}|${type ?? ''}|${cur}`;
      let sel = openSelections.get(key);
      if (!sel || sel.catalogVersion !== r.catalogVersion) {
        sel = { catalogVersion: r.catalogVersion, markets: select() };
        openSelections.set(key, sel);
      }
      const markets = sel.markets;
      // volume and last move with fills, which move the book seqs: the sum of the (monotonic) seqs
      // of the listed books changes whenever any of them does.
      let seqSum = 0;
      for (const m of markets) seqSum += r.bookSeq(m.id, cur);
      const body = openLists.get(key, `${r.catalogVersion}:${seqSum}`, () =>
        markets.map((m) => marketToWire(r, m, cur)),
      );
      return sendCached(request, reply, body);
    },
  );

  app.get<{ Params: MarketParams; Querystring: CurrencyOptional }>(
    '/nbx/v2/emm/markets/:marketId',
    {
      preHandler: guard,
      attachValidation: true,
      schema: {
        tags: ['markets'],
        summary: 'One market (without book)',
        security: bearer,
        params: marketParams,
        querystring: currencyOptional,
        response: cachedRead(marketSchema),
      },
    },
    (request, reply) => {
      return sendCached(request, reply, marketBody(request, marketBodies, marketToWire));
    },
  );

  app.get(
    '/nbx/v2/emm/ticks',
    {
      preHandler: guard,
      schema: {
        tags: ['markets'],
        summary: 'The tick table',
        description: 'Every valid price (docs/exchange.md "Money"), ascending: 279 numbers.',
        security: bearer,
        response: { 200: { type: 'array', items: { type: 'number' } }, 304: notModified, ...authErrors },
      },
    },
    (request, reply) => sendCached(request, reply, ticks),
  );

  app.get(
    '/nbx/v2/emm/locks',
    {
      preHandler: guard,
      schema: {
        tags: ['markets'],
        summary: 'Trading locks',
        description: 'The system lock (or null) and the ids of events under a lock.',
        security: bearer,
        response: { 200: locksSchema, 304: notModified, ...authErrors },
      },
    },
    (request, reply) => {
      const r = port.reader();
      const { system, events } = r.locks();
      let version = system ? `${system.id}@${system.expiresAt}` : '-';
      for (const l of events) version += `|${l.id}@${l.expiresAt}`;
      return sendCached(
        request,
        reply,
        locks.get(version, () => locksToWire(system, events)),
      );
    },
  );
}
