// Tradeable parlays on the wire (docs/parlays.md): a trader's authenticated request (priced by the
// pricer, the price carried into the engine as data), its reads and cancel, makers' firm quotes
// (scope make:parlay), the wager (answered once the journal is durable) and the parlay positions.
// The unauthenticated price route (parlay.ts) is a different route and is unchanged.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { type Config, loadConfig } from '../../config.ts';
import { ApiError, type ErrorCode } from '../../errors.ts';
import type { ParlayRequestRecord } from '../../exchange/types.ts';
import { probabilityToPpm, unitsToMoney } from '../../exchange/units.ts';
import { pricingParams } from '../../pricing/league-models.ts';
import { priceParlay } from '../../pricing/parlay.ts';
import { LegOutcomeText, parlayJson, requestBody } from '../../wire/parlay-json.ts';
import { parlayToWire, requestStatus, requestToWire } from '../../wire/parlays.ts';
import { betInOneCall, repeatedBet } from '../parlay-bet.ts';
import { parlayQuoteEntry } from '../parlay-quote-entry.ts';
import { JSON_TYPE } from '../response-cache.ts';
import { authErrors, bearer, errorEnvelope } from '../schemas/common.ts';
import {
  parlaysQuery,
  quoteBodySchema,
  requestBodySchema,
  requestIdParams,
  requestsQuery,
  wagerBodySchema,
  wireParlaySchema,
  wireQuoteSchema,
  wireRequestSchema,
} from '../schemas/parlays.ts';
import {
  acceptedEvents,
  callerAccount,
  type ExchangeRouteOptions,
  throwValidation,
} from './exchange-common.ts';

type RequestBody = FromSchema<ReturnType<typeof requestBodySchema>>;
type IdParams = FromSchema<typeof requestIdParams>;
type RequestsQuery = FromSchema<typeof requestsQuery>;
type ParlaysQuery = FromSchema<typeof parlaysQuery>;
type QuoteBody = FromSchema<typeof quoteBodySchema>;
type WagerBody = FromSchema<typeof wagerBodySchema>;

/** Schema failures on these fields answer the engine's own codes. */
const CODES: Record<string, ErrorCode> = {
  'params/id': 'INVALID_ID',
  'body/requestId': 'INVALID_ID',
  'body/outcomes': 'PARLAY_INVALID_LEGS',
  'body/currency': 'INVALID_CURRENCY',
  'body/stake': 'INVALID_AMOUNT',
  'body/price': 'INVALID_PRICE',
  'body/maxPrice': 'INVALID_PRICE',
  'body/maxQty': 'INVALID_QTY',
  'body/wager/stake': 'INVALID_AMOUNT',
  'body/wager/maxPrice': 'INVALID_PRICE',
};

const errors = { 400: errorEnvelope, 404: errorEnvelope, 409: errorEnvelope, ...authErrors } as const;

export default async function parlayRequestRoutes(
  app: FastifyInstance,
  opts: ExchangeRouteOptions,
): Promise<void> {
  const { port } = opts;
  const config: Config = opts.config ?? loadConfig({});
  const now = opts.now ?? Date.now;
  const trade = app.requireScope('execute:trader');
  const read = app.requireScope('read:trader');
  const make = app.requireScope('make:parlay');
  const params = pricingParams({ margin: config.parlayMargin, maxLegs: config.parlayMaxLegs });
  const quotes = parlayQuoteEntry(port, config, now);
  const legOutcomes = new LegOutcomeText();

  /**
   * A 201 written as JSON directly (src/wire/parlay-json.ts: the bytes the response schema writes),
   * sent as bytes with its JSON type past the schema's serializer, which cost more than the text
   * (docs/bench-parlay-trading.md "Wager round trip with the house quote"). The schema still
   * documents the shape.
   */
  const sendBody = (reply: FastifyReply, body: Buffer) => reply.code(201).type(JSON_TYPE).send(body);
  const sendJson = (reply: FastifyReply, json: string) => sendBody(reply, Buffer.from(json, 'utf8'));

  /** A stake in currency units → Money within the configured bounds, or INVALID_AMOUNT. */
  function stakeMoney(units: number): number {
    const m = unitsToMoney(units);
    if (m === null || units < config.parlayMinStake || units > config.parlayMaxStake)
      throw new ApiError(
        'INVALID_AMOUNT',
        `stake: ${config.parlayMinStake}..${config.parlayMaxStake} with at most 5 decimals`,
      );
    return m;
  }

  /** A wager's maxPrice in ppm, or INVALID_PRICE. */
  function maxPricePpm(p: number): number {
    const ppm = probabilityToPpm(p);
    if (ppm === null) throw new ApiError('INVALID_PRICE', 'maxPrice: a probability with at most 6 decimals');
    return ppm;
  }

  /** The caller's request that `:id` names (a malformed id is INVALID_ID), and the caller's account. */
  function ownRequest(request: FastifyRequest & { params: IdParams }): {
    accountId: string;
    r: ParlayRequestRecord;
  } {
    throwValidation(request, CODES);
    const accountId = callerAccount(request);
    const { id } = request.params;
    const r = port.reader().parlayRequest(id.toLowerCase());
    if (r === undefined || r.accountId !== accountId)
      throw new ApiError('PARLAY_REQUEST_NOT_FOUND', `Parlay request ${id} not found`);
    return { accountId, r };
  }

  /** A route on one of the caller's requests, `:id`, answering the request. */
  const onOwnRequest = (summary: string) => ({
    preHandler: trade,
    attachValidation: true,
    schema: {
      tags: ['parlay'],
      summary,
      security: bearer,
      params: requestIdParams,
      response: { 200: wireRequestSchema, ...errors },
    },
  });

  app.post<{ Body: RequestBody }>(
    '/nbx/v1/parlay/request',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags: ['parlay'],
        summary: 'Request a tradeable parlay',
        description:
          'docs/parlays.md "Lifecycle". Prices the outcomes with the house model and opens a request for quote that makers answer until it is filled, cancelled or expires (PARLAY_REQUEST_TTL_MS). With `wager`, bets in the same call (docs/parlays.md "Bet in one call"): the 201 is the request filled at the best quote that arrived at once.',
        security: bearer,
        body: requestBodySchema(config.parlayMaxLegs),
        response: { 201: { type: 'array', minItems: 1, maxItems: 1, items: wireRequestSchema }, ...errors },
      },
    },
    async (request, reply) => {
      throwValidation(request, CODES);
      const accountId = callerAccount(request);
      const body = request.body;
      const outcomeIds = body.outcomes.map((o) => o.id.toLowerCase());
      // a bet in one call: a repeat of its clientOrderId answers the first fill, and its wager is
      // checked before anything is submitted
      const bet = body.wager;
      if (bet !== undefined) {
        const done = repeatedBet(port, accountId, bet.clientOrderId, outcomeIds);
        if (done !== undefined) {
          reply.header('idempotent-replayed', 'true');
          const reader = port.reader();
          return sendBody(
            reply,
            requestBody(reader, reader.parlayRequest(done)!, now(), accountId, legOutcomes),
          );
        }
      }
      const wager =
        bet === undefined
          ? undefined
          : {
              stake: stakeMoney(bet.stake),
              maxPrice: maxPricePpm(bet.maxPrice),
              clientOrderId: bet.clientOrderId,
            };
      const stake = body.stake === undefined ? null : stakeMoney(body.stake);
      const currency = body.currency ?? 'CASH';
      const reader = port.reader();
      const t = now();
      // Counted over the open requests (bounded by accounts × the limit, and by the deadline), not
      // over every request the account ever made: that list only grows, and this runs per request.
      if (reader.openParlayRequestCount(accountId, t) >= config.parlayMaxOpenRequests)
        throw new ApiError(
          'PARLAY_OPEN_REQUEST_LIMIT',
          `At most ${config.parlayMaxOpenRequests} open parlay requests per account`,
        );
      const priced = priceParlay(reader, { outcomeIds, currency }, params);
      if (!priced.ok)
        throw new ApiError('CANNOT_PRICE_PARLAY', priced.decline.details[0]?.message, priced.decline.details);
      const q = priced.quote;
      const cmd = {
        type: 'ParlayRequest' as const,
        requestId: port.newId(),
        accountId,
        currency,
        legs: q.legs.map((l) => ({ outcomeId: l.outcomeId, price: probabilityToPpm(l.priceText)! })),
        refPrice: probabilityToPpm(q.priceText)!,
        stake,
        expiresAt: t + config.parlayRequestTtlMs,
        // a claimed boost (docs/parlays.md "Boosts"): the engine checks it, BOOST_* when it cannot apply
        boostId: body.boostId === undefined || body.boostId === null ? null : body.boostId.toLowerCase(),
      };
      let requestId = cmd.requestId;
      if (wager === undefined) acceptedEvents(await port.submit(cmd));
      else requestId = await betInOneCall(port, cmd, wager, outcomeIds);
      const after = port.reader();
      return sendBody(
        reply,
        requestBody(after, after.parlayRequest(requestId)!, now(), accountId, legOutcomes),
      );
    },
  );

  app.get<{ Params: IdParams }>(
    '/nbx/v1/parlay/request/:id',
    onOwnRequest('One of the caller’s parlay requests, with the quotes received so far'),
    async (request) => {
      const { accountId, r } = ownRequest(request);
      return requestToWire(port.reader(), r, now(), accountId);
    },
  );

  app.get<{ Querystring: RequestsQuery }>(
    '/nbx/v1/parlay/requests',
    {
      preHandler: trade,
      schema: {
        tags: ['parlay'],
        summary: 'The caller’s parlay requests, newest first',
        security: bearer,
        querystring: requestsQuery,
        response: { 200: { type: 'array', items: wireRequestSchema }, ...errors },
      },
    },
    async (request) => {
      const accountId = callerAccount(request);
      const { status, limit = 100, offset = 0 } = request.query;
      const reader = port.reader();
      const t = now();
      return reader
        .parlayRequests(accountId, {
          where: (r) => status === undefined || requestStatus(r, t) === status,
          offset,
          limit,
        })
        .map((r) => requestToWire(reader, r, t, accountId));
    },
  );

  app.delete<{ Params: IdParams }>(
    '/nbx/v1/parlay/request/:id',
    onOwnRequest('Cancel one of the caller’s open parlay requests'),
    async (request) => {
      const { accountId, r } = ownRequest(request);
      acceptedEvents(await port.submit({ type: 'ParlayCancel', requestId: r.id, accountId }));
      const reader = port.reader();
      return requestToWire(reader, reader.parlayRequest(r.id)!, now(), accountId);
    },
  );

  app.get(
    '/nbx/v1/parlay/requests/open',
    {
      preHandler: make,
      schema: {
        tags: ['parlay'],
        summary: 'Open parlay requests to quote (makers)',
        description: 'Every unfilled request before its deadline; quotes shown are the caller’s own.',
        security: bearer,
        response: { 200: { type: 'array', items: wireRequestSchema }, ...errors },
      },
    },
    async (request) => {
      const accountId = callerAccount(request);
      const reader = port.reader();
      const t = now();
      return reader
        .openParlayRequests()
        .filter((r) => r.expiresAt > t && r.accountId !== accountId)
        .map((r) => {
          const w = requestToWire(reader, r, t, accountId);
          return { ...w, quotes: w.quotes.filter((q) => q.mine) };
        });
    },
  );

  app.post<{ Body: QuoteBody }>(
    '/nbx/v1/parlay/quotes',
    {
      preHandler: make,
      attachValidation: true,
      schema: {
        tags: ['parlay'],
        summary: 'Quote a parlay request (firm)',
        description:
          'docs/parlays.md "Quotes". Replaces the caller’s earlier quote on the request. The collateral of a fill of maxQty must be available now; a fill takes it.',
        security: bearer,
        body: quoteBodySchema,
        response: { 201: wireQuoteSchema, ...errors },
      },
    },
    async (request, reply) => {
      throwValidation(request, CODES);
      const { wire } = await quotes.quote(callerAccount(request), request.body);
      return reply.code(201).send(wire);
    },
  );

  app.post<{ Params: IdParams; Body: WagerBody }>(
    '/nbx/v1/parlay/request/:id/wager',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags: ['parlay'],
        summary: 'Bet the parlay at the best live quote',
        description:
          'docs/parlays.md "Money of a fill". Fills once at the best live quote not above maxPrice (else 409 PARLAY_PRICE_MOVED or PARLAY_NO_QUOTE); answered once the journal is durable. Repeating a clientOrderId returns the first fill.',
        security: bearer,
        params: requestIdParams,
        body: wagerBodySchema,
        response: { 201: wireParlaySchema, ...errors },
      },
    },
    async (request, reply) => {
      const { accountId, r } = ownRequest(request);
      const { clientOrderId } = request.body;
      const replay = () => {
        const done = port.reader().parlayForClientOrderId(accountId, clientOrderId);
        if (done === undefined) return undefined;
        if (done !== r.id)
          throw new ApiError('DUPLICATE_CLIENT_ORDER_ID', 'clientOrderId already used on another request');
        reply.header('idempotent-replayed', 'true');
        return sendJson(reply, parlayJson(port.reader().parlay(done)!, accountId));
      };
      const first = replay();
      if (first !== undefined) return first;
      const stake = stakeMoney(request.body.stake);
      const maxPrice = maxPricePpm(request.body.maxPrice);
      const result = await port.submit({
        type: 'ParlayWager',
        requestId: r.id,
        accountId,
        stake,
        maxPrice,
        clientOrderId,
      });
      if (!result.ok && result.code === 'ALREADY_EXISTS') {
        const again = replay(); // a concurrent wager with the same clientOrderId filled first
        if (again !== undefined) return again;
      }
      acceptedEvents(result);
      return sendJson(reply, parlayJson(port.reader().parlay(r.id)!, accountId));
    },
  );

  app.get<{ Querystring: ParlaysQuery }>(
    '/nbx/v1/parlays',
    {
      preHandler: read,
      schema: {
        tags: ['parlay'],
        summary: 'The caller’s parlay positions (as taker or maker), newest first, with per-leg status',
        security: bearer,
        querystring: parlaysQuery,
        response: { 200: { type: 'array', items: wireParlaySchema }, ...errors },
      },
    },
    async (request) => {
      const accountId = callerAccount(request);
      const { status, limit = 100, offset = 0 } = request.query;
      return port
        .reader()
        .parlays(accountId, status === undefined ? { offset, limit } : { status, offset, limit })
        .map((p) => parlayToWire(p, accountId));
    },
  );
}
