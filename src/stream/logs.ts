// Every log the hub retains for resume (docs/stream.md "Resume and retention"): one per book, one
// per shared channel of the table (channels.ts), one per account of each account channel, all
// charging one retention pool (retention.ts). A book or account log trimmed to nothing leaves its
// map, so settled markets and idle accounts cost nothing.

import type { Id } from '../exchange/types.ts';
import type { ChannelSpec } from './channel-types.ts';
import type { HubLimits } from './hub-options.ts';
import { StreamLog } from './log.ts';
import { RetentionPool } from './retention.ts';

/** Entries one sweep evicts in a turn of the event loop (~1 µs each); the rest at the next turn. */
export const SWEEP_MAX_EVICTIONS = 20_000;

export class StreamLogs {
  readonly books = new Map<string, StreamLog>();
  /** Book seq of applied (not necessarily released) groups, for books with pending groups. */
  readonly appliedBookSeq = new Map<string, number>();
  /** Shared channel → its log. */
  private shared = new Map<string, StreamLog>();
  /** Account channel → account → its log. */
  private readonly accounts = new Map<string, Map<Id, StreamLog>>();
  private pool: RetentionPool;
  /** Logs the pool emptied that could not leave their map yet (pending frames, a replay reading). */
  private readonly emptied = new Set<StreamLog>();
  /** The rest of a sweep that stopped at SWEEP_MAX_EVICTIONS, scheduled for the next turn. */
  private sweeping: NodeJS.Immediate | undefined;

  constructor(
    private readonly opts: HubLimits,
    private readonly table: readonly ChannelSpec[],
    /** Journal seq retention began at (start, or the last rewind). */
    public startSeq: number,
  ) {
    this.pool = this.reset(startSeq);
  }

  /** Forgets everything: retention starts over at journal seq `seq`. */
  reset(seq: number): RetentionPool {
    this.books.clear();
    this.appliedBookSeq.clear();
    this.accounts.clear();
    this.emptied.clear();
    this.startSeq = seq;
    this.pool = new RetentionPool(this.opts.retainBytes, this.opts.retainMs, (log) => this.dropEmpty(log));
    this.shared = new Map();
    for (const ch of this.table) {
      if (ch.kind === 'shared') this.shared.set(ch.name, this.newLog(seq, ch.name, ch.name, ch));
    }
    return this.pool;
  }

  private newLog(floor: number, kind: string, key: string, spec?: ChannelSpec): StreamLog {
    return new StreamLog(floor, this.opts[spec?.retention ?? 'retainFrames'], this.pool, kind, key);
  }

  /** A book's log, begun at `floor` if it has none (its first change, applied or released). */
  book(key: string, floor: number): StreamLog {
    let log = this.books.get(key);
    if (log === undefined) {
      log = this.newLog(floor, 'book', key);
      this.books.set(key, log);
    }
    return log;
  }

  /** The log of a channel for `c`'s account (undefined: an account log trimmed away or never begun). */
  channel(ch: ChannelSpec, accountId: Id | null): StreamLog | undefined {
    if (ch.kind === 'shared') return this.shared.get(ch.name);
    return accountId === null ? undefined : this.accounts.get(ch.name)?.get(accountId);
  }

  /** An account's log of an account channel, begun where nothing before it can be vouched for. */
  account(ch: ChannelSpec, accountId: Id): StreamLog {
    let logs = this.accounts.get(ch.name);
    if (logs === undefined) {
      logs = new Map();
      this.accounts.set(ch.name, logs);
    }
    let log = logs.get(accountId);
    if (log === undefined) {
      // An account whose earlier log was trimmed away may have lost entries up to the trim point.
      log = this.newLog(this.missingFloor, ch.name, accountId, ch);
      logs.set(accountId, log);
    }
    return log;
  }

  /** A log that does not exist held nothing after this journal seq (the start, or the last trim). */
  get missingFloor(): number {
    return Math.max(this.startSeq, this.pool.trimmedJournalSeq);
  }

  /**
   * Drops an empty book or account log from its map. Not while a command for it waits for its
   * commit (its release appends there) or a replay reads it; the sweep tries again.
   */
  dropEmpty(log: StreamLog): void {
    const book = log.kind === 'book';
    const map = book ? this.books : this.accounts.get(log.kind);
    if (map === undefined) return;
    if (!log.empty || map.get(log.key) !== log) {
      this.emptied.delete(log);
      return;
    }
    if (log.readers > 0 || (book && this.appliedBookSeq.has(log.key))) {
      this.emptied.add(log);
      return;
    }
    map.delete(log.key);
    this.emptied.delete(log);
  }

  /**
   * Trims every log by age and budget and drops the logs left empty, SWEEP_MAX_EVICTIONS entries
   * a turn of the event loop: a burst (a settlement of 100,000 parlays appends some 200,000 private
   * entries) ages out all at once, and evicting it in one pass held the loop for ~100–170 ms.
   */
  sweep(now: number): void {
    const more = this.pool.trim(now, SWEEP_MAX_EVICTIONS);
    for (const log of [...this.emptied]) this.dropEmpty(log);
    if (more && this.sweeping === undefined)
      this.sweeping = setImmediate(() => {
        this.sweeping = undefined;
        this.sweep(now);
      }).unref();
  }

  /** Retained frames by log: `books`, then each channel by name. */
  frames(): Record<string, number> {
    let books = 0;
    for (const l of this.books.values()) books += l.frames;
    const out: Record<string, number> = { books };
    for (const ch of this.table) {
      let n = 0;
      if (ch.kind === 'shared') n = this.shared.get(ch.name)!.frames;
      else for (const l of this.accounts.get(ch.name)?.values() ?? []) n += l.frames;
      out[ch.name] = n;
    }
    return out;
  }

  /** What retention holds against its budget, and how many book and account logs it keeps. */
  usage(): { bytes: number; budgetBytes: number; frames: number; bookLogs: number; privateLogs: number } {
    let accountLogs = 0;
    for (const m of this.accounts.values()) accountLogs += m.size;
    return {
      bytes: this.pool.bytes,
      budgetBytes: this.pool.budgetBytes,
      frames: this.pool.frames,
      bookLogs: this.books.size,
      privateLogs: accountLogs,
    };
  }
}
