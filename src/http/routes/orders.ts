// Order entry and order reads on the wire (docs/http.md "Orders and account"). The
// routes declare schemas and write the wire; idempotency, batch semantics and the placement outcome
// are the order-entry service's (src/runtime/order-entry.ts; docs/architecture.md). Prices are
// checked at the edge conversion (wire number → Tick, INVALID_PRICE); everything else the engine
// decides, and its rejection codes reach the caller unchanged. Bad input never reaches the journal.

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError, type ErrorCode } from '../../errors.ts';
import { type DomainEvent, type Id, ORDER_STATUSES, type OrderRecord } from '../../exchange/types.ts';
import { MAX_BATCH, OrderEntry, type Placement, type PlaceRequest } from '../../runtime/order-entry.ts';
import { fillToWire, orderToWire, type WireFill, type WireOrder } from '../../wire/trading.ts';
import { authErrors, bearer, currency, errorEnvelope, orderIdParams, uuid } from '../schemas/common.ts';
import { itemErrorSchema, orderSchema, orderWithFillsSchema, placeBodySchema } from '../schemas/trading.ts';
import {
  acceptedEvents,
  callerAccount,
  type ExchangeRouteOptions,
  itemError,
  itemValidationError,
  rejectionError,
  throwValidation,
} from './exchange-common.ts';

const batchBody = { type: 'array', items: { type: 'object' }, minItems: 1, maxItems: MAX_BATCH } as const;
const cancelBatchBody = {
  anyOf: [
    { type: 'array', items: uuid, minItems: 1, maxItems: MAX_BATCH },
    {
      type: 'object',
      properties: { orderIds: { type: 'array', items: uuid, minItems: 1, maxItems: MAX_BATCH } },
      required: ['orderIds'],
      additionalProperties: false,
    },
  ],
} as const;
// additionalProperties false: the router gives exactly the route's one parameter, and it lets the
// handler tell the two shapes apart ('eventId' in params).
const scopeParams = {
  event: {
    type: 'object',
    properties: { eventId: uuid },
    required: ['eventId'],
    additionalProperties: false,
  },
  market: {
    type: 'object',
    properties: { marketId: uuid },
    required: ['marketId'],
    additionalProperties: false,
  },
} as const;
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

type Placed = WireOrder & { fills: WireFill[] };

/** Schema failures on these fields answer the engine's own codes, so clients switch on one code. */
const PLACE_CODES: Record<string, ErrorCode> = {
  'body/price': 'INVALID_PRICE',
  'body/qty': 'INVALID_QTY',
  'body/tif': 'INVALID_TIF',
  'body/currency': 'INVALID_CURRENCY',
  'body/outcomeId': 'INVALID_ID',
};

function placedWire(p: Placement): Placed {
  const filled = p.fills.reduce((s, f) => s + f.qty, 0);
  return { ...orderToWire(p.order, filled), fills: p.fills.map(fillToWire) };
}

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
      const accountId = callerAccount(request);
      const id = request.params.orderId.toLowerCase();
      const live = port.reader().order(id);
      if (!live || live.accountId !== accountId)
        throw new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`);
      const events = acceptedEvents(await port.submit({ type: 'CancelOrder', accountId, orderId: id }));
      const canceled = events.find(
        (e): e is DomainEvent & { kind: 'OrderCanceled' } => e.kind === 'OrderCanceled' && e.order.id === id,
      );
      if (!canceled) throw new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`);
      return orderToWire({ ...canceled.order, status: 'CANCELED' });
    },
  );

  /** Cancels through one CancelOrders command; the orders it cancelled, in the engine's order. */
  async function cancelMany(
    accountId: Id,
    scope: 'all' | 'event' | 'market',
    scopeId?: Id,
    orderIds?: Id[],
  ): Promise<OrderRecord[]> {
    const events = acceptedEvents(
      await port.submit({
        type: 'CancelOrders',
        accountId,
        scope,
        ...(scopeId ? { scopeId } : {}),
        ...(orderIds ? { orderIds } : {}),
      }),
    );
    const out: OrderRecord[] = [];
    for (const e of events) if (e.kind === 'OrderCanceled') out.push({ ...e.order, status: 'CANCELED' });
    return out;
  }

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
      const accountId = callerAccount(request);
      const ids = (Array.isArray(request.body) ? request.body : request.body.orderIds).map((s) =>
        s.toLowerCase(),
      );
      const r = port.reader();
      const mine = [...new Set(ids.filter((id) => r.order(id)?.accountId === accountId))];
      const canceled = mine.length > 0 ? await cancelMany(accountId, 'all', undefined, mine) : [];
      const byId = new Map(canceled.map((o) => [o.id, o]));
      return ids.map((id) => {
        const o = byId.get(id);
        return o ? orderToWire(o) : itemError(new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`));
      });
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
        const accountId = callerAccount(request);
        if (port.reader().openOrders(accountId).length === 0) return [];
        return (await cancelMany(accountId, 'all')).map((o) => orderToWire(o));
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
        const accountId = callerAccount(request);
        const p = request.params;
        const id = ('eventId' in p ? p.eventId : p.marketId).toLowerCase();
        const r = port.reader();
        if (scope === 'event' ? !r.event(id) : !r.market(id)) {
          throw new ApiError(
            scope === 'event' ? 'EVENT_NOT_FOUND' : 'MARKET_NOT_FOUND',
            `${scope === 'event' ? 'Event' : 'Market'} ${id} not found`,
          );
        }
        return (await cancelMany(accountId, scope, id)).map((o) => orderToWire(o));
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
