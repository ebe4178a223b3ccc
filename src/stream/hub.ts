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

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Currency, Id } from '../exchange/types.ts';
import { bookToWire } from '../http/wire/book.ts';
import { isoMillis } from '../http/wire/names.ts';
import { parseClientMessage } from './client-message.ts';
import { type BookSub, Connection, type Global, type Principalish, type StreamSocket } from './connection.ts';
import { type BookGroup, bookKey, type CommandFrames } from './frames.ts';
import { StreamLog } from './log.ts';
import { type BookSnapshot, envelope, errorFrame, type StreamErrorCode } from './messages.ts';
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
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class StreamHub {
  private readonly reader: () => ExchangeReader;
  private readonly now: () => number;
  readonly opts: Required<Omit<HubOptions, 'reader' | 'now' | 'onResync' | 'startSeq'>>;
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

  constructor(o: HubOptions) {
    this.reader = o.reader;
    this.now = o.now ?? Date.now;
    this.onResync = o.onResync;
    this.opts = {
      maxBufferBytes: o.maxBufferBytes ?? STREAM_DEFAULTS.maxBufferBytes,
      retainFrames: o.retainFrames ?? STREAM_DEFAULTS.retainFrames,
      retainMs: o.retainMs ?? STREAM_DEFAULTS.retainMs,
      privateRetainFrames: o.privateRetainFrames ?? STREAM_DEFAULTS.privateRetainFrames,
      heartbeatMs: o.heartbeatMs ?? STREAM_DEFAULTS.heartbeatMs,
      maxSubscriptions: o.maxSubscriptions ?? STREAM_DEFAULTS.maxSubscriptions,
    };
    this.startSeq = o.startSeq;
    this.releasedJournalSeq = o.startSeq;
    this.appliedJournalSeq = o.startSeq;
    this.tapeLog = new StreamLog(o.startSeq, this.opts.retainFrames, this.opts.retainMs);
    this.lifecycleLog = new StreamLog(o.startSeq, this.opts.retainFrames, this.opts.retainMs);
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
      if (!this.bookLogs.has(g.key)) {
        this.bookLogs.set(g.key, new StreamLog(g.seq - 1, this.opts.retainFrames, this.opts.retainMs));
      }
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
    this.startSeq = seq;
    this.releasedJournalSeq = seq;
    this.tapeLog = new StreamLog(seq, this.opts.retainFrames, this.opts.retainMs);
    this.lifecycleLog = new StreamLog(seq, this.opts.retainFrames, this.opts.retainMs);
  }

  private release(f: CommandFrames, now: number): void {
    const j = f.journalSeq;
    // Lifecycle first: a go-live's EVENT_GOLIVE ticks precede its drain's CANCEL ticks.
    if (f.lifecycle.length > 0) {
      this.lifecycleLog.append({ seq: j, journalSeq: j, ts: now, frames: f.lifecycle }, now);
      for (const c of this.subs.lifecycle) this.sendGlobal(c, 'lifecycle', f.lifecycle, j);
    }
    if (f.books.length > 0) {
      const tapeFrames: string[] = [];
      for (const g of f.books) {
        this.releaseBook(g, j, now);
        for (const fr of g.frames) tapeFrames.push(fr);
      }
      this.tapeLog.append({ seq: j, journalSeq: j, ts: now, frames: tapeFrames }, now);
      for (const c of this.subs.tape) this.sendGlobal(c, 'tape', tapeFrames, j);
    }
    for (const [account, frames] of f.private) {
      let log = this.privateLogs.get(account);
      if (log === undefined) {
        log = new StreamLog(this.startSeq, this.opts.privateRetainFrames, this.opts.retainMs);
        this.privateLogs.set(account, log);
      }
      log.append({ seq: j, journalSeq: j, ts: now, frames }, now);
      const conns = this.subs.private.get(account);
      if (conns !== undefined) for (const c of conns) this.sendGlobal(c, 'private', frames, j);
    }
  }

  private releaseBook(g: BookGroup, journalSeq: number, now: number): void {
    const log = this.bookLogs.get(g.key)!;
    log.append({ seq: g.seq, journalSeq, ts: now, frames: g.frames }, now);
    if (this.appliedBookSeq.get(g.key) === g.seq) this.appliedBookSeq.delete(g.key);
    const subs = this.subs.books.get(g.key);
    if (subs === undefined) return;
    for (const s of subs) {
      if (s.held !== undefined) {
        if (g.seq < s.held.seq) continue;
        const held = s.held;
        s.held = undefined;
        s.seq = held.seq;
        if (!s.conn.trySend(held.frame, this.opts.maxBufferBytes)) this.resyncBook(s);
        else this.delivered++;
        continue;
      }
      if (g.seq <= s.seq) continue;
      this.sendBook(s, g.frames, g.seq);
    }
  }

  private sendBook(s: BookSub, frames: readonly string[], seq: number): boolean {
    const bound = this.opts.maxBufferBytes;
    for (const fr of frames) {
      if (!s.conn.trySend(fr, bound)) {
        this.resyncBook(s);
        return false;
      }
    }
    this.delivered += frames.length;
    s.seq = seq;
    return true;
  }

  private sendGlobal(c: Connection, ch: Global, frames: readonly string[], journalSeq: number): boolean {
    const bound = this.opts.maxBufferBytes;
    for (const fr of frames) {
      if (!c.trySend(fr, bound)) {
        this.resyncGlobal(c, ch);
        return false;
      }
    }
    this.delivered += frames.length;
    c.globalSeq[ch] = journalSeq;
    return true;
  }

  /** The consumer fell behind on a book: say where to resume and drop the subscription. */
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
    const c = new Connection(this, socket, principal);
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
    if (fromSeq !== undefined && log?.covers(fromSeq)) {
      let replayed = 0;
      const frames: string[] = [];
      let last = fromSeq;
      for (const e of log.after(fromSeq)) {
        for (const f of e.frames) frames.push(f);
        replayed++;
        last = e.seq;
      }
      c.sendControl(envelope('subscribed', { channel: m.id, currency, replayed }));
      s.seq = fromSeq;
      this.sendBook(s, frames, last);
      return;
    }
    if (fromSeq !== undefined && log === undefined && pendingSeq === undefined && fromSeq === released) {
      // Nothing changed since start and the client is already there.
      c.sendControl(envelope('subscribed', { channel: m.id, currency, replayed: 0 }));
      s.seq = fromSeq;
      return;
    }
    c.sendControl(envelope('subscribed', { channel: m.id, currency, replayed: 0 }));
    const wire = bookToWire(r, m, currency, this.now());
    const snap: BookSnapshot = { ...wire, currency, reset: fromSeq !== undefined };
    const frame = envelope('book', snap);
    if (pendingSeq !== undefined && pendingSeq > released) {
      s.held = { seq: wire.seq, frame };
      return;
    }
    s.seq = wire.seq;
    if (!c.trySend(frame, this.opts.maxBufferBytes)) this.resyncBook(s);
    else this.delivered++;
  }

  private subscribeGlobal(
    c: Connection,
    ch: Global,
    fromSeq: number | undefined,
    log: StreamLog | undefined,
  ): void {
    this.subs.addGlobal(c, ch);
    c.globalSeq[ch] = this.releasedJournalSeq;
    if (fromSeq === undefined) {
      c.sendControl(envelope('subscribed', { channel: ch, replayed: 0 }));
      return;
    }
    // The private log starts at the hub's start when the account had no event since.
    const covered =
      log === undefined
        ? fromSeq >= this.startSeq && fromSeq <= this.releasedJournalSeq
        : log.covers(fromSeq);
    if (!covered) {
      // No snapshot exists for these channels: say the window is lost (read REST history instead).
      c.sendControl(envelope('subscribed', { channel: ch, replayed: 0, reset: true }));
      return;
    }
    const frames: string[] = [];
    let replayed = 0;
    if (log !== undefined) {
      for (const e of log.after(fromSeq)) {
        for (const f of e.frames) frames.push(f);
        replayed++;
      }
    }
    c.sendControl(envelope('subscribed', { channel: ch, replayed }));
    this.sendGlobal(c, ch, frames, this.releasedJournalSeq);
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
    this.tapeLog.evict(now);
    this.lifecycleLog.evict(now);
    for (const c of this.subs.connections) {
      for (const s of c.books.values()) {
        if (s.held !== undefined) continue;
        c.sendControl(envelope('heartbeat', { channel: s.marketId, currency: s.currency, seq: s.seq, ts }));
      }
      for (const ch of ['tape', 'lifecycle', 'private'] as const) {
        const on = ch === 'tape' ? c.tape : ch === 'lifecycle' ? c.lifecycle : c.private_;
        if (!on) continue;
        // A channel with nothing pending for it is current up to the released journal seq.
        c.sendControl(envelope('heartbeat', { channel: ch, journalSeq: this.releasedJournalSeq, ts }));
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
}
