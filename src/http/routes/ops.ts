// Operations endpoints: liveness, readiness (store reachable, migrations applied), Prometheus
// metrics and the OpenAPI document generated from the route schemas.

import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../observability/metrics.ts';
import type { Store } from '../../store/types.ts';

export interface OpsOptions {
  store: Store;
  metrics: Metrics;
  /** Extra readiness condition (e.g. the exchange has finished recovering). */
  ready?: () => boolean;
}

const statusSchema = {
  type: 'object',
  properties: { status: { type: 'string' }, checks: { type: 'object', additionalProperties: true } },
  required: ['status'],
} as const;

export default async function opsRoutes(app: FastifyInstance, opts: OpsOptions): Promise<void> {
  app.get(
    '/healthz',
    { schema: { tags: ['ops'], summary: 'Liveness', response: { 200: statusSchema } } },
    async () => ({
      status: 'ok',
    }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['ops'],
        summary: 'Readiness: store reachable, migrations applied',
        response: { 200: statusSchema, 503: statusSchema },
      },
    },
    async (_req, reply) => {
      const storeOk = await opts.store.ping();
      let migrationsOk = false;
      if (storeOk) {
        const pending = await opts.store.pendingMigrations().catch(() => null);
        migrationsOk = pending !== null && pending.length === 0;
      }
      const exchangeOk = opts.ready ? opts.ready() : true;
      const ok = storeOk && migrationsOk && exchangeOk;
      return reply.code(ok ? 200 : 503).send({
        status: ok ? 'ready' : 'not ready',
        checks: { store: storeOk, migrations: migrationsOk, exchange: exchangeOk },
      });
    },
  );

  app.get(
    '/metrics',
    { schema: { tags: ['ops'], summary: 'Prometheus metrics', hide: false } },
    async (_req, reply) => {
      const body = await opts.metrics.exposition();
      return reply.type(opts.metrics.registry.contentType).send(body);
    },
  );

  app.get('/openapi.json', { schema: { tags: ['ops'], summary: 'OpenAPI 3.1 document' } }, async () =>
    app.swagger(),
  );
}
