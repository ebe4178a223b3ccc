// Order entry and order reads on the wire (docs/http.md "Orders and account"). The
// routes declare schemas and write the wire; idempotency, batch semantics and the placement outcome
// are the order-entry service's (src/runtime/order-entry.ts; docs/architecture.md). Prices are
// checked at the edge conversion (wire number → Tick, INVALID_PRICE); everything else the engine
// decides, and its rejection codes reach the caller unchanged. Bad input never reaches the journal.

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError } from '../../errors.ts';
import { ORDER_STATUSES } from '../../exchange/types.ts';
import { OrderEntry, type PlaceRequest } from '../../runtime/order-entry.ts';
import { orderToWire } from '../../wire/trading.ts';
import { batchBody, cancelBatchBody, PLACE_CODES, placedWire, scopeParams } from '../order-requests.ts';
import { authErrors, bearer, currency, errorEnvelope, orderIdParams } from '../schemas/common.ts';
import { itemErrorSchema, orderSchema, orderWithFillsSchema, placeBodySchema } from '../schemas/trading.ts';
import {
  callerAccount,
  type ExchangeRouteOptions,
  itemError,
  itemValidationError,
  rejectionError,
  throwValidation,
} from './exchange-common.ts';

const ordersQuery = {
  type: 'object',
  properties: {
    currency,
    status: { type: 'string', enum: [...ORDER_STATUSES] },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
} as const;

// Request types are derived from their schemas, the single source of truth (docs/http.md).
export type PlaceBody = FromSchema<typeof placeBodySchema>;
/** Each item is validated against placeBodySchema in the handler (one result per item). */
type BatchBody = FromSchema<typeof batchBody>;
type OrderIdParams = FromSchema<typeof orderIdParams>;
type CancelBatchBody = FromSchema<typeof cancelBatchBody>;
type ScopeParams = FromSchema<typeof scopeParams.event> | FromSchema<typeof scopeParams.market>;
type OrdersQuery = FromSchema<typeof ordersQuery>;
/** Compile-time proof that every schema-valid body is a request the order-entry service takes. */
const _bodyIsRequest = (b: PlaceBody): PlaceRequest => b;
void _bodyIsRequest;

export default async function orderRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const trade = app.requireScope('execute:trader');
  const read = app.requireScope('read:trader');

  const entry = new OrderEntry(port, rejectionError);

  app.post<{ Body: PlaceBody }>(
    '/nbx/v2/emm/orders/place',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'Place an order',
        description:
          'A bid on one outcome (docs/exchange.md "Books and matching"). Synchronous and final: 201 with the order’s status and the fills it produced. Repeating a clientOrderId returns the first placement.',
        security: bearer,
        body: placeBodySchema,
        response: {
          201: orderWithFillsSchema,
          400: errorEnvelope,
          404: errorEnvelope,
          409: errorEnvelope,
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      throwValidation(request, PLACE_CODES);
      const placed = await entry.place(callerAccount(request), request.body);
      if (placed.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send(placedWire(placed));
    },
  );

  app.post<{ Body: BatchBody }>(
    '/nbx/v2/emm/orders/batch',
    {
      preHandler: trade,
      schema: {
        tags: ['orders'],
        summary: 'Place up to 256 orders',
        description:
          'Each item is a place body. One commit for the whole batch; one result per item, in order: the order (with fills) or {error: {code, message}}. Items are applied in order, so later items see earlier fills.',
        security: bearer,
        body: batchBody,
        response: {
          201: { type: 'array', items: { anyOf: [orderWithFillsSchema, itemErrorSchema] } },
          400: errorEnvelope,
          ...authErrors,
        },
      },
    },
    async (request, reply) => {
      const validate = request.compileValidationSchema(placeBodySchema, 'body');
      const items = request.body.map((item) =>
        validate(item) ? (item as PlaceBody) : itemValidationError(validate.errors as never, PLACE_CODES),
      );
      const placed = await entry.placeBatch(callerAccount(request), items);
      const results = placed.map((p) => (p instanceof ApiError ? itemError(p) : placedWire(p)));
      return reply.code(201).send(results);
    },
  );

  app.delete<{ Params: OrderIdParams }>(
    '/nbx/v2/emm/orders/:orderId',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'Cancel an order',
        security: bearer,
        params: orderIdParams,
        response: { 200: orderSchema, 400: errorEnvelope, 404: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, { 'params/orderId': 'INVALID_ID' });
      const done = await entry.cancel(callerAccount(request), request.params.orderId);
      return orderToWire(done.order);
    },
  );

  app.delete<{ Body: CancelBatchBody }>(
    '/nbx/v2/emm/orders/batch',
    {
      preHandler: trade,
      schema: {
        tags: ['orders'],
        summary: 'Cancel several orders',
        description:
          'Body: an array of order ids (or {orderIds: [...]}). One result per id, in order: the cancelled order or {error: {code: ORDER_NOT_FOUND}}.',
        security: bearer,
        body: cancelBatchBody,
        response: {
          200: { type: 'array', items: { anyOf: [orderSchema, itemErrorSchema] } },
          400: errorEnvelope,
          ...authErrors,
        },
      },
    },
    async (request) => {
      const ids = Array.isArray(request.body) ? request.body : request.body.orderIds;
      const done = await entry.cancelBatch(callerAccount(request), ids);
      return done.results.map((o) => (o instanceof ApiError ? itemError(o) : orderToWire(o)));
    },
  );

  const cancelledList = { 200: { type: 'array', items: orderSchema }, ...authErrors } as const;

  // `DELETE /orders/all` is the same command as `/kill` under the name some production clients
  // call (docs/http.md "Trading semantics"); the static segment wins over `/orders/:orderId` in the
  // router, so "all" never reaches the order-id route.
  for (const url of ['/nbx/v2/emm/kill', '/nbx/v2/emm/orders/all']) {
    app.delete(
      url,
      {
        preHandler: trade,
        schema: {
          tags: ['orders'],
          summary:
            url === '/nbx/v2/emm/kill'
              ? 'Cancel every resting order of the account'
              : 'Cancel every resting order of the account (alias of DELETE /nbx/v2/emm/kill)',
          security: bearer,
          response: cancelledList,
        },
      },
      async (request) => {
        const done = await entry.cancelScope(callerAccount(request), 'all');
        return done.orders.map((o) => orderToWire(o));
      },
    );
  }

  // Cancel by event or by market: one route shape, the scope and its existence check differ.
  for (const scope of ['event', 'market'] as const) {
    const param = `${scope}Id`;
    app.delete<{ Params: ScopeParams }>(
      `/nbx/v2/emm/orders/${scope}/:${param}`,
      {
        preHandler: trade,
        attachValidation: true,
        schema: {
          tags: ['orders'],
          summary: `Cancel the account’s orders on one ${scope}`,
          security: bearer,
          params: scopeParams[scope],
          response: { ...cancelledList, 400: errorEnvelope, 404: errorEnvelope },
        },
      },
      async (request) => {
        throwValidation(request, { [`params/${param}`]: 'INVALID_ID' });
        const p = request.params;
        const id = 'eventId' in p ? p.eventId : p.marketId;
        const done = await entry.cancelScope(callerAccount(request), scope, id);
        return done.orders.map((o) => orderToWire(o));
      },
    );
  }

  app.get<{ Querystring: OrdersQuery }>(
    '/nbx/v2/emm/orders/all',
    {
      preHandler: read,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'The account’s orders, newest first',
        security: bearer,
        querystring: ordersQuery,
        response: { 200: { type: 'array', items: orderSchema }, 400: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, { 'querystring/currency': 'INVALID_CURRENCY' });
      const accountId = callerAccount(request);
      const q = request.query;
      const rows = await port.history.orders({
        accountId,
        limit: q.limit,
        offset: q.offset,
        ...(q.currency ? { currency: q.currency } : {}),
        ...(q.status ? { status: q.status } : {}),
      });
      return rows.filter((o) => o.accountId === accountId).map((o) => orderToWire(o));
    },
  );

  app.get<{ Params: OrderIdParams }>(
    '/nbx/v2/emm/orders/:orderId',
    {
      preHandler: read,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'One of the account’s orders',
        description: 'Another account’s order answers 404 ORDER_NOT_FOUND, exactly as an unknown id.',
        security: bearer,
        params: orderIdParams,
        response: { 200: orderSchema, 400: errorEnvelope, 404: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, { 'params/orderId': 'INVALID_ID' });
      const accountId = callerAccount(request);
      const id = request.params.orderId.toLowerCase();
      const o = await entry.findOrder(port.reader(), accountId, id);
      if (!o) throw new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`);
      return orderToWire(o);
    },
  );
}
