// The `/trade` socket's message types, as a table (docs/order-entry.md "Messages"): each entry
// names the JSON schema of its `data` (the REST route's own request schema), the field → code
// mapping of schema failures, the scope it needs, and a handler that calls the one order-entry
// service (src/runtime/order-entry.ts, or src/runtime/quote-entry.ts for amend and mass quote) and
// answers the REST route's result object. A new message type is one entry here once its service
// exists.

import type { Scope } from '../../auth/scopes.ts';
import { ApiError, type ErrorCode } from '../../errors.ts';
import type { Id } from '../../exchange/types.ts';
import type { Settle } from '../../runtime/exchange-port.ts';
import type { OrderEntry, Placement, PlaceRequest } from '../../runtime/order-entry.ts';
import type { AmendRequest, QuoteEntry, QuoteRequest, QuoteSet } from '../../runtime/quote-entry.ts';
import { orderToWire } from '../../wire/trading.ts';
import {
  AMEND_CODES,
  batchBody,
  cancelBatchBody,
  PLACE_CODES,
  placedJson,
  placedWire,
  quoteCodes,
  quoteSetJson,
  scopeParams,
} from '../order-requests.ts';
import type { ParlayQuoteEntry, QuoteRequest as ParlayQuoteRequest } from '../parlay-quote-entry.ts';
import { itemError, itemValidationError } from '../routes/exchange-common.ts';
import { orderIdParams } from '../schemas/common.ts';
import { quoteBodySchema as parlayQuoteBodySchema } from '../schemas/parlays.ts';
import { amendBodySchema, quoteBodySchema } from '../schemas/quotes.ts';
import { placeBodySchema } from '../schemas/trading.ts';

/** What a handler answers: the REST result object and the seq of the command it was. */
export interface Answer {
  /** The result object (unset when `json` is given). */
  result?: unknown;
  /**
   * The result's JSON text when the handler wrote it directly (a placement; a mass quote's set, the
   * REST route's bytes); sent in place of JSON.stringify(result).
   */
  json?: string;
  /** Journal seq of the request's command (the last one for a batch); null when none was journaled. */
  seq: number | null;
  /** A placement answered from an earlier one under the same clientOrderId (REST: a header). */
  replayed?: boolean;
}

export interface HandlerContext {
  accountId: Id;
  entry: OrderEntry;
  /** Amend and mass quote (the service the REST routes of src/http/routes/quotes.ts call). */
  quotes: QuoteEntry;
  /** The parlay quote service (REST `POST /nbx/v1/parlay/quotes` uses the same one). */
  parlayQuotes: ParlayQuoteEntry;
  /** Validates one place body with the REST schema (batch items are validated one by one). */
  validatePlace: Validator;
}

export interface Validator {
  (data: unknown): boolean;
  errors?: readonly { instancePath?: string; keyword?: string; message?: string }[] | null;
}

export interface MessageType {
  /** JSON schema of `data`; undefined: the message carries none. */
  schema: object | undefined;
  /** The request part the schema stands for on REST (error paths and codes read `body/price`). */
  context: 'body' | 'params';
  /** Schema failure path → stable code; a function of the failing instancePath when it varies. */
  codes?: Record<string, ErrorCode> | ((instancePath: string) => Record<string, ErrorCode>);
  scope: Scope;
  summary: string;
  run(ctx: HandlerContext, data: never): Promise<Answer>;
  /**
   * `run` with the answer told to `to` instead of a promise, when the handler has such a path (a
   * placement: from the group commit's callback). The session prefers it.
   */
  runTo?(ctx: HandlerContext, data: never, to: Settle<Answer>): void;
}

const lastSeq = (seqs: (number | null)[]): number | null =>
  seqs.reduce<number | null>((m, s) => (s !== null && (m === null || s > m) ? s : m), null);

const place: MessageType = {
  schema: placeBodySchema,
  context: 'body',
  codes: PLACE_CODES,
  scope: 'execute:trader',
  summary: 'Place an order: data is the REST place body; result the REST 201 body',
  run(ctx, data: PlaceRequest) {
    return ctx.entry.place(ctx.accountId, data).then(placedAnswer);
  },
  // The hot message: answered from the group commit's callback, no promise of its own.
  runTo(ctx, data: PlaceRequest, to) {
    ctx.entry.placeTo(ctx.accountId, data, new PlacedAnswer(to));
  },
};

/** A placement's answer: the REST 201 body's text (placedJson), its seq, whether replayed. */
function placedAnswer(p: Placement): Answer {
  return { json: placedJson(p), seq: p.seq, replayed: p.replayed };
}

/** A placement's outcome turned into its answer on the way to the session's Answering. */
class PlacedAnswer implements Settle<Placement> {
  constructor(private readonly to: Settle<Answer>) {}

  resolve(p: Placement): void {
    this.to.resolve(placedAnswer(p));
  }

  reject(err: unknown): void {
    this.to.reject(err);
  }
}

const batch: MessageType = {
  schema: batchBody,
  context: 'body',
  scope: 'execute:trader',
  summary: 'Place up to 256 orders in one commit: data is the REST batch body; one result per item',
  async run(ctx, data: unknown[]) {
    const v = ctx.validatePlace;
    const items = data.map((item) =>
      v(item) ? (item as PlaceRequest) : itemValidationError(v.errors as never, PLACE_CODES),
    );
    const placed = await ctx.entry.placeBatch(ctx.accountId, items);
    return {
      result: placed.map((p) => (p instanceof ApiError ? itemError(p) : placedWire(p))),
      seq: lastSeq(placed.map((p) => (p instanceof ApiError ? null : p.seq))),
    };
  },
};

const cancel: MessageType = {
  schema: { ...orderIdParams, additionalProperties: false },
  context: 'params',
  codes: { 'params/orderId': 'INVALID_ID' },
  scope: 'execute:trader',
  summary: 'Cancel one order: data {orderId}; result the REST cancelled order',
  async run(ctx, data: { orderId: string }) {
    const done = await ctx.entry.cancel(ctx.accountId, data.orderId);
    return { result: orderToWire(done.order), seq: done.seq };
  },
};

const cancelBatch: MessageType = {
  schema: cancelBatchBody,
  context: 'body',
  scope: 'execute:trader',
  summary: 'Cancel several orders: data an array of ids or {orderIds}; one result per id',
  async run(ctx, data: string[] | { orderIds: string[] }) {
    const ids = Array.isArray(data) ? data : data.orderIds;
    const done = await ctx.entry.cancelBatch(ctx.accountId, ids);
    return {
      result: done.results.map((o) => (o instanceof ApiError ? itemError(o) : orderToWire(o))),
      seq: done.seq,
    };
  },
};

const cancelAll: MessageType = {
  schema: undefined,
  context: 'body',
  scope: 'execute:trader',
  summary: 'Cancel every resting order of the account (REST DELETE /nbx/v2/emm/kill)',
  async run(ctx) {
    const done = await ctx.entry.cancelScope(ctx.accountId, 'all');
    return { result: done.orders.map((o) => orderToWire(o)), seq: done.seq };
  },
};

function cancelIn(scope: 'event' | 'market'): MessageType {
  return {
    schema: scopeParams[scope],
    context: 'params',
    codes: { [`params/${scope}Id`]: 'INVALID_ID' },
    scope: 'execute:trader',
    summary: `Cancel the account’s orders on one ${scope}: data {${scope}Id}`,
    async run(ctx, data: { eventId?: string; marketId?: string }) {
      const done = await ctx.entry.cancelScope(ctx.accountId, scope, data.eventId ?? data.marketId);
      return { result: done.orders.map((o) => orderToWire(o)), seq: done.seq };
    },
  };
}

/** The amend data: the REST params' orderId and the REST body in one object. */
const amendData = {
  type: 'object',
  properties: { ...orderIdParams.properties, ...amendBodySchema.properties },
  required: ['orderId'],
  minProperties: 2,
  additionalProperties: false,
} as const;

const amend: MessageType = {
  schema: amendData,
  context: 'body',
  codes: AMEND_CODES,
  scope: 'execute:trader',
  summary:
    'Amend a resting order: data {orderId, price?, qty?} (the REST PATCH params and body); result the REST 200 order',
  async run(ctx, data: AmendRequest & { orderId: string }) {
    const { orderId, ...request } = data;
    const seqs = [0];
    const order = await ctx.quotes.amend(ctx.accountId, orderId, request, seqs);
    return { result: orderToWire(order), seq: seqs[0] || null };
  },
};

const massQuote: MessageType = {
  schema: quoteBodySchema,
  context: 'body',
  codes: quoteCodes,
  scope: 'execute:trader',
  summary: 'Replace the account’s quotes on one market: data the REST mass quote body; result its 200 body',
  async run(ctx, data: QuoteRequest) {
    const seqs = [0];
    const set = await ctx.quotes.massQuote(ctx.accountId, data, seqs);
    // The REST route's text: up to twenty orders, cheaper written than built and stringified.
    return { json: quoteSetJson(set), seq: seqs[0] || null };
  },
  // A requote is answered from the group commit's callback, as a placement is.
  runTo(ctx, data: QuoteRequest, to) {
    const answer = new QuotedAnswer(to);
    ctx.quotes.massQuoteTo(ctx.accountId, data, answer, answer.seqs);
  },
};

/** A mass quote's set turned into its answer (the REST route's text and the command's seq). */
class QuotedAnswer implements Settle<QuoteSet> {
  readonly seqs = [0];

  constructor(private readonly to: Settle<Answer>) {}

  resolve(set: QuoteSet): void {
    this.to.resolve({ json: quoteSetJson(set), seq: this.seqs[0] || null });
  }

  reject(err: unknown): void {
    this.to.reject(err);
  }
}

const parlayQuote: MessageType = {
  schema: parlayQuoteBodySchema,
  context: 'body',
  codes: {
    'body/requestId': 'INVALID_ID',
    'body/price': 'INVALID_PRICE',
    'body/maxQty': 'INVALID_QTY',
  },
  scope: 'make:parlay',
  summary:
    'Quote a parlay request (firm; replaces your earlier quote on it): data is the REST POST /nbx/v1/parlay/quotes body; result its 201 quote',
  async run(ctx, data: ParlayQuoteRequest) {
    const q = await ctx.parlayQuotes.quote(ctx.accountId, data);
    return { result: q.wire, seq: q.seq };
  },
};

/** Every order-entry message type, by its `type`. */
export const MESSAGE_TYPES: Readonly<Record<string, MessageType>> = {
  place,
  batch,
  cancel,
  cancelBatch,
  cancelAll,
  cancelEvent: cancelIn('event'),
  cancelMarket: cancelIn('market'),
  amend,
  massQuote,
  parlayQuote,
};
