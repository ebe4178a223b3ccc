// Order entry and order reads (issue 4 item 4, reference/production-api.md "Orders and account").
// Unlike the production service, answers are synchronous and final: a placement resolves once its
// command is durable and answers the order's status with the fills it produced. Prices are checked
// at the edge conversion (wire number → Tick, INVALID_PRICE); everything else the engine decides,
// and its rejection codes reach the caller unchanged. Bad input never reaches the journal.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, type ErrorCode } from '../../errors.ts';
import type { ExchangeReader } from '../../exchange/reader.ts';
import {
  type Currency,
  type DomainEvent,
  type Fill,
  type Id,
  ORDER_STATUSES,
  type OrderRecord,
  type OrderStatus,
  type TimeInForce,
} from '../../exchange/types.ts';
import { priceToTick } from '../../exchange/units.ts';
import type { CommandInput } from '../exchange-port.ts';
import { authErrors, bearer, currency, errorEnvelope, uuid } from '../schemas/common.ts';
import { itemErrorSchema, orderSchema, orderWithFillsSchema, placeBodySchema } from '../schemas/trading.ts';
import { fillToWire, orderToWire, type WireFill, type WireOrder } from '../wire/trading.ts';
import {
  acceptedEvents,
  callerAccount,
  type ExchangeRouteOptions,
  itemError,
  itemValidationError,
  rejectionError,
  throwValidation,
} from './exchange-common.ts';

export interface PlaceBody {
  outcomeId: string;
  price: number;
  qty: number;
  currency: Currency;
  tif: TimeInForce;
  ttl?: number;
  flags?: string;
  clientOrderId?: string;
}

type Placed = WireOrder & { fills: WireFill[] };

/** Schema failures on these fields answer the engine's own codes, so clients switch on one code. */
const PLACE_CODES: Record<string, ErrorCode> = {
  'body/price': 'INVALID_PRICE',
  'body/qty': 'INVALID_QTY',
  'body/tif': 'INVALID_TIF',
  'body/currency': 'INVALID_CURRENCY',
  'body/outcomeId': 'INVALID_ID',
};

/** Production clients send up to 256 orders per batch. */
export const MAX_BATCH = 256;

/** The PlaceOrder command for a schema-valid body, or the edge's own rejection. */
function placeCommand(accountId: Id, orderId: Id, b: PlaceBody): CommandInput {
  const tick = priceToTick(b.price);
  if (tick === null) throw new ApiError('INVALID_PRICE', `Price ${b.price} is not on the tick table`);
  if (!Number.isSafeInteger(b.qty) || b.qty <= 0) throw new ApiError('INVALID_QTY');
  if (b.tif === 'GTT' && b.ttl === undefined)
    throw new ApiError('VALIDATION_FAILED', 'body/ttl is required for GTT');
  if (b.tif !== 'GTT' && b.ttl !== undefined) {
    throw new ApiError('VALIDATION_FAILED', 'body/ttl applies to GTT orders only');
  }
  return {
    type: 'PlaceOrder',
    orderId,
    accountId,
    outcomeId: b.outcomeId.toLowerCase(),
    currency: b.currency,
    price: tick,
    qty: b.qty,
    tif: b.tif,
    ...(b.ttl !== undefined ? { ttl: b.ttl } : {}),
    flags: b.flags ?? null,
    clientOrderId: b.clientOrderId ?? null,
  };
}

/**
 * The order as this placement left it, from the command's own events (not from the live state,
 * which later commands may already have moved): fills of this order, a cancel of its remainder
 * (IOC, wash), else resting or filled.
 */
export function placementOutcome(orderId: Id, events: DomainEvent[]): { order: OrderRecord; fills: Fill[] } {
  let placed: OrderRecord | undefined;
  let canceled: OrderRecord | undefined;
  const fills: Fill[] = [];
  for (const ev of events) {
    if (ev.kind === 'OrderPlaced' && ev.order.id === orderId) placed = ev.order;
    else if (ev.kind === 'OrderFilled' && ev.fill.orderId === orderId) fills.push(ev.fill);
    else if (ev.kind === 'OrderCanceled' && ev.order.id === orderId) canceled = ev.order;
  }
  const base = canceled ?? placed;
  if (!base) throw new ApiError('INTERNAL_ERROR', 'placement produced no order');
  const filled = fills.reduce((s, f) => s + f.qty, 0);
  if (canceled) return { order: { ...canceled, status: 'CANCELED' }, fills };
  const remaining = base.originalQty - filled;
  return {
    order: { ...base, qty: remaining, status: remaining === 0 ? 'FILLED' : 'RESTING' },
    fills,
  };
}

function placedWire(order: OrderRecord, fills: Fill[]): Placed {
  const filled = fills.reduce((s, f) => s + f.qty, 0);
  return { ...orderToWire(order, filled), fills: fills.map(fillToWire) };
}

function sameRequest(o: OrderRecord, cmd: CommandInput & { type: 'PlaceOrder' }): boolean {
  return (
    o.outcomeId === cmd.outcomeId &&
    o.price === cmd.price &&
    o.originalQty === cmd.qty &&
    o.currency === cmd.currency &&
    o.tif === cmd.tif
  );
}

export default async function orderRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const trade = app.requireScope('execute:trader');
  const read = app.requireScope('read:trader');

  /** An order of this account, live first (fresher), then history; undefined for anyone else's. */
  async function findOrder(r: ExchangeReader, accountId: Id, orderId: Id): Promise<OrderRecord | undefined> {
    const live = r.order(orderId);
    if (live) return live.accountId === accountId ? live : undefined;
    const old = await port.history.order(accountId, orderId);
    return old && old.accountId === accountId ? old : undefined;
  }

  /** Fills of one order, for answering a repeated clientOrderId (newest first in history). */
  async function fillsOf(accountId: Id, o: OrderRecord): Promise<Fill[]> {
    const recent = await port.history.fills({ accountId, currency: o.currency, limit: 1000, offset: 0 });
    return recent.filter((f) => f.orderId === o.id && f.isTaker).reverse();
  }

  /** A placement already made under this clientOrderId, as the same answer; undefined if none. */
  async function replay(
    accountId: Id,
    cmd: CommandInput & { type: 'PlaceOrder' },
  ): Promise<Placed | undefined> {
    if (!cmd.clientOrderId) return undefined;
    const r = port.reader();
    const prior = r.orderIdForClientOrderId(accountId, cmd.clientOrderId);
    if (!prior) return undefined;
    const o = await findOrder(r, accountId, prior);
    if (!o) return undefined;
    if (!sameRequest(o, cmd)) {
      throw new ApiError('DUPLICATE_CLIENT_ORDER_ID', undefined, {
        clientOrderId: cmd.clientOrderId,
        orderId: o.id,
      });
    }
    return placedWire(o, await fillsOf(accountId, o));
  }

  app.post<{ Body: PlaceBody }>(
    '/nbx/v2/emm/orders/place',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'Place an order',
        description:
          'A bid on one outcome (DESIGN.md §4). Synchronous and final: 201 with the order’s status and the fills it produced. Repeating a clientOrderId returns the first placement.',
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
      const accountId = callerAccount(request);
      const orderId = port.newId();
      const cmd = placeCommand(accountId, orderId, request.body) as CommandInput & { type: 'PlaceOrder' };
      const again = await replay(accountId, cmd);
      if (again) return reply.code(201).header('idempotent-replayed', 'true').send(again);
      const result = await port.submit(cmd);
      if (!result.ok && result.code === 'DUPLICATE_CLIENT_ORDER_ID') {
        // Lost a race with a concurrent request carrying the same key: answer what it placed.
        const winner = await replay(accountId, cmd);
        if (winner) return reply.code(201).header('idempotent-replayed', 'true').send(winner);
      }
      const { order, fills } = placementOutcome(orderId, acceptedEvents(result));
      return reply.code(201).send(placedWire(order, fills));
    },
  );

  app.post<{ Body: unknown[] }>(
    '/nbx/v2/emm/orders/batch',
    {
      preHandler: trade,
      schema: {
        tags: ['orders'],
        summary: 'Place up to 256 orders',
        description:
          'Each item is a place body. One commit for the whole batch; one result per item, in order: the order (with fills) or {error: {code, message}}. Items are applied in order, so later items see earlier fills.',
        security: bearer,
        body: { type: 'array', items: { type: 'object' }, minItems: 1, maxItems: MAX_BATCH },
        response: {
          201: { type: 'array', items: { anyOf: [orderWithFillsSchema, itemErrorSchema] } },
          400: errorEnvelope,
          ...authErrors,
        },
      },
    },
    async (request: FastifyRequest<{ Body: unknown[] }>, reply) => {
      const accountId = callerAccount(request);
      const validate = request.compileValidationSchema(placeBodySchema);
      const results: (Placed | ReturnType<typeof itemError> | undefined)[] = new Array(request.body.length);
      const toSubmit: { index: number; cmd: CommandInput & { type: 'PlaceOrder' } }[] = [];
      const firstByKey = new Map<string, number>();
      const dupOf = new Map<number, number>();
      for (let i = 0; i < request.body.length; i++) {
        const item = request.body[i];
        if (!validate(item)) {
          results[i] = itemError(itemValidationError(validate.errors as never, PLACE_CODES));
          continue;
        }
        try {
          const cmd = placeCommand(accountId, port.newId(), item as PlaceBody) as CommandInput & {
            type: 'PlaceOrder';
          };
          if (cmd.clientOrderId) {
            const first = firstByKey.get(cmd.clientOrderId);
            if (first !== undefined) {
              dupOf.set(i, first);
              continue;
            }
            firstByKey.set(cmd.clientOrderId, i);
            const again = await replay(accountId, cmd);
            if (again) {
              results[i] = again;
              continue;
            }
          }
          toSubmit.push({ index: i, cmd });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          results[i] = itemError(err);
        }
      }
      const outcomes = toSubmit.length > 0 ? await port.submitMany(toSubmit.map((t) => t.cmd)) : [];
      toSubmit.forEach(({ index, cmd }, k) => {
        const res = outcomes[k]!;
        if (!res.ok) {
          results[index] = itemError(rejectionError(res));
          return;
        }
        const { order, fills } = placementOutcome(cmd.orderId, res.events);
        results[index] = placedWire(order, fills);
      });
      // A clientOrderId repeated inside one batch gets the first item's answer (same key, same result).
      for (const [i, first] of dupOf) results[i] = results[first];
      return reply.code(201).send(results);
    },
  );

  const orderIdParams = { type: 'object', properties: { orderId: uuid }, required: ['orderId'] } as const;

  app.delete<{ Params: { orderId: string } }>(
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

  app.delete<{ Body: string[] | { orderIds: string[] } }>(
    '/nbx/v2/emm/orders/batch',
    {
      preHandler: trade,
      schema: {
        tags: ['orders'],
        summary: 'Cancel several orders',
        description:
          'Body: an array of order ids (or {orderIds: [...]}). One result per id, in order: the cancelled order or {error: {code: ORDER_NOT_FOUND}}.',
        security: bearer,
        body: {
          anyOf: [
            { type: 'array', items: uuid, minItems: 1, maxItems: MAX_BATCH },
            {
              type: 'object',
              properties: { orderIds: { type: 'array', items: uuid, minItems: 1, maxItems: MAX_BATCH } },
              required: ['orderIds'],
              additionalProperties: false,
            },
          ],
        },
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
    app.delete<{ Params: Record<string, string> }>(
      `/nbx/v2/emm/orders/${scope}/:${param}`,
      {
        preHandler: trade,
        attachValidation: true,
        schema: {
          tags: ['orders'],
          summary: `Cancel the account’s orders on one ${scope}`,
          security: bearer,
          params: { type: 'object', properties: { [param]: uuid }, required: [param] },
          response: { ...cancelledList, 400: errorEnvelope, 404: errorEnvelope },
        },
      },
      async (request) => {
        throwValidation(request, { [`params/${param}`]: 'INVALID_ID' });
        const accountId = callerAccount(request);
        const id = request.params[param]!.toLowerCase();
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

  app.get<{ Querystring: { currency?: Currency; status?: OrderStatus; limit: number; offset: number } }>(
    '/nbx/v2/emm/orders/all',
    {
      preHandler: read,
      attachValidation: true,
      schema: {
        tags: ['orders'],
        summary: 'The account’s orders, newest first',
        security: bearer,
        querystring: {
          type: 'object',
          properties: {
            currency,
            status: { type: 'string', enum: [...ORDER_STATUSES] },
            limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
            offset: { type: 'integer', minimum: 0, default: 0 },
          },
        },
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

  app.get<{ Params: { orderId: string } }>(
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
      const o = await findOrder(port.reader(), accountId, id);
      if (!o) throw new ApiError('ORDER_NOT_FOUND', `Order ${id} not found`);
      return orderToWire(o);
    },
  );
}
