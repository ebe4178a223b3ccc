// POST /nbx/v1/parlay/request/unauthenticated (docs/http.md "Parlay price", docs/pricing.md): the price of a set of
// outcomes, for anyone, without a token. The wire format is the production one real clients parse
// (docs/http.md "Parlay price"): HTTP 201 with an array of exactly one offer whose
// prices are 5-decimal strings; a decline is HTTP 400 "Cannot price parlay" with a stable code.
//
// The plugin owns everything about this route, including its errors, so it behaves the same inside
// the full app (with its global error handler) and in a bare Fastify instance:
// - the body schema is the one source of the request's shape and its type (ParlayBody): the route
//   brings its own body validator (src/http/validation.ts, no type coercion), so it validates the
//   same way in a bare Fastify instance; a schema failure is a decline, VALIDATION_FAILED, except
//   the leg count, which answers the pricer's own TOO_FEW_LEGS / TOO_MANY_LEGS;
// - a route-level errorHandler turns parser errors, rate limiting and anything unexpected into the
//   The one error envelope (docs/http.md "Validation and errors"), so no input yields a 5xx from this route;
// - @fastify/rate-limit is registered inside this (encapsulated) plugin and applies to this route
//   only: an unauthenticated pricing endpoint is the cheapest way to load the server.

import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import type { Config } from '../../config.ts';
import { ApiError, ErrorCodes, envelope } from '../../errors.ts';
import type { ExchangeReader } from '../../exchange/reader.ts';
import { CURRENCIES, type Currency, type OutcomeRecord } from '../../exchange/types.ts';
import { offerIdSource } from '../../ids.ts';
import { type DeclineDetail, declineDetail } from '../../pricing/declines.ts';
import { type PricingParams, pricingParams } from '../../pricing/league-models.ts';
import { type ParlayQuote, priceParlay, type QuotedLeg } from '../../pricing/parlay.ts';
import { marketToWire } from '../../wire/catalog.ts';
import { isoMillis } from '../../wire/names.ts';
import { fastifyErrorCode, mapError } from '../error-handler.ts';
import { JSON_TYPE } from '../response-cache.ts';
import { marketSchema } from '../schemas/catalog.ts';
import { errorEnvelope } from '../schemas/common.ts';
import { parlayOutcomes } from '../schemas/parlays.ts';
import { bodyValidatorCompiler } from '../validation.ts';
import { type OfferParts, offerBody, QuoteMemo, quoteKey } from './parlay-memo.ts';

export interface ParlayRouteOptions {
  /** The current exchange state (called once per request). */
  reader: () => ExchangeReader;
  config: Config;
  /** Same-game model overrides (per-league σ and ρ); margin and maxLegs come from config. */
  pricing?: Partial<Pick<PricingParams, 'leagues'>>;
  /** Clock for expiresAt; tests pin it. Defaults to Date.now. */
  now?: () => number;
}

export const PARLAY_PATH = '/nbx/v1/parlay/request/unauthenticated';
const DECLINE_MESSAGE = ErrorCodes.CANNOT_PRICE_PARLAY.message; // 'Cannot price parlay'
/** A 12-leg request is under 700 bytes; anything near this is not a parlay request. */
const BODY_LIMIT = 16 * 1024;

// ---------------------------------------------------------------- schemas (OpenAPI)

/** The one §8 envelope (schemas/common.ts) with this route's decline details: one per leg. */
const envelopeSchema = {
  type: errorEnvelope.type,
  required: errorEnvelope.required,
  properties: {
    ...errorEnvelope.properties,
    details: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          outcomeId: { type: ['string', 'null'] },
          code: { type: 'string' },
          message: { type: 'string' },
        },
        required: ['outcomeId', 'code', 'message'],
      },
    },
  },
} as const;

const idDescription = { type: 'string', description: 'UUID' } as const;

const legSchema = {
  type: 'object',
  properties: {
    outcomeId: idDescription,
    price: {
      type: 'string',
      pattern: '^0\\.\\d{5}$',
      description: 'Cost to buy the outcome now, 5 decimals',
    },
    vendor: { type: 'string', description: 'Price source: the exchange’s own book' },
    outcome: {
      type: 'object',
      properties: {
        id: idDescription,
        description: { type: 'string' },
        market: marketSchema,
      },
      required: ['id', 'description', 'market'],
    },
  },
  required: ['outcomeId', 'price', 'vendor', 'outcome'],
} as const;

const offerSchema = {
  type: 'object',
  properties: {
    id: idDescription,
    price: { type: 'string', pattern: '^0\\.\\d{5}$', description: 'Parlay price, strictly in (0, 1)' },
    status: { type: 'string', enum: ['Unfilled'] },
    currency: { type: 'string', enum: CURRENCIES },
    expiresAt: { type: 'string', format: 'date-time' },
    maxQty: { type: 'integer', description: 'Payout (minimum currency units) available at this price' },
    decimalOdds: { type: 'number' },
    americanOdds: { type: 'integer' },
    legs: { type: 'array', items: legSchema },
  },
  required: [
    'id',
    'price',
    'status',
    'currency',
    'expiresAt',
    'maxQty',
    'decimalOdds',
    'americanOdds',
    'legs',
  ],
} as const;

function bodySchema(maxLegs: number) {
  return {
    type: 'object',
    properties: {
      // A string, not a uuid: a malformed leg is the pricer's INVALID_OUTCOME_ID decline.
      outcomes: parlayOutcomes(maxLegs, { type: 'string', description: 'Outcome UUID' } as const),
      boostId: { type: 'null', description: 'Sent as null by the web app; boosts need authentication' },
      currency: { type: 'string', enum: CURRENCIES, default: 'CASH' },
    },
    required: ['outcomes'],
    additionalProperties: false,
  } as const;
}

// ---------------------------------------------------------------- body

/** The request body, derived from its schema (the maximum leg count does not change the type). */
export type ParlayBody = FromSchema<ReturnType<typeof bodySchema>>;

interface DeclineDetailLike {
  outcomeId: string | null;
  code: string;
  message: string;
}

interface AjvErrorLike {
  instancePath?: string;
  keyword?: string;
  params?: { limit?: unknown };
}

/**
 * A schema failure as its decline detail: a leg count outside [2, maxLegs] is the pricer's own
 * decline (TOO_FEW_LEGS / TOO_MANY_LEGS, as priceParlay answers it), anything else
 * VALIDATION_FAILED with Ajv's message.
 */
function validationDecline(err: FastifyError): DeclineDetailLike {
  const first = (err.validation as AjvErrorLike[] | undefined)?.[0];
  if (first?.instancePath === '/outcomes' && first.keyword === 'maxItems') {
    return declineDetail(
      null,
      'TOO_MANY_LEGS',
      `A parlay may hold at most ${String(first.params?.limit)} legs`,
    );
  }
  if (first?.instancePath === '/outcomes' && first.keyword === 'minItems') {
    return declineDetail(null, 'TOO_FEW_LEGS');
  }
  return { outcomeId: null, code: 'VALIDATION_FAILED', message: err.message };
}

// ---------------------------------------------------------------- wire shapes

/**
 * The nested `outcome` object of a leg: the outcome's id and description and its whole market as
 * every other route shows it (marketToWire: the type's code, as on every route, the
 * embedded event with its game), so `legs[].outcome.market.event.game.id` is where clients look for
 * same-game legs (docs/http.md "Parlay price").
 */
function legOutcome(r: ExchangeReader, l: QuotedLeg, currency: Currency) {
  return {
    id: l.outcome.id,
    description: l.outcome.description,
    market: marketToWire(r, l.market, currency),
  };
}

/**
 * The 201 body as JSON text. Only prices, ids and numbers change from quote to quote; the nested
 * `outcome` of each leg changes only with the catalog, so its JSON is cached per outcome while the
 * reader's catalogVersion stands (readers without one are serialized afresh). Every other field is
 * a UUID, a 5-decimal price, a currency code, an ISO time or a finite number: nothing to escape.
 * The output is exactly JSON.stringify of the documented shape (the tests check it byte for byte);
 * the response schema still documents that shape for OpenAPI.
 */
class OfferWriter {
  private cache = new Map<string, { version: string; outcome: OutcomeRecord; json: string }>();

  /**
   * The offer's JSON around its id and expiresAt, which change from quote to quote:
   * `[{"id":"` + id + head + expiresAt + tail is the body.
   */
  parts(q: ParlayQuote, r: ExchangeReader): OfferParts {
    let legs = '';
    for (let i = 0; i < q.legs.length; i++) {
      const l = q.legs[i]!; // i < q.legs.length
      legs += `${i === 0 ? '' : ','}{"outcomeId":"${l.outcomeId}","price":"${l.priceText}","vendor":"${VENDOR}","outcome":${this.outcomeJson(r, l, q.currency)}}`;
    }
    return {
      head: Buffer.from(
        `","price":"${q.priceText}","status":"Unfilled","currency":"${q.currency}","expiresAt":"`,
      ),
      tail: Buffer.from(
        `","maxQty":${q.maxQty},"decimalOdds":${q.decimalOdds},` +
          `"americanOdds":${q.americanOdds},"legs":[${legs}]}]`,
      ),
    };
  }

  /**
   * The leg's market shows volume and last prices, which move with the market's book: the cached
   * JSON is keyed by catalogVersion and that book's seq (readers without a catalogVersion are
   * serialized afresh).
   */
  private outcomeJson(r: ExchangeReader, l: QuotedLeg, currency: Currency): string {
    if (typeof r.catalogVersion !== 'number') return JSON.stringify(legOutcome(r, l, currency));
    const version = `${r.catalogVersion}:${currency}:${r.bookSeq(l.market.id, currency)}`;
    const hit = this.cache.get(l.outcomeId);
    if (hit && hit.version === version && hit.outcome === l.outcome) return hit.json;
    if (this.cache.size >= 100_000) this.cache.clear();
    const json = JSON.stringify(legOutcome(r, l, currency));
    this.cache.set(l.outcomeId, { version, outcome: l.outcome, json });
    return json;
  }
}

/** The price source named on every leg: Tickbook's own book (docs/http.md "Parlay price"). */
const VENDOR = 'tickbook';

function sendDecline(
  reply: FastifyReply,
  code: string,
  details: readonly (DeclineDetail | DeclineDetailLike)[],
) {
  return reply
    .code(400)
    .header('cache-control', 'no-store')
    .send(envelope(400, code, DECLINE_MESSAGE, details));
}

// ---------------------------------------------------------------- errors

/** Every error this route can meet → the envelope; never a 5xx for anything the client sent. */
function parlayErrorHandler(
  this: FastifyInstance,
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  reply.header('cache-control', 'no-store');
  if (err instanceof ApiError) {
    const m = mapError(err);
    if (m.headers) reply.headers(m.headers);
    return reply.code(m.status).send(m.body);
  }
  const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
  if (fastifyErrorCode(err) === 'BODY_TOO_LARGE' || status === 413) {
    return reply.code(413).send(envelope(413, 'BODY_TOO_LARGE', ErrorCodes.BODY_TOO_LARGE.message));
  }
  if (status === 429) {
    return reply.code(429).send(envelope(429, 'RATE_LIMITED', ErrorCodes.RATE_LIMITED.message));
  }
  if (err.validation) {
    const detail = validationDecline(err);
    return sendDecline(reply, detail.code, [detail]);
  }
  if (status < 500) {
    // Unparseable JSON, an empty body, a content type that is not JSON: the body is not a parlay
    // request, which docs/http.md "Parlay price" answers like any other unpriceable request.
    const message =
      status === 415 ? 'Content-Type must be application/json' : err.message || 'Body is not valid JSON';
    return sendDecline(reply, 'MALFORMED_JSON', [{ outcomeId: null, code: 'MALFORMED_JSON', message }]);
  }
  request.log.error({ err }, 'parlay pricing failed');
  return reply.code(500).send(envelope(500, 'INTERNAL_ERROR', ErrorCodes.INTERNAL_ERROR.message));
}

// ---------------------------------------------------------------- the plugin

export default async function parlayRoutes(app: FastifyInstance, opts: ParlayRouteOptions): Promise<void> {
  const { config } = opts;
  const now = opts.now ?? Date.now;
  const params = pricingParams({
    margin: config.parlayMargin,
    maxLegs: config.parlayMaxLegs,
    leagues: opts.pricing?.leagues,
  });
  const ttlMs = config.parlayQuoteTtlSeconds * 1000;
  const cacheControl = `max-age=${config.parlayQuoteTtlSeconds}`;
  const limited = config.parlayRateLimit > 0;
  const writer = new OfferWriter();
  const memo = new QuoteMemo();
  const nextOfferId = offerIdSource();

  if (limited) {
    await app.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_req, ctx) =>
        new ApiError('RATE_LIMITED', `Rate limit exceeded, retry in ${ctx.after}`, undefined),
    });
  }

  app.post<{ Body: ParlayBody }>(
    PARLAY_PATH,
    {
      bodyLimit: BODY_LIMIT,
      validatorCompiler: bodyValidatorCompiler,
      errorHandler: parlayErrorHandler,
      config: limited
        ? { rateLimit: { max: config.parlayRateLimit, timeWindow: config.parlayRateWindowMs } }
        : { rateLimit: false },
      schema: {
        tags: ['parlay'],
        summary: 'Price a parlay (no authentication)',
        description:
          'docs/http.md "Parlay price". Prices the combination of the given outcomes from the live books. Same-game legs ' +
          'are priced with a correlated margin/total model. Declines are HTTP 400 "Cannot price parlay" ' +
          'with a code per leg.',
        body: bodySchema(params.maxLegs),
        response: {
          201: {
            description: 'Exactly one offer',
            type: 'array',
            minItems: 1,
            maxItems: 1,
            items: offerSchema,
          },
          400: { description: 'Cannot price parlay (decline or malformed body)', ...envelopeSchema },
          413: { description: 'Body too large', ...envelopeSchema },
          429: { description: 'Rate limited (Retry-After, x-ratelimit-* headers)', ...envelopeSchema },
          500: { description: 'Internal error', ...envelopeSchema },
        },
      },
    },
    // Synchronous: an async handler costs a promise and a microtask hop per quote.
    (request, reply) => {
      const body = request.body;
      const outcomeIds: string[] = [];
      for (const o of body.outcomes) outcomeIds.push(o.id);
      const currency = body.currency ?? 'CASH';
      const reader = opts.reader();
      const key = quoteKey(outcomeIds, currency);
      let parts = memo.get(reader, key);
      if (parts === undefined) {
        const result = priceParlay(reader, { outcomeIds, currency }, params);
        if (!result.ok) return sendDecline(reply, result.decline.code, result.decline.details);
        parts = writer.parts(result.quote, reader);
        memo.set(reader, key, parts);
      }
      const expiresAt = isoMillis(now() + ttlMs);
      return reply
        .code(201)
        .header('cache-control', cacheControl)
        .header('content-type', JSON_TYPE)
        .send(offerBody(parts, nextOfferId(), expiresAt));
    },
  );
}
