// What the two order-entry edges share (docs/order-entry.md): the REST routes
// (src/http/routes/orders.ts) and the `/trade` socket (src/http/order-socket/) validate the same
// request schemas, answer schema failures with the same codes, and write the same result objects
// from the one order-entry service (src/runtime/order-entry.ts). Nothing here knows the transport.

import { ApiError, type ErrorCode } from '../errors.ts';
import { MAX_BATCH, type Placement } from '../runtime/order-entry.ts';
import type { QuoteSet } from '../runtime/quote-entry.ts';
import { jsonString, orderJson, ordersJson } from '../wire/order-json.ts';
import { fillToWire, orderToWire, type WireFill, type WireOrder } from '../wire/trading.ts';
import { uuid } from './schemas/common.ts';

export const batchBody = {
  type: 'array',
  items: { type: 'object' },
  minItems: 1,
  maxItems: MAX_BATCH,
} as const;
export const cancelBatchBody = {
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
export const scopeParams = {
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

/** Schema failures on these fields answer the engine's own codes, so clients switch on one code. */
export const PLACE_CODES: Record<string, ErrorCode> = {
  'body/price': 'INVALID_PRICE',
  'body/qty': 'INVALID_QTY',
  'body/tif': 'INVALID_TIF',
  'body/currency': 'INVALID_CURRENCY',
  'body/outcomeId': 'INVALID_ID',
};

export type Placed = WireOrder & { fills: WireFill[] };

/** A placement as the wire answers it (REST 201 body, socket `result`). */
export function placedWire(p: Placement): Placed {
  let filled = 0;
  for (const f of p.fills) filled += f.qty;
  // The wire order gets its fills in place (the same keys in the same order): one object per
  // answer, not a copy of one.
  const out = orderToWire(p.order, filled) as Placed;
  out.fills = p.fills.map(fillToWire);
  return out;
}

/**
 * JSON.stringify(placedWire(p)), written directly: the order's text (order-json.ts) with its fills
 * as the last key. The socket answers every placement with it (no wire order object per answer).
 */
export function placedJson(p: Placement): string {
  const fills = p.fills;
  let filled = 0;
  for (const f of fills) filled += f.qty;
  return orderJson(
    p.order,
    filled,
    `,"fills":${fills.length === 0 ? '[]' : JSON.stringify(fills.map(fillToWire))}`,
  );
}

export interface SchemaError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * A failed validation of one request part (`context`: body, params…) as the error REST answers
 * for it: the stable code mapped for the offending field (`body/price` → INVALID_PRICE), or
 * VALIDATION_FAILED with `details: [{path, message}]` (src/http/error-handler.ts writes the same
 * for Fastify's own validation errors). A missing required field is always VALIDATION_FAILED.
 */
export function schemaError(
  errors: readonly SchemaError[] | null | undefined,
  context: string,
  codes: Record<string, ErrorCode> = {},
): ApiError {
  const first = errors?.[0];
  if (first && first.keyword !== 'required') {
    const key = `${context}${first.instancePath ?? ''}`;
    const code = codes[key];
    if (code) return new ApiError(code, undefined, [{ path: key, message: first.message ?? 'invalid' }]);
  }
  const details = (errors ?? []).map((e) => {
    const extra = e.params?.additionalProperty ?? e.params?.missingProperty;
    const path = `${context}${e.instancePath ?? ''}${extra ? `/${String(extra)}` : ''}`;
    return { path, message: e.message ?? 'invalid' };
  });
  const msg = details.map((d) => `${d.path} ${d.message}`).join('; ');
  return new ApiError('VALIDATION_FAILED', msg || undefined, details);
}

/** Schema failures of an amend that carry a placement's codes (the REST route's params and body). */
export const AMEND_CODES: Record<string, ErrorCode> = {
  'params/orderId': 'INVALID_ID',
  'body/orderId': 'INVALID_ID',
  'body/price': 'INVALID_PRICE',
  'body/qty': 'INVALID_QTY',
};

/** The stable code of a schema failure at `instancePath` of a mass quote body (a level's price or qty, an id). */
export function quoteCodes(instancePath: string): Record<string, ErrorCode> {
  const codes: Record<string, ErrorCode> = {
    'body/currency': 'INVALID_CURRENCY',
    'body/marketId': 'INVALID_ID',
  };
  const level = /\/levels\/\d+\/(price|qty)$/.exec(instancePath);
  if (level) codes[`body${instancePath}`] = level[1] === 'price' ? 'INVALID_PRICE' : 'INVALID_QTY';
  if (/^\/quotes\/\d+\/outcomeId$/.test(instancePath)) codes[`body${instancePath}`] = 'INVALID_ID';
  return codes;
}

/** A mass quote's result object: the resulting quotes on the wire. */
export function quoteSetWire(set: QuoteSet): { marketId: string; currency: string; orders: WireOrder[] } {
  return { marketId: set.marketId, currency: set.currency, orders: set.orders.map((o) => orderToWire(o)) };
}

/**
 * The same result as JSON text, written directly (src/wire/order-json.ts): the bytes the REST
 * route answers, JSON.stringify(quoteSetWire(set)) without the wire objects.
 */
export function quoteSetJson(set: QuoteSet): string {
  return `{"marketId":${jsonString(set.marketId)},"currency":"${set.currency}","orders":${ordersJson(set.orders)}}`;
}
