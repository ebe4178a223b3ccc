// The server entry: configuration, store, exchange runtime (recovery), token server, HTTP app,
// optional legacy auth listener, timers, and a clean shutdown on SIGINT/SIGTERM (final snapshot).
// Thin on purpose (DESIGN.md §10): everything it starts is built and tested elsewhere.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { AuthService } from './auth/service.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { Metrics } from './http/metrics.ts';
import exchangeApi from './http/routes/exchange-api.ts';
import { buildLegacyAuthApp, registerAuthHttp } from './http/routes/oauth.ts';
import parlayRoutes from './http/routes/parlay.ts';
import { ExchangeRuntime } from './runtime/exchange-runtime.ts';
import { attachOperatorMetrics } from './runtime/operator-metrics.ts';
import { bannerLines, renderBanner } from './start/banner.ts';
import { createLogger } from './start/log-output.ts';
import { phase } from './start/progress.ts';
import { databaseStartError, listenStartError, StartError } from './start/start-error.ts';
import { openStore } from './store/index.ts';
import { PgliteStore } from './store/pglite-store.ts';
import { Retention } from './store/retention.ts';
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
  const log = createLogger(config);
  const metrics = new Metrics();

  const store = await phase(log, storeOpening(config), () =>
    openStore(config).catch((err: unknown) => {
      throw config.databaseUrl === undefined ? err : databaseStartError(err, config.databaseUrl);
    }),
  );
  // One writer per store (DESIGN.md §1 principle 7): refuse to start beside a live one.
  let releaseLock: () => Promise<void>;
  try {
    releaseLock = (await store.acquireWriterLock?.()) ?? (async () => {});
  } catch (err) {
    await store.close();
    throw err;
  }
  const applied = await phase(log, 'applying store migrations', () => store.migrate());
  if (applied.length > 0) log.info({ applied }, 'migrations applied');

  const runtime = await phase(log, 'recovering the exchange state (snapshot + journal)', () =>
    ExchangeRuntime.open({ config, store, log, metrics }),
  );
  log.info(runtime.recovery, 'exchange state recovered');
  attachOperatorMetrics(metrics.registry, runtime);

  const auth = await AuthService.create({ config, store, metrics, log, accounts: runtime.accounts });
  const admin = await auth.ensureAdminClient();

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
    },
  });
  await app.listen({ port: config.port, host: config.host }).catch((err: unknown) => {
    throw listenStartError(err, config.host, config.port) ?? err;
  });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  let legacyApp: FastifyInstance | undefined;
  if (config.legacyAuthPort !== undefined) {
    legacyApp = await buildLegacyAuthApp({ config, auth });
    const legacyPort = config.legacyAuthPort;
    await legacyApp.listen({ port: legacyPort, host: config.host }).catch((err: unknown) => {
      const e = listenStartError(err, config.host, legacyPort);
      throw e?.variable === 'PORT'
        ? new StartError('LEGACY_AUTH_PORT', e.message.replace(/^.*?PORT: /, ''), e.exitCode)
        : (e ?? err);
    });
  }

  runtime.startTimers();
  const retention = new Retention(store, {
    pruneJournal: config.journalRetention === 'snapshot',
    canceledOrderMaxAgeMs: config.canceledOrderRetentionSeconds * 1000,
    vacuumAndCheckpoint: store.kind === 'pglite',
  });
  if (config.retentionIntervalSeconds > 0) retention.start(config.retentionIntervalSeconds * 1000, log);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await app.close();
      if (legacyApp) await legacyApp.close();
      await retention.stop();
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

  if (opts.banner) {
    const lines = bannerLines({
      config,
      url,
      credentialsFile: resolve(admin.credentialsFile ?? config.adminCredentialsFile),
      legacyPort: config.legacyAuthPort,
      demoRunning: config.demo,
    });
    process.stdout.write(`${renderBanner(lines, process.stdout.isTTY === true)}\n`);
  }
  return { config, app, legacyApp, runtime, auth, store, url, close };
}

/** What opening the store is called in the progress lines: a first embedded start runs initdb. */
function storeOpening(config: Config): string {
  if (config.databaseUrl !== undefined) return 'connecting to PostgreSQL (DATABASE_URL)';
  const dir = `${config.dataDir}/pg`;
  return PgliteStore.exists(dir)
    ? `opening the embedded database in ${dir}`
    : `creating the embedded database in ${dir} (first start: up to a minute)`;
}

// `npm start` runs this file directly.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  startServer({ banner: true, signals: true }).catch((err: unknown) => {
    if (err instanceof ConfigError || err instanceof WriterLockError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof StartError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(err.exitCode);
    }
    process.stderr.write(
      `tickbook failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  });
}
