// The caller's own account (docs/http.md "Orders and account"): balance,
// open costs, positions and fills. Money leaves in currency units through src/exchange/units.ts.
// Balances and positions come from the live state (memory); fills from the history port.

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError } from '../../errors.ts';
import type { Currency, Id } from '../../exchange/types.ts';
import { moneyToUnits } from '../../exchange/units.ts';
import { isUuid } from '../../ids.ts';
import { isLedgerKind, LEDGER_KINDS, type LedgerKind } from '../../runtime/ledger-kinds.ts';
import { isoMillis } from '../../wire/names.ts';
import { fillToWire, positionToWire } from '../../wire/trading.ts';
import { moneyToDecimal } from '../../wire/transactions.ts';
import { authErrors, bearer, currency, errorEnvelope } from '../schemas/common.ts';
import { balanceSchema, fillSchema, openCostsSchema, positionSchema } from '../schemas/trading.ts';
import { transactionSchema } from '../schemas/transactions.ts';
import { callerAccount, type ExchangeRouteOptions, throwValidation } from './exchange-common.ts';

const balanceQuery = {
  type: 'object',
  properties: { currency: { ...currency, default: 'CASH', description: 'Wallet currency (default CASH)' } },
} as const;

const positionsQuery = {
  type: 'object',
  properties: {
    currency,
    outcomeIds: { type: 'array', items: { type: 'string', maxLength: 4000 }, maxItems: 256 },
  },
} as const;

const fillsQuery = {
  type: 'object',
  properties: {
    currency,
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
} as const;

const transactionsQuery = {
  type: 'object',
  properties: { ...fillsQuery.properties, type: { type: 'string', maxLength: 1000 } },
} as const;

// Request types derived from the schemas above (docs/http.md "Validation and errors").
type BalanceQuery = FromSchema<typeof balanceQuery>;
type PositionsQuery = FromSchema<typeof positionsQuery>;
type FillsQuery = FromSchema<typeof fillsQuery>;
type TransactionsQuery = FromSchema<typeof transactionsQuery>;

const CURRENCY_CODES = { 'querystring/currency': 'INVALID_CURRENCY' } as const;

export default async function accountRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const read = app.requireScope('read:trader');

  const balance = (accountId: Id, cur: Currency) => {
    const w = port.reader().wallet(accountId, cur);
    return { balance: moneyToUnits(w?.available ?? 0), currency: cur };
  };

  const balanceRoute = (url: string, summary: string) =>
    app.get<{ Querystring: BalanceQuery }>(
      url,
      {
        preHandler: read,
        attachValidation: true,
        schema: {
          tags: ['account'],
          summary,
          description: 'Available funds (not reserved by resting orders), in currency units.',
          security: bearer,
          querystring: balanceQuery,
          response: { 200: balanceSchema, 400: errorEnvelope, ...authErrors },
        },
      },
      async (request) => {
        throwValidation(request, CURRENCY_CODES);
        return balance(callerAccount(request), request.query.currency);
      },
    );
  balanceRoute('/emm/v2/account/balance', 'Account balance (docs/http.md "Orders and account")');
  balanceRoute('/nbx/v2/emm/account/balance', 'Account balance');

  app.get<{ Querystring: BalanceQuery }>(
    '/nbx/v2/emm/account/open-costs-and-credit',
    {
      preHandler: read,
      attachValidation: true,
      schema: {
        tags: ['account'],
        summary: 'Open position and order costs, and credit',
        security: bearer,
        querystring: balanceQuery,
        response: { 200: openCostsSchema, 400: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, CURRENCY_CODES);
      const accountId = callerAccount(request);
      const cur = request.query.currency;
      const r = port.reader();
      let positionCost = 0;
      for (const p of r.positions(accountId, cur)) positionCost += p.cost;
      let parlayCost = 0;
      for (const p of r.parlays(accountId, { status: 'OPEN', where: (x) => x.currency === cur }))
        parlayCost += p.takerAccountId === accountId ? p.stake : p.collateral;
      return {
        openPositionCost: moneyToUnits(positionCost),
        openOrderCost: moneyToUnits(r.wallet(accountId, cur)?.reserved ?? 0),
        openParlayCost: moneyToUnits(parlayCost),
        credit: 0,
        currency: cur,
      };
    },
  );

  app.get<{ Querystring: PositionsQuery }>(
    '/nbx/v2/emm/positions/all',
    {
      preHandler: read,
      attachValidation: true,
      schema: {
        tags: ['account'],
        summary: 'Open positions',
        description:
          'outcomeIds: repeated parameter or a comma-separated list; without currency, both wallets.',
        security: bearer,
        querystring: positionsQuery,
        response: { 200: { type: 'array', items: positionSchema }, 400: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, CURRENCY_CODES);
      const accountId = callerAccount(request);
      const q = request.query;
      let wanted: Set<string> | undefined;
      if (q.outcomeIds) {
        wanted = new Set();
        for (const part of q.outcomeIds.flatMap((s) => s.split(','))) {
          const id = part.trim().toLowerCase();
          if (id === '') continue;
          // A comma-separated list inside one parameter: a split, which a schema cannot state.
          if (!isUuid(id)) {
            throw new ApiError('INVALID_ID', `outcomeIds: ${JSON.stringify(part)} is not a UUID`, [
              { path: 'querystring/outcomeIds', message: `${JSON.stringify(part)} is not a UUID` },
            ]);
          }
          wanted.add(id);
        }
      }
      return port
        .reader()
        .positions(accountId, q.currency)
        .filter((p) => !wanted || wanted.has(p.outcomeId))
        .map(positionToWire);
    },
  );

  app.get<{ Querystring: FillsQuery }>(
    '/nbx/v2/emm/fills/all',
    {
      preHandler: read,
      attachValidation: true,
      schema: {
        tags: ['account'],
        summary: 'The account’s fills, newest first',
        security: bearer,
        querystring: fillsQuery,
        response: { 200: { type: 'array', items: fillSchema }, 400: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, CURRENCY_CODES);
      const accountId = callerAccount(request);
      const q = request.query;
      const fills = await port.history.fills({
        accountId,
        limit: q.limit,
        offset: q.offset,
        ...(q.currency ? { currency: q.currency } : {}),
      });
      return fills.filter((f) => f.accountId === accountId).map(fillToWire);
    },
  );

  // The ledger (docs/http.md, "Transactions"): every movement of the account's money, newest
  // first; `type` is one kind or a comma-separated list of kinds.
  app.get<{ Querystring: TransactionsQuery }>(
    '/nbx/v2/emm/transactions',
    {
      preHandler: read,
      attachValidation: true,
      schema: {
        tags: ['account'],
        summary: 'The account’s ledger rows, newest first',
        description: `Deposits, withdrawals, fills by role and liveness, fees, netting, settlements and refunds. type: one of ${LEDGER_KINDS.join(', ')} (or a comma-separated list).`,
        security: bearer,
        querystring: transactionsQuery,
        response: { 200: { type: 'array', items: transactionSchema }, 400: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, CURRENCY_CODES);
      const accountId = callerAccount(request);
      const q = request.query;
      let kinds: LedgerKind[] | undefined;
      if (q.type !== undefined) {
        kinds = [];
        for (const part of q.type.split(',')) {
          const k = part.trim().toUpperCase();
          if (!isLedgerKind(k)) {
            throw new ApiError(
              'VALIDATION_FAILED',
              `type: ${JSON.stringify(part)} is not a transaction kind`,
              [{ path: 'querystring/type', message: `must be one of ${LEDGER_KINDS.join(', ')}` }],
            );
          }
          kinds.push(k);
        }
      }
      const rows = await port.history.transactions({
        accountId,
        limit: q.limit,
        offset: q.offset,
        ...(q.currency ? { currency: q.currency } : {}),
        ...(kinds ? { kinds } : {}),
      });
      return rows.map((t) => ({
        id: t.id,
        kind: t.kind,
        amount: moneyToDecimal(t.amount),
        currency: t.currency,
        createdAt: t.createdAt === null ? null : isoMillis(t.createdAt),
        ...(t.orderId ? { orderId: t.orderId } : {}),
        ...(t.fillId ? { fillId: t.fillId } : {}),
        ...(t.marketId ? { marketId: t.marketId } : {}),
      }));
    },
  );
}
