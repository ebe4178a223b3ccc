// One Tickbook process of a PostgreSQL deployment (docs/cluster.md): leader (holds the writer
// advisory lock, runs the sequencer) or replica (follows the journal table by seq and applies the
// same commands to its own state machine). The HTTP edge talks to it as to a single exchange
// (ExchangePort): reads come from whichever state it holds now, commands go to the leader's
// sequencer (a replica's edge forwards them, src/cluster/forward.ts).
//
// Modes: 'starting' (recovered, not yet contending), 'leader', 'replica', 'down' (PostgreSQL lost
// while leading, or the leader's sequencer stopped). 'down' keeps serving reads from the state in
// memory and answers commands 503; a timer retries until the store answers, then rebuilds the
// state from the store (snapshot + journal, the one source of truth: memory may hold commands
// whose commit failed) and contends for the lock again: leader if it gets it, replica otherwise.

import { EventEmitter } from 'node:events';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import { Exchange } from '../exchange/exchange.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { Command, CommandResult, Id } from '../exchange/types.ts';
import { readJournal } from '../journal/journal-store.ts';
import { RecoveryError, type RecoveryResult, recover } from '../journal/recover.ts';
import { SequencerStoppedError } from '../journal/sequencer.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { CommandInput, ExchangeHistory, ExchangePort } from '../runtime/exchange-port.ts';
import { demoClock, ExchangeRuntime, type RuntimeLog } from '../runtime/exchange-runtime.ts';
import { SqlHistory } from '../runtime/history.ts';
import { uuidv7 } from '../runtime/ids.ts';
import type { PostgresStore, WriterLockSession } from '../store/postgres-store.ts';
import type { Queryable } from '../store/types.ts';
import { WriterLockError } from '../store/types.ts';
import { registerClusterMetrics } from './metrics.ts';
import { PeerAuth } from './peer.ts';
import { StateFeed } from './state-feed.ts';

export type NodeMode = 'starting' | 'leader' | 'replica' | 'down';

export interface ClusterNodeDeps {
  config: Config;
  store: PostgresStore;
  log: RuntimeLog;
  metrics?: Metrics;
}

/** Journal rows read per query while following. */
const FOLLOW_PAGE = 5000;

/** A journal commit refused because another process became the leader since (docs/cluster.md). */
export class FencedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FencedError';
  }
}

/** Where a store's doorbell rings: per schema, since one database may hold several stores. */
async function doorbellChannel(q: Queryable): Promise<string> {
  const r = await q.query<{ c: string }>("SELECT 'tickbook_journal_' || md5(current_schema()) AS c");
  return r.rows[0]!.c;
}

/** Longest wait of a history read for the leader's projection (then it answers what is there). */
const HISTORY_BARRIER_MS = 2_000;

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
  private readonly waiters = new Set<{ seq: number; done: (ok: boolean) => void }>();
  private readonly clock: () => number;
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
  private closingRuntime: Promise<void> | undefined;

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
    this.followerHistory = new SqlHistory(
      deps.store,
      () => this.exchange,
      () => this.historyBarrier(),
    );
    this.lock = deps.store.writerLockSession((err) => this.stepDown('writer lock session lost', err));
    if (deps.metrics !== undefined) registerClusterMetrics(deps.metrics, this);
  }

  /**
   * Recovers the state (snapshot + journal) and, unless the role is replica, tries once to take
   * the writer lock: the holder leads from here on. Role leader fails when the lock is taken.
   */
  static async open(deps: ClusterNodeDeps): Promise<ClusterNode> {
    const rec = await recoverState(deps);
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
   * query. While following, history waits for the leader's projection (historyBarrier below).
   */
  get history(): ExchangeHistory {
    return this.runtime?.history ?? this.followerHistory;
  }

  /**
   * History rows are written by the leader's projector after its commits (docs/journal.md,
   * "Projector"), so a history read here first waits, bounded, until the projection has reached
   * the seq this process reflects: an order read at x-tickbook-min-seq N is found even when it is
   * no longer live (filled or cancelled). Past the bound it answers with what is there.
   */
  private async historyBarrier(): Promise<void> {
    const target = this.seq;
    const deadline = Date.now() + HISTORY_BARRIER_MS;
    for (;;) {
      const r = await this.deps.store.query<{ seq: number | string }>(
        "SELECT seq FROM projection_watermark WHERE name = 'history'",
      );
      if (Number(r.rows[0]?.seq ?? 0) >= target || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
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

  async submit(cmd: CommandInput): Promise<CommandResult> {
    const rt = this.leading();
    try {
      return await rt.submit(cmd);
    } catch (err) {
      throw unavailable(err);
    }
  }

  async submitMany(cmds: CommandInput[]): Promise<CommandResult[]> {
    const rt = this.leading();
    try {
      return await rt.submitMany(cmds);
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** AccountsPort of the token server (new clients get accounts through the leader). */
  readonly accounts = {
    create: async (): Promise<string> => {
      const accountId = this.newId();
      const r = await this.submit({ type: 'CreateAccount', accountId });
      if (!r.ok) throw new Error(`could not create account: ${r.code} ${r.message}`);
      return accountId;
    },
    exists: (id: string): boolean => this.exchange.hasAccount(id),
  };

  private leading(): ExchangeRuntime {
    const rt = this.runtime;
    if (this.mode !== 'leader' || rt === undefined || rt.sequencer.stopped) {
      throw new ApiError(
        'SERVICE_UNAVAILABLE',
        'This process is not the leader right now; retry (docs/cluster.md)',
        undefined,
        { 'retry-after': '1' },
      );
    }
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
    if (this.seq >= seq) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const w = {
        seq,
        done: (ok: boolean) => {
          clearTimeout(t);
          this.waiters.delete(w);
          resolve(ok);
        },
      };
      const t = setTimeout(() => w.done(this.seq >= seq), timeoutMs);
      this.waiters.add(w);
      if (this.mode === 'replica') this.kickFollow();
    });
  }

  private wake(): void {
    const s = this.seq;
    for (const w of this.waiters) if (w.seq <= s) w.done(true);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const w of this.waiters) w.done(false);
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
      const r = await store.query<{ epoch: number }>(
        `INSERT INTO cluster_leader (id, epoch, url, node, since) VALUES (1, 1, $1, $2, $3)
         ON CONFLICT (id) DO UPDATE SET epoch = cluster_leader.epoch + 1, url = EXCLUDED.url,
           node = EXCLUDED.node, since = EXCLUDED.since
         RETURNING epoch`,
        [this.ownUrl ?? null, config.nodeName, Date.now()],
      );
      const epoch = Number(r.rows[0]!.epoch);
      await this.follow();
      // Nothing may be pending after the epoch bump: a previous leader's commits are either in
      // the journal now (follow() read them) or fenced out for good.
      const rec: RecoveryResult<Exchange> = {
        machine: this.exchange,
        lastSeq: this.exchange.lastSeq,
        lastTs: this.lastTs,
        snapshotSeq: this.snapshotSeq,
        skippedSnapshots: [],
        replayed: 0,
        snapshotLoadMs: 0,
        replayMs: 0,
      };
      const channel = this.channel;
      const rt = await ExchangeRuntime.open(
        {
          config,
          store,
          log,
          metrics: this.deps.metrics,
          clock: this.clock,
          beforeCommit: async (tx, lastSeq) => {
            // Fencing (docs/cluster.md): FOR SHARE holds off a successor's epoch bump until this
            // transaction ends; a bumped epoch finds no row and rolls the batch back. The doorbell
            // rides in the same statement; NOTIFY is delivered only if the transaction commits.
            const f = await tx.query(
              'SELECT pg_notify($1, $2) FROM cluster_leader WHERE id = 1 AND epoch = $3 FOR SHARE',
              [channel, String(lastSeq), epoch],
            );
            if (f.rows.length !== 1) {
              throw new FencedError(
                `epoch ${epoch} is no longer the leader's: another process took the lock`,
              );
            }
          },
        },
        rec,
      );
      this.epoch = epoch;
      this.runtime = rt;
      // The feed continues from the followed state: the runtime's applies and commits from here on.
      // Its own recovery (above) ends at the same seq, since nothing commits after the epoch bump.
      const offApplied = rt.onApplied((cmd, events, seq) => this.feed.apply(cmd, events, seq));
      const offCommitted = rt.sequencer.onCommitted((b) => this.feed.commit(b.lastSeq));
      this.offRuntimeFeed = () => {
        offApplied();
        offCommitted();
      };
      if (rt.machine.lastSeq < this.feed.committedSeq) this.feed.rewind(rt.machine.lastSeq, false);
      // Opening may have journaled a fee-coefficient change before the feed was attached.
      this.feed.commit(rt.sequencer.committedSeq);
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
      await this.deps.store.query('UPDATE cluster_leader SET url = $1 WHERE id = 1 AND epoch = $2', [
        this.ownUrl ?? null,
        this.epoch,
      ]);
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
      const off = this.offRuntimeFeed;
      this.offRuntimeFeed = undefined;
      this.closingRuntime = rt
        .close()
        .catch(() => {})
        .finally(() => off?.());
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
    await this.closingRuntime;
    this.closingRuntime = undefined;
    // The stream continues without a gap when the state is rebuilt at the seq it has released;
    // the journal after that is then applied by following, which feeds it (docs/cluster.md).
    const at = this.feed.committedSeq;
    let rec = this.feed.listening ? await recoverState(this.deps, at).catch(() => undefined) : undefined;
    if (rec !== undefined && rec.lastSeq === at) this.feed.rewind(at, true);
    else {
      rec = await recoverState(this.deps);
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
      const feeding = this.feed.listening;
      for (const row of rows) {
        if (row.seq !== ex.lastSeq + 1) {
          this.stepDown(
            'journal gap',
            new RecoveryError(`journal gap: seq ${row.seq} follows ${ex.lastSeq}`),
          );
          return;
        }
        let r: CommandResult;
        try {
          r = ex.apply(row.cmd);
        } catch (err) {
          this.stepDown('journaled command threw on a replica', err);
          return;
        }
        if (!r.ok) {
          this.stepDown(
            'journaled command rejected on a replica',
            new RecoveryError(`seq ${row.seq} (${row.cmd.type}) rejected: ${r.code}`),
          );
          return;
        }
        this.lastTs = row.ts;
        if (feeding) this.feed.apply(row.cmd, r.events, row.seq);
      }
      const applied = ex.lastSeq;
      // Journal rows are committed: applied is durable here.
      this.feed.commit(applied);
      if (applied > this.knownTail) this.knownTail = applied;
      while (this.rung.length > 0 && this.rung[0]!.seq <= applied) this.rung.shift();
      this.wake();
      if (rows.length < FOLLOW_PAGE) return;
    }
  }

  /** Reads who leads now and where to forward commands. */
  async readLeader(): Promise<void> {
    const r = await this.deps.store.query<{ url: string | null; epoch: number }>(
      'SELECT url, epoch FROM cluster_leader WHERE id = 1',
    );
    const row = r.rows[0];
    if (this.mode === 'leader') return;
    this.leaderUrl = row?.url ?? undefined;
    this.epoch = row === undefined ? 0 : Number(row.epoch);
  }
}

/** Snapshot + journal; up to `toSeq` when given (a rebuild that keeps the stream continuous). */
async function recoverState(deps: ClusterNodeDeps, toSeq?: number): Promise<RecoveryResult<Exchange>> {
  return recover<Command, CommandResult, Exchange>(deps.store, () => new Exchange(), {
    isAccepted: (r) => r.ok,
    ...(toSeq !== undefined ? { toSeq } : {}),
  });
}

/** A command that could not be made durable answers 503 (outcome unknown, like a lost connection). */
function unavailable(err: unknown): unknown {
  if (err instanceof SequencerStoppedError) {
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      'The journal could not be written (the database is unreachable or this process lost the leadership); the command may or may not have been recorded: retry with the same clientOrderId',
      undefined,
      { 'retry-after': '1' },
    );
  }
  return err;
}
