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
 * events queued. Past this many the rest waits for the next statement, which follows at the next
 * turn of the event loop, not after a pause.
 */
export const PROJECT_MAX_EVENTS = 8_000;

export async function readWatermark(q: Queryable): Promise<number> {
  const r = await q.query<{ seq: number | string }>('SELECT seq FROM projection_watermark WHERE name = $1', [
    NAME,
  ]);
  return r.rows[0] === undefined ? 0 : Number(r.rows[0].seq);
}

interface Queued {
  firstSeq: number;
  results: readonly CommandResult[];
  /** The commands' timestamps (ledger rows' createdAt), parallel to results. */
  stamps: readonly (number | undefined)[] | undefined;
}

export class HistoryProjector {
  private queue: Queued[] = [];
  /** Results of queue[0] already projected (a statement may end inside a committed batch). */
  private head = 0;
  private running = false;
  private waiters: { seq: number; resolve: () => void }[] = [];
  private retryMs = 0;
  private wake: (() => void) | undefined;
  private closed = false;
  /** Seqs projected (for /metrics and tests). */
  projected = 0;

  private readonly pauseMs: number;

  private constructor(
    private readonly store: Store,
    private wm: number,
    private readonly log?: Log,
  ) {
    this.pauseMs = store.sqlOnEventLoop ? PROJECT_PAUSE_MS.onEventLoop : PROJECT_PAUSE_MS.offEventLoop;
  }

  static async open(store: Store, log?: Log): Promise<HistoryProjector> {
    return new HistoryProjector(store, await readWatermark(store), log);
  }

  /** Last seq whose history rows are written. */
  get watermark(): number {
    return this.wm;
  }

  /** Queues the results of commands firstSeq.. (durable ones); seqs <= watermark are skipped. */
  enqueue(
    firstSeq: number,
    results: readonly CommandResult[],
    stamps?: readonly (number | undefined)[],
  ): void {
    if (firstSeq + results.length - 1 <= this.wm) return;
    this.queue.push({ firstSeq, results, stamps });
    this.kick();
  }

  /** Resolves once every seq up to `seq` is projected (read-your-writes for history reads). */
  waitFor(seq: number): Promise<void> {
    if (this.wm >= seq) return Promise.resolve();
    this.wake?.();
    return new Promise((resolve) => this.waiters.push({ seq, resolve }));
  }

  /** Resolves when the queue is empty. */
  async drain(): Promise<void> {
    const last = this.queue.at(-1);
    if (last !== undefined) await this.waitFor(last.firstSeq + last.results.length - 1);
  }

  async close(): Promise<void> {
    this.wake?.();
    await this.drain();
    this.closed = true;
  }

  private kick(): void {
    if (this.running || this.queue.length === 0 || this.closed) return;
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      // What is queued goes in one transaction, up to PROJECT_MAX_EVENTS: projection batches
      // itself under load, and a backlog is projected in several statements.
      const h = new HistoryBatch();
      let to = this.wm;
      let events = 0;
      let consumed = 0;
      let head = this.head;
      for (const q of this.queue) {
        for (; head < q.results.length && events < PROJECT_MAX_EVENTS; head++) {
          const seq = q.firstSeq + head;
          if (seq <= to) continue;
          if (seq !== to + 1) throw new Error(`projector gap: seq ${seq} after ${to}`);
          const r = q.results[head]!;
          if (r.ok) {
            h.add(seq, r.events, q.stamps?.[head]);
            events += r.events.length;
          }
          to = seq;
        }
        if (head < q.results.length) break;
        consumed++;
        head = 0;
      }
      try {
        if (to > this.wm) {
          // One statement, so its own transaction: the rows and the watermark together or neither.
          const { sql, params } = projectionStatement(h, NAME, to);
          await this.store.query(sql, params);
        }
      } catch (err) {
        // The journal holds these commands; history only lags. Retry with backoff (the read
        // barrier keeps history reads waiting until it catches up, see waitFor).
        this.retryMs = Math.min(5000, Math.max(50, this.retryMs * 2));
        this.log?.error({ err, retryMs: this.retryMs }, 'history projection failed; retrying');
        await new Promise((r) => setTimeout(r, this.retryMs));
        continue;
      }
      this.retryMs = 0;
      this.queue.splice(0, consumed);
      this.head = head;
      this.projected += to - this.wm;
      this.wm = to;
      const ready = this.waiters.filter((w) => w.seq <= to);
      this.waiters = this.waiters.filter((w) => w.seq > to);
      for (const w of ready) w.resolve();
      if (events >= PROJECT_MAX_EVENTS && this.queue.length > 0) {
        // a backlog: the next part at the next turn, after the requests that arrived meanwhile
        await new Promise<void>((resolve) => setImmediate(resolve));
      } else if (this.waiters.length === 0 && !this.closed) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.pauseMs);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
    this.running = false;
  }
}
