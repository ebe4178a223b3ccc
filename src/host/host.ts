// What the composition root (src/main.ts) needs of the process it runs, whichever store it is on
// (docs/architecture.md "Hosts"): the embedded host (one process, one writer: src/host/embedded.ts)
// or a PostgreSQL cluster process, leader or replica (src/host/cluster.ts). Each supplies the ports
// the edge needs (exchange, accounts, stream source, readiness, shutdown) and the few hooks that
// differ between them, so the composition root composes instead of branching on the kind.

import type { FastifyInstance } from 'fastify';
import type { AdminBootstrap } from '../auth/admin-bootstrap.ts';
import type { AccountsPort } from '../auth/ports.ts';
import type { AuthService } from '../auth/service.ts';
import type { Config } from '../config.ts';
import type { ViewerCredentials } from '../http/ui-viewer.ts';
import type { Log } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { ExchangePort } from '../runtime/exchange-port.ts';
import type { ExchangeRuntime } from '../runtime/exchange-runtime.ts';
import type { createStream, Stream } from '../stream/service.ts';

export type HostRole = 'embedded' | 'leader' | 'replica';

export interface HostDeps {
  config: Config;
  log: Log;
  metrics: Metrics;
  /** Runs a slow start-up step with progress lines (src/start/progress.ts). */
  phase<T>(what: string, work: () => Promise<T>): Promise<T>;
}

/** The stream's options the composition root chooses (the host adds its source and its remote). */
export type StreamOptions = NonNullable<Parameters<typeof createStream>[2]>;

/** The operator client and the browser UI's read-only viewer client (docs/ui.md). */
export interface HostClients {
  admin: AdminBootstrap | { clientId: string; credentialsFile?: undefined };
  /** The viewer credentials to serve now (they may change on PostgreSQL: docs/cluster.md). */
  viewer(): ViewerCredentials | undefined;
}

/** A kind of host, chosen by the composition root from the store it opened. */
export interface HostKind {
  /**
   * Before migrations: the one-writer lock of the embedded store (principle 7 of
   * docs/architecture.md "Principles"). Returns its release; a cluster process contends later.
   */
  claim(): Promise<() => Promise<void>>;
  /** Recovers the exchange state (after migrations and the issuer). */
  open(deps: HostDeps): Promise<Host>;
}

export interface Host {
  /** Reads, commands, ids and history: the HTTP edge's port (and the demo's). */
  readonly exchange: ExchangePort;
  /** The token server's accounts: every new trader client gets one. */
  readonly accounts: AccountsPort;
  /** The clock that stamps commands (accelerated by DEMO_SPEED on the living demo). */
  readonly clock: () => number;
  role(): HostRole;
  /** Where a replica forwards commands, when known (undefined while this process writes). */
  leaderUrl(): string | undefined;
  /** True while this process writes: the embedded one always, a cluster process while leading. */
  leads(): boolean;
  /** /readyz (docs/operations.md). */
  ready(): boolean;
  /** The running exchange while this process writes (tests, operator tooling). */
  runtime(): ExchangeRuntime | undefined;
  /** Sets up (when writing) or reads (when following) the operator and viewer clients. */
  clients(auth: AuthService, log: Log): Promise<HostClients>;
  /** The /tape stream over this host's state, its dead-man countdowns restored. */
  openStream(options: StreamOptions): Promise<Stream>;
  /** Request hooks of this kind of process (a cluster forwards writes), on every listener. */
  hooks(app: FastifyInstance): void;
  /** Routes of this kind of process, registered after the common ones. */
  routes(app: FastifyInstance, stream: Stream): Promise<void>;
  /** Journal retention of this host's journal: segment files deleted (embedded only). */
  readonly pruneJournal?: () => Promise<number>;
  /** Starts timers, following and contending; `url` is where the main listener listens. */
  start(url: string): void;
  /** Calls `listener` when memory is ahead of the journal and the process must restart. */
  onFatal(listener: (err: unknown) => void): void;
  close(): Promise<void>;
}
