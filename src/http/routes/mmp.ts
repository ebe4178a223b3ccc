// Market-maker protection of the caller's account (docs/http.md "Market-maker protection"; the
// rules: docs/exchange.md "Market-maker protection"): read it, set a config (one SetMmp command)
// and lift freezes (one ResetMmp command). Orders opt in with `mmp: true` on place and batch.

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError } from '../../errors.ts';
import type { ExchangeReader } from '../../exchange/reader.ts';
import type { Id } from '../../exchange/types.ts';
import { isoMillis } from '../../wire/names.ts';
import { authErrors, bearer, errorEnvelope } from '../schemas/common.ts';
import { mmpBodySchema, mmpResetBodySchema, mmpStateSchema } from '../schemas/mmp.ts';
import {
  acceptedEvents,
  callerAccount,
  type ExchangeRouteOptions,
  throwValidation,
} from './exchange-common.ts';

type MmpBody = FromSchema<typeof mmpBodySchema>;
type MmpResetBody = FromSchema<typeof mmpResetBodySchema>;

const tags = ['mmp'];

export default async function mmpRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const now = opts.now ?? Date.now;
  const trade = app.requireScope('execute:trader');
  const read = app.requireScope('read:trader');

  /** The account's protection as the wire shows it; a freeze past its end is reported inactive. */
  function state(r: ExchangeReader, accountId: Id) {
    const v = r.mmp(accountId);
    if (v === undefined) throw new ApiError('ACCOUNT_NOT_FOUND');
    const t = now();
    return {
      configs: v.configs,
      frozen: v.frozen.map((f) => ({
        eventId: f.eventId,
        frozenUntil: f.until === null ? null : isoMillis(f.until),
        active: f.until === null || f.until > t,
      })),
    };
  }

  app.get(
    '/nbx/v2/emm/mmp',
    {
      preHandler: read,
      schema: {
        tags,
        summary: 'Market-maker protection of your account',
        description: 'Configs (per event, or the default with eventId null, per currency) and freezes.',
        security: bearer,
        response: { 200: mmpStateSchema, 404: errorEnvelope, ...authErrors },
      },
    },
    async (request) => state(port.reader(), callerAccount(request)),
  );

  app.put<{ Body: MmpBody }>(
    '/nbx/v2/emm/mmp',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags,
        summary: 'Set market-maker protection for an event or by default',
        description:
          'One SetMmp command. Replaces the config of (eventId or the default, currency). At least one of qtyLimit and netLimit must be positive.',
        security: bearer,
        body: mmpBodySchema,
        response: { 200: mmpStateSchema, 400: errorEnvelope, 404: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, { 'body/eventId': 'INVALID_ID', 'body/currency': 'INVALID_CURRENCY' });
      const accountId = callerAccount(request);
      const { eventId, currency, intervalMs, qtyLimit, netLimit, freezeMs } = request.body;
      acceptedEvents(
        await port.submit({
          type: 'SetMmp',
          accountId,
          eventId: eventId === undefined ? null : eventId.toLowerCase(),
          currency,
          config: { intervalMs, qtyLimit, netLimit, freezeMs },
        }),
      );
      return state(port.reader(), accountId);
    },
  );

  app.post<{ Body: MmpResetBody }>(
    '/nbx/v2/emm/mmp/reset',
    {
      preHandler: trade,
      attachValidation: true,
      schema: {
        tags,
        summary: 'Lift market-maker protection freezes',
        description: 'One ResetMmp command: the event’s freeze (or every freeze of the account) ends now.',
        security: bearer,
        body: mmpResetBodySchema,
        response: { 200: mmpStateSchema, 400: errorEnvelope, 404: errorEnvelope, ...authErrors },
      },
    },
    async (request) => {
      throwValidation(request, { 'body/eventId': 'INVALID_ID' });
      const accountId = callerAccount(request);
      const eventId = request.body?.eventId;
      acceptedEvents(
        await port.submit({
          type: 'ResetMmp',
          accountId,
          eventId: eventId === undefined ? null : eventId.toLowerCase(),
        }),
      );
      return state(port.reader(), accountId);
    },
  );
}
