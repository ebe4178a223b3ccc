// Shared set-up for the token-server tests: one in-memory PGlite store per test file (creating
// one takes seconds), a config from a test environment, an in-memory accounts port, and the app
// built exactly as main.ts builds it, plus a tiny protected route.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { type AccountsPort, AuthService } from '../../src/auth/service.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { registerAuthHttp } from '../../src/http/routes/oauth.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import { PgliteStore } from '../../src/store/pglite-store.ts';
import type { Store } from '../../src/store/types.ts';

export class MemoryAccounts implements AccountsPort {
  readonly ids = new Set<string>();
  async create(): Promise<string> {
    const id = randomUUID();
    this.ids.add(id);
    return id;
  }
  exists(id: string): boolean {
    return this.ids.has(id);
  }
}

export async function openStore(): Promise<Store> {
  const store = await PgliteStore.open(undefined);
  await store.migrate();
  return store;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    TICKBOOK_DEMO: 'false',
    DATA_DIR: '/tmp/tickbook-test-unused',
    KEY_ENCRYPTION_SECRET: 'test-key-encryption-secret',
    ...env,
  });
}

export const silentLog = { info() {}, warn() {}, error() {} };

/** Captures log lines (JSON) written by pino. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    );
    cb();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestServer {
  app: FastifyInstance;
  auth: AuthService;
  config: Config;
  metrics: Metrics;
  accounts: MemoryAccounts;
  /** http://127.0.0.1:<port> once listening. */
  url: string;
  close(): Promise<void>;
}

/** A port free right now (the issuer URL must be known before the app is built). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Builds the app with the token server and a protected GET /test/protected/<scope with - for :> route. With
 * `listen`, the server listens on 127.0.0.1 and PUBLIC_BASE_URL is its real address.
 */
export async function startServer(
  store: Store,
  opts: {
    env?: Record<string, string>;
    listen?: boolean;
    logStream?: NodeJS.WritableStream;
    signingThreads?: number;
  } = {},
): Promise<TestServer> {
  const port = opts.listen ? await freePort() : 8080;
  const config = testConfig({
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ...(opts.logStream ? { LOG_LEVEL: 'info' } : {}),
    ...opts.env,
  });
  const metrics = new Metrics(false);
  const accounts = new MemoryAccounts();
  const auth = await AuthService.create({
    config,
    store,
    metrics,
    log: silentLog,
    accounts,
    signingThreads: opts.signingThreads ?? 0,
    keyRefreshSeconds: 0,
  });
  const app = await buildApp({
    config,
    store,
    metrics,
    logStream: opts.logStream,
    features: async (a) => {
      await registerAuthHttp(a, auth);
      for (const scope of ['read:tape', 'read:trader', 'execute:trader', 'admin'] as Scope[]) {
        a.get(
          `/test/protected/${scope.replace(':', '-')}`,
          { preHandler: a.requireScope(scope) },
          async (request) => ({
            clientId: request.principal?.clientId,
            accountId: request.principal?.accountId,
            scopes: [...(request.principal?.scopes ?? [])],
          }),
        );
      }
    },
  });
  if (opts.listen) await app.listen({ port, host: '127.0.0.1' });
  else await app.ready();
  return {
    app,
    auth,
    config,
    metrics,
    accounts,
    url: config.publicBaseUrl,
    async close() {
      await app.close();
      await auth.close();
    },
  };
}

/** Form-encodes a record (application/x-www-form-urlencoded). */
export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}
