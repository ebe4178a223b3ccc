// One Tickbook process of a PostgreSQL deployment (docs/cluster.md): leader (holds the writer
// advisory lock, runs the sequencer) or replica (follows the journal table by seq and applies the
// same commands to its own state machine). The HTTP edge talks to it as to a single exchange
// (ExchangePort): reads come from whichever state it holds now, commands go to the leader's
// sequencer (a replica's edge forwards them, src/http/plugins/cluster.ts).
//
// Modes: 'starting' (recovered, not yet contending), 'leader', 'replica', 'down' (PostgreSQL lost
// while leading, or the leader's sequencer stopped). 'down' keeps serving reads from the state in
// memory and answers commands 503; a timer retries until the store answers, then rebuilds the
// state from the store (snapshot + journal, the one source of truth: memory may hold commands
// whose commit failed) and contends for the lock again: leader if it gets it, replica otherwise.

import { EventEmitter } from 'node:events';
import type { Config } from '../config.ts';
import type { Exchange } from '../exchange/exchange.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { Command, CommandResult, Id } from '../exchange/types.ts';
import { uuidv7 } from '../ids.ts';
import { readJournal } from '../journal/journal-store.ts';
import type { RecoveryResult } from '../journal/recover.ts';
import type { Log } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import {
  accountsOf,
  type CommandInput,
  type ExchangeHistory,
  type ExchangePort,
} from '../runtime/exchange-port.ts';
import { demoClock, type ExchangeRuntime } from '../runtime/exchange-runtime.ts';
import { type ClusterStore, WriterLockError, type WriterLockSession } from '../store/types.ts';
import { applyFollowedRows, FOLLOW_PAGE, recoverState } from './follow-apply.ts';
import { advertiseLeader, claimLeadership, doorbellChannel, readLeaderRow } from './leader-row.ts';
import { feedFromRuntime, openLeaderRuntime } from './leader-runtime.ts';
import { registerClusterMetrics } from './metrics.ts';
import { PeerAuth } from './peer.ts';
import { replicaHistory } from './replica-history.ts';
import { SeqWaiters } from './seq-waiters.ts';
import { StateFeed } from './state-feed.ts';
import { notLeader, unavailable } from './unavailable.ts';

export type NodeMode = 'starting' | 'leader' | 'replica' | 'down';

export interface ClusterNodeDeps {
  config: Config;
  store: ClusterStore;
  log: Log;
  metrics?: Metrics;
}

export class ClusterNode extends EventEmitter implements ExchangePort {
  mode: NodeMode = 'starting';
  /** The URL commands are forwarded to (the leader's advertised URL), when known. */
  leaderUrl: string | undefined;
  /** Fencing epoch of the current leader as last read (this process's own while it leads). */
  epoch = 0;
  /** True while the last store access succeeded. */
  storeOk = true;
  /** History as a replica reads it (waiting for the leader's projection); see `history`. */
  private readonly followerHistory: ExchangeHistory;
  /** Highest seq known to be in the journal (doorbells and reads). */
  knownTail = 0;
  /** Commands forwarded to the leader, and forwards that failed (metrics). */
  forwarded = 0;
  forwardFailures = 0;
  private exchange: Exchange;
  private runtime: ExchangeRuntime | undefined;
  private lastTs: number;
  private snapshotSeq: number;
  private readonly lock: WriterLockSession;
  private channel = '';
  private unlisten: (() => Promise<void>) | undefined;
  private following: Promise<void> | undefined;
  private followAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private closed = false;
  private ownUrl: string | undefined;
  /** Doorbells not yet applied: seq and when it rang (lag in ms). */
  private readonly rung: { seq: number; at: number }[] = [];
  private readonly waiters = new SeqWaiters(() => this.seq);
  readonly clock: () => number; // stamps commands while leading, and ids (the demo's too)
  /**
   * Every command applied to the state this process answers from, and how far it is durable, in
   * either role and across promotions and rebuilds (the stream hub's source, docs/cluster.md).
   */
  readonly feed: StateFeed;
  /** Proves and checks that a request comes from a process of this store (peer.ts). */
  peer!: PeerAuth;
  /** Detaches the leader runtime from the feed. */
  private offRuntimeFeed: (() => void) | undefined;
  /** A stepped-down leader's runtime finishing (or failing) its last commits. */
  private closingRuntime: { done: Promise<void>; off: () => void } | undefined;

  private constructor(
    private readonly deps: ClusterNodeDeps,
    rec: RecoveryResult<Exchange>,
  ) {
    super();
    this.exchange = rec.machine;
    this.lastTs = rec.lastTs;
    this.snapshotSeq = rec.snapshotSeq;
    this.knownTail = rec.lastSeq;
    this.clock = demoClock(deps.config);
    this.feed = new StateFeed(rec.lastSeq, (err) =>
      deps.log.error({ err }, 'cluster: a state feed listener failed'),
    );
    this.followerHistory = replicaHistory(
      deps.store,
      () => this.exchange,
      () => this.seq,
    );
    this.lock = deps.store.writerLockSession((err) => this.stepDown('writer lock session lost', err));
    if (deps.metrics !== undefined) registerClusterMetrics(deps.metrics, this);
  }

  /**
   * Recovers the state (snapshot + journal) and, unless the role is replica, tries once to take
   * the writer lock: the holder leads from here on. Role leader fails when the lock is taken.
   */
  static async open(deps: ClusterNodeDeps): Promise<ClusterNode> {
    const rec = await recoverState(deps.store);
    const node = new ClusterNode(deps, rec);
    node.channel = await doorbellChannel(deps.store);
    node.peer = await PeerAuth.load(deps.store);
    if (deps.config.role !== 'replica') {
      if (await node.lock.tryTake()) await node.promote();
      else if (deps.config.role === 'leader') {
        throw new WriterLockError(
          'another Tickbook process is the writer of this PostgreSQL store (database and schema); TICKBOOK_ROLE=auto or replica would follow it',
        );
      }
    }
    if (node.mode !== 'leader') await node.becomeReplica();
    return node;
  }

  /**
   * While leading, the runtime's own history: its barrier is the in-memory projector watermark, no
   * query. While following, history waits for the leader's projection (replica-history.ts).
   */
  get history(): ExchangeHistory {
    return this.runtime?.history ?? this.followerHistory;
  }

  get recovery(): { lastSeq: number; snapshotSeq: number } {
    return { lastSeq: this.exchange.lastSeq, snapshotSeq: this.snapshotSeq };
  }

  /** The runtime while leading (tests, operator tooling), else undefined. */
  get leaderRuntime(): ExchangeRuntime | undefined {
    return this.runtime;
  }

  /** Seq of the state this process answers from: durable on a leader, applied on a replica. */
  get seq(): number {
    return this.runtime?.sequencer.committedSeq ?? this.exchange.lastSeq;
  }

  /** Seq the journal has that this replica has not applied (0 on a leader). */
  get lagSeq(): number {
    return this.mode === 'leader' ? 0 : Math.max(0, this.knownTail - this.exchange.lastSeq);
  }

  /** Age (ms) of the oldest doorbell not yet applied (0 when caught up or leading). */
  get lagMs(): number {
    if (this.mode === 'leader') return 0;
    const first = this.rung[0];
    return first === undefined ? 0 : Date.now() - first.at;
  }

  /** /readyz: leading with a running sequencer, or following within the lag bound. */
  ready(): boolean {
    if (!this.storeOk) return false;
    if (this.mode === 'leader') return this.runtime !== undefined && !this.runtime.sequencer.stopped;
    if (this.mode === 'replica') return this.lagMs <= this.deps.config.replicaMaxLagMs;
    return false;
  }

  /** The state hash and the seq it is taken at (one synchronous step: they always agree). */
  stateHash(): { seq: number; hash: string } {
    return { seq: this.exchange.lastSeq, hash: this.exchange.hash() };
  }

  // ------------------------------------------------------------------ ExchangePort

  reader(): ExchangeReader {
    return this.exchange;
  }

  newId(): Id {
    return uuidv7(this.clock());
  }

  async submit(cmd: CommandInput, seqs?: number[]): Promise<CommandResult> {
    const rt = this.leading();
    try {
      return await rt.submit(cmd, seqs);
    } catch (err) {
      throw unavailable(err);
    }
  }

  async submitMany(cmds: CommandInput[], seqs?: number[]): Promise<CommandResult[]> {
    const rt = this.leading();
    try {
      return await rt.submitMany(cmds, seqs);
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** AccountsPort of the token server (new clients get accounts through the leader). */
  readonly accounts = accountsOf(this);

  private leading(): ExchangeRuntime {
    const rt = this.runtime;
    if (this.mode !== 'leader' || rt === undefined || rt.sequencer.stopped) throw notLeader();
    return rt;
  }

  // ------------------------------------------------------------------ lifecycle

  /** Starts following, contending and retrying; `url` is where this process listens. */
  start(url: string): void {
    this.ownUrl = this.deps.config.advertiseUrl ?? url;
    if (this.mode === 'leader') void this.advertise();
    this.runtime?.startTimers();
    this.timer = setInterval(() => void this.tick(), this.deps.config.followPollMs);
    this.timer.unref();
  }

  /** Resolves true once this process answers from seq >= `seq`, false after `timeoutMs`. */
  waitForSeq(seq: number, timeoutMs: number): Promise<boolean> {
    return this.waiters.wait(seq, timeoutMs, () => {
      if (this.mode === 'replica') this.kickFollow();
    });
  }

  private wake(): void {
    this.waiters.wake();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.waiters.close();
    await this.unlisten?.().catch(() => {});
    await this.following?.catch(() => {});
    const rt = this.runtime;
    this.runtime = undefined;
    if (rt !== undefined) await rt.close();
    await this.lock.release();
  }

  private async tick(): Promise<void> {
    if (this.busy || this.closed) return;
    this.busy = true;
    try {
      if (this.mode === 'down') await this.rebuild();
      else if (this.mode === 'replica') {
        if (this.unlisten === undefined) await this.listen();
        await this.follow();
        if (this.deps.config.role !== 'replica' && (await this.lock.tryTake())) await this.promote();
        else await this.readLeader();
      } else if (this.mode === 'leader') {
        this.storeOk = await this.deps.store.ping();
      }
    } catch (err) {
      this.storeOk = false;
      this.deps.log.warn({ err: String(err), mode: this.mode }, 'cluster tick failed; retrying');
    } finally {
      this.busy = false;
    }
  }

  // ------------------------------------------------------------------ leading

  /**
   * Becomes the leader (the lock is held): bumps the fencing epoch (which waits for, and then
   * fences out, any transaction of a previous leader), applies the journal tail not yet seen,
   * and starts a sequencer on the state followed so far.
   */
  private async promote(): Promise<void> {
    const { store, config, log } = this.deps;
    try {
      const epoch = await claimLeadership(store, this.ownUrl, config.nodeName);
      await this.follow();
      const rt = await openLeaderRuntime(
        { config, store, log, metrics: this.deps.metrics, clock: this.clock },
        { machine: this.exchange, lastTs: this.lastTs, snapshotSeq: this.snapshotSeq },
        this.channel,
        epoch,
      );
      this.epoch = epoch;
      this.runtime = rt;
      this.offRuntimeFeed = feedFromRuntime(rt, this.feed);
      // The runtime may have recovered its own state instead of taking this one (when the history
      // projection was behind it, docs/cluster.md): from here on, reads and hashes are its state's.
      this.exchange = rt.machine;
      rt.on('fatal', (err: unknown) => this.stepDown('sequencer stopped', err));
      rt.sequencer.onCommitted((b) => {
        this.knownTail = b.lastSeq;
        this.lastTs = b.commands[b.commands.length - 1]!.ts;
        this.wake();
      });
      await this.unlisten?.().catch(() => {});
      this.unlisten = undefined;
      this.rung.length = 0;
      this.mode = 'leader';
      this.storeOk = true;
      this.leaderUrl = this.ownUrl;
      if (this.timer !== undefined) rt.startTimers();
      log.info(
        { epoch, seq: this.exchange.lastSeq, node: config.nodeName },
        'cluster: this process is the leader',
      );
      this.emit('leader', epoch);
    } catch (err) {
      log.error({ err: String(err) }, 'cluster: promotion failed; stepping down');
      await this.lock.release();
      this.mode = 'down';
      this.storeOk = false;
    }
  }

  /** Publishes this leader's URL (known only once it listens). */
  private async advertise(): Promise<void> {
    try {
      await advertiseLeader(this.deps.store, this.ownUrl, this.epoch);
      this.leaderUrl = this.ownUrl;
    } catch (err) {
      this.deps.log.warn({ err: String(err) }, 'cluster: could not advertise the leader URL');
    }
  }

  /**
   * Leaves the leader role (or a replica whose state broke): commands answer 503 from now on, the
   * state in memory keeps answering reads until the rebuild (tick) replaces it.
   */
  private stepDown(reason: string, err: unknown): void {
    if (this.closed || this.mode === 'down') return;
    this.deps.log.error(
      { err: err instanceof Error ? err.message : String(err), reason, node: this.deps.config.nodeName },
      'cluster: stepping down; commands answer 503 until the state is rebuilt from the store',
    );
    const wasLeader = this.mode === 'leader';
    this.mode = 'down';
    this.storeOk = false;
    const rt = this.runtime;
    this.runtime = undefined;
    if (rt !== undefined) {
      rt.removeAllListeners('fatal');
      rt.on('fatal', () => {});
      // Pending commits are still fenced; close() stops the timers and lets them finish or fail.
      // Those that finish are durable and still reach the feed; the rebuild waits for the rest.
      const off = this.offRuntimeFeed ?? (() => {});
      this.offRuntimeFeed = undefined;
      this.closingRuntime = { done: rt.close().catch(() => {}), off };
    }
    if (wasLeader) void this.lock.release();
    void this.unlisten?.().catch(() => {});
    this.unlisten = undefined;
    this.emit('down', reason);
  }

  /** Rebuilds the state from the store, then leads or follows (see the header). */
  private async rebuild(): Promise<void> {
    const { store, log } = this.deps;
    if (!(await store.ping())) return;
    // Commits of the old runtime still finishing reach the feed, for a bounded time (a close can
    // hang on an unreachable database); one that lands after the detach is followed instead.
    const closing = this.closingRuntime;
    if (closing !== undefined) {
      await Promise.race([closing.done, new Promise((r) => setTimeout(r, 2000).unref())]);
      closing.off();
      this.closingRuntime = undefined;
    }
    // The stream continues without a gap when the state is rebuilt at the seq it has released;
    // the journal after that is then applied by following, which feeds it (docs/cluster.md).
    const at = this.feed.committedSeq;
    let rec = this.feed.listening
      ? await recoverState(this.deps.store, at).catch(() => undefined)
      : undefined;
    if (rec !== undefined && rec.lastSeq === at) this.feed.rewind(at, true);
    else {
      rec = await recoverState(this.deps.store);
      this.feed.rewind(rec.lastSeq, false);
    }
    this.exchange = rec.machine;
    this.lastTs = rec.lastTs;
    this.snapshotSeq = rec.snapshotSeq;
    this.knownTail = Math.max(this.knownTail, rec.lastSeq);
    this.storeOk = true;
    log.info({ seq: rec.lastSeq }, 'cluster: state rebuilt from the store');
    if (this.deps.config.role !== 'replica' && (await this.lock.tryTake())) await this.promote();
    if (this.mode !== 'leader') await this.becomeReplica();
  }

  // ------------------------------------------------------------------ following

  private async becomeReplica(): Promise<void> {
    this.mode = 'replica';
    await this.listen();
    await this.follow().catch((err) => {
      this.storeOk = false;
      this.deps.log.warn({ err: String(err) }, 'cluster: following the journal failed; retrying');
    });
    await this.readLeader().catch(() => {});
    this.wake();
  }

  private async listen(): Promise<void> {
    try {
      this.unlisten = await this.deps.store.listen(
        this.channel,
        (payload) => {
          const seq = Number(payload);
          if (!Number.isSafeInteger(seq)) return;
          if (seq > this.knownTail) this.knownTail = seq;
          if (seq > this.exchange.lastSeq) this.rung.push({ seq, at: Date.now() });
          this.kickFollow();
        },
        () => {
          this.unlisten = undefined; // re-listened on the next tick
        },
      );
    } catch (err) {
      this.unlisten = undefined;
      this.storeOk = false;
      this.deps.log.warn({ err: String(err) }, 'cluster: LISTEN failed; polling until it works');
    }
  }

  private kickFollow(): void {
    if (this.mode !== 'replica') return;
    if (this.following !== undefined) {
      this.followAgain = true;
      return;
    }
    this.follow().catch((err) => {
      this.storeOk = false;
      this.deps.log.warn({ err: String(err) }, 'cluster: following the journal failed; retrying');
    });
  }

  /** Applies every journal row after the current seq (one reader at a time). */
  private follow(): Promise<void> {
    if (this.following !== undefined) {
      this.followAgain = true;
      return this.following;
    }
    const run = async () => {
      do {
        this.followAgain = false;
        await this.followPages();
      } while (this.followAgain && !this.closed);
    };
    this.following = run().finally(() => {
      this.following = undefined;
    });
    return this.following;
  }

  private async followPages(): Promise<void> {
    const ex = this.exchange;
    for (;;) {
      const rows = await readJournal<Command>(this.deps.store, ex.lastSeq, FOLLOW_PAGE);
      this.storeOk = true;
      if (ex !== this.exchange) return; // rebuilt meanwhile
      const out = applyFollowedRows(ex, rows, this.feed);
      if (out.lastTs !== undefined) this.lastTs = out.lastTs;
      if (!out.ok) {
        this.stepDown(out.reason, out.err);
        return;
      }
      const applied = ex.lastSeq;
      if (applied > this.knownTail) this.knownTail = applied;
      while (this.rung.length > 0 && this.rung[0]!.seq <= applied) this.rung.shift();
      this.wake();
      if (rows.length < FOLLOW_PAGE) return;
    }
  }

  /** Reads who leads now and where to forward commands. */
  async readLeader(): Promise<void> {
    const row = await readLeaderRow(this.deps.store);
    if (this.mode === 'leader') return;
    this.leaderUrl = row.url;
    this.epoch = row.epoch;
  }
}
