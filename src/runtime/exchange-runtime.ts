// The running exchange: the state machine, the sequencer that journals it, the SQL history read
// model, the scheduler that turns time into commands and, on demo installs, the demo slate and
// the living demo. It is the ExchangePort the HTTP edge talks to and the AccountsPort the token
// server uses to open accounts for new clients.

import { EventEmitter } from 'node:events';
import { createLiveState, type LiveState, liveStep } from '../catalog/demo/live.ts';
import { quoteSlate } from '../catalog/demo/market-maker.ts';
import { buildDemoSlate } from '../catalog/demo/slate.ts';
import { rngFor } from '../catalog/rng.ts';
import type { Config } from '../config.ts';
import { Exchange } from '../exchange/exchange.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { Command, CommandResult, Id } from '../exchange/types.ts';
import type { CommandInput, ExchangeHistory, ExchangePort } from '../http/exchange-port.ts';
import type { Metrics } from '../http/metrics.ts';
import { recover } from '../journal/recover.ts';
import { Sequencer } from '../journal/sequencer.ts';
import type { Store } from '../store/types.ts';
import { HistoryBatch, SqlHistory, writeHistory } from './history.ts';
import { uuidv7 } from './ids.ts';
import { dueCommands, type ScheduleOptions } from './scheduler.ts';

export interface RuntimeLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RuntimeDeps {
  config: Config;
  store: Store;
  log: RuntimeLog;
  metrics?: Metrics;
  /** Wall clock (ms). Tests pass a controllable one. */
  clock?: () => number;
}

export interface RecoveryReport {
  lastSeq: number;
  replayed: number;
  snapshotLoadMs: number;
  replayMs: number;
}

const SCHEDULER_TICK_MS = 250;
const DEMO_TICK_MS = 1000;
/** Demo seeding goes through the sequencer in chunks, so each commit stays a reasonable size. */
const SEED_CHUNK = 2000;

/**
 * Emits 'fatal' (error) when the sequencer stops: memory is then ahead of the journal and the
 * process must restart (docs/decisions.md).
 */
export class ExchangeRuntime extends EventEmitter implements ExchangePort {
  readonly history: ExchangeHistory;
  readonly schedule: ScheduleOptions;
  private readonly timers: NodeJS.Timeout[] = [];
  private live: LiveState | undefined;
  private tickBusy = false;
  private demoBusy = false;
  private closed = false;

  private constructor(
    private readonly deps: RuntimeDeps,
    readonly exchange: Exchange,
    readonly sequencer: Sequencer<Command, CommandResult>,
    readonly recovery: RecoveryReport,
    readonly clock: () => number,
  ) {
    super();
    this.history = new SqlHistory(deps.store, () => this.exchange);
    // With the living demo on, the demo drives its own games' lifecycle (with delays and closes).
    this.schedule = { autoGoLive: deps.config.autoGoLive && !deps.config.demoLive };
    sequencer.on('fatal', (err: unknown) => {
      deps.log.error({ err }, 'sequencer stopped: the journal is the source of truth, restart the process');
      this.emit('fatal', err);
    });
    // A failed snapshot write costs only replay time at the next start (the journal holds every
    // command), so it is logged, not fatal; a failing committed-batch listener is a read-model bug.
    sequencer.on('snapshotError', (err: unknown) => deps.log.warn({ err }, 'snapshot write failed'));
    sequencer.on('listenerError', (err: unknown) =>
      deps.log.error({ err }, 'committed-batch listener failed'),
    );
  }

  /** Recovers the state from the store (snapshot + journal tail) and opens the sequencer. */
  static async open(deps: RuntimeDeps): Promise<ExchangeRuntime> {
    const { config, store } = deps;
    const clock = deps.clock ?? demoClock(config);
    const rec = await recover<Command, CommandResult, Exchange>(store, () => new Exchange(), {
      isAccepted: (r) => r.ok,
    });
    const exchange = rec.machine;
    const sequencer = new Sequencer<Command, CommandResult>(exchange, (r) => r.ok, store, clock, {
      snapshotEvery: config.snapshotEvery,
      gatherMs: config.groupCommitMaxWaitMs,
      lastSeq: rec.lastSeq,
      lastTs: rec.lastTs,
      lastSnapshotSeq: rec.snapshotSeq,
      inTransaction: async (tx, batch) => {
        const h = new HistoryBatch();
        for (let i = 0; i < batch.results.length; i++) {
          const r = batch.results[i]!;
          if (r.ok) h.add(batch.firstSeq + i, r.events);
        }
        if (!h.empty) await writeHistory(tx, h);
      },
    });
    const rt = new ExchangeRuntime(
      deps,
      exchange,
      sequencer,
      {
        lastSeq: rec.lastSeq,
        replayed: rec.replayed,
        snapshotLoadMs: rec.snapshotLoadMs,
        replayMs: rec.replayMs,
      },
      clock,
    );
    const coef = config.feeCoefficient;
    if (Math.abs(exchange.feeCoefficient - coef) > 1e-12) {
      await rt.submit({ type: 'SetFeeCoefficient', coefficient: coef });
    }
    return rt;
  }

  reader(): ExchangeReader {
    return this.exchange;
  }

  newId(): Id {
    return uuidv7(this.clock());
  }

  /** Set by attachOperatorMetrics (operator-metrics.ts): seconds from submit to durable result. */
  onCommitLatency: ((seconds: number) => void) | undefined;

  async submit(cmd: CommandInput): Promise<CommandResult> {
    const t0 = performance.now();
    const r = await this.sequencer.submit(cmd as never);
    this.onCommitLatency?.((performance.now() - t0) / 1000);
    this.count(cmd.type, r.ok);
    return r;
  }

  async submitMany(cmds: CommandInput[]): Promise<CommandResult[]> {
    const t0 = performance.now();
    const rs = await this.sequencer.submitMany(cmds as never[]);
    this.onCommitLatency?.((performance.now() - t0) / 1000);
    for (let i = 0; i < rs.length; i++) this.count(cmds[i]!.type, rs[i]!.ok);
    return rs;
  }

  /** Labelled counter children, resolved once per (type, outcome): this runs for every order. */
  private readonly counters = new Map<string, { inc(): void }>();

  private count(type: string, ok: boolean): void {
    const m = this.deps.metrics;
    if (m === undefined) return;
    const key = ok ? type : `${type}!`;
    let c = this.counters.get(key);
    if (c === undefined) {
      c = m.commands.labels(type, ok ? 'accepted' : 'rejected');
      this.counters.set(key, c);
    }
    c.inc();
  }

  /** AccountsPort for the token server: every new trader client gets a fresh account. */
  readonly accounts = {
    create: async (): Promise<string> => {
      const accountId = this.newId();
      const r = await this.submit({ type: 'CreateAccount', accountId });
      if (!r.ok) throw new Error(`could not create account: ${r.code} ${r.message}`);
      return accountId;
    },
    exists: (id: string): boolean => this.exchange.hasAccount(id),
  };

  /** True when the catalog holds nothing yet (a fresh store). */
  get empty(): boolean {
    return this.exchange.leagues().length === 0;
  }

  /**
   * The demo slate (issue 3 item 5) and its liquidity (issue 4 item 7), through the sequencer
   * like any operator's commands. Returns the number of commands journaled.
   */
  async seedDemo(onProgress?: (done: number, total: number) => void): Promise<number> {
    const { config } = this.deps;
    const now = this.clock();
    const slate = buildDemoSlate({ seed: config.demoSeed, now });
    const cmds: CommandInput[] = [...slate.commands, ...quoteSlate(slate, config.demoSeed)];
    let accepted = 0;
    for (let i = 0; i < cmds.length; i += SEED_CHUNK) {
      const chunk = cmds.slice(i, i + SEED_CHUNK);
      const rs = await this.submitMany(chunk);
      rs.forEach((r, j) => {
        if (r.ok) accepted++;
        else
          this.deps.log.warn(
            { code: r.code, message: r.message, type: chunk[j]!.type },
            'demo command rejected',
          );
      });
      onProgress?.(Math.min(i + SEED_CHUNK, cmds.length), cmds.length);
    }
    return accepted;
  }

  /** Starts the scheduler and, when configured, the living demo. */
  startTimers(): void {
    const t = setInterval(() => void this.tick(), SCHEDULER_TICK_MS);
    t.unref();
    this.timers.push(t);
    if (this.deps.config.demoLive) {
      this.enableLiveDemo();
      const d = setInterval(() => void this.demoTick(), DEMO_TICK_MS);
      d.unref();
      this.timers.push(d);
    }
  }

  /** Creates the living demo's state; demoTick() then advances it (the timer, or a test). */
  enableLiveDemo(): void {
    this.live ??= createLiveState({ seed: this.deps.config.demoSeed, now: this.clock() });
  }

  /** One scheduler pass: submits whatever is due (GTT/lock expiry, go-live). */
  async tick(): Promise<void> {
    if (this.tickBusy || this.closed || this.sequencer.stopped) return;
    this.tickBusy = true;
    try {
      const due = dueCommands(this.exchange, this.clock(), this.schedule);
      if (due.length > 0) await this.submitMany(due);
    } catch (err) {
      this.deps.log.error({ err }, 'scheduler tick failed');
    } finally {
      this.tickBusy = false;
    }
  }

  /** One step of the living demo (issue 5 item 7). */
  async demoTick(): Promise<void> {
    if (this.demoBusy || this.closed || this.sequencer.stopped || this.live === undefined) return;
    this.demoBusy = true;
    try {
      const now = this.clock();
      const cmds = liveStep(this.exchange, this.live, now, rngFor(this.live.seed, 'live', this.live.round));
      if (cmds.length > 0) await this.submitMany(cmds);
    } catch (err) {
      this.deps.log.error({ err }, 'living demo step failed');
    } finally {
      this.demoBusy = false;
    }
  }

  /** Stops timers, waits for pending commits and writes a final snapshot. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await this.sequencer.close();
  }
}

/**
 * The wall clock, or with the living demo at DEMO_SPEED ≠ 1 an accelerated one: simulated time
 * runs `speed` times faster from the moment the server starts. Every ts the sequencer stamps comes
 * from it, so games, GTT expiries and locks all move at the same pace and replay stays exact (the
 * journal holds the simulated times; the sequencer never lets ts run backwards across restarts).
 */
export function demoClock(
  config: Pick<Config, 'demoLive' | 'demoSpeed'>,
  now: () => number = Date.now,
): () => number {
  if (!config.demoLive || config.demoSpeed === 1) return now;
  const start = now();
  const speed = config.demoSpeed;
  return () => Math.floor(start + (now() - start) * speed);
}
