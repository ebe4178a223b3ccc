// Test harness for the exchange routes: the real app (buildApp: error handler, Ajv options, swagger)
// over a MemoryPort, with a stand-in for the bearer guard that trusts two test headers — the lead's
// integration tests use the real guard. Every route's declared schemas are collected through an
// onRoute hook so responses are checked against exactly what the routes declare.

import assert from 'node:assert/strict';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { isScope, type Principal, type Scope } from '../../src/auth/scopes.ts';
import { loadConfig } from '../../src/config.ts';
import { ApiError } from '../../src/errors.ts';
import exchangeApi from '../../src/http/routes/exchange-api.ts';
import type { Store } from '../../src/store/types.ts';
import { MemoryPort } from '../helpers/memory-port.ts';

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

/** The guard stand-in: `x-test-scopes: read:tape,…` and `x-test-account: <uuid>`. */
export function standInRequireScope(scope: Scope) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const raw = request.headers['x-test-scopes'];
    if (typeof raw !== 'string') throw new ApiError('UNAUTHORIZED');
    const scopes = new Set(raw.split(',').filter(isScope));
    if (!scopes.has(scope))
      throw new ApiError('INSUFFICIENT_SCOPE', `This route requires the scope ${scope}`);
    const account = request.headers['x-test-account'];
    const principal: Principal = {
      clientId: 'test-client',
      accountId: typeof account === 'string' ? account : null,
      scopes,
      tokenId: 'test',
    };
    request.principal = principal;
  };
}

/** Store stand-in: the exchange routes never touch the store (no database round-trip on reads). */
export const nullStore: Store = {
  kind: 'pglite',
  query: async () => {
    throw new Error('the exchange routes must not query the store');
  },
  exec: async () => {
    throw new Error('no store');
  },
  transaction: async () => {
    throw new Error('no store');
  },
  migrate: async () => [],
  appliedMigrations: async () => [],
  pendingMigrations: async () => [],
  ping: async () => true,
  close: async () => {},
};

export interface Harness {
  app: FastifyInstance;
  port: MemoryPort;
  clock: { t: number };
  /** Declared schema of a route: schemaOf('GET', '/nbx/v2/emm/events').response[200]. */
  schemaOf(method: string, url: string): Record<string, unknown> & { response?: Record<string, unknown> };
  /** Asserts `body` matches the route's declared response schema for `status`. */
  checkShape(method: string, url: string, status: number, body: unknown): void;
  close(): Promise<void>;
}

export async function makeHarness(
  opts: {
    start?: number;
    /** More plugins on the same app (e.g. the GraphQL routes over the same port). */
    extra?: (app: FastifyInstance, port: MemoryPort) => Promise<void>;
  } = {},
): Promise<Harness> {
  const clock = { t: opts.start ?? Date.UTC(2026, 10, 21, 12, 0, 0) };
  const port = new MemoryPort({ now: () => clock.t });
  const schemas = new Map<string, Record<string, unknown>>();
  const app = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    store: nullStore,
    features: async (instance) => {
      instance.decorateRequest('principal', undefined);
      instance.decorate('requireScope', standInRequireScope as never);
      instance.addHook('onRoute', (r) => {
        const methods = Array.isArray(r.method) ? r.method : [r.method];
        for (const m of methods) schemas.set(`${m} ${r.url}`, (r.schema ?? {}) as Record<string, unknown>);
      });
      await instance.register(exchangeApi, { port, now: () => clock.t });
      if (opts.extra) await opts.extra(instance, port);
    },
  });
  await app.ready();
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const compiled = new Map<unknown, ReturnType<typeof ajv.compile>>();
  const schemaOf = (method: string, url: string) => {
    const s = schemas.get(`${method} ${url}`);
    assert.ok(s, `no route ${method} ${url}`);
    return s as Record<string, unknown> & { response?: Record<string, unknown> };
  };
  return {
    app,
    port,
    clock,
    schemaOf,
    checkShape(method, url, status, body) {
      const schema = schemaOf(method, url).response?.[String(status)];
      assert.ok(schema, `route ${method} ${url} declares no ${status} response`);
      let v = compiled.get(schema);
      if (!v) {
        v = ajv.compile(schema as object);
        compiled.set(schema, v);
      }
      assert.ok(
        v(body),
        `${method} ${url} ${status}: ${ajv.errorsText(v.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
    },
    close: () => app.close(),
  };
}

export const TAPE = { 'x-test-scopes': 'read:tape' };
export const ADMIN = { 'x-test-scopes': 'admin' };
export function trader(accountId: string): Record<string, string> {
  return { 'x-test-scopes': 'read:tape,read:trader,execute:trader', 'x-test-account': accountId };
}

/** Parses a JSON response; asserts the content type. */
export function json<T = unknown>(res: LightMyRequestResponse): T {
  assert.match(String(res.headers['content-type']), /^application\/json/);
  return JSON.parse(res.body) as T;
}

/** Asserts an error envelope with `status` and `code`. */
export function assertError(res: LightMyRequestResponse, status: number, code: string): void {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode} ${res.body}`);
  const body = json<{ statusCode: number; code: string; error: string; message: string }>(res);
  assert.equal(body.statusCode, status);
  assert.equal(body.code, code, res.body);
  assert.equal(typeof body.message, 'string');
  assert.equal(typeof body.error, 'string');
}
