// The embedded host: one process on the embedded store (PGlite, the journal in segment files),
// always the writer. It holds the store's writer lock from before the migrations to the end.

import type { AuthService } from '../auth/service.ts';
import { openJournal } from '../journal/open-journal.ts';
import { ExchangeRuntime } from '../runtime/exchange-runtime.ts';
import { attachOperatorMetrics } from '../runtime/operator-metrics.ts';
import type { Store } from '../store/types.ts';
import { sqlDeadmanPersistence } from '../stream/deadman.ts';
import { createStream, runtimeSource, type Stream } from '../stream/service.ts';
import type { Host, HostClients, HostDeps, HostKind, StreamOptions } from './host.ts';
import { restoreCountdowns, setUpViewer } from './writer.ts';

export function embeddedHost(store: Store): HostKind {
  return {
    claim: async () => (await store.acquireWriterLock?.()) ?? (async () => {}),
    open: (deps) => EmbeddedHost.open(store, deps),
  };
}

export class EmbeddedHost implements Host {
  private constructor(
    private readonly store: Store,
    private readonly rt: ExchangeRuntime,
    private readonly deps: HostDeps,
  ) {}

  static async open(store: Store, deps: HostDeps): Promise<EmbeddedHost> {
    const { config, log, metrics } = deps;
    const journal = await openJournal(config, store);
    const rt = await deps.phase('recovering the exchange state (snapshot + journal)', () =>
      ExchangeRuntime.open({ config, store, log, metrics, journal }),
    );
    log.info(rt.recovery, 'exchange state recovered');
    attachOperatorMetrics(metrics.registry, rt);
    return new EmbeddedHost(store, rt, deps);
  }

  get exchange(): ExchangeRuntime {
    return this.rt;
  }

  get accounts() {
    return this.rt.accounts;
  }

  get clock(): () => number {
    return this.rt.clock;
  }

  role() {
    return 'embedded' as const;
  }

  leaderUrl(): undefined {
    return undefined;
  }

  leads(): boolean {
    return true;
  }

  ready(): boolean {
    return !this.rt.sequencer.stopped;
  }

  runtime(): ExchangeRuntime {
    return this.rt;
  }

  async clients(auth: AuthService): Promise<HostClients> {
    const admin = await auth.ensureAdminClient();
    const viewer = await setUpViewer(auth, this.deps);
    return { admin, viewer: () => viewer };
  }

  async openStream(options: StreamOptions): Promise<Stream> {
    const source = runtimeSource(this.rt);
    const stream = createStream(source, source, { ...options, persist: sqlDeadmanPersistence(this.store) });
    await restoreCountdowns(stream, this.deps.log, 'dead-man switch countdowns restored');
    return stream;
  }

  hooks(): void {}

  async routes(): Promise<void> {}

  readonly pruneJournal = async (): Promise<number> => (await this.rt.pruneJournal()).segments;

  start(): void {
    this.rt.startTimers();
  }

  onFatal(listener: (err: unknown) => void): void {
    this.rt.on('fatal', listener);
  }

  close(): Promise<void> {
    return this.rt.close();
  }
}
