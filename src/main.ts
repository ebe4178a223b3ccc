// The server entry: configuration, store, the host that runs the exchange on it (embedded, or a
// PostgreSQL cluster process: src/host/), token server, demo driver, HTTP app, optional legacy
// auth listener, and a clean shutdown on SIGINT/SIGTERM (final snapshot). Thin on purpose:
// everything it starts is built and tested elsewhere; it composes, the hosts hold what differs.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { recordServerUrl } from './auth/admin-bootstrap.ts';
import { settleIssuer, withIssuer } from './auth/issuer.ts';
import { AuthService } from './auth/service.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { DemoDriver } from './demo/driver.ts';
import { demoAccounts, withDemoHouse } from './demo/market-maker.ts';
import { clusterHost } from './host/cluster.ts';
import { embeddedHost } from './host/embedded.ts';
import type { Host } from './host/host.ts';
import { Metrics } from './observability/metrics.ts';
import type { ExchangeRuntime } from './runtime/exchange-runtime.ts';
import { type BannerInput, writeBanner } from './start/banner.ts';
import { createLogger, usePrettyLogs } from './start/log-output.ts';
import { phase } from './start/progress.ts';
import { databaseStartError, listenStartError, StartError } from './start/start-error.ts';
import { openStore } from './store/index.ts';
import { PgliteStore } from './store/pglite-store.ts';
import { TEMPLATE_FILE } from './store/pglite-template.ts';
import { PostgresStore } from './store/postgres-store.ts';
import { Retention } from './store/retention.ts';
import { type Store, WriterLockError } from './store/types.ts';
import type { Stream } from './stream/service.ts';

export interface RunningServer {
  config: Config;
  app: FastifyInstance;
  legacyApp: FastifyInstance | undefined;
  runtime: ExchangeRuntime;
  /** The /tape stream (every process, leader or replica: docs/cluster.md "Streams"). */
  stream: Stream;
  auth: AuthService;
  store: Store;
  /** The process's host: embedded, or a PostgreSQL cluster process (docs/architecture.md "Hosts"). */
  host: Host;
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

/**
 * The HTTP side: fastify and its plugins, mercurius and graphql, the route modules. Loading them
 * is about a second of CPU, so startServer starts it before opening the store and awaits it only
 * when it builds the app: the modules load while PGlite compiles its WASM on V8's background
 * threads (docs/packaging.md, "First start and memory").
 */
async function loadHttpModules() {
  const [app, identify, exchangeApi, graphql, oauth, parlay, tape, ui] = await Promise.all([
    import('./app.ts'),
    import('./http/graphql/identify.ts'),
    import('./http/routes/exchange-api.ts'),
    import('./http/routes/graphql.ts'),
    import('./http/routes/oauth.ts'),
    import('./http/routes/parlay.ts'),
    import('./http/routes/tape.ts'),
    import('./http/routes/ui.ts'),
  ]);
  return {
    ...app,
    ...identify,
    ...oauth,
    exchangeApi: exchangeApi.default,
    graphqlRoutes: graphql.default,
    parlayRoutes: parlay.default,
    tapeRoutes: tape.default,
    uiRoutes: ui.default,
  };
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const loaded = loadConfig(opts.env ?? process.env);
  const log = createLogger(loaded);
  const metrics = new Metrics();
  const httpModules = loadHttpModules();
  // Awaited before the app is built; a start that fails earlier must not leave it unhandled.
  httpModules.catch(() => {});

  const store = await phase(log, storeOpening(loaded), () =>
    openStore({ ...loaded, nodeName: loaded.nodeName }).catch((err: unknown) => {
      throw loaded.databaseUrl === undefined ? err : databaseStartError(err, loaded.databaseUrl);
    }),
  );
  // PostgreSQL scales out (docs/cluster.md): a cluster process leads or follows. The embedded
  // store is one process's: one writer (docs/architecture.md "Hosts").
  const kind = store instanceof PostgresStore ? clusterHost(store) : embeddedHost(store);
  let releaseLock: () => Promise<void>;
  try {
    releaseLock = await kind.claim();
  } catch (err) {
    await store.close();
    throw err;
  }
  let config: Config;
  let host: Host;
  try {
    const applied = await phase(log, 'applying store migrations', () => store.migrate());
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    // One issuer per store (docs/cluster.md "One issuer per store"): from here on the
    // configuration carries the store's issuer as its public base URL.
    config = withIssuer(loaded, await settleIssuer(store, loaded));
    // The demo's market maker is the parlay house of a demo install without one named.
    config = withDemoHouse(config);
    if (config.publicBaseUrl !== loaded.publicBaseUrl) {
      log.info({ issuer: config.publicBaseUrl }, 'token issuer: the one this store records');
    }
    host = await kind.open({ config, log, metrics, phase: (what, work) => phase(log, what, work) });
  } catch (err) {
    await releaseLock();
    await store.close();
    throw err;
  }
  const exchange = host.exchange;

  const auth = await AuthService.create({ config, store, metrics, log, accounts: host.accounts });
  const clients = await host.clients(auth, log);
  // The demo is a participant over the exchange port (src/demo/driver.ts): seeded on an empty
  // store, then the living demo stepped while this process writes.
  const demo =
    config.demo || config.demoLive
      ? new DemoDriver({
          exchange,
          clock: host.clock,
          seed: config.demoSeed,
          live: config.demoLive,
          log,
          leads: () => host.leads(),
        })
      : undefined;
  if (config.demo) await demo?.seedIfEmpty();

  const {
    buildApp,
    bearerClientId,
    buildLegacyAuthApp,
    registerAuthHttp,
    exchangeApi,
    graphqlRoutes,
    parlayRoutes,
    tapeRoutes,
    uiRoutes,
  } = await httpModules;

  const stream = await host.openStream({
    heartbeatMs: config.streamHeartbeatMs,
    maxBufferBytes: config.streamMaxBufferBytes,
    retainBytes: config.streamRetainBytes,
  });
  const app = await buildApp({
    config,
    store,
    metrics,
    logger: log,
    // A person at a terminal reads start-up, lifecycle and errors, not a line per request.
    accessLog: usePrettyLogs(config.logFormat, process.stdout.isTTY) ? 'errors-and-slow' : 'every',
    ready: () => host.ready(),
    features: async (a) => {
      host.hooks(a);
      await registerAuthHttp(a, auth);
      await a.register(exchangeApi, { port: exchange, auth, config });
      await a.register(parlayRoutes, { reader: () => exchange.reader(), config });
      await a.register(graphqlRoutes, {
        reader: () => exchange.reader(),
        rateLimit: config.graphqlRateLimit,
        graphiql: config.graphiql,
        identify: bearerClientId(auth),
      });
      await a.register(tapeRoutes, {
        hub: stream.hub,
        deadman: stream.deadman,
        auth,
        metrics,
        pingMs: config.streamPingMs,
        publicBaseUrl: config.publicBaseUrl,
      });
      await host.routes(a, stream);
      if (config.ui) await a.register(uiRoutes, { viewer: clients.viewer, log });
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
    // Token issuance is a write: a replica's legacy listener forwards it to the leader, whose main
    // listener serves the same legacy path (docs/cluster.md "Writes go to the leader").
    host.hooks(legacyApp);
    const legacyPort = config.legacyAuthPort;
    await legacyApp.listen({ port: legacyPort, host: config.host }).catch((err: unknown) => {
      const e = listenStartError(err, config.host, legacyPort);
      throw e?.variable === 'PORT'
        ? new StartError('LEGACY_AUTH_PORT', e.message.replace(/^.*?PORT: /, ''), e.exitCode)
        : (e ?? err);
    });
  }

  host.start(url);
  demo?.start();
  const pruneJournalWith = host.pruneJournal;
  const retention = new Retention(store, {
    pruneJournal: config.journalRetention === 'snapshot',
    // The embedded journal is segment files: retention deletes those a durable snapshot covers.
    ...(pruneJournalWith !== undefined ? { pruneJournalWith } : {}),
    canceledOrderMaxAgeMs: config.canceledOrderRetentionSeconds * 1000,
    vacuumAndCheckpoint: store.kind === 'pglite',
  });
  if (config.retentionIntervalSeconds > 0) retention.start(config.retentionIntervalSeconds * 1000, log);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      demo?.stop();
      await app.close();
      if (legacyApp) await legacyApp.close();
      await retention.stop();
      await host.close();
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
    host.onFatal(() => {
      // Memory is ahead of the journal: stop now; the restart recovers from the journal.
      process.exit(70);
    });
  }

  // The operator credentials file names the address this process listens on: the CLI finds the
  // server there when neither --url nor PORT/HOST says (src/cli/admin-api.ts).
  const credentialsFile = resolve(clients.admin.credentialsFile ?? config.adminCredentialsFile);
  if (config.adminClientId === undefined) recordServerUrl(credentialsFile, url, log);

  if (opts.banner) {
    const leaderUrl = host.leaderUrl();
    const banner: BannerInput = {
      config,
      url,
      credentialsFile,
      legacyPort: config.legacyAuthPort,
      role: host.role(),
      ...(leaderUrl !== undefined ? { leaderUrl } : {}),
      demo: {
        slate: host.accounts.exists(demoAccounts(config.demoSeed).marketMaker),
        living: demo?.living ?? false,
      },
    };
    writeBanner(banner, log, config.logFormat);
  }
  return {
    config,
    app,
    legacyApp,
    get runtime() {
      const rt = host.runtime();
      if (rt === undefined)
        throw new Error('this process is a replica: it has no sequencer (docs/cluster.md)');
      return rt;
    },
    stream,
    auth,
    store,
    host,
    url,
    close,
  };
}

/** What opening the store is called in the progress lines: a first embedded start unpacks the
 * template the build made, or runs initdb when there is none (docs/packaging.md). */
function storeOpening(config: Config): string {
  if (config.databaseUrl !== undefined) return 'connecting to PostgreSQL (DATABASE_URL)';
  const dir = `${config.dataDir}/pg`;
  return PgliteStore.exists(dir)
    ? `opening the embedded database in ${dir}`
    : existsSync(TEMPLATE_FILE)
      ? `creating the embedded database in ${dir} from the build's template (first start)`
      : `creating the embedded database in ${dir} without the build's template (first start: up to a minute)`;
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
