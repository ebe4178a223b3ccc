// The server entry: configuration, store, exchange runtime (recovery), token server, HTTP app,
// optional legacy auth listener, timers, and a clean shutdown on SIGINT/SIGTERM (final snapshot).
// Thin on purpose (DESIGN.md §10): everything it starts is built and tested elsewhere.

import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from './app.ts';
import { AuthService } from './auth/service.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { loggerOptions } from './http/logger.ts';
import { Metrics } from './http/metrics.ts';
import exchangeApi from './http/routes/exchange-api.ts';
import { buildLegacyAuthApp, registerAuthHttp } from './http/routes/oauth.ts';
import parlayRoutes from './http/routes/parlay.ts';
import uiRoutes from './http/routes/ui.ts';
import { disableViewerClient, ensureViewerClient } from './http/ui-viewer.ts';
import { ExchangeRuntime } from './runtime/exchange-runtime.ts';
import { openStore } from './store/index.ts';
import { type Store, WriterLockError } from './store/types.ts';

export interface RunningServer {
  config: Config;
  app: FastifyInstance;
  legacyApp: FastifyInstance | undefined;
  runtime: ExchangeRuntime;
  auth: AuthService;
  store: Store;
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Print the start banner to stdout (npm start); tests keep it quiet. */
  banner?: boolean;
  /** Install SIGINT/SIGTERM handlers and exit on a fatal journal error. */
  signals?: boolean;
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const config = loadConfig(opts.env ?? process.env);
  const logOpts = loggerOptions(config.logLevel);
  const log = logOpts === false ? pino({ level: 'silent' }) : pino(logOpts as pino.LoggerOptions);
  const metrics = new Metrics();

  const store = await openStore(config);
  // One writer per store (DESIGN.md §1 principle 7): refuse to start beside a live one.
  let releaseLock: () => Promise<void>;
  try {
    releaseLock = (await store.acquireWriterLock?.()) ?? (async () => {});
  } catch (err) {
    await store.close();
    throw err;
  }
  const applied = await store.migrate();
  if (applied.length > 0) log.info({ applied }, 'migrations applied');

  const runtime = await ExchangeRuntime.open({ config, store, log, metrics });
  log.info(runtime.recovery, 'exchange state recovered');

  const auth = await AuthService.create({ config, store, metrics, log, accounts: runtime.accounts });
  const admin = await auth.ensureAdminClient();
  // The browser UI's read-only market-data client (docs/ui.md).
  const viewer = config.ui ? await ensureViewerClient(auth, log) : await disableViewerClient(auth);

  if (config.demo && runtime.empty) {
    log.info({ seed: config.demoSeed }, 'empty store: creating the demo slate');
    const n = await runtime.seedDemo((done, total) => {
      if (done === total || done % 10_000 === 0) log.info({ done, total }, 'demo slate');
    });
    log.info({ commands: n }, 'demo slate ready');
  }

  const app = await buildApp({
    config,
    store,
    metrics,
    logger: log,
    ready: () => !runtime.sequencer.stopped,
    features: async (a) => {
      await registerAuthHttp(a, auth);
      await a.register(exchangeApi, { port: runtime });
      await a.register(parlayRoutes, { reader: () => runtime.reader(), config });
      if (config.ui) await a.register(uiRoutes, { viewer: () => viewer ?? undefined, log });
    },
  });
  await app.listen({ port: config.port, host: config.host });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  let legacyApp: FastifyInstance | undefined;
  if (config.legacyAuthPort !== undefined) {
    legacyApp = await buildLegacyAuthApp({ config, auth });
    await legacyApp.listen({ port: config.legacyAuthPort, host: config.host });
  }

  runtime.startTimers();

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await app.close();
      if (legacyApp) await legacyApp.close();
      await runtime.close();
      await auth.close();
      await releaseLock();
      await store.close();
    })();
    return closing;
  };

  if (opts.signals) {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        log.info({ signal: sig }, 'shutting down');
        close().then(
          () => process.exit(0),
          (err) => {
            log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
    runtime.on('fatal', () => {
      // Memory is ahead of the journal: stop now; the restart recovers from the journal.
      process.exit(70);
    });
  }

  if (opts.banner) printBanner(config, url, admin.credentialsFile, config.legacyAuthPort);
  return { config, app, legacyApp, runtime, auth, store, url, close };
}

function printBanner(
  config: Config,
  url: string,
  credentialsFile: string | undefined,
  legacyPort?: number,
): void {
  const creds = credentialsFile ?? `${config.dataDir}/admin-credentials.json`;
  const lines = [
    '',
    `Tickbook listening on ${url}  (public base URL ${config.publicBaseUrl}, env ${config.env})`,
    legacyPort !== undefined ? `Legacy token host on port ${legacyPort} (/oauth/token)` : '',
    `Store: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${config.dataDir}/pg`}`,
    `API reference: ${url}/docs   OpenAPI: ${url}/openapi.json`,
    '',
    'Get a token:',
    config.adminClientId
      ? '  the operator client is TICKBOOK_ADMIN_CLIENT_ID / TICKBOOK_ADMIN_CLIENT_SECRET'
      : `  operator credentials are in ${creds} (mode 0600)`,
    `  create a trader client:   npx tickbook clients create --name my-bot${config.port === 8080 && config.host === '127.0.0.1' ? '' : ` --url ${url}`}`,
    `  then:  curl -s ${url}/nbx/v1/auth/emm-token -H 'content-type: application/json' \\`,
    `           -d '{"grant_type":"client_credentials","client_id":"<CLIENT_ID>","client_secret":"<CLIENT_SECRET>"}'`,
    `  and:   curl -s ${url}/nbx/v2/emm/events?limit=2 -H "authorization: Bearer <ACCESS_TOKEN>"`,
    '',
  ];
  process.stdout.write(lines.filter((l, i) => l !== '' || i === 0 || lines[i - 1] !== '').join('\n') + '\n');
}

// `npm start` runs this file directly.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  startServer({ banner: true, signals: true }).catch((err: unknown) => {
    if (err instanceof ConfigError || err instanceof WriterLockError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(
      `tickbook failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  });
}
