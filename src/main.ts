// The server entry: configuration, store, exchange runtime (recovery), token server, HTTP app,
// optional legacy auth listener, timers, and a clean shutdown on SIGINT/SIGTERM (final snapshot).
// Thin on purpose: everything it starts is built and tested elsewhere.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { recordServerUrl } from './auth/admin-bootstrap.ts';
import { settleIssuer, withIssuer } from './auth/issuer.ts';
import { AuthService } from './auth/service.ts';
import { AuthSync } from './cluster/auth-sync.ts';
import { ClusterNode } from './cluster/node.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { demoAccounts } from './demo/market-maker.ts';
import {
  disableViewerClient,
  ensureViewerClient,
  publishViewer,
  readPublishedViewer,
  type ViewerCredentials,
} from './http/ui-viewer.ts';
import { openJournal } from './journal/open-journal.ts';
import { Metrics } from './observability/metrics.ts';
import type { ExchangePort } from './runtime/exchange-port.ts';
import { ExchangeRuntime } from './runtime/exchange-runtime.ts';
import { attachOperatorMetrics } from './runtime/operator-metrics.ts';
import { type BannerInput, writeBanner } from './start/banner.ts';
import { createLogger, usePrettyLogs } from './start/log-output.ts';
import { phase } from './start/progress.ts';
import { databaseStartError, listenStartError, StartError } from './start/start-error.ts';
import { openStore } from './store/index.ts';
import { PgliteStore } from './store/pglite-store.ts';
import { PostgresStore } from './store/postgres-store.ts';
import { Retention } from './store/retention.ts';
import { type Store, WriterLockError } from './store/types.ts';
import { sqlDeadmanPersistence } from './stream/deadman.ts';
import { createStream, nodeSource, runtimeSource, type Stream } from './stream/service.ts';

export interface RunningServer {
  config: Config;
  app: FastifyInstance;
  legacyApp: FastifyInstance | undefined;
  runtime: ExchangeRuntime;
  /** The /tape stream (every process, leader or replica: docs/cluster.md "Streams"). */
  stream: Stream;
  auth: AuthService;
  store: Store;
  /** PostgreSQL: this process's scale-out role and state (docs/cluster.md). */
  node?: ClusterNode;
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
  const [app, identify, cluster, exchangeApi, graphql, oauth, parlay, tape, ui] = await Promise.all([
    import('./app.ts'),
    import('./http/graphql/identify.ts'),
    import('./http/plugins/cluster.ts'),
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
    ...cluster,
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
  // PostgreSQL scales out (docs/cluster.md): the writer lock is contended for by ClusterNode,
  // which leads or follows. The embedded store is one process's: one writer, as before.
  const clustered = store instanceof PostgresStore;
  // One writer per store (principle 7 of docs/architecture.md "Principles"): refuse to start beside a live one.
  let releaseLock: () => Promise<void> = async () => {};
  try {
    if (!clustered) releaseLock = (await store.acquireWriterLock?.()) ?? releaseLock;
  } catch (err) {
    await store.close();
    throw err;
  }
  const applied = await phase(log, 'applying store migrations', () => store.migrate());
  if (applied.length > 0) log.info({ applied }, 'migrations applied');
  // One issuer per store (docs/cluster.md "One issuer per store"): from here on the configuration
  // carries the store's issuer as its public base URL.
  let config: Config;
  try {
    config = withIssuer(loaded, await settleIssuer(store, loaded));
  } catch (err) {
    await releaseLock();
    await store.close();
    throw err;
  }
  if (config.publicBaseUrl !== loaded.publicBaseUrl) {
    log.info({ issuer: config.publicBaseUrl }, 'token issuer: the one this store records');
  }

  let node: ClusterNode | undefined;
  let embedded: ExchangeRuntime | undefined;
  if (store instanceof PostgresStore) {
    try {
      node = await ClusterNode.open({ config, store, log, metrics });
    } catch (err) {
      await store.close();
      throw err;
    }
    log.info({ ...node.recovery, mode: node.mode, node: config.nodeName }, 'exchange state recovered');
  } else {
    const journal = await openJournal(config, store);
    embedded = await phase(log, 'recovering the exchange state (snapshot + journal)', () =>
      ExchangeRuntime.open({ config, store, log, metrics, journal }),
    );
    log.info(embedded.recovery, 'exchange state recovered');
    attachOperatorMetrics(metrics.registry, embedded);
  }
  const exchangePort: ExchangePort & { accounts: ExchangeRuntime['accounts'] } = node ?? embedded!;
  const leads = () => node === undefined || node.mode === 'leader';
  const currentRuntime = (): ExchangeRuntime => {
    const rt = node === undefined ? embedded : node.leaderRuntime;
    if (rt === undefined) throw new Error('this process is a replica: it has no sequencer (docs/cluster.md)');
    return rt;
  };

  const auth = await AuthService.create({ config, store, metrics, log, accounts: exchangePort.accounts });
  // Replicas leave the operator client to the leader (it writes to the store).
  const admin = leads() ? await auth.ensureAdminClient() : { clientId: config.adminClientId ?? '' };
  const authSync = node === undefined ? undefined : new AuthSync(store, auth, log);
  // The browser UI's read-only market-data client (docs/ui.md). The writer sets it up; on
  // PostgreSQL it publishes the credentials in the store and every process serves the published
  // ones, re-read every second (docs/cluster.md "The browser UI on every process").
  let viewer: ViewerCredentials | undefined;
  if (leads()) {
    if (config.ui) viewer = await ensureViewerClient(auth, log);
    else await disableViewerClient(auth);
    if (node !== undefined) await publishViewer(store, viewer);
  } else if (config.ui) viewer = await readPublishedViewer(store);
  const viewerPoll =
    node !== undefined && config.ui
      ? setInterval(() => {
          readPublishedViewer(store).then(
            (v) => {
              viewer = v;
            },
            () => {}, // the store is away: keep serving the last one
          );
        }, 1000)
      : undefined;
  viewerPoll?.unref();

  if (config.demo && leads() && currentRuntime().empty) {
    const runtime = currentRuntime();
    log.info({ seed: config.demoSeed }, 'empty store: creating the demo slate');
    const n = await runtime.seedDemo((done, total) => {
      if (done === total || done % 10_000 === 0) log.info({ done, total }, 'demo slate');
    });
    log.info({ commands: n }, 'demo slate ready');
  }

  const {
    buildApp,
    bearerClientId,
    cancelOnDisconnectAtLeader,
    clusterRoutes,
    registerClusterHooks,
    buildLegacyAuthApp,
    registerAuthHttp,
    exchangeApi,
    graphqlRoutes,
    parlayRoutes,
    tapeRoutes,
    uiRoutes,
  } = await httpModules;

  // The stream: on the embedded store fed by the runtime; on PostgreSQL by the node's state feed,
  // which is the replica's apply loop or the leader's sequencer and moves at a promotion without
  // a gap, so every process serves /tape and keeps its clients across failovers (docs/cluster.md).
  const streamOptions = {
    heartbeatMs: config.streamHeartbeatMs,
    maxBufferBytes: config.streamMaxBufferBytes,
    retainBytes: config.streamRetainBytes,
    persist: sqlDeadmanPersistence(store),
  };
  let stream: Stream;
  if (node !== undefined) {
    const n = node;
    const source = nodeSource(n);
    stream = createStream(source, source, {
      ...streamOptions,
      // A replica's cancel-on-disconnect is fired by the leader.
      remote: (accountId) =>
        n.mode === 'leader' ? undefined : cancelOnDisconnectAtLeader(n, config, accountId),
    });
    // Dead-man countdowns run on the leader only: re-armed from the store at every promotion (one
    // that fell due meanwhile fires at once), dropped from memory — not from the store — when this
    // process stops leading.
    n.on('leader', () => {
      stream.deadman.restore().then(
        (k) => {
          if (k > 0) log.info({ rearmed: k }, 'dead-man switch countdowns restored at promotion');
        },
        (err: unknown) => log.error({ err }, 'could not restore the dead-man countdowns'),
      );
    });
    n.on('down', () => stream.deadman.close());
  } else {
    const rt = runtimeSource(embedded!);
    stream = createStream(rt, rt, streamOptions);
  }
  // Dead-man countdowns armed before a restart: re-armed, or fired now if they fell due meanwhile.
  const rearmed = leads() ? await stream.deadman.restore() : 0;
  if (rearmed > 0) log.info({ rearmed }, 'dead-man switch countdowns restored');
  const app = await buildApp({
    config,
    store,
    metrics,
    logger: log,
    // A person at a terminal reads start-up, lifecycle and errors, not a line per request.
    accessLog: usePrettyLogs(config.logFormat, process.stdout.isTTY) ? 'errors-and-slow' : 'every',
    ready: () => (node === undefined ? !embedded!.sequencer.stopped : node.ready()),
    features: async (a) => {
      if (node !== undefined) registerClusterHooks(a, node, config);
      await registerAuthHttp(a, auth);
      await a.register(exchangeApi, { port: exchangePort, auth, config });
      await a.register(parlayRoutes, { reader: () => exchangePort.reader(), config });
      await a.register(graphqlRoutes, {
        reader: () => exchangePort.reader(),
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
      if (node !== undefined) {
        await a.register(clusterRoutes, {
          node,
          config,
          cancelOnDisconnect: (accountId) => stream.deadman.fire(accountId, 'disconnect'),
        });
      }
      if (config.ui) await a.register(uiRoutes, { viewer: () => viewer, log });
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
    if (node !== undefined) registerClusterHooks(legacyApp, node, config);
    const legacyPort = config.legacyAuthPort;
    await legacyApp.listen({ port: legacyPort, host: config.host }).catch((err: unknown) => {
      const e = listenStartError(err, config.host, legacyPort);
      throw e?.variable === 'PORT'
        ? new StartError('LEGACY_AUTH_PORT', e.message.replace(/^.*?PORT: /, ''), e.exitCode)
        : (e ?? err);
    });
  }

  if (node !== undefined) node.start(url);
  else embedded!.startTimers();
  authSync?.start(250);
  const retention = new Retention(store, {
    pruneJournal: config.journalRetention === 'snapshot',
    // The embedded journal is segment files: retention deletes those a durable snapshot covers.
    ...(embedded !== undefined
      ? { pruneJournalWith: async () => (await embedded!.pruneJournal()).segments }
      : {}),
    canceledOrderMaxAgeMs: config.canceledOrderRetentionSeconds * 1000,
    vacuumAndCheckpoint: store.kind === 'pglite',
  });
  if (config.retentionIntervalSeconds > 0) retention.start(config.retentionIntervalSeconds * 1000, log);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      if (viewerPoll !== undefined) clearInterval(viewerPoll);
      await app.close();
      if (legacyApp) await legacyApp.close();
      await retention.stop();
      authSync?.stop();
      if (node !== undefined) await node.close();
      else await embedded!.close();
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
    embedded?.on('fatal', () => {
      // Memory is ahead of the journal: stop now; the restart recovers from the journal.
      process.exit(70);
    });
  }

  // The operator credentials file names the address this process listens on: the CLI finds the
  // server there when neither --url nor PORT/HOST says (src/cli/admin-api.ts).
  const credentialsFile = resolve(
    ('credentialsFile' in admin ? admin.credentialsFile : undefined) ?? config.adminCredentialsFile,
  );
  if (config.adminClientId === undefined) recordServerUrl(credentialsFile, url, log);

  if (opts.banner) {
    const banner: BannerInput = {
      config,
      url,
      credentialsFile,
      legacyPort: config.legacyAuthPort,
      role: node === undefined ? 'embedded' : node.mode === 'leader' ? 'leader' : 'replica',
      ...(node?.leaderUrl !== undefined && node.mode !== 'leader' ? { leaderUrl: node.leaderUrl } : {}),
      demo: {
        slate: exchangePort.accounts.exists(demoAccounts(config.demoSeed).marketMaker),
        living: leads() && config.demoLive,
      },
    };
    writeBanner(banner, log, config.logFormat);
  }
  return {
    config,
    app,
    legacyApp,
    get runtime() {
      return currentRuntime();
    },
    stream,
    auth,
    store,
    node,
    url,
    close,
  };
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
