// Paced replays (docs/stream.md "Replays and budgets"). A resume is read from its log in chunks
// (`chunkBytes`) by one pump that runs in its own turns of the event loop (at most REPLAY_SLICE_MS
// per turn, round robin between the replays under way), waits while the client's send buffer is
// above half its bound, and draws on byte budgets per second: the connection's, all connections'
// together, and for the public viewer credential also all public connections'. Until a replay has
// caught up with the log its subscription takes no live frames: frames released meanwhile are in
// the log and reach it in order. The position a subscription reports is always the last seq it was
// actually sent.

import { ByteBudget } from './budget.ts';
import type { BookSub, ChannelSub, Connection, Replay } from './connection.ts';
import { framesOf } from './lazy-frames.ts';
import type { StreamLog } from './log.ts';

/** The longest a pump turn may run. */
const REPLAY_SLICE_MS = 4;
/** How long a pump with nothing it may send waits before looking again. */
export const REPLAY_WAIT_MS = 10;

export interface ReplayOptions {
  maxBufferBytes: number;
  globalReplayBytesPerSec: number;
  publicGlobalReplayBytesPerSec: number;
  replayHorizonMs: number;
  replayStallMs: number;
  replayChunkBytes: number;
}

/** What the pump asks of the hub it serves. */
export interface ReplayHost {
  /** Journal seq released so far: a channel that caught up is current up to it. */
  readonly releasedJournalSeq: number;
  /** Frames sent (metrics). */
  delivered: number;
  /** Drops the subscription with resync_required naming its last seq sent. */
  resyncBook(s: BookSub): void;
  resyncChannel(c: Connection, sub: ChannelSub): void;
  /** A log no replay reads any more may leave its map when empty. */
  logReleased(log: StreamLog): void;
}

export class ReplayPump {
  private readonly replays = new Set<Replay>();
  private queued = false;
  private readonly globalBudget: ByteBudget;
  private readonly publicBudget: ByteBudget;

  constructor(
    private readonly host: ReplayHost,
    private readonly o: ReplayOptions,
    private readonly clock: () => number,
    private readonly schedule: (run: () => void, soon: boolean) => void,
  ) {
    const t = clock();
    this.globalBudget = new ByteBudget(o.globalReplayBytesPerSec, t);
    this.publicBudget = new ByteBudget(o.publicGlobalReplayBytesPerSec, t);
  }

  get size(): number {
    return this.replays.size;
  }

  /** Forgets every replay (the hub's state was rebuilt and every connection closed). */
  clear(): void {
    this.replays.clear();
  }

  /**
   * True when a replay of `log` after `fromSeq`, with the connection's replays already under way,
   * fits what the connection's budget sends within the replay horizon.
   */
  allowed(c: Connection, log: StreamLog, fromSeq: number): boolean {
    let backlog = log.bytesAfter(fromSeq);
    for (const r of c.replays.values()) backlog += r.log.bytesAfter(r.cursor);
    return backlog <= (c.budget.bytesPerSec * this.o.replayHorizonMs) / 1000;
  }

  /**
   * A snapshot is charged to its connection's budgets (and the public one): many snapshots delay
   * that connection's replays, and the public viewer's, but not everyone's.
   */
  chargeSnapshot(c: Connection, bytes: number): void {
    c.budget.spend(bytes);
    if (c.principal.public) this.publicBudget.spend(bytes);
  }

  /** Starts sending `log` after `fromSeq` to a book or channel subscription. */
  start(
    c: Connection,
    sub: { book: BookSub } | { channel: ChannelSub },
    log: StreamLog,
    fromSeq: number,
  ): void {
    const book = 'book' in sub ? sub.book : undefined;
    const channel = 'channel' in sub ? sub.channel : undefined;
    const key = book !== undefined ? book.key : channel!.spec.name;
    const r: Replay = { conn: c, book, channel, key, log, cursor: fromSeq, progressAt: this.clock() };
    if (book !== undefined) book.replaying = true;
    else channel!.catchingUp = true;
    c.replays.set(key, r);
    log.readers++;
    this.replays.add(r);
    // A short replay goes out at once (most resumes); the rest continue in the pump's turns.
    if (this.step(r, this.clock())) this.queue(true);
  }

  /** Stops a replay: its log may leave its map again. Live frames resume only through goLive(). */
  end(r: Replay): void {
    if (!this.replays.delete(r)) return;
    r.log.readers--;
    if (r.conn.replays.get(r.key) === r) r.conn.replays.delete(r.key);
    if (r.log.empty) this.host.logReleased(r.log);
  }

  private queue(soon: boolean): void {
    if (this.queued) return;
    this.queued = true;
    this.schedule(this.pump, soon);
  }

  /** One turn: a step of each replay in turn, for at most REPLAY_SLICE_MS. */
  private readonly pump = (): void => {
    this.queued = false;
    const t0 = this.clock();
    let progressed = false;
    for (const r of [...this.replays]) {
      if (!this.replays.has(r)) continue;
      // Round robin: the replay served now goes to the back of the line.
      this.replays.delete(r);
      this.replays.add(r);
      const before = r.cursor;
      this.step(r, this.clock());
      if (r.cursor !== before) progressed = true;
      if (this.clock() - t0 > REPLAY_SLICE_MS) {
        progressed = true;
        break;
      }
    }
    if (this.replays.size > 0) this.queue(progressed);
  };

  /**
   * Sends the next chunk of a replay if the client reads and the budgets allow; ends it when it has
   * caught up (live from then on), when the log lost entries it had yet to send, or when the client
   * stopped reading (both with resync_required naming the last seq sent). True while it goes on.
   */
  private step(r: Replay, now: number): boolean {
    const c = r.conn;
    if (c.closed || c.replays.get(r.key) !== r) {
      this.end(r);
      return false;
    }
    const log = r.log;
    if (!log.covers(r.cursor)) return this.lost(r);
    if (r.cursor >= log.lastSeq) return this.goLive(r);
    const bound = this.o.maxBufferBytes;
    if (c.socket.bufferedAmount > bound / 2) {
      // The client does not read: after a while its replay gives way (the log would not wait).
      if (now - r.progressAt > this.o.replayStallMs) return this.lost(r);
      return true;
    }
    if (!this.budgetsAllow(c, now)) {
      r.progressAt = now;
      return true;
    }
    let sent = 0;
    while (sent < this.o.replayChunkBytes && r.cursor < log.lastSeq) {
      const e = log.entryAfter(r.cursor)!;
      const frames = framesOf(e.frames);
      if (!c.trySendAll(frames, bound)) break;
      for (const f of frames) sent += f.length;
      this.host.delivered += frames.length;
      r.cursor = e.seq;
      if (r.book !== undefined) r.book.seq = e.seq;
      else r.channel!.seq = e.seq;
    }
    if (sent > 0) {
      r.progressAt = now;
      c.budget.spend(sent);
      this.globalBudget.spend(sent);
      if (c.principal.public) this.publicBudget.spend(sent);
    }
    if (r.cursor >= log.lastSeq) return this.goLive(r);
    return true;
  }

  private budgetsAllow(c: Connection, now: number): boolean {
    if (c.budget.available(now) <= 0 || this.globalBudget.available(now) <= 0) return false;
    return !c.principal.public || this.publicBudget.available(now) > 0;
  }

  /** Caught up with the log: from here on the subscription takes live frames. */
  private goLive(r: Replay): false {
    this.end(r);
    if (r.book !== undefined) r.book.replaying = false;
    else {
      r.channel!.catchingUp = false;
      // Nothing for this channel was released after the log's last entry.
      r.channel!.seq = this.host.releasedJournalSeq;
    }
    return false;
  }

  /** The replay cannot finish without a gap: resync_required names the last seq it sent. */
  private lost(r: Replay): false {
    this.end(r);
    if (r.book !== undefined) {
      r.book.replaying = false;
      this.host.resyncBook(r.book);
    } else this.host.resyncChannel(r.conn, r.channel!);
    return false;
  }
}
