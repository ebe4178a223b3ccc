// The history projector (docs/journal.md, "Projector"): follows the journal by seq and writes the
// history tables (orders, fills, ledger; migration 005) from the results of durable commands. The
// history never decides whether a command is durable — the journal alone does — and a crash
// between a journal sync and its projection is repaired on start: recovery replays from a
// snapshot no newer than the watermark and hands the results after it back to the projector.
//
// Idempotent by its watermark: the rows of a run of seqs and the new watermark are written in one
// SQL transaction, and seqs at or below the watermark are skipped, so nothing is projected twice
// (maker fills subtract from a row: a second application would be wrong, not just redundant).

import type { CommandResult } from '../exchange/types.ts';
import type { Log } from '../observability/log.ts';
import type { Queryable, Store } from '../store/types.ts';
import { HistoryBatch } from './history.ts';
import { projectionStatement } from './history-write.ts';

const NAME = 'history';
/**
 * Pause between projection statements while nobody waits for history (a history read, waitFor,
 * cuts it short). A statement has a fixed cost (on PGlite ~3–5 ms of CPU, its commit and WAL
 * writes) besides its rows, so projecting in larger runs costs less per command. Where the SQL
 * runs on the event loop (PGlite in the server's thread) the run is one synchronous stall of
 * every request, so it stays short there; elsewhere (PGlite's worker thread, PostgreSQL) it is
 * off the order's path and the longer pause saves CPU (docs/decisions.md "PGlite runs on a
 * worker thread by default").
 */
const PROJECT_PAUSE_MS = { onEventLoop: 20, offEventLoop: 100 };

/**
 * Most events one projection statement takes. Gathering the rows, building the statement and
 * handing its arrays to the SQL thread run on the event loop (≈ 1 µs an event), so a backlog in
 * one statement is one stall of every request: a market settling 100,000 parlays leaves ~300,000
 * events queued. Past this many the gathered rows are sealed into a statement of their own and
 * the rest goes to the next one, which follows at the next turn of the event loop, not after a
 * pause.
 */
export const PROJECT_MAX_EVENTS = 8_000;

/**
 * While deferring (see `deferWhile`), how often the projector looks again, ms, and the most events
 * it lets wait: past that it projects as if nothing were running, so rows held in memory stay
 * bounded (a market settling 100,000 parlays gathers ~300,000).
 */
const DEFER_POLL_MS = 10;
const DEFER_MAX_EVENTS = 50 * PROJECT_MAX_EVENTS;
/**
 * The longest one hold lasts before a statement is written anyway: a replica's history read cannot
 * wake this projector (it polls the watermark in SQL), so a long settlement must not stop the
 * history for its whole length.
 */
export const DEFER_MAX_MS = 1_000;

export async function readWatermark(q: Queryable): Promise<number> {
  const r = await q.query<{ seq: number | string }>('SELECT seq FROM projection_watermark WHERE name = $1', [
    NAME,
  ]);
  return r.rows[0] === undefined ? 0 : Number(r.rows[0].seq);
}

export class HistoryProjector {
  /**
   * The rows of the durable commands not yet handed to a statement, gathered as each commit is
   * enqueued: the events are read commit by commit, not all at once when the statement is made
   * (on the event loop that was one burst of every command since the last statement), and the
   * commands' results need not be kept until then.
   */
  private open = new HistoryBatch();
  /** Events gathered into `open`, which is sealed at PROJECT_MAX_EVENTS. */
  private openEvents = 0;
  /** Last seq gathered into `open` (or handed to a statement). */
  private gathered: number;
  /** Batches sealed full (a backlog), oldest first, each with its last seq: projected before `open`. */
  private sealed: { batch: HistoryBatch; to: number }[] = [];
  /**
   * A statement that failed: retried, alone and first, before `open` (its rows come earlier);
   * `tolerant` after a unique-key violation (history-write.ts, projectionStatement).
   */
  private failed: { batch: HistoryBatch; to: number; tolerant?: boolean } | undefined;
  /** A gap in the seqs enqueued: a bug upstream, thrown by the loop as it was when it projected. */
  private gap: Error | undefined;
  private running = false;
  private waiters: { seq: number; resolve: () => void }[] = [];
  private retryMs = 0;
  private wake: (() => void) | undefined;
  private closed = false;
  private deferring: () => boolean = () => false;
  /** Seqs projected (for /metrics and tests). */
  projected = 0;

  private readonly pauseMs: number;

  private constructor(
    private readonly store: Store,
    private wm: number,
    private readonly log?: Log,
  ) {
    this.pauseMs = store.sqlOnEventLoop ? PROJECT_PAUSE_MS.onEventLoop : PROJECT_PAUSE_MS.offEventLoop;
    this.gathered = wm;
  }

  static async open(store: Store, log?: Log): Promise<HistoryProjector> {
    return new HistoryProjector(store, await readWatermark(store), log);
  }

  /** Last seq whose history rows are written. */
  get watermark(): number {
    return this.wm;
  }

  /** Gathers the rows of commands firstSeq.. (durable ones); seqs already gathered are skipped. */
  enqueue(
    firstSeq: number,
    results: readonly CommandResult[],
    stamps?: readonly (number | undefined)[],
  ): void {
    if (firstSeq + results.length - 1 <= this.gathered || this.gap !== undefined) return;
    let to = this.gathered;
    for (let i = 0; i < results.length; i++) {
      const seq = firstSeq + i;
      if (seq <= to) continue;
      if (seq !== to + 1) {
        this.gap = new Error(`projector gap: seq ${seq} after ${to}`);
        break;
      }
      const r = results[i]!;
      if (r.ok) {
        this.open.add(seq, r.events, stamps?.[i]);
        this.openEvents += r.events.length;
      }
      to = seq;
      if (this.openEvents >= PROJECT_MAX_EVENTS) {
        this.sealed.push({ batch: this.open, to });
        this.open = new HistoryBatch();
        this.openEvents = 0;
      }
    }
    this.gathered = to;
    this.kick();
  }

  /**
   * Holds the projection back while `busy()` says so and no history read waits: the runtime's
   * parlay settlement, whose chunks are due back to back, and whose ~3 events a parlay the SQL
   * thread would otherwise write on the cores the chunks need (docs/journal.md "Projector").
   */
  deferWhile(busy: () => boolean): void {
    this.deferring = busy;
  }

  /** Resolves once every seq up to `seq` is projected (read-your-writes for history reads). */
  waitFor(seq: number): Promise<void> {
    if (this.wm >= seq) return Promise.resolve();
    this.wake?.();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /** Resolves when everything gathered is projected. */
  async drain(): Promise<void> {
    if (this.gathered > this.wm) await this.waitFor(this.gathered);
  }

  async close(): Promise<void> {
    this.wake?.();
    await this.drain();
    this.closed = true;
  }

  private kick(): void {
    if (this.running || (this.gathered <= this.wm && this.gap === undefined) || this.closed) return;
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    while (this.gathered > this.wm || this.gap !== undefined) {
      const heldSince = performance.now();
      while (this.mayDefer() && performance.now() - heldSince < DEFER_MAX_MS) await this.pause(DEFER_POLL_MS);
      // Everything gathered goes in one transaction (projection batches itself under load), a
      // backlog in statements of at most PROJECT_MAX_EVENTS events.
      let next: { batch: HistoryBatch; to: number; tolerant?: boolean } | undefined =
        this.failed ?? this.sealed.shift();
      const full = next !== undefined;
      if (next === undefined) {
        if (this.gathered <= this.wm) throw this.gap;
        next = { batch: this.open, to: this.gathered };
        this.open = new HistoryBatch();
        this.openEvents = 0;
      }
      try {
        // One statement, so its own transaction: the rows and the watermark together or neither.
        const { sql, params } = projectionStatement(next.batch, NAME, next.to, next.tolerant === true);
        await this.store.query(sql, params);
      } catch (err) {
        // The journal holds these commands; history only lags. Retry with backoff (the read
        // barrier keeps history reads waiting until it catches up, see waitFor).
        this.failed = next;
        // unique_violation: a key written before (an order id used again); the retry writes this
        // run as the upserting statement did.
        if ((err as { code?: unknown }).code === '23505') next.tolerant = true;
        this.retryMs = Math.min(5000, Math.max(50, this.retryMs * 2));
        this.log?.error({ err, retryMs: this.retryMs }, 'history projection failed; retrying');
        await new Promise((r) => setTimeout(r, this.retryMs));
        continue;
      }
      this.failed = undefined;
      this.retryMs = 0;
      const to = next.to;
      this.projected += to - this.wm;
      this.wm = to;
      const ready = this.waiters.filter((w) => w.seq <= to);
      this.waiters = this.waiters.filter((w) => w.seq > to);
      for (const w of ready) w.resolve();
      if (full && this.gathered > this.wm) {
        // a backlog: the next part at the next turn, after the requests that arrived meanwhile
        await new Promise<void>((resolve) => setImmediate(resolve));
      } else if (this.waiters.length === 0 && !this.closed) {
        await this.pause(this.pauseMs);
      }
    }
    this.running = false;
  }

  /** True while the projection may wait: something busy, no reader waiting, the backlog bounded. */
  private mayDefer(): boolean {
    if (this.waiters.length > 0 || this.closed || this.gap !== undefined || this.failed !== undefined)
      return false;
    return this.sealed.length * PROJECT_MAX_EVENTS + this.openEvents < DEFER_MAX_EVENTS && this.deferring();
  }

  /** Waits `ms`, or less if a history read (waitFor) or close() wakes it. */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
    this.wake = undefined;
  }
}
