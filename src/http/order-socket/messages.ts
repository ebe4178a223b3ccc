// The `/trade` frames as JSON Schemas (docs/order-entry.md "Messages"): the envelope every client
// frame is validated against first, and the AsyncAPI channel built from the message-type table
// (handlers.ts), whose `data` schemas are the REST routes' request schemas.

import type { ExtraChannel } from '../../stream/asyncapi.ts';
import { errorEnvelope } from '../schemas/common.ts';
import { wireQuoteSchema } from '../schemas/parlays.ts';
import { quoteSetSchema } from '../schemas/quotes.ts';
import { itemErrorSchema, orderSchema, orderWithFillsSchema } from '../schemas/trading.ts';
import { MESSAGE_TYPES } from './handlers.ts';

/** A client-chosen request id, echoed on the answer: a short string or a non-negative integer. */
const requestId = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: 64 },
    { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  ],
} as const;

/** Every client frame: `{type, id, data?}`; `data` is checked by the type's own schema. */
export const ENVELOPE_SCHEMA = {
  type: 'object',
  required: ['type', 'id'],
  additionalProperties: false,
  properties: { type: { type: 'string', minLength: 1, maxLength: 32 }, id: requestId, data: {} },
} as const;

/** The REST result object each type answers with (its 2xx response schema). */
const RESULTS: Record<string, object> = {
  place: orderWithFillsSchema,
  batch: { type: 'array', items: { anyOf: [orderWithFillsSchema, itemErrorSchema] } },
  cancel: orderSchema,
  cancelBatch: { type: 'array', items: { anyOf: [orderSchema, itemErrorSchema] } },
  cancelAll: { type: 'array', items: orderSchema },
  cancelEvent: { type: 'array', items: orderSchema },
  cancelMarket: { type: 'array', items: orderSchema },
  amend: orderSchema,
  massQuote: quoteSetSchema,
  parlayQuote: wireQuoteSchema,
};

type Message = { summary: string; payload: object };

/** Client and server messages of the `/trade` channel, for the AsyncAPI document. */
export function tradeMessages(): { client: Record<string, Message>; server: Record<string, Message> } {
  const client: Record<string, Message> = {};
  const server: Record<string, Message> = {};
  const types = { ...MESSAGE_TYPES };
  for (const [name, t] of Object.entries(types)) {
    client[`trade_${name}`] = {
      summary: t.summary,
      payload: {
        type: 'object',
        required: ['type', 'id', ...(t.schema ? ['data'] : [])],
        additionalProperties: false,
        properties: { type: { const: name }, id: requestId, ...(t.schema ? { data: t.schema } : {}) },
      },
    };
    server[`trade_${name}_result`] = {
      summary: `The answer to ${name}, once its command is durable`,
      payload: {
        type: 'object',
        required: ['type', 'id', 'seq', 'result'],
        properties: {
          type: { const: name },
          id: requestId,
          seq: { type: ['integer', 'null'], description: 'Journal seq of the command (null: none)' },
          result: RESULTS[name] ?? {},
          replayed: { const: true, description: 'A repeated clientOrderId answered the first placement' },
        },
      },
    };
  }
  client.trade_auth = {
    summary: 'Replace the connection’s token by a fresh one of the same account',
    payload: {
      type: 'object',
      required: ['type', 'id', 'data'],
      properties: {
        type: { const: 'auth' },
        id: requestId,
        data: { type: 'object', required: ['token'], properties: { token: { type: 'string' } } },
      },
    },
  };
  server.trade_auth_result = {
    summary: 'The token was replaced',
    payload: {
      type: 'object',
      required: ['type', 'id', 'seq', 'result'],
      properties: {
        type: { const: 'auth' },
        id: requestId,
        seq: { type: 'null' },
        result: {
          type: 'object',
          properties: { clientId: { type: 'string' }, scopes: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
  };
  server.trade_error = {
    summary: 'A request failed: the REST error envelope; id null when the frame had none',
    payload: {
      type: 'object',
      required: ['type', 'id', 'error'],
      properties: {
        type: { const: 'error' },
        id: { anyOf: [requestId, { type: 'null' }] },
        error: errorEnvelope,
      },
    },
  };
  return { client, server };
}

/** The `/trade` channel of the AsyncAPI document served at /asyncapi.json. */
export function tradeChannel(): ExtraChannel {
  const { client, server } = tradeMessages();
  return {
    name: 'trade',
    address: '/trade',
    description:
      'Order entry (docs/order-entry.md): frames {type, id, data}, each answered by {type, id, seq, result} once its command is durable, or by {type: "error", id, error} with the REST error envelope. Up to 256 requests in flight per connection; frames up to 1 MiB.',
    client,
    server,
  };
}
