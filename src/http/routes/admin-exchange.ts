// The operator API over the exchange (scope admin): money in and out of accounts, the catalog
// (leagues, teams, events with their game and markets), event and market status, settlement and
// trading locks. Every call is exactly one command (principle 1 of docs/architecture.md "Principles"); ids are minted here
// through port.newId() and travel in the command, so the state machine stays deterministic.

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError } from '../../errors.ts';
import type { Id, MarketSpec } from '../../exchange/types.ts';
import { moneyToUnits, unitsToMoney } from '../../exchange/units.ts';
import { eventToWire, lockToWire, marketToWire } from '../../wire/catalog.ts';
import { MARKET_TYPE_FILTER_VALUES, parseMarketType } from '../../wire/names.ts';
import {
  createdEventSchema,
  eventBodySchema,
  eventStatusBodySchema,
  leagueBodySchema,
  leagueSchema,
  lockBodySchema,
  marketStatusBodySchema,
  moneyBodySchema,
  settleBodySchema,
  teamBodySchema,
  teamWithLeagueSchema,
} from '../schemas/admin.ts';
import { eventSchema, lockSchema, marketSchema } from '../schemas/catalog.ts';
import {
  accountParams,
  authErrors,
  bearer,
  errorEnvelope,
  eventParams,
  lockParams,
  marketParams,
} from '../schemas/common.ts';
import { walletSchema } from '../schemas/trading.ts';
import { acceptedEvents, type ExchangeRouteOptions, throwValidation } from './exchange-common.ts';

// Request types derived from the schemas (docs/http.md "Validation and errors").
type AccountParams = FromSchema<typeof accountParams>;
type EventParams = FromSchema<typeof eventParams>;
type MarketParams = FromSchema<typeof marketParams>;
type LockParams = FromSchema<typeof lockParams>;
type MoneyBody = FromSchema<typeof moneyBodySchema>;
type LeagueBody = FromSchema<typeof leagueBodySchema>;
type TeamBody = FromSchema<typeof teamBodySchema>;
type EventBody = FromSchema<typeof eventBodySchema>;
type EventStatusBody = FromSchema<typeof eventStatusBodySchema>;
type MarketStatusBody = FromSchema<typeof marketStatusBodySchema>;
type SettleBody = FromSchema<typeof settleBodySchema>;
type LockBody = FromSchema<typeof lockBodySchema>;

/** A rule on a body field that its schema cannot state, failed: the validation envelope. */
function invalidField(path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', `${path} ${message}`, [{ path, message }]);
}

const errors = { 400: errorEnvelope, 404: errorEnvelope, 409: errorEnvelope, ...authErrors } as const;
const tags = ['admin'];

export default async function adminExchangeRoutes(
  app: FastifyInstance,
  opts: ExchangeRouteOptions,
): Promise<void> {
  const { port } = opts;
  const now = opts.now ?? Date.now;
  const admin = app.requireScope('admin');

  const moneyRoute = (kind: 'deposits' | 'withdrawals') =>
    app.post<{ Params: AccountParams; Body: MoneyBody }>(
      `/admin/v1/accounts/:accountId/${kind}`,
      {
        preHandler: admin,
        attachValidation: true,
        schema: {
          tags,
          summary: kind === 'deposits' ? 'Deposit into an account' : 'Withdraw from an account',
          description:
            'Amount in currency units (at most 5 decimals). Answers the wallet after the operation.',
          security: bearer,
          params: accountParams,
          body: moneyBodySchema,
          response: { 201: walletSchema, ...errors },
        },
      },
      async (request, reply) => {
        throwValidation(request, {
          'params/accountId': 'INVALID_ID',
          'body/amount': 'INVALID_AMOUNT',
          'body/currency': 'INVALID_CURRENCY',
        });
        const accountId = request.params.accountId.toLowerCase();
        const { currency: cur } = request.body;
        const amount = unitsToMoney(request.body.amount);
        // At most 5 decimals is the money conversion's rule (a float multipleOf cannot state it).
        if (amount === null || amount <= 0) {
          throw new ApiError('INVALID_AMOUNT', 'amount: positive, at most 5 decimals', [
            { path: 'body/amount', message: 'must be positive with at most 5 decimals' },
          ]);
        }
        acceptedEvents(
          await port.submit({
            type: kind === 'deposits' ? 'Deposit' : 'Withdraw',
            accountId,
            currency: cur,
            amount,
          }),
        );
        const w = port.reader().wallet(accountId, cur);
        return reply.code(201).send({
          accountId,
          currency: cur,
          balance: moneyToUnits(w?.available ?? 0),
          reserved: moneyToUnits(w?.reserved ?? 0),
        });
      },
    );
  moneyRoute('deposits');
  moneyRoute('withdrawals');

  app.post<{ Body: LeagueBody }>(
    '/admin/v1/leagues',
    {
      preHandler: admin,
      schema: {
        tags,
        summary: 'Create a league',
        security: bearer,
        body: leagueBodySchema,
        response: { 201: leagueSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { code, name } = request.body;
      acceptedEvents(await port.submit({ type: 'CreateLeague', code, name }));
      return reply.code(201).send({ code, name });
    },
  );

  app.post<{ Body: TeamBody }>(
    '/admin/v1/teams',
    {
      preHandler: admin,
      schema: {
        tags,
        summary: 'Create a team or competitor',
        security: bearer,
        body: teamBodySchema,
        response: { 201: teamWithLeagueSchema, ...errors },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const shortName = b.shortName ?? b.name.slice(b.name.lastIndexOf(' ') + 1);
      const team = {
        id: port.newId(),
        league: b.league,
        name: b.name,
        shortName,
        symbol: b.symbol,
        mascot: b.mascot ?? shortName,
      };
      acceptedEvents(await port.submit({ type: 'CreateTeam', team }));
      return reply.code(201).send(team);
    },
  );

  app.post<{ Body: EventBody }>(
    '/admin/v1/events',
    {
      preHandler: admin,
      attachValidation: true,
      schema: {
        tags,
        summary: 'Create an event with its game and markets',
        description:
          'One command: the event, its game (type Game) and its markets. The server mints every id.',
        security: bearer,
        body: eventBodySchema,
        response: { 201: createdEventSchema, ...errors },
      },
    },
    async (request, reply) => {
      throwValidation(request, {});
      const b = request.body;
      // The schema's date-time format admits what Date cannot hold (a leap second, 23:59:60).
      const scheduledStart = Date.parse(b.scheduledStart);
      if (!Number.isSafeInteger(scheduledStart))
        throw invalidField('body/scheduledStart', 'must be an ISO 8601 time');
      // Market types are matched case-insensitively (docs/http.md), so the schema cannot use an enum.
      b.markets.forEach((m, i) => {
        if (parseMarketType(m.type) === undefined)
          throw invalidField(
            `body/markets/${i}/type`,
            `must be one of ${MARKET_TYPE_FILTER_VALUES.join(', ')}`,
          );
      });
      const markets: MarketSpec[] = b.markets.map((m) => ({
        id: port.newId(),
        type: parseMarketType(m.type)!,
        strike: m.strike ?? null,
        description: m.description,
        outcomes: [0, 1].map((i) => ({
          id: port.newId(),
          description: m.outcomes[i]!.description,
          competitorTeamId: m.outcomes[i]!.competitorTeamId?.toLowerCase() ?? null,
        })) as MarketSpec['outcomes'],
      }));
      const eventId = port.newId();
      acceptedEvents(
        await port.submit({
          type: 'CreateEvent',
          event: {
            id: eventId,
            type: b.type,
            status: b.status,
            description: b.description,
            league: b.league,
            scheduledStart,
            ...(b.pregameVisible !== undefined ? { pregameVisible: b.pregameVisible } : {}),
            ...(b.liveVisible !== undefined ? { liveVisible: b.liveVisible } : {}),
          },
          game: b.game
            ? {
                id: port.newId(),
                homeTeamId: b.game.homeTeamId.toLowerCase(),
                awayTeamId: b.game.awayTeamId.toLowerCase(),
              }
            : null,
          markets,
        }),
      );
      const r = port.reader();
      const e = r.event(eventId)!;
      return reply.code(201).send({
        event: eventToWire(r, e),
        markets: e.marketIds.flatMap((id) => {
          const m = r.market(id);
          return m ? [marketToWire(r, m, 'CASH')] : [];
        }),
      });
    },
  );

  app.post<{ Params: EventParams; Body: EventStatusBody }>(
    '/admin/v1/events/:eventId/status',
    {
      preHandler: admin,
      attachValidation: true,
      schema: {
        tags,
        summary: 'Change an event’s status',
        description: 'Allowed transitions: docs/lifecycle.md. Going live drains the event’s books.',
        security: bearer,
        params: eventParams,
        body: eventStatusBodySchema,
        response: { 200: eventSchema, ...errors },
      },
    },
    async (request) => {
      throwValidation(request, { 'params/eventId': 'INVALID_ID' });
      const eventId = request.params.eventId.toLowerCase();
      acceptedEvents(await port.submit({ type: 'SetEventStatus', eventId, status: request.body.status }));
      const r = port.reader();
      return eventToWire(r, r.event(eventId)!);
    },
  );

  app.post<{ Params: MarketParams; Body: MarketStatusBody }>(
    '/admin/v1/markets/:marketId/status',
    {
      preHandler: admin,
      attachValidation: true,
      schema: {
        tags,
        summary: 'Open or close a market',
        description: 'Closing cancels the market’s resting orders.',
        security: bearer,
        params: marketParams,
        body: marketStatusBodySchema,
        response: { 200: marketSchema, ...errors },
      },
    },
    async (request) => {
      throwValidation(request, { 'params/marketId': 'INVALID_ID' });
      const marketId = request.params.marketId.toLowerCase();
      acceptedEvents(await port.submit({ type: 'SetMarketStatus', marketId, status: request.body.status }));
      const r = port.reader();
      return marketToWire(r, r.market(marketId)!, 'CASH');
    },
  );

  app.post<{ Params: MarketParams; Body: SettleBody }>(
    '/admin/v1/markets/:marketId/settle',
    {
      preHandler: admin,
      attachValidation: true,
      schema: {
        tags,
        summary: 'Settle a market',
        description:
          'Pays winners their full payout, or refunds costs on PUSH; outcomes become WIN/LOSS/PUSH.',
        security: bearer,
        params: marketParams,
        body: settleBodySchema,
        response: { 200: marketSchema, ...errors },
      },
    },
    async (request) => {
      throwValidation(request, { 'params/marketId': 'INVALID_ID', 'body/winningOutcomeId': 'INVALID_ID' });
      const marketId = request.params.marketId.toLowerCase();
      const result: Id | 'PUSH' = request.body.result ?? request.body.winningOutcomeId!.toLowerCase();
      acceptedEvents(await port.submit({ type: 'SettleMarket', marketId, result }));
      const r = port.reader();
      return marketToWire(r, r.market(marketId)!, 'CASH');
    },
  );

  app.post<{ Body: LockBody }>(
    '/admin/v1/locks',
    {
      preHandler: admin,
      attachValidation: true,
      schema: {
        tags,
        summary: 'Set a trading lock',
        description:
          'On one event, or the system lock without eventId. Orders under a lock are rejected TRADING_LOCKED; cancels still work.',
        security: bearer,
        body: lockBodySchema,
        response: { 201: lockSchema, ...errors },
      },
    },
    async (request, reply) => {
      throwValidation(request, { 'body/eventId': 'INVALID_ID' });
      const b = request.body;
      // The lock's times travel in the command as data, so replay reproduces them exactly.
      const createdAt = now();
      const lock = {
        id: port.newId(),
        eventId: b.eventId?.toLowerCase() ?? null,
        reason: b.reason,
        createdAt,
        expiresAt: b.minuteDuration === undefined ? null : createdAt + Math.round(b.minuteDuration * 60_000),
      };
      acceptedEvents(await port.submit({ type: 'SetLock', lock }));
      return reply.code(201).send(lockToWire(lock));
    },
  );

  // The public GET /nbx/v2/emm/locks has the production shape (lockedEventIds only); operators
  // need each lock's id to clear it.
  app.get(
    '/admin/v1/locks',
    {
      preHandler: admin,
      schema: {
        tags,
        summary: 'Active trading locks with their ids',
        security: bearer,
        response: { 200: { type: 'array', items: lockSchema }, ...authErrors },
      },
    },
    async () => {
      const l = port.reader().locks();
      return [...(l.system ? [l.system] : []), ...l.events].map(lockToWire);
    },
  );

  app.delete<{ Params: LockParams }>(
    '/admin/v1/locks/:lockId',
    {
      preHandler: admin,
      attachValidation: true,
      schema: {
        tags,
        summary: 'Clear a trading lock',
        security: bearer,
        params: lockParams,
        response: { 204: { description: 'Cleared', type: 'null' }, ...errors },
      },
    },
    async (request, reply) => {
      throwValidation(request, { 'params/lockId': 'INVALID_ID' });
      acceptedEvents(await port.submit({ type: 'ClearLock', lockId: request.params.lockId.toLowerCase() }));
      return reply.code(204).send();
    },
  );
}
