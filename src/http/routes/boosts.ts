// Parlay boosts on the wire (docs/parlays.md "Boosts"): operators (scope admin) create, list and end
// boosts; traders list the boosts valid now with their own claims and claim one. Every write is one
// engine command (CreateBoost, EndBoost, ClaimBoost); ids are minted here through port.newId(), and
// times travel in the command as data, so replay reproduces them.

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError } from '../../errors.ts';
import { probabilityToPpm, unitsToMoney } from '../../exchange/units.ts';
import { boostActive, boostToWire, traderBoostToWire } from '../../wire/boosts.ts';
import {
  boostIdParams,
  createBoostBodySchema,
  wireBoostSchema,
  wireTraderBoostSchema,
} from '../schemas/boosts.ts';
import { authErrors, bearer, errorEnvelope } from '../schemas/common.ts';
import {
  acceptedEvents,
  callerAccount,
  type ExchangeRouteOptions,
  throwValidation,
} from './exchange-common.ts';

type CreateBody = FromSchema<typeof createBoostBodySchema>;
type IdParams = FromSchema<typeof boostIdParams>;

const errors = { 400: errorEnvelope, 404: errorEnvelope, 409: errorEnvelope, ...authErrors } as const;
const CODES = { 'params/id': 'INVALID_ID', 'body/fundingAccountId': 'INVALID_ID' } as const;

function invalid(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path} ${message}`, [{ path, message }]);
}

/** A boost value on the wire → ppm: a fraction 0..1 (PERCENT) or a multiplier 1..100, ≤ 6 decimals. */
function valuePpm(kind: 'PERCENT' | 'MULTIPLIER', v: number): number {
  if (kind === 'PERCENT') {
    const p = probabilityToPpm(v);
    if (p === null) throw invalid('/value', 'PERCENT: 0 < value < 1 with at most 6 decimals');
    return p;
  }
  const p = Math.round(v * 1_000_000);
  if (p / 1_000_000 !== v || p <= 1_000_000 || p > 100_000_000)
    throw invalid('/value', 'MULTIPLIER: 1 < value ≤ 100 with at most 6 decimals');
  return p;
}

export default async function boostRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const now = opts.now ?? Date.now;
  const admin = app.requireScope('admin');
  const trade = app.requireScope('execute:trader');
  const read = app.requireScope('read:trader');

  function boostById(id: string) {
    const b = port
      .reader()
      .boosts()
      .find((x) => x.id === id);
    if (b === undefined) throw new ApiError('BOOST_NOT_FOUND', `Boost ${id} not found`);
    return b;
  }

  app.post<{ Body: CreateBody }>(
    '/admin/v1/boosts',
    {
      preHandler: admin,
      attachValidation: true,
      schema: {
        tags: ['admin'],
        summary: 'Create a parlay boost',
        description:
          'docs/parlays.md "Boosts". The funding account pays, at each boosted fill, the difference between the maker’s quoted price and the boosted price the taker pays.',
        security: bearer,
        body: createBoostBodySchema,
        response: { 201: wireBoostSchema, ...errors },
      },
    },
    async (request, reply) => {
      throwValidation(request, CODES);
      const b = request.body;
      const t = now();
      const validFrom = b.validFrom === undefined ? t : Date.parse(b.validFrom);
      const validTo = Date.parse(b.validTo);
      if (!(validTo > validFrom)) throw invalid('/validTo', 'must be after validFrom');
      if (validTo <= t) throw invalid('/validTo', 'must be in the future');
      let maxStake: number | null = null;
      if (b.maxStake !== undefined && b.maxStake !== null) {
        maxStake = unitsToMoney(b.maxStake);
        if (maxStake === null) throw new ApiError('INVALID_AMOUNT', 'maxStake: at most 5 decimals');
      }
      const boostId = port.newId();
      acceptedEvents(
        await port.submit({
          type: 'CreateBoost',
          boostId,
          kind: b.kind,
          value: valuePpm(b.kind, b.value),
          leagues: b.leagues ?? [],
          minLegs: b.minLegs ?? 2,
          maxStake,
          validFrom,
          validTo,
          claimLimit: b.claimLimit ?? 1,
          fundingAccountId: b.fundingAccountId.toLowerCase(),
        }),
      );
      return reply.code(201).send(boostToWire(boostById(boostId), now()));
    },
  );

  app.get(
    '/admin/v1/boosts',
    {
      preHandler: admin,
      schema: {
        tags: ['admin'],
        summary: 'Every parlay boost, oldest first, with its fills and cost so far',
        security: bearer,
        response: { 200: { type: 'array', items: wireBoostSchema }, ...authErrors },
      },
    },
    async () => {
      const t = now();
      return port
        .reader()
        .boosts()
        .map((b) => boostToWire(b, t));
    },
  );

  app.post<{ Params: IdParams }>(
    '/admin/v1/boosts/:id/end',
    {
      preHandler: admin,
      attachValidation: true,
      schema: {
        tags: ['admin'],
        summary: 'End a parlay boost now',
        description:
          'It can no longer be claimed nor used; open requests that carry it are refused BOOST_EXPIRED at the wager.',
        security: bearer,
        params: boostIdParams,
        response: { 200: wireBoostSchema, ...errors },
      },
    },
    async (request) => {
      throwValidation(request, CODES);
      const boostId = request.params.id.toLowerCase();
      acceptedEvents(await port.submit({ type: 'EndBoost', boostId }));
      return boostToWire(boostById(boostId), now());
    },
  );

  app.get(
    '/nbx/v1/boosts',
    {
      preHandler: read,
      schema: {
        tags: ['parlay'],
        summary: 'Parlay boosts valid now, with the caller’s claims',
        security: bearer,
        response: { 200: { type: 'array', items: wireTraderBoostSchema }, ...authErrors },
      },
    },
    async (request) => {
      const accountId = callerAccount(request);
      const reader = port.reader();
      const claims = new Map(reader.boostClaims(accountId).map((c) => [c.boostId, c]));
      const t = now();
      return reader
        .boosts()
        .filter((b) => boostActive(b, t))
        .map((b) => traderBoostToWire(b, claims.get(b.id)));
    },
  );

  app.post<{ Params: IdParams }>(
    '/nbx/v1/boosts/:id/claim',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags: ['parlay'],
        summary: 'Claim a parlay boost',
        description:
          'Each claim boosts one fill; at most claimLimit claims per account (409 BOOST_CLAIM_LIMIT). A request carrying the boost’s id uses an unused claim at its fill.',
        security: bearer,
        params: boostIdParams,
        response: { 200: wireTraderBoostSchema, ...errors },
      },
    },
    async (request) => {
      throwValidation(request, CODES);
      const accountId = callerAccount(request);
      const boostId = request.params.id.toLowerCase();
      acceptedEvents(await port.submit({ type: 'ClaimBoost', boostId, accountId }));
      const claim = port
        .reader()
        .boostClaims(accountId)
        .find((c) => c.boostId === boostId);
      return traderBoostToWire(boostById(boostId), claim);
    },
  );
}
