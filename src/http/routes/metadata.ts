// Event metadata (docs/http.md "Events"): bare JSON arrays of strings, served as cached bytes.
// Leagues follow the production list's order (docs/http.md "Events"), then any other league
// of the catalog in catalog order; types and statuses are the domain's fixed lists.

import type { FastifyInstance } from 'fastify';
import { EVENT_STATUSES, EVENT_TYPES } from '../../exchange/types.ts';
import { cachedBody, sendCached, VersionedBody } from '../response-cache.ts';
import { stringList } from '../schemas/catalog.ts';
import { authErrors, bearer, notModified } from '../schemas/common.ts';
import type { ExchangeRouteOptions } from './exchange-common.ts';

/** Order of the production leagues list. */
export const PRODUCTION_LEAGUE_ORDER = [
  'NFL',
  'NBA',
  'MLB',
  'NHL',
  'NCAAF',
  'NCAAB',
  'MLS',
  'EPL',
  'UFC',
  'PGA',
];

export function orderedLeagueCodes(codes: readonly string[]): string[] {
  const rank = (c: string) => {
    const i = PRODUCTION_LEAGUE_ORDER.indexOf(c);
    return i < 0 ? PRODUCTION_LEAGUE_ORDER.length : i;
  };
  // Array.prototype.sort is stable: leagues outside the production list keep catalog order.
  return [...codes].sort((a, b) => rank(a) - rank(b));
}

export default async function metadataRoutes(
  app: FastifyInstance,
  opts: ExchangeRouteOptions,
): Promise<void> {
  const { port } = opts;
  const leagues = new VersionedBody();
  // Constants: serialized once, here.
  const types = cachedBody([...EVENT_TYPES]);
  const statuses = cachedBody([...EVENT_STATUSES]);
  const guard = app.requireScope('read:tape');
  const schema = (summary: string, description: string) => ({
    tags: ['metadata'],
    summary,
    description,
    security: bearer,
    response: { 200: { ...stringList, description }, 304: notModified, ...authErrors },
  });

  app.get(
    '/nbx/v2/emm/event-metadata/leagues',
    {
      preHandler: guard,
      schema: schema('List leagues', 'League codes, production order first (docs/http.md "Events")'),
    },
    (request, reply) => {
      const r = port.reader();
      const body = leagues.get(r.catalogVersion, () => orderedLeagueCodes(r.leagues().map((l) => l.code)));
      return sendCached(request, reply, body);
    },
  );

  app.get(
    '/nbx/v2/emm/event-metadata/types',
    { preHandler: guard, schema: schema('List event types', 'All event types (docs/http.md "Events")') },
    (request, reply) => sendCached(request, reply, types),
  );

  app.get(
    '/nbx/v2/emm/event-metadata/statuses',
    {
      preHandler: guard,
      schema: schema('List event statuses', 'All event statuses (docs/http.md "Events")'),
    },
    (request, reply) => sendCached(request, reply, statuses),
  );
}
