// Amend, queue position and mass quote on the wire (docs/http.md "Amend and mass quote"). The
// routes declare schemas and write the wire; the rules are the engine's and the service's
// (src/runtime/quote-entry.ts), which a socket transport calls the same way.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { ErrorCode } from '../../errors.ts';
import { type AmendRequest, QuoteEntry, type QuoteRequest } from '../../runtime/quote-entry.ts';
import { orderToWire } from '../../wire/trading.ts';
import { AMEND_CODES, quoteCodes, quoteSetJson } from '../order-requests.ts';
import { JSON_TYPE } from '../response-cache.ts';
import { authErrors, bearer, errorEnvelope, orderIdParams } from '../schemas/common.ts';
import { amendBodySchema, queuePositionSchema, quoteBodySchema, quoteSetSchema } from '../schemas/quotes.ts';
import { orderSchema } from '../schemas/trading.ts';
import {
  callerAccount,
  type ExchangeRouteOptions,
  rejectionError,
  throwValidation,
} from './exchange-common.ts';

type AmendBody = FromSchema<typeof amendBodySchema>;
type QuoteBody = FromSchema<typeof quoteBodySchema>;
type OrderIdParams = FromSchema<typeof orderIdParams>;
/** Compile-time proof that every schema-valid body is a request the service takes. */
const _amendIsRequest = (b: AmendBody): AmendRequest => b;
const _quoteIsRequest = (b: QuoteBody): QuoteRequest => b;
void _amendIsRequest;
void _quoteIsRequest;

/** The stable code of a schema failure in a mass quote body (src/http/order-requests.ts). */
function codesOf(request: FastifyRequest): Record<string, ErrorCode> {
  const err = request.validationError as { validation?: { instancePath?: string }[] } | undefined;
  return quoteCodes(err?.validation?.[0]?.instancePath ?? '');
}

export default async function quoteRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const trade = app.requireScope('execute:trader');
  const read = app.requireScope('read:trader');
  const entry = new QuoteEntry(port, rejectionError);

  app.patch<{ Params: OrderIdParams; Body: AmendBody }>(
    '/nbx/v2/emm/orders/:orderId',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'Amend an order’s price and/or remaining quantity',
        description:
          'A smaller qty at the same price keeps the order’s place in the queue; a new price or more qty re-queues it at the back and may fill it (docs/exchange.md "Amend and queue priority"). 200 with the order as GET /nbx/v2/emm/orders/{orderId} returns it, once durable.',
        security: bearer,
        params: orderIdParams,
        body: amendBodySchema,
        response: {
          200: orderSchema,
          400: errorEnvelope,
          404: errorEnvelope,
          409: errorEnvelope,
          ...authErrors,
        },
      },
    },
    async (request) => {
      throwValidation(request, AMEND_CODES);
      const o = await entry.amend(callerAccount(request), request.params.orderId, request.body);
      return orderToWire(o);
    },
  );

  app.get<{ Params: OrderIdParams }>(
    '/nbx/v2/emm/orders/:orderId/queue',
    {
      preHandler: read,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'Queue position of a resting order',
        description:
          'Orders and quantity ahead of it at its price. Only the caller’s resting orders; 404 otherwise.',
        security: bearer,
        params: orderIdParams,
        response: { 200: queuePositionSchema, 400: errorEnvelope, 404: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, { 'params/orderId': 'INVALID_ID' });
      return entry.queuePosition(callerAccount(request), request.params.orderId);
    },
  );

  app.post<{ Body: QuoteBody }>(
    '/nbx/v2/emm/quotes',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'Replace the account’s quotes on one market and currency',
        description:
          'All or nothing (docs/exchange.md "Mass quotes"): per listed outcome the levels are the whole new set; unchanged levels keep their place, a smaller qty keeps it, qty 0 or an unnamed price cancels; quotes never take. Funds are checked for the whole set. 200 with the resulting quotes, once durable.',
        security: bearer,
        body: quoteBodySchema,
        response: {
          200: quoteSetSchema,
          400: errorEnvelope,
          404: errorEnvelope,
          409: errorEnvelope,
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      // The codes map is built only for a body that failed its schema.
      if (request.validationError) throwValidation(request, codesOf(request));
      const set = await entry.massQuote(callerAccount(request), request.body);
      // The text of quoteSetSchema's object, written directly, sent as bytes with its JSON type past
      // the schema's serializer. Bytes, not the string: the text is built by concatenation, and
      // sent as a string it added about 0.9 ms to each answer's latency on one connection (its
      // CPU time unchanged; docs/bench-mass-quote.md).
      reply.type(JSON_TYPE);
      return Buffer.from(quoteSetJson(set), 'utf8');
    },
  );
}
