// A market's recent trades, newest first (docs/http.md "Trades"): the print a chart or a tape
// needs, which the production API has no read for (its clients follow the stream). Public market
// data like the book: `read:tape`. Read from the history tables, which hold every fill once the
// projector has caught up with the command's acknowledgement (docs/journal.md "Projector").
// The answer is kept as bytes per market, currency and limit, versioned by the book's sequence
// number: every trade moves the book, so an unchanged seq means no new trade and a chart polling
// the tape costs a map lookup, not a query (a 304 when its ETag still matches).

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError } from '../../errors.ts';
import { tickToPrice } from '../../exchange/units.ts';
import { isoMillis } from '../../wire/names.ts';
import { sendCached, VersionedCache } from '../response-cache.ts';
import {
  authErrors,
  bearer,
  currency,
  errorEnvelope,
  marketParams,
  notModified,
  qtyMcu,
  uuid,
} from '../schemas/common.ts';
import { type ExchangeRouteOptions, throwValidation } from './exchange-common.ts';

const tradesQuery = {
  type: 'object',
  properties: {
    currency,
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200 },
  },
  required: ['currency'],
  additionalProperties: false,
} as const;

const tradeSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The taker fill’s id' },
    outcomeId: { ...uuid, description: 'The outcome the taker bought' },
    price: { type: 'number', description: 'What the taker paid for that outcome' },
    qty: qtyMcu,
    created_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'outcomeId', 'price', 'qty', 'created_at'],
  additionalProperties: false,
} as const;

type MarketParams = FromSchema<typeof marketParams>;
type TradesQuery = FromSchema<typeof tradesQuery>;

/** Cached answers: market × currency × limit; the LRU bound keeps odd limits from growing memory. */
const TRADE_ENTRIES = 4_096;

export default async function tradeRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const bodies = new VersionedCache<string>(TRADE_ENTRIES);
  app.get<{ Params: MarketParams; Querystring: TradesQuery }>(
    '/nbx/v2/emm/markets/:marketId/trades',
    {
      preHandler: app.requireScope('read:tape'),
      attachValidation: true,
      schema: {
        tags: ['markets'],
        summary: 'A market’s recent trades, newest first',
        description:
          'One row per match, seen from the taker: the outcome it bought, the price it paid, the quantity. Washes (self-trade prevention) are not trades. A Tickbook extension; the stream carries the same prints live.',
        security: bearer,
        params: marketParams,
        querystring: tradesQuery,
        response: {
          200: { type: 'array', items: tradeSchema },
          304: notModified,
          400: errorEnvelope,
          404: errorEnvelope,
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      throwValidation(request, {
        'params/marketId': 'INVALID_ID',
        'querystring/currency': 'INVALID_CURRENCY',
      });
      const id = request.params.marketId.toLowerCase();
      const r = port.reader();
      if (!r.market(id)) throw new ApiError('MARKET_NOT_FOUND', `Market ${id} not found`);
      const { currency } = request.query;
      const limit = request.query.limit ?? 200;
      const key = `${id}:${currency}:${limit}`;
      // The seq (and the state's last seq) are read before the query, so the rows are never older
      // than the state they are kept under — provided the history held that state. It may not:
      // the state holds commands applied but not yet durable, which the history read does not
      // wait for, and a history read answers what is there after a bounded wait. Rows read behind
      // the state are answered but not kept, or a quiet book would serve them until its next trade.
      const seq = r.bookSeq(id, currency);
      const stateSeq = r.lastSeq;
      let cached = bodies.peek(key, seq);
      if (cached === undefined) {
        const { fills, asOf } = await port.history.marketTrades({ marketId: id, currency, limit });
        const rows = fills.map((f) => ({
          id: f.id,
          outcomeId: f.outcomeId,
          price: tickToPrice(f.price),
          qty: f.qty,
          created_at: isoMillis(f.ts),
        }));
        if (asOf < stateSeq) return rows;
        cached = bodies.get(key, seq, () => rows);
      }
      return sendCached(request, reply, cached);
    },
  );
}
