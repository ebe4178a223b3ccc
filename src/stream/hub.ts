// The stream hub (docs/stream.md): channels, subscriptions, retention and fan-out, with no HTTP or
// WebSocket library in it (src/http/routes/tape.ts adapts a `ws` socket to StreamSocket).
//
// Feeding. `applied()` runs inside the sequencer's apply (right after the engine applied an
// accepted command) and serializes that command's frames once; they wait in `pending` until
// `committed()` reports the journal commit that holds the command. Only then are they retained and
// sent: a tick never leaves before its command is durable, and there is no second source of truth.
//
// Snapshots. A `book` snapshot is read from the same in-memory state the REST book is, carrying the
// same book `seq`. When the book has applied-but-not-yet-durable changes, the snapshot is held until
// the commit of its seq releases it, so it never shows a state the journal might lose.
//
// Replays. A resume is read from the log in chunks (`replayChunkBytes`) by one pump that runs in
// its own turns of the event loop (at most REPLAY_SLICE_MS per turn), waits while the client's send
// buffer is above half its bound, and draws on byte budgets per second: the connection's, all
// connections' together, and for the public viewer credential also all public connections'. Until
// it has caught up with the log, the subscription takes no live frames: frames released meanwhile
// are in the log and reach it in order. The position a connection reports (resync_required,
// heartbeats) is always the last seq it was actually sent.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Currency, Id } from '../exchange/types.ts';
import { bookToWire } from '../wire/book.ts';
import { isoMillis } from '../wire/names.ts';
import { ByteBudget } from './budget.ts';
import { parseClientMessage } from './client-message.ts';
import {
  type BookSub,
  Connection,
  type Global,
  type Principalish,
  type Replay,
  type StreamSocket,
} from './connection.ts';
import { type BookGroup, bookKey, type CommandFrames } from './frames.ts';
import { type LogKind, StreamLog } from './log.ts';
import { type BookSnapshot, envelope, errorFrame, type StreamErrorCode } from './messages.ts';
import { RetentionPool } from './retention.ts';
import { Subscriptions } from './subscriptions.ts';

// The hub's API speaks of connections, sockets and principals (connection.ts).
export { Connection, type Principalish, type StreamSocket };

export interface HubOptions {
  reader: () => ExchangeReader;
  /** Journal seq when the hub starts (everything up to it is durable). */
  startSeq: number;
  now?: () => number;
  /** Per-connection send-buffer bound, bytes. */
  maxBufferBytes?: number;
  retainFrames?: number;
  retainMs?: number;
  privateRetainFrames?: number;
  heartbeatMs?: number;
  maxSubscriptions?: number;
  /** Bytes every log together may retain (docs/stream.md "Retention"). */
  retainBytes?: number;
  /** Replay budget of one signed-in connection, bytes per second. */
  replayBytesPerSec?: number;
  /** Replay budget of one connection of the public viewer credential, bytes per second. */
  publicReplayBytesPerSec?: number;
  /** Replay budget of all connections together, bytes per second. */
  globalReplayBytesPerSec?: number;
  /** Replay budget of all public-viewer connections together, bytes per second. */
  publicGlobalReplayBytesPerSec?: number;
  /**
   * A resume whose replay (with the connection's replays already under way) would take longer than
   * this at the connection's budget is answered as one beyond retention.
   */
  replayHorizonMs?: number;
  /** A replay the client does not read for this long is dropped with resync_required. */
  replayStallMs?: number;
  /** Bytes one replay sends per step of the pump. */
  replayChunkBytes?: number;
  /** Clock of the budgets and the stall bound (ms, monotonic); `now` stamps retention. */
  clock?: () => number;
  /** Runs the replay pump later: `soon` in the next turn, else after a short wait (tests drive it). */
  schedule?: (run: () => void, soon: boolean) => void;
  /** Called once per resync_required sent (metrics). */
  onResync?: (channel: 'book' | 'tape' | 'lifecycle' | 'private') => void;
}

/** Close code when the stream's state was rebuilt without continuity (RFC 6455 registry: Service Restart). */
export const STREAM_RESET_CLOSE = 1012;

export const STREAM_DEFAULTS = {
  maxBufferBytes: 1 << 20,
  retainFrames: 100_000,
  retainMs: 10 * 60_000,
  privateRetainFrames: 10_000,
  heartbeatMs: 5_000,
  maxSubscriptions: 256,
  retainBytes: 64 * 1_048_576,
  replayBytesPerSec: 4 * 1_048_576,
  publicReplayBytesPerSec: 256 * 1024,
  globalReplayBytesPerSec: 16 * 1_048_576,
  publicGlobalReplayBytesPerSec: 1_048_576,
  replayHorizonMs: 10_000,
  replayStallMs: 30_000,
  replayChunkBytes: 64 * 1024,
} as const;

/** The longest a pump turn may run. */
const REPLAY_SLICE_MS = 4;
/** How long a pump with nothing it may send waits before looking again. */
const REPLAY_WAIT_MS = 10;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class StreamHub {
  private readonly reader: () => ExchangeReader;
  private readonly now: () => number;
  readonly opts: Required<
    Omit<HubOptions, 'reader' | 'now' | 'onResync' | 'startSeq' | 'clock' | 'schedule'>
  >;
  private readonly clock: () => number;
  private readonly schedule: (run: () => void, soon: boolean) => void;
  /** Counts resync_required notices (the route wires it to /metrics). */
  onResync: HubOptions['onResync'];
  private pending: CommandFrames[] = [];
  private pendingHead = 0;
  private readonly bookLogs = new Map<string, StreamLog>();
  /** Book seq of applied (not necessarily released) groups, for books with pending groups. */
  private readonly appliedBookSeq = new Map<string, number>();
  private tapeLog: StreamLog;
  private lifecycleLog: StreamLog;
  private readonly privateLogs = new Map<Id, StreamLog>();
  private startSeq: number;
  private releasedJournalSeq: number;
  /** Journal seq of the last command whose frames arrived (released or pending). */
  private appliedJournalSeq: number;
  private readonly subs = new Subscriptions();
  /** Open connections (metrics, tests). */
  get connections(): ReadonlySet<Connection> {
    return this.subs.connections;
  }
  private timer: NodeJS.Timeout | undefined;
  /** Frames sent, for the bench and metrics. */
  delivered = 0;
  private pool: RetentionPool;
  /** Logs the pool emptied that could not leave their map yet (pending frames, a replay reading). */
  private readonly emptied = new Set<StreamLog>();
  private readonly replays = new Set<Replay>();
  private pumpQueued = false;
  private readonly globalBudget: ByteBudget;
  private readonly publicBudget: ByteBudget;

  constructor(o: HubOptions) {
    this.reader = o.reader;
    this.now = o.now ?? Date.now;
    this.clock = o.clock ?? (() => performance.now());
    this.schedule =
      o.schedule ??
      ((run, soon) => {
        if (soon) setImmediate(run);
        else setTimeout(run, REPLAY_WAIT_MS).unref();
      });
    this.onResync = o.onResync;
    this.opts = {
      maxBufferBytes: o.maxBufferBytes ?? STREAM_DEFAULTS.maxBufferBytes,
      retainFrames: o.retainFrames ?? STREAM_DEFAULTS.retainFrames,
      retainMs: o.retainMs ?? STREAM_DEFAULTS.retainMs,
      privateRetainFrames: o.privateRetainFrames ?? STREAM_DEFAULTS.privateRetainFrames,
      heartbeatMs: o.heartbeatMs ?? STREAM_DEFAULTS.heartbeatMs,
      maxSubscriptions: o.maxSubscriptions ?? STREAM_DEFAULTS.maxSubscriptions,
      retainBytes: o.retainBytes ?? STREAM_DEFAULTS.retainBytes,
      replayBytesPerSec: o.replayBytesPerSec ?? STREAM_DEFAULTS.replayBytesPerSec,
      publicReplayBytesPerSec: o.publicReplayBytesPerSec ?? STREAM_DEFAULTS.publicReplayBytesPerSec,
      globalReplayBytesPerSec: o.globalReplayBytesPerSec ?? STREAM_DEFAULTS.globalReplayBytesPerSec,
      publicGlobalReplayBytesPerSec:
        o.publicGlobalReplayBytesPerSec ?? STREAM_DEFAULTS.publicGlobalReplayBytesPerSec,
      replayHorizonMs: o.replayHorizonMs ?? STREAM_DEFAULTS.replayHorizonMs,
      replayStallMs: o.replayStallMs ?? STREAM_DEFAULTS.replayStallMs,
      replayChunkBytes: o.replayChunkBytes ?? STREAM_DEFAULTS.replayChunkBytes,
    };
    this.startSeq = o.startSeq;
    this.releasedJournalSeq = o.startSeq;
    this.appliedJournalSeq = o.startSeq;
    this.pool = this.newPool();
    this.tapeLog = this.newLog(o.startSeq, 'tape', 'tape');
    this.lifecycleLog = this.newLog(o.startSeq, 'lifecycle', 'lifecycle');
    const t = this.clock();
    this.globalBudget = new ByteBudget(this.opts.globalReplayBytesPerSec, t);
    this.publicBudget = new ByteBudget(this.opts.publicGlobalReplayBytesPerSec, t);
  }

  private newPool(): RetentionPool {
    return new RetentionPool(this.opts.retainBytes, this.opts.retainMs, (log) => this.dropEmpty(log));
  }

  private newLog(floor: number, kind: LogKind, key: string): StreamLog {
    const frames = kind === 'private' ? this.opts.privateRetainFrames : this.opts.retainFrames;
    return new StreamLog(floor, frames, this.pool, kind, key);
  }

  /**
   * A book or account log trimmed to nothing leaves its map, so settled markets and idle accounts
   * cost nothing. Not while a command for it waits for its commit (its release appends there) or a
   * replay reads it; the sweep tries again.
   */
  private dropEmpty(log: StreamLog): void {
    if (log.kind === 'tape' || log.kind === 'lifecycle') return;
    const map = log.kind === 'book' ? this.bookLogs : this.privateLogs;
    if (!log.empty || map.get(log.key) !== log) {
      this.emptied.delete(log);
      return;
    }
    if (log.readers > 0 || (log.kind === 'book' && this.appliedBookSeq.has(log.key))) {
      this.emptied.add(log);
      return;
    }
    map.delete(log.key);
    this.emptied.delete(log);
  }

  /** Trims every log by age and budget and drops the logs left empty (the heartbeat timer calls it). */
  sweep(): void {
    this.pool.trim(this.now());
    for (const log of [...this.emptied]) this.dropEmpty(log);
  }

  // ---------------------------------------------------------------- feeding

  /** An accepted command's frames, built right after apply; held until committed(). */
  applied(frames: CommandFrames): void {
    // A command is fed once; a second report of a seq (a feed re-wired at promotion) is ignored.
    if (frames.journalSeq <= this.appliedJournalSeq) return;
    this.appliedJournalSeq = frames.journalSeq;
    this.pending.push(frames);
    for (const g of frames.books) {
      this.appliedBookSeq.set(g.key, g.seq);
      // The log exists from the first applied change on, so its lastSeq is always the released
      // (durable) seq — also while that first change still waits for its commit.
      if (!this.bookLogs.has(g.key)) this.bookLogs.set(g.key, this.newLog(g.seq - 1, 'book', g.key));
    }
  }

  /** The journal is durable up to `lastSeq`: release, retain and send what it covers. */
  committed(lastSeq: number): void {
    const now = this.now();
    while (this.pendingHead < this.pending.length) {
      const f = this.pending[this.pendingHead]!;
      if (f.journalSeq > lastSeq) break;
      this.pending[this.pendingHead++] = undefined as unknown as CommandFrames;
      this.release(f, now);
    }
    if (this.pendingHead === this.pending.length) {
      this.pending = [];
      this.pendingHead = 0;
    } else if (this.pendingHead > 4096) {
      this.pending = this.pending.slice(this.pendingHead);
      this.pendingHead = 0;
    }
    if (lastSeq > this.releasedJournalSeq) this.releasedJournalSeq = lastSeq;
    if (lastSeq > this.appliedJournalSeq) this.appliedJournalSeq = lastSeq;
  }

  /**
   * The state feeding the hub was rebuilt from the store at journal seq `seq` (a process that lost
   * PostgreSQL, docs/cluster.md). Continuous (`seq` is the released seq): only frames of commands
   * that never became durable are dropped, and subscriptions go on. Otherwise the commands between
   * the released seq and `seq` never produced frames: every connection is closed with 1012 and
   * retention starts over at `seq`, so a client reconnects and resumes by seq (with a reset where
   * the window is gone) instead of missing them silently.
   */
  rewind(seq: number, continuous: boolean): void {
    this.pending = [];
    this.pendingHead = 0;
    this.appliedBookSeq.clear();
    this.appliedJournalSeq = seq;
    if (continuous && seq === this.releasedJournalSeq) {
      // A held snapshot was read from a state that included the dropped commands.
      for (const subs of this.subs.books.values()) {
        for (const s of [...subs]) if (s.held !== undefined) this.resyncBook(s);
      }
      return;
    }
    for (const c of [...this.subs.connections]) {
      this.disconnect(c);
      c.socket.close(STREAM_RESET_CLOSE, 'stream state rebuilt: reconnect and resume by seq');
    }
    this.bookLogs.clear();
    this.privateLogs.clear();
    this.emptied.clear();
    this.replays.clear();
    this.startSeq = seq;
    this.releasedJournalSeq = seq;
    this.pool = this.newPool();
    this.tapeLog = this.newLog(seq, 'tape', 'tape');
    this.lifecycleLog = this.newLog(seq, 'lifecycle', 'lifecycle');
  }

  private release(f: CommandFrames, now: number): void {
    const j = f.journalSeq;
    // Lifecycle first: a go-live's EVENT_GOLIVE ticks precede its drain's CANCEL ticks.
    if (f.lifecycle.length > 0) {
      this.lifecycleLog.append({ seq: j, journalSeq: j, ts: now, frames: f.lifecycle });
      for (const c of this.subs.lifecycle) {
        if (!c.catchingUp.lifecycle) this.sendGlobal(c, 'lifecycle', f.lifecycle, j);
      }
    }
    if (f.books.length > 0) {
      const tapeFrames: string[] = [];
      for (const g of f.books) {
        this.releaseBook(g, j, now);
        for (const fr of g.frames) tapeFrames.push(fr);
      }
      this.tapeLog.append({ seq: j, journalSeq: j, ts: now, frames: tapeFrames });
      for (const c of this.subs.tape) if (!c.catchingUp.tape) this.sendGlobal(c, 'tape', tapeFrames, j);
    }
    for (const [account, frames] of f.private) {
      let log = this.privateLogs.get(account);
      if (log === undefined) {
        // An account whose earlier log was trimmed away may have lost entries up to the trim point.
        log = this.newLog(Math.max(this.startSeq, this.pool.trimmedJournalSeq), 'private', account);
        this.privateLogs.set(account, log);
      }
      log.append({ seq: j, journalSeq: j, ts: now, frames });
      const conns = this.subs.private.get(account);
      if (conns !== undefined) {
        for (const c of conns) if (!c.catchingUp.private) this.sendGlobal(c, 'private', frames, j);
      }
    }
  }

  private releaseBook(g: BookGroup, journalSeq: number, now: number): void {
    let log = this.bookLogs.get(g.key);
    if (log === undefined) {
      log = this.newLog(g.seq - 1, 'book', g.key);
      this.bookLogs.set(g.key, log);
    }
    log.append({ seq: g.seq, journalSeq, ts: now, frames: g.frames });
    if (this.appliedBookSeq.get(g.key) === g.seq) this.appliedBookSeq.delete(g.key);
    const subs = this.subs.books.get(g.key);
    if (subs === undefined) return;
    for (const s of subs) {
      if (s.replaying) continue;
      if (s.held !== undefined) {
        if (g.seq < s.held.seq) continue;
        const held = s.held;
        s.held = undefined;
        if (!s.conn.trySendAll([held.frame], this.opts.maxBufferBytes)) this.resyncBook(s);
        else {
          s.seq = held.seq;
          this.delivered++;
        }
        continue;
      }
      if (g.seq <= s.seq) continue;
      this.sendBook(s, g.frames, g.seq);
    }
  }

  private sendBook(s: BookSub, frames: readonly string[], seq: number): boolean {
    if (!s.conn.trySendAll(frames, this.opts.maxBufferBytes)) {
      this.resyncBook(s);
      return false;
    }
    this.delivered += frames.length;
    s.seq = seq;
    return true;
  }

  private sendGlobal(c: Connection, ch: Global, frames: readonly string[], journalSeq: number): boolean {
    if (!c.trySendAll(frames, this.opts.maxBufferBytes)) {
      this.resyncGlobal(c, ch);
      return false;
    }
    this.delivered += frames.length;
    c.globalSeq[ch] = journalSeq;
    return true;
  }

  /**
   * The consumer fell behind on a book: say where to resume and drop the subscription. `s.seq` is
   * the last seq it was sent in full (a held snapshot never sent leaves it at 0, so the client
   * resubscribes and gets a snapshot).
   */
  private resyncBook(s: BookSub): void {
    this.subs.dropBook(s);
    s.conn.sendControl(
      envelope('resync_required', { channel: s.marketId, currency: s.currency, fromSeq: s.seq }),
    );
    this.onResync?.('book');
  }

  private resyncGlobal(c: Connection, ch: Global): void {
    this.subs.dropGlobal(c, ch);
    c.sendControl(envelope('resync_required', { channel: ch, fromSeq: c.globalSeq[ch] }));
    this.onResync?.(ch);
  }

  // ---------------------------------------------------------------- connections

  connect(socket: StreamSocket, principal: Principalish): Connection {
    const rate = principal.public ? this.opts.publicReplayBytesPerSec : this.opts.replayBytesPerSec;
    const c = new Connection(this, socket, principal, new ByteBudget(rate, this.clock()));
    this.subs.connections.add(c);
    // The private channel is automatic for a token that may read its account.
    if (principal.accountId !== null && principal.scopes.has('read:trader')) {
      this.subs.addGlobal(c, 'private');
      c.globalSeq.private = this.releasedJournalSeq;
    }
    return c;
  }

  disconnect(c: Connection): void {
    if (c.closed) return;
    c.closed = true;
    this.subs.dropAll(c);
  }

  // ---------------------------------------------------------------- client messages

  /** Parses and acts on one client frame; bad input answers an error frame, never throws. */
  handle(c: Connection, raw: string): void {
    const m = parseClientMessage(raw);
    if (m.kind === 'error') c.sendControl(errorFrame(m.code, m.message));
    else if (m.kind === 'cancel_on_disconnect') this.onCancelOnDisconnect?.(c, m.data);
    else if (m.kind === 'subscribe') this.subscribe(c, m.channel, m.currency, m.fromSeq);
    else this.unsubscribe(c, m.channel, m.currency);
  }

  /** Set by the dead-man switch (tape.ts): `{"event":"cancel_on_disconnect","data":true|false}`. */
  onCancelOnDisconnect: ((c: Connection, data: unknown) => void) | undefined;

  private refuse(c: Connection, code: StreamErrorCode, message: string): void {
    c.sendControl(errorFrame(code, message));
  }

  private subscribe(c: Connection, channel: string, currency: Currency, fromSeq?: number): void {
    if (channel === 'private') {
      const a = c.principal.accountId;
      if (a === null || !c.principal.scopes.has('read:trader')) {
        this.refuse(c, 'INSUFFICIENT_SCOPE', 'The private channel requires the scope read:trader');
        return;
      }
      this.subscribeGlobal(c, 'private', fromSeq, this.privateLogs.get(a));
      return;
    }
    if (!c.principal.scopes.has('read:tape')) {
      this.refuse(c, 'INSUFFICIENT_SCOPE', 'Market channels require the scope read:tape');
      return;
    }
    if (channel === 'tape' || channel === 'lifecycle') {
      if (!c.tape && !c.lifecycle && this.subs.count(c) >= this.opts.maxSubscriptions) {
        this.refuse(
          c,
          'TOO_MANY_SUBSCRIPTIONS',
          `At most ${this.opts.maxSubscriptions} subscriptions per connection`,
        );
        return;
      }
      this.subscribeGlobal(c, channel, fromSeq, channel === 'tape' ? this.tapeLog : this.lifecycleLog);
      return;
    }
    const r = this.reader();
    const m = UUID.test(channel) ? r.market(channel) : undefined;
    if (m === undefined) {
      this.refuse(c, 'UNKNOWN_CHANNEL', 'Channels are tape, lifecycle, private or a market id');
      return;
    }
    const key = bookKey(m.id, currency);
    const existing = c.books.get(key);
    if (existing !== undefined) this.subs.dropBook(existing);
    else if (this.subs.count(c) >= this.opts.maxSubscriptions) {
      this.refuse(
        c,
        'TOO_MANY_SUBSCRIPTIONS',
        `At most ${this.opts.maxSubscriptions} subscriptions per connection`,
      );
      return;
    }
    const s: BookSub = { conn: c, key, marketId: m.id, currency, seq: 0 };
    this.subs.addBook(s);
    const log = this.bookLogs.get(key);
    const released = log?.lastSeq ?? r.bookSeq(m.id, currency);
    const pendingSeq = this.appliedBookSeq.get(key);
    if (fromSeq !== undefined && log?.covers(fromSeq) && this.replayAllowed(c, log, fromSeq)) {
      c.sendControl(envelope('subscribed', { channel: m.id, currency, replayed: log.countAfter(fromSeq) }));
      s.seq = fromSeq;
      this.startReplay(c, s, undefined, key, log, fromSeq);
      return;
    }
    if (fromSeq !== undefined && log === undefined && pendingSeq === undefined && fromSeq === released) {
      // Nothing changed since start and the client is already there.
      c.sendControl(envelope('subscribed', { channel: m.id, currency, replayed: 0 }));
      s.seq = fromSeq;
      return;
    }
    // Beyond retention, or a replay larger than the budget allows: a snapshot (one frame, as large
    // as the book) brings the client up to date instead.
    c.sendControl(envelope('subscribed', { channel: m.id, currency, replayed: 0 }));
    const wire = bookToWire(r, m, currency, this.now());
    const snap: BookSnapshot = { ...wire, currency, reset: fromSeq !== undefined };
    const frame = envelope('book', snap);
    this.chargeSnapshot(c, frame.length);
    if (pendingSeq !== undefined && pendingSeq > released) {
      s.held = { seq: wire.seq, frame };
      return;
    }
    if (!c.trySendAll([frame], this.opts.maxBufferBytes)) this.resyncBook(s);
    else {
      s.seq = wire.seq;
      this.delivered++;
    }
  }

  private subscribeGlobal(
    c: Connection,
    ch: Global,
    fromSeq: number | undefined,
    log: StreamLog | undefined,
  ): void {
    const wasReplaying = c.replays.get(ch);
    if (wasReplaying !== undefined) this.endReplay(wasReplaying);
    this.subs.addGlobal(c, ch);
    c.catchingUp[ch] = false;
    c.globalSeq[ch] = this.releasedJournalSeq;
    if (fromSeq === undefined) {
      c.sendControl(envelope('subscribed', { channel: ch, replayed: 0 }));
      return;
    }
    // A private log trimmed away (or never begun) held nothing after the trim point or the start.
    const covered =
      log === undefined
        ? fromSeq >= Math.max(this.startSeq, this.pool.trimmedJournalSeq) &&
          fromSeq <= this.releasedJournalSeq
        : log.covers(fromSeq);
    if (!covered || (log !== undefined && !this.replayAllowed(c, log, fromSeq))) {
      // No snapshot exists for these channels: say the window is lost (read REST history instead).
      c.sendControl(envelope('subscribed', { channel: ch, replayed: 0, reset: true }));
      return;
    }
    if (log === undefined) {
      c.sendControl(envelope('subscribed', { channel: ch, replayed: 0 }));
      return;
    }
    c.sendControl(envelope('subscribed', { channel: ch, replayed: log.countAfter(fromSeq) }));
    // Until the replay has sent it, nothing after fromSeq counts as delivered.
    c.globalSeq[ch] = fromSeq;
    c.catchingUp[ch] = true;
    this.startReplay(c, undefined, ch, ch, log, fromSeq);
  }

  // ---------------------------------------------------------------- replays

  /**
   * True when a replay of `log` after `fromSeq`, with the connection's replays already under way,
   * fits what the connection's budget sends within the replay horizon.
   */
  private replayAllowed(c: Connection, log: StreamLog, fromSeq: number): boolean {
    let backlog = log.bytesAfter(fromSeq);
    for (const r of c.replays.values()) backlog += r.log.bytesAfter(r.cursor);
    return backlog <= (c.budget.bytesPerSec * this.opts.replayHorizonMs) / 1000;
  }

  /** Charges replayed bytes to the budgets replays draw on. */
  private chargeReplay(c: Connection, bytes: number): void {
    c.budget.spend(bytes);
    this.globalBudget.spend(bytes);
    if (c.principal.public) this.publicBudget.spend(bytes);
  }

  /**
   * A snapshot is charged to its connection's budgets (and the public one): many snapshots delay
   * that connection's replays, and the public viewer's, but not everyone's.
   */
  private chargeSnapshot(c: Connection, bytes: number): void {
    c.budget.spend(bytes);
    if (c.principal.public) this.publicBudget.spend(bytes);
  }

  private startReplay(
    c: Connection,
    book: BookSub | undefined,
    channel: Global | undefined,
    key: string,
    log: StreamLog,
    fromSeq: number,
  ): void {
    const r: Replay = { conn: c, book, channel, key, log, cursor: fromSeq, progressAt: this.clock() };
    if (book !== undefined) book.replaying = true;
    c.replays.set(key, r);
    log.readers++;
    this.replays.add(r);
    // A short replay goes out at once (most resumes); the rest continue in the pump's turns.
    if (this.replayStep(r, this.clock())) this.schedulePump(true);
  }

  /** Stops a replay: its log may leave its map again. Live frames resume only through goLive(). */
  private endReplay(r: Replay): void {
    if (!this.replays.delete(r)) return;
    r.log.readers--;
    if (r.conn.replays.get(r.key) === r) r.conn.replays.delete(r.key);
    if (r.log.empty) this.dropEmpty(r.log);
  }

  private schedulePump(soon: boolean): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    this.schedule(this.pump, soon);
  }

  /** One turn: a step of each replay in turn, for at most REPLAY_SLICE_MS. */
  private readonly pump = (): void => {
    this.pumpQueued = false;
    const t0 = this.clock();
    let progressed = false;
    for (const r of [...this.replays]) {
      if (!this.replays.has(r)) continue;
      // Round robin: the replay served now goes to the back of the line.
      this.replays.delete(r);
      this.replays.add(r);
      const before = r.cursor;
      this.replayStep(r, this.clock());
      if (r.cursor !== before) progressed = true;
      if (this.clock() - t0 > REPLAY_SLICE_MS) {
        progressed = true;
        break;
      }
    }
    if (this.replays.size > 0) this.schedulePump(progressed);
  };

  /**
   * Sends the next chunk of a replay if the client reads and the budgets allow; ends it when it has
   * caught up (live from then on), when the log lost entries it had yet to send, or when the client
   * stopped reading (both with resync_required naming the last seq sent). True while it goes on.
   */
  private replayStep(r: Replay, now: number): boolean {
    const c = r.conn;
    if (c.closed || c.replays.get(r.key) !== r) {
      this.endReplay(r);
      return false;
    }
    const log = r.log;
    if (!log.covers(r.cursor)) return this.replayLost(r);
    if (r.cursor >= log.lastSeq) return this.goLive(r);
    const bound = this.opts.maxBufferBytes;
    if (c.socket.bufferedAmount > bound / 2) {
      // The client does not read: after a while its replay gives way (the log would not wait).
      if (now - r.progressAt > this.opts.replayStallMs) return this.replayLost(r);
      return true;
    }
    if (!this.budgetsAllow(c, now)) {
      r.progressAt = now;
      return true;
    }
    let sent = 0;
    while (sent < this.opts.replayChunkBytes && r.cursor < log.lastSeq) {
      const e = log.entryAfter(r.cursor)!;
      if (!c.trySendAll(e.frames, bound)) break;
      for (const f of e.frames) sent += f.length;
      this.delivered += e.frames.length;
      r.cursor = e.seq;
      if (r.book !== undefined) r.book.seq = e.seq;
      else c.globalSeq[r.channel!] = e.seq;
    }
    if (sent > 0) {
      r.progressAt = now;
      this.chargeReplay(c, sent);
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
    this.endReplay(r);
    if (r.book !== undefined) r.book.replaying = false;
    else {
      const ch = r.channel!;
      r.conn.catchingUp[ch] = false;
      // Nothing for this channel was released after the log's last entry.
      r.conn.globalSeq[ch] = this.releasedJournalSeq;
    }
    return false;
  }

  /** The replay cannot finish without a gap: resync_required names the last seq it sent. */
  private replayLost(r: Replay): false {
    this.endReplay(r);
    if (r.book !== undefined) {
      r.book.replaying = false;
      this.resyncBook(r.book);
    } else this.resyncGlobal(r.conn, r.channel!);
    return false;
  }

  private unsubscribe(c: Connection, channel: string, currency: Currency): void {
    if (channel === 'tape' || channel === 'lifecycle' || channel === 'private') {
      const on = channel === 'tape' ? c.tape : channel === 'lifecycle' ? c.lifecycle : c.private_;
      if (!on) {
        this.refuse(c, 'NOT_SUBSCRIBED', `Not subscribed to ${channel}`);
        return;
      }
      this.subs.dropGlobal(c, channel);
      c.sendControl(envelope('unsubscribed', { channel }));
      return;
    }
    const s = UUID.test(channel) ? c.books.get(bookKey(channel, currency)) : undefined;
    if (s === undefined) {
      this.refuse(c, 'NOT_SUBSCRIBED', `Not subscribed to ${channel} ${currency}`);
      return;
    }
    this.subs.dropBook(s);
    c.sendControl(envelope('unsubscribed', { channel: s.marketId, currency }));
  }

  // ---------------------------------------------------------------- heartbeats

  /** Sends every subscription its heartbeat with the latest seq (the timer calls it). */
  heartbeat(): void {
    const now = this.now();
    const ts = isoMillis(now);
    this.sweep();
    for (const c of this.subs.connections) {
      for (const s of c.books.values()) {
        if (s.held !== undefined) continue;
        c.sendControl(envelope('heartbeat', { channel: s.marketId, currency: s.currency, seq: s.seq, ts }));
      }
      for (const ch of ['tape', 'lifecycle', 'private'] as const) {
        const on = ch === 'tape' ? c.tape : ch === 'lifecycle' ? c.lifecycle : c.private_;
        if (!on) continue;
        // A channel with nothing pending for it is current up to the released journal seq; one
        // catching up is where its replay stands.
        const journalSeq = c.catchingUp[ch] ? c.globalSeq[ch] : this.releasedJournalSeq;
        c.sendControl(envelope('heartbeat', { channel: ch, journalSeq, ts }));
      }
    }
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.heartbeat(), this.opts.heartbeatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Sends a frame to every private-channel connection of an account (dead-man reports). */
  sendPrivate(accountId: Id, frame: string): void {
    const set = this.subs.private.get(accountId);
    if (set !== undefined) for (const c of set) c.sendControl(frame);
  }

  /** Retained frames, for metrics and the memory bound tests. */
  retained(): { books: number; tape: number; lifecycle: number; private: number; pending: number } {
    let books = 0;
    for (const l of this.bookLogs.values()) books += l.frames;
    let priv = 0;
    for (const l of this.privateLogs.values()) priv += l.frames;
    return {
      books,
      tape: this.tapeLog.frames,
      lifecycle: this.lifecycleLog.frames,
      private: priv,
      pending: this.pending.length - this.pendingHead,
    };
  }

  /** What retention holds against its budget, and how many book and account logs it keeps. */
  retention(): { bytes: number; budgetBytes: number; frames: number; bookLogs: number; privateLogs: number } {
    return {
      bytes: this.pool.bytes,
      budgetBytes: this.pool.budgetBytes,
      frames: this.pool.frames,
      bookLogs: this.bookLogs.size,
      privateLogs: this.privateLogs.size,
    };
  }

  /** Replays under way (metrics, tests). */
  get replaysInFlight(): number {
    return this.replays.size;
  }
}
