// Readiness asks the Store interface which migrations are pending (docs/architecture.md "Layers"):
// ready only when the store answers and none are pending.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import opsRoutes from '../../src/http/routes/ops.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import type { Store } from '../../src/store/types.ts';
import { nullStore } from './harness.ts';

async function readyz(store: Store): Promise<{ status: number; body: { status: string; checks: unknown } }> {
  const app = Fastify();
  await app.register(opsRoutes, { store, metrics: new Metrics(false) });
  const res = await app.inject({ method: 'GET', url: '/readyz' });
  await app.close();
  return { status: res.statusCode, body: res.json() };
}

test('ready when the store answers and no migration is pending', async () => {
  const r = await readyz({ ...nullStore, pendingMigrations: async () => [] });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { status: 'ready', checks: { store: true, migrations: true, exchange: true } });
});

test('not ready while a migration is pending, or when the store cannot say', async () => {
  const pending = await readyz({ ...nullStore, pendingMigrations: async () => ['009_future'] });
  assert.equal(pending.status, 503);
  assert.deepEqual(pending.body.checks, { store: true, migrations: false, exchange: true });
  const failing = await readyz({
    ...nullStore,
    pendingMigrations: async () => {
      throw new Error('connection lost');
    },
  });
  assert.equal(failing.status, 503);
  const down = await readyz({ ...nullStore, ping: async () => false });
  assert.deepEqual(down.body.checks, { store: false, migrations: false, exchange: true });
});
