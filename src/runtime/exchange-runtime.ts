// The running exchange: the state machine, the sequencer that journals it, the SQL history read
// model and the scheduler that turns time into commands. It is the ExchangePort the HTTP edge (and
// the demo, src/demo/driver.ts) talks to and the AccountsPort the token server uses to open
// accounts for new clients.

import { EventEmitter } from 'node:events';
import type { Config } from '../config.ts';
import { Exchange } from '../exchange/exchange.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { Command, CommandResult, Id } from '../exchange/types.ts';
import { uuidv7 } from '../ids.ts';
import { type JournalBackend, SqlJournal } from '../journal/backend.ts';
import { FileJournal } from '../journal/file-journal.ts';
import type { AppendGuard } from '../journal/journal-store.ts';
import { type RecoveryResult, recover } from '../journal/recover.ts';
import { Sequencer, type Settle } from '../journal/sequencer.ts';
import type { Log } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Store } from '../store/types.ts';
import { type ApplyListener, tapMachine } from './apply-tap.ts';
import { CommandMeter, CountedSettle } from './command-meter.ts';
import { accountsOf, type CommandInput, type ExchangeHistory, type ExchangePort } from './exchange-port.ts';
import { SqlHistory } from './history.ts';
import { HouseDesk } from './house-quote.ts';
import { ParlaySettleLoop } from './parlay-settle-loop.ts';
import { HistoryProjector } from './projector.ts';
import { dueCommands, type ScheduleOptions, scheduleOptions } from './scheduler.ts';
import { snapshotThread } from './snapshot-thread.ts';

export interface RuntimeDeps {
  config: Config;
  store: Store;
  log: Log;
  metrics?: Metrics;
  /** Wall clock (ms). Tests pass a controllable one. */
  clock?: () => number;
  /**
   * Where commands are journaled (openJournal(): segment files on the embedded store); the
   * store's journal table when absent. The runtime closes it on close().
   */
  journal?: JournalBackend;
  /**
   * The condition every journal append must meet (the scale-out leader's fencing check,
   * docs/cluster.md), checked in the append statement; a refused one stops the sequencer.
   */
  appendGuard?: (lastSeq: number) => AppendGuard;
}

export interface RecoveryReport {
  lastSeq: number;
  replayed: number;
  snapshotLoadMs: number;
  replayMs: number;
  /** Where the journal lives: 'file' (segment files) or 'sql' (the journal table). */
  journal: 'file' | 'sql';
  /** Commands whose history rows were written on start (a crash had come between). */
  projectedOnStart: number;
}

/** History reads wait at most this long for the projector before answering with what is there. */
const HISTORY_BARRIER_MS = 5000;
const SCHEDULER_TICK_MS = 250;

/**
 * Emits 'fatal' (error) when the sequencer stops: memory is then ahead of the journal and the
 * process must restart (docs/decisions.md).
 */
export class ExchangeRuntime extends EventEmitter implements ExchangePort {
  readonly history: ExchangeHistory;
  readonly schedule: ScheduleOptions;
  private readonly timers: NodeJS.Timeout[] = [];
  private tickBusy = false;
  private closed = false;
  /** Quotes new parlay requests for the house as they are applied (house-quote.ts), with the timers. */
  private desk: HouseDesk | undefined;

  private constructor(
    private readonly deps: RuntimeDeps,
    readonly exchange: Exchange,
    private readonly applyListeners: ApplyListener[],
    readonly sequencer: Sequencer<Command, CommandResult>,
    readonly recovery: RecoveryReport,
    readonly clock: () => number,
    readonly journal: JournalBackend,
    readonly projector: HistoryProjector,
  ) {
    super();
    this.meter = new CommandMeter(deps.metrics);
    // Read-your-writes: a history read first waits until everything acknowledged before it is
    // projected (docs/journal.md, "Projector").
    this.history = new SqlHistory(
      deps.store,
      () => this.exchange,
      () => this.historyBarrier(),
    );
    sequencer.onCommitted((b) =>
      projector.enqueue(
        b.firstSeq,
        b.results,
        b.commands.map((c) => c.ts),
      ),
    );
    // The chunks of a parlay settlement go first; their rows follow (docs/journal.md "Projector").
    projector.deferWhile(() => this.settleLoop?.settling === true);
    this.schedule = scheduleOptions(deps.config);
    sequencer.on('fatal', (err: unknown) => {
      deps.log.error({ err }, 'sequencer stopped: the journal is the source of truth, restart the process');
      this.emit('fatal', err);
    });
    // Logged, not fatal: a lost snapshot costs replay time only; a failing listener is a read-model bug.
    sequencer.on('snapshotError', (err: unknown) => deps.log.warn({ err }, 'snapshot failed'));
    sequencer.on('listenerError', (err: unknown) =>
      deps.log.error({ err }, 'committed-batch listener failed'),
    );
  }

  /** Recovers the state from the store (snapshot + journal tail) and opens the sequencer. */
  static async open(deps: RuntimeDeps, recovered?: RecoveryResult<Exchange>): Promise<ExchangeRuntime> {
    const { config, store, appendGuard } = deps;
    const clock = deps.clock ?? demoClock(config);
    const journal = deps.journal ?? new SqlJournal(store);
    const projector = await HistoryProjector.open(store, deps.log);
    const watermark = projector.watermark;
    // Commands after the projector's watermark are replayed (never restored from a newer
    // snapshot) and their results projected before the server serves: the repair of a crash
    // between a journal sync and its projection.
    let chunk: { firstSeq: number; results: CommandResult[]; stamps: number[] } | undefined;
    let projectedOnStart = 0;
    // A promoted replica hands over the state it has followed (docs/cluster.md) instead of
    // recovering again, unless the history projection is behind that state: the results of the
    // unprojected commands exist only by replaying them, so then it recovers like a restart.
    const handOver = recovered !== undefined && recovered.lastSeq <= watermark ? recovered : undefined;
    // What the projection already holds is replayed without events (replay mode, the same state,
    // about twice as fast); events come on for the commands after the watermark, whose results
    // the projector needs, and for everything live (docs/journal.md "Recovery").
    let replaying: Exchange | undefined;
    const rec =
      handOver ??
      (await recover<Command, CommandResult, Exchange>(
        store,
        () => {
          replaying = new Exchange({ recordHandles: true, events: false });
          return replaying;
        },
        {
          isAccepted: (r) => r.ok,
          journal,
          maxSnapshotSeq: watermark,
          atSeq: { seq: watermark + 1, run: () => replaying?.setEvents(true) },
          onReplay: (seq, cmd, r) => {
            if (seq <= watermark) return;
            chunk ??= { firstSeq: seq, results: [], stamps: [] };
            chunk.results.push(r);
            chunk.stamps.push(cmd.ts);
            projectedOnStart++;
            if (chunk.results.length >= 10_000) {
              projector.enqueue(chunk.firstSeq, chunk.results, chunk.stamps);
              chunk = undefined;
            }
          },
        },
      ));
    if (chunk !== undefined) projector.enqueue(chunk.firstSeq, chunk.results, chunk.stamps);
    await projector.drain();
    if (rec.lastSeq < watermark) {
      deps.log.warn(
        { journalSeq: rec.lastSeq, historySeq: watermark },
        'history is ahead of the journal: the journal lost commands its projection had seen',
      );
    }
    const exchange = rec.machine;
    exchange.setEvents(true);
    // Accepted commands are reported right after apply (onApplied: the stream builds its frames there).
    const applyListeners: ApplyListener[] = [];
    const machine = tapMachine(exchange, applyListeners, (err) =>
      deps.log.error({ err }, 'apply listener failed'),
    );
    const sequencer = new Sequencer<Command, CommandResult>(machine, (r) => r.ok, store, clock, {
      snapshotEvery: config.snapshotEvery,
      gatherMs: config.groupCommitMaxWaitMs,
      lastSeq: rec.lastSeq,
      lastTs: rec.lastTs,
      lastSnapshotSeq: rec.snapshotSeq,
      ...(journal.kind === 'file' ? { journal } : {}),
      ...(config.snapshotThread ? { shadow: snapshotThread(deps.log) } : {}), // snapshot-thread.ts
      // The scale-out leader's fencing check runs in every journal append (PostgreSQL only,
      // docs/cluster.md); history is the projector's, after the commit (docs/journal.md).
      ...(appendGuard !== undefined ? { appendGuard } : {}),
    });
    const rt = new ExchangeRuntime(
      deps,
      exchange,
      applyListeners,
      sequencer,
      {
        lastSeq: rec.lastSeq,
        replayed: rec.replayed,
        snapshotLoadMs: rec.snapshotLoadMs,
        replayMs: rec.replayMs,
        journal: journal.kind,
        projectedOnStart,
      },
      clock,
      journal,
      projector,
    );
    const coef = config.feeCoefficient;
    if (Math.abs(exchange.feeCoefficient - coef) > 1e-12) {
      await rt.submit({ type: 'SetFeeCoefficient', coefficient: coef });
    }
    return rt;
  }

  private async historyBarrier(): Promise<void> {
    const seq = this.sequencer.committedSeq;
    if (this.projector.watermark >= seq) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), HISTORY_BARRIER_MS);
    });
    const late2 = await Promise.race([this.projector.waitFor(seq).then(() => false), late]);
    clearTimeout(timer);
    if (late2)
      this.deps.log.warn(
        { seq, projected: this.projector.watermark },
        'history read served behind the journal',
      );
  }

  /**
   * Journal retention (docs/journal.md, "Retention"): deletes the segment files whose commands
   * are all before both the newest durable snapshot and the history projector's watermark. A
   * start then needs that snapshot (it cannot replay from scratch). No-op on the journal table.
   */
  async pruneJournal(): Promise<{ segments: number; bytes: number }> {
    if (!(this.journal instanceof FileJournal)) return { segments: 0, bytes: 0 };
    const newest = (await this.journal.listSnapshots())[0]?.seq ?? 0;
    return this.journal.prune(Math.min(newest, this.projector.watermark));
  }

  reader(): ExchangeReader {
    return this.exchange;
  }

  /** The state machine itself (a promoted replica continues from it, docs/cluster.md). */
  get machine(): Exchange {
    return this.exchange;
  }

  /** Calls `listener` after every accepted command is applied, with its journal seq. */
  onApplied(listener: ApplyListener): () => void {
    this.applyListeners.push(listener);
    return () => {
      const i = this.applyListeners.indexOf(listener);
      if (i >= 0) this.applyListeners.splice(i, 1);
    };
  }

  newId(): Id {
    return uuidv7(this.clock());
  }

  /** The commands_total cells and the commit latency (command-meter.ts). */
  readonly meter: CommandMeter;

  submit(cmd: CommandInput, seqs?: number[]): Promise<CommandResult> {
    return new Promise<CommandResult>((resolve, reject) => this.submitTo(cmd, { resolve, reject }, seqs));
  }

  /** `submit` without a promise (ExchangePort.submitTo), counted by the meter once it settles. */
  submitTo(cmd: CommandInput, to: Settle<CommandResult>, seqs?: number[]): void {
    this.sequencer.submitTo(this.budgeted(cmd), new CountedSettle(this.meter, cmd.type, to), seqs);
  }

  async submitMany(cmds: CommandInput[], seqs?: number[]): Promise<CommandResult[]> {
    const t0 = performance.now();
    const rs = await this.sequencer.submitMany(
      this.settleLoop === undefined ? cmds : cmds.map((c) => this.budgeted(c)),
      seqs,
    );
    this.meter.onCommitLatency?.((performance.now() - t0) / 1000);
    for (let i = 0; i < rs.length; i++) this.meter.count(cmds[i]!.type, rs[i]!.ok);
    return rs;
  }

  /** AccountsPort for the token server: every new trader client gets a fresh account. */
  readonly accounts = accountsOf(this);

  /** Set by startTimers: issues the chunks of a parlay settlement (parlay-settle-loop.ts). */
  private settleLoop: ParlaySettleLoop | undefined;

  /**
   * A settling command advances at most a chunk of parlays where something issues the rest
   * (docs/parlays.md "Settlement in chunks"); without the loop (tests, tools) it settles them all.
   */
  private budgeted(cmd: CommandInput): CommandInput {
    const chunk = this.settleLoop?.chunk;
    if (chunk === undefined) return cmd;
    if (cmd.type === 'SettleMarket' || (cmd.type === 'SetEventStatus' && cmd.status === 'CANCELED'))
      return cmd.parlayBudget === undefined ? { ...cmd, parlayBudget: chunk } : cmd;
    return cmd;
  }

  /** Starts the scheduler (and the house desk, when a house is configured). */
  startTimers(): void {
    const house = this.schedule.house;
    if (house !== undefined && this.desk === undefined) {
      const desk = new HouseDesk(
        house,
        this.exchange,
        this.clock,
        // as the scheduler's pass: nothing once closing or stopped
        async (cmds) => {
          if (!this.closed && !this.sequencer.stopped) await this.submitMany(cmds);
        },
        (err) => this.deps.log.error({ err }, 'house quote failed'),
      );
      this.desk = desk;
      this.onApplied((cmd, events) => desk.applied(cmd, events));
    }
    const t = setInterval(() => void this.tick(), SCHEDULER_TICK_MS);
    t.unref();
    this.timers.push(t);
    const chunk = this.schedule.parlayChunk;
    if (chunk !== undefined && this.settleLoop === undefined) {
      const loop = new ParlaySettleLoop(this, chunk, (err) =>
        this.deps.log.error({ err }, 'parlay settlement chunk failed'),
      );
      this.settleLoop = loop;
      this.onApplied((cmd) => {
        if (cmd.type === 'SettleMarket' || cmd.type === 'SetEventStatus' || cmd.type === 'SettleParlays')
          loop.kick();
      });
      loop.kick(); // a settlement a restart left unfinished
    }
  }

  /** One scheduler pass: submits whatever is due (GTT/lock expiry, go-live). */
  async tick(): Promise<void> {
    if (this.tickBusy || this.closed || this.sequencer.stopped) return;
    this.tickBusy = true;
    try {
      // With the settle loop running it alone issues the chunks, one a turn: the pass kicks it.
      const { parlayChunk, ...rest } = this.schedule;
      const schedule = this.settleLoop === undefined ? this.schedule : rest;
      this.settleLoop?.kick();
      const due = dueCommands(this.exchange, this.clock(), schedule, this.desk?.exposure);
      if (due.length > 0) await this.submitMany(due);
    } catch (err) {
      this.deps.log.error({ err }, 'scheduler tick failed');
    } finally {
      this.tickBusy = false;
    }
  }

  /** Stops timers, waits for pending commits and writes a final snapshot. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.settleLoop?.stop();
    await this.sequencer.close();
    await this.projector.close();
    await this.journal.close();
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
