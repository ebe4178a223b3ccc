// Events (docs/http.md "Events"): the filtered, paginated listing and one event, served as bytes cached
// per catalog version. The listing order is reader.eventsSorted() (scheduled start, then id), so
// pages never overlap or skip; visibility flags never filter (docs/http.md "Events").

import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { ApiError } from '../../errors.ts';
import { EVENT_STATUSES, EVENT_TYPES } from '../../exchange/types.ts';
import { eventToWire } from '../../wire/catalog.ts';
import { sendCached, VersionedCache } from '../response-cache.ts';
import { eventSchema } from '../schemas/catalog.ts';
import {
  authErrors,
  bearer,
  errorEnvelope,
  eventParams,
  notModified,
  pagination,
} from '../schemas/common.ts';
import { type ExchangeRouteOptions, throwValidation } from './exchange-common.ts';

export const eventsQuerySchema = {
  type: 'object',
  properties: {
    league: { type: 'string', maxLength: 32, description: 'League code (case-insensitive); unknown → []' },
    type: { type: 'string', enum: [...EVENT_TYPES] },
    status: { type: 'string', enum: [...EVENT_STATUSES] },
    ...pagination,
  },
} as const;

// Request types derived from the schemas (docs/http.md "Validation and errors").
type EventsQuery = FromSchema<typeof eventsQuerySchema>;
type EventParams = FromSchema<typeof eventParams>;

/** Listing pages kept: enough for every league × status × type combination clients poll. */
const LIST_CACHE_ENTRIES = 2048;
const EVENT_CACHE_ENTRIES = 20_000;

export default async function eventRoutes(app: FastifyInstance, opts: ExchangeRouteOptions): Promise<void> {
  const { port } = opts;
  const guard = app.requireScope('read:tape');
  const pages = new VersionedCache<string>(LIST_CACHE_ENTRIES);
  const single = new VersionedCache<string>(EVENT_CACHE_ENTRIES);

  app.get<{ Querystring: EventsQuery }>(
    '/nbx/v2/emm/events',
    {
      preHandler: guard,
      schema: {
        tags: ['events'],
        summary: 'List events',
        description:
          'Bare array of events filtered by league, type and status; stable order (scheduled start, then id). Page with offset until a page is shorter than limit.',
        security: bearer,
        querystring: eventsQuerySchema,
        response: {
          200: { type: 'array', items: eventSchema },
          304: notModified,
          400: errorEnvelope,
          ...authErrors,
        },
      },
    },
    (request, reply) => {
      const r = port.reader();
      const q = request.query;
      const league = q.league?.toUpperCase();
      const key = `${league ?? ''}|${q.type ?? ''}|${q.status ?? ''}|${q.limit}|${q.offset}`;
      const body = pages.get(key, r.catalogVersion, () => {
        const out = [];
        let skipped = 0;
        for (const e of r.eventsSorted()) {
          if (league !== undefined && e.league.toUpperCase() !== league) continue;
          if (q.type !== undefined && e.type !== q.type) continue;
          if (q.status !== undefined && e.status !== q.status) continue;
          if (skipped < q.offset) {
            skipped++;
            continue;
          }
          out.push(eventToWire(r, e));
          if (out.length >= q.limit) break;
        }
        return out;
      });
      return sendCached(request, reply, body);
    },
  );

  app.get<{ Params: EventParams }>(
    '/nbx/v2/emm/events/:eventId',
    {
      preHandler: guard,
      attachValidation: true,
      schema: {
        tags: ['events'],
        summary: 'Get one event',
        security: bearer,
        params: eventParams,
        response: {
          200: eventSchema,
          304: notModified,
          400: errorEnvelope,
          404: errorEnvelope,
          ...authErrors,
        },
      },
    },
    (request, reply) => {
      throwValidation(request, { 'params/eventId': 'INVALID_ID' });
      const r = port.reader();
      const id = request.params.eventId.toLowerCase();
      const e = r.event(id);
      if (!e) throw new ApiError('EVENT_NOT_FOUND', `Event ${id} not found`);
      return sendCached(
        request,
        reply,
        single.get(id, r.catalogVersion, () => eventToWire(r, e)),
      );
    },
  );
}
