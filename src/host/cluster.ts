// The cluster host: one process of a PostgreSQL deployment (docs/cluster.md), leader or replica,
// changing role at a failover. Its exchange is the ClusterNode (reads from the state it holds,
// commands through the leader's sequencer); its stream follows the node's state feed across
// promotions; it forwards writes to the leader and serves the peers' cluster routes.

import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../auth/service.ts';
import { AuthSync } from '../cluster/auth-sync.ts';
import { ClusterNode } from '../cluster/node.ts';
import { cancelOnDisconnectAtLeader, clusterRoutes, registerClusterHooks } from '../http/plugins/cluster.ts';
import { relayTradeUpgrades } from '../http/plugins/cluster-upgrade.ts';
import { publishViewer, readPublishedViewer, type ViewerCredentials } from '../http/ui-viewer.ts';
import type { ExchangeRuntime } from '../runtime/exchange-runtime.ts';
import type { ClusterStore } from '../store/types.ts';
import { sqlDeadmanPersistence } from '../stream/deadman.ts';
import { createStream, nodeSource, type Stream } from '../stream/service.ts';
import type { Host, HostClients, HostDeps, HostKind, HostRole, StreamOptions } from './host.ts';
import { restoreCountdowns, setUpViewer } from './writer.ts';

/** How often a process re-reads the viewer credentials the leader published. */
const VIEWER_POLL_MS = 1000;
/** How often a process re-reads the clients and revocations other processes wrote. */
const AUTH_SYNC_MS = 250;

export function clusterHost(store: ClusterStore): HostKind {
  return {
    // The writer lock is contended for by the node, which leads or follows (docs/cluster.md).
    claim: async () => async () => {},
    open: (deps) => ClusterHost.open(store, deps),
  };
}

export class ClusterHost implements Host {
  private authSync: AuthSync | undefined;
  private viewerPoll: NodeJS.Timeout | undefined;

  private constructor(
    private readonly store: ClusterStore,
    readonly node: ClusterNode,
    private readonly deps: HostDeps,
  ) {}

  static async open(store: ClusterStore, deps: HostDeps): Promise<ClusterHost> {
    const { config, log, metrics } = deps;
    const node = await ClusterNode.open({ config, store, log, metrics });
    log.info({ ...node.recovery, mode: node.mode, node: config.nodeName }, 'exchange state recovered');
    return new ClusterHost(store, node, deps);
  }

  get exchange(): ClusterNode {
    return this.node;
  }

  get accounts() {
    return this.node.accounts;
  }

  get clock(): () => number {
    return this.node.clock;
  }

  role(): HostRole {
    return this.leads() ? 'leader' : 'replica';
  }

  leaderUrl(): string | undefined {
    return this.leads() ? undefined : this.node.leaderUrl;
  }

  leads(): boolean {
    return this.node.mode === 'leader';
  }

  ready(): boolean {
    return this.node.ready();
  }

  runtime(): ExchangeRuntime | undefined {
    return this.node.leaderRuntime;
  }

  /**
   * The leader sets up the operator and viewer clients and publishes the viewer credentials in
   * the store; every process serves the published ones, re-read every second, and follows the
   * clients the others write (docs/cluster.md "The browser UI on every process").
   */
  async clients(auth: AuthService): Promise<HostClients> {
    const { config, log } = this.deps;
    this.authSync = new AuthSync(this.store, auth, log);
    let viewer: ViewerCredentials | undefined;
    let admin: HostClients['admin'] = { clientId: config.adminClientId ?? '' };
    if (this.leads()) {
      admin = await auth.ensureAdminClient();
      viewer = await setUpViewer(auth, this.deps);
      await publishViewer(this.store, viewer);
    } else if (config.ui) viewer = await readPublishedViewer(this.store);
    if (config.ui) {
      this.viewerPoll = setInterval(() => {
        readPublishedViewer(this.store).then(
          (v) => {
            viewer = v;
          },
          () => {}, // the store is away: keep serving the last one
        );
      }, VIEWER_POLL_MS);
      this.viewerPoll.unref();
    }
    return { admin, viewer: () => viewer };
  }

  /**
   * The stream fed by the node's state feed, which is the replica's apply loop or the leader's
   * sequencer and moves at a promotion without a gap, so every process serves /tape and keeps its
   * clients across failovers. Dead-man countdowns run on the leader only: re-armed from the store
   * at every promotion (one that fell due meanwhile fires at once), dropped from memory — not
   * from the store — when this process stops leading; a replica's cancel-on-disconnect is fired
   * by the leader.
   */
  async openStream(options: StreamOptions): Promise<Stream> {
    const { node } = this;
    const { config, log } = this.deps;
    const source = nodeSource(node);
    const stream = createStream(source, source, {
      ...options,
      persist: sqlDeadmanPersistence(this.store),
      remote: (accountId) =>
        node.mode === 'leader' ? undefined : cancelOnDisconnectAtLeader(node, config, accountId),
    });
    node.on('leader', () => {
      restoreCountdowns(stream, log, 'dead-man switch countdowns restored at promotion').catch(
        (err: unknown) => log.error({ err }, 'could not restore the dead-man countdowns'),
      );
    });
    node.on('down', () => stream.deadman.close());
    if (this.leads()) await restoreCountdowns(stream, log, 'dead-man switch countdowns restored');
    return stream;
  }

  /** A replica forwards writes to the leader (docs/cluster.md "Writes go to the leader"). */
  hooks(app: FastifyInstance): void {
    registerClusterHooks(app, this.node, this.deps.config);
  }

  /** The peers' cluster routes, and a replica relaying `/trade` connections to the leader. */
  async routes(app: FastifyInstance, stream: Stream): Promise<void> {
    relayTradeUpgrades(app, this.node, this.deps.config);
    await app.register(clusterRoutes, {
      node: this.node,
      config: this.deps.config,
      cancelOnDisconnect: (accountId) => stream.deadman.fire(accountId, 'disconnect'),
    });
  }

  start(url: string): void {
    this.node.start(url);
    this.authSync?.start(AUTH_SYNC_MS);
  }

  /** A cluster process steps down instead (docs/cluster.md "When PostgreSQL goes away"). */
  onFatal(): void {}

  async close(): Promise<void> {
    if (this.viewerPoll !== undefined) clearInterval(this.viewerPoll);
    this.authSync?.stop();
    await this.node.close();
  }
}
