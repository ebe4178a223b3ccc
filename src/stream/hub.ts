// The stream hub (docs/stream.md): subscriptions, retention and fan-out of the books and of the
// channels of the table (channels.ts), with no HTTP or WebSocket library in it (src/http/routes/
// tape.ts adapts a `ws` socket to StreamSocket).
//
// Feeding. `applied()` runs inside the sequencer's apply (right after the engine applied an
// accepted command) and takes its frames (serialized once, when first read: lazy-frames.ts); they
// wait in `pending` until `committed()` reports the commit that holds the command. Only then are
// they retained and sent: a tick never leaves before its command is durable, one source of truth.
//
// Snapshots. A `book` snapshot is read from the same in-memory state the REST book is, carrying the
// same book `seq`. When the book has applied-but-not-yet-durable changes, the snapshot is held until
// the commit of its seq releases it, so it never shows a state the journal might lose (subscribe.ts).
//
// Replays. A resume is sent from the log by the replay pump (replay.ts), paced and budgeted; until
// it has caught up the subscription takes no live frames. The position a connection reports
// (resync_required, heartbeats) is always the last seq it was actually sent.

import type { Id } from '../exchange/types.ts';
import { isoMillis } from '../wire/names.ts';
import { ByteBudget } from './budget.ts';
import { mayReadChannel } from './channel-access.ts';
import type { ChannelSpec, CommandFrames } from './channel-types.ts';
import { CHANNELS, channelIndex, PRIVATE_CHANNEL } from './channels.ts';
import { parseClientMessage } from './client-message.ts';
import {
  type BookSub,
  type ChannelSub,
  Connection,
  type Principalish,
  type StreamSocket,
} from './connection.ts';
import { type BookGroup, bookKey } from './frames.ts';
import { type HubLimits, type HubOptions, hubLimits, STREAM_DEFAULTS } from './hub-options.ts';
import { type Frames, framesOf } from './lazy-frames.ts';
import type { StreamLog } from './log.ts';
import { StreamLogs } from './logs.ts';
import { envelope, errorFrame, type StreamErrorCode } from './messages.ts';
import { REPLAY_WAIT_MS, ReplayPump } from './replay.ts';
import { isMarketId, subscribeBook, subscribeChannel } from './subscribe.ts';
import { Subscriptions } from './subscriptions.ts';

// The hub's API speaks of connections, sockets, principals and options.
export { Connection, type HubOptions, type Principalish, STREAM_DEFAULTS, type StreamSocket };

/** Close code when the stream's state was rebuilt without continuity (RFC 6455 registry: Service Restart). */
export const STREAM_RESET_CLOSE = 1012;

export class StreamHub {
  readonly reader: HubOptions['reader'];
  readonly now: () => number;
  readonly opts: HubLimits;
  private readonly clock: () => number;
  /** The channel table this hub serves, in release order, and by name. */
  readonly table: readonly ChannelSpec[];
  private readonly byName: ReadonlyMap<string, ChannelSpec>;
  /** Counts resync_required notices (the route wires it to /metrics). */
  onResync: HubOptions['onResync'];
  private pending: CommandFrames[] = [];
  private pendingHead = 0;
  /** Every log retained for resume (logs.ts). */
  readonly logs: StreamLogs;
  releasedJournalSeq: number;
  /** Journal seq of the last command whose frames arrived (released or pending). */
  private appliedJournalSeq: number;
  readonly subs = new Subscriptions();
  /** Open connections (metrics, tests). */
  get connections(): ReadonlySet<Connection> {
    return this.subs.connections;
  }
  private timer: NodeJS.Timeout | undefined;
  /** Frames sent, for the bench and metrics. */
  delivered = 0;
  readonly replays: ReplayPump;

  constructor(o: HubOptions) {
    this.reader = o.reader;
    this.now = o.now ?? Date.now;
    this.clock = o.clock ?? (() => performance.now());
    this.onResync = o.onResync;
    this.opts = hubLimits(o);
    this.table = o.channels ?? CHANNELS;
    this.byName = channelIndex(this.table);
    this.releasedJournalSeq = o.startSeq;
    this.appliedJournalSeq = o.startSeq;
    this.logs = new StreamLogs(this.opts, this.table, o.startSeq);
    const schedule =
      o.schedule ??
      ((run, soon) => {
        if (soon) setImmediate(run);
        else setTimeout(run, REPLAY_WAIT_MS).unref();
      });
    const host = {
      get releasedJournalSeq() {
        return hub.releasedJournalSeq;
      },
      get delivered() {
        return hub.delivered;
      },
      set delivered(n: number) {
        hub.delivered = n;
      },
      resyncBook: (s: BookSub) => this.resyncBook(s),
      resyncChannel: (c: Connection, sub: ChannelSub) => this.resyncChannel(c, sub),
      logReleased: (log: StreamLog) => this.logs.dropEmpty(log),
    };
    const hub = this;
    this.replays = new ReplayPump(host, this.opts, this.clock, schedule);
  }

  /** Trims every log by age and budget and drops the logs left empty (the heartbeat timer calls it). */
  sweep(): void {
    this.logs.sweep(this.now());
  }

  // ---------------------------------------------------------------- feeding

  /** An accepted command's frames, built right after apply; held until committed(). */
  applied(frames: CommandFrames): void {
    // A command is fed once; a second report of a seq (a feed re-wired at promotion) is ignored.
    if (frames.journalSeq <= this.appliedJournalSeq) return;
    this.appliedJournalSeq = frames.journalSeq;
    this.pending.push(frames);
    for (const g of frames.books) {
      this.logs.appliedBookSeq.set(g.key, g.seq);
      // The log exists from the first applied change on, so its lastSeq is always the released
      // (durable) seq — also while that first change still waits for its commit.
      this.logs.book(g.key, g.seq - 1);
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
    this.logs.appliedBookSeq.clear();
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
    this.replays.clear();
    this.releasedJournalSeq = seq;
    this.logs.reset(seq);
  }

  private release(f: CommandFrames, now: number): void {
    // Channels released before the books first (a go-live's EVENT_GOLIVE precedes its drain's CANCEL).
    for (const ch of this.table) if (ch.beforeBooks) this.releaseChannel(ch, f, now);
    for (const g of f.books) this.releaseBook(g, f.journalSeq, now);
    for (const ch of this.table) if (!ch.beforeBooks) this.releaseChannel(ch, f, now);
  }

  private releaseChannel(ch: ChannelSpec, f: CommandFrames, now: number): void {
    const out = f.channels.get(ch.name);
    if (out === undefined) return;
    const j = f.journalSeq;
    if (ch.kind === 'shared') {
      const frames = out as Frames;
      const conns = this.subs.of(ch.name);
      this.logs.channel(ch, null)!.appendFrames(j, j, now, frames, conns !== undefined);
      if (conns !== undefined) for (const c of conns) this.sendChannel(c, ch.name, framesOf(frames), j);
      return;
    }
    for (const [account, frames] of out as Map<Id, Frames>) {
      const conns = this.subs.ofAccount(ch.name, account);
      this.logs.account(ch, account).appendFrames(j, j, now, frames, conns !== undefined);
      if (conns !== undefined) for (const c of conns) this.sendChannel(c, ch.name, framesOf(frames), j);
    }
  }

  private releaseBook(g: BookGroup, journalSeq: number, now: number): void {
    const subs = this.subs.books.get(g.key);
    const log = this.logs.book(g.key, g.seq - 1);
    log.appendFrames(g.seq, journalSeq, now, g.frames, subs !== undefined);
    if (this.logs.appliedBookSeq.get(g.key) === g.seq) this.logs.appliedBookSeq.delete(g.key);
    if (subs === undefined) return;
    for (const s of subs) {
      if (s.replaying) continue;
      if (s.held !== undefined) {
        if (g.seq < s.held.seq) continue;
        const held = s.held;
        s.held = undefined;
        this.sendBook(s, [held.frame], held.seq);
        continue;
      }
      if (g.seq <= s.seq) continue;
      this.sendBook(s, framesOf(g.frames), g.seq);
    }
  }

  /** Sends a book subscription its frames up to `seq`, or drops it with resync_required. */
  sendBook(s: BookSub, frames: readonly string[], seq: number): boolean {
    if (!s.conn.trySendAll(frames, this.opts.maxBufferBytes)) {
      this.resyncBook(s);
      return false;
    }
    this.delivered += frames.length;
    s.seq = seq;
    return true;
  }

  private sendChannel(c: Connection, name: string, frames: readonly string[], journalSeq: number): void {
    const sub = c.channels.get(name)!;
    if (sub.catchingUp) return;
    if (!c.trySendAll(frames, this.opts.maxBufferBytes)) {
      this.resyncChannel(c, sub);
      return;
    }
    this.delivered += frames.length;
    sub.seq = journalSeq;
  }

  /**
   * The consumer fell behind on a book: say where to resume and drop the subscription. `s.seq` is
   * the last seq it was sent in full (a held snapshot never sent leaves it at 0, so the client
   * resubscribes and gets a snapshot).
   */
  resyncBook(s: BookSub): void {
    this.subs.dropBook(s);
    s.conn.sendControl(
      envelope('resync_required', { channel: s.marketId, currency: s.currency, fromSeq: s.seq }),
    );
    this.onResync?.('book');
  }

  private resyncChannel(c: Connection, sub: ChannelSub): void {
    const name = sub.spec.name;
    this.subs.dropChannel(c, name);
    c.sendControl(envelope('resync_required', { channel: name, fromSeq: sub.seq }));
    this.onResync?.(name);
  }

  // ---------------------------------------------------------------- connections

  connect(socket: StreamSocket, principal: Principalish): Connection {
    const rate = principal.public ? this.opts.publicReplayBytesPerSec : this.opts.replayBytesPerSec;
    const c = new Connection(this, socket, principal, new ByteBudget(rate, this.clock()));
    this.subs.connections.add(c);
    // Automatic channels: every token that may read its account gets them.
    for (const ch of this.table) {
      if (ch.kind === 'account' && ch.automatic && this.mayRead(c, ch)) {
        this.subs.addChannel(c, ch, this.releasedJournalSeq);
      }
    }
    return c;
  }

  disconnect(c: Connection): void {
    if (c.closed) return;
    c.closed = true;
    this.subs.dropAll(c);
  }

  mayRead(c: Connection, ch: ChannelSpec): boolean {
    return mayReadChannel(c.principal, ch);
  }

  // ---------------------------------------------------------------- client messages

  /** Parses and acts on one client frame; bad input answers an error frame, never throws. */
  handle(c: Connection, raw: string): void {
    const m = parseClientMessage(raw);
    if (m.kind === 'error') this.refuse(c, m.code, m.message);
    else if (m.kind === 'cancel_on_disconnect') this.onCancelOnDisconnect?.(c, m.data);
    else if (m.kind === 'unsubscribe') this.unsubscribe(c, m.channel, m.currency);
    else {
      const ch = this.byName.get(m.channel);
      if (ch !== undefined) subscribeChannel(this, c, ch, m.fromSeq);
      else subscribeBook(this, c, m.channel, m.currency, m.fromSeq);
    }
  }

  /** Set by the dead-man switch (tape.ts): `{"event":"cancel_on_disconnect","data":true|false}`. */
  onCancelOnDisconnect: ((c: Connection, data: boolean) => void) | undefined;

  refuse(c: Connection, code: StreamErrorCode, message: string): void {
    c.sendControl(errorFrame(code, message));
  }

  /** Every channel name of the table, for the refusal of an unknown one. */
  unknownChannelMessage(): string {
    return `Channels are ${this.table.map((ch) => ch.name).join(', ')} or a market id`;
  }

  /** True (after refusing) when `c` is at its subscription bound. */
  atBound(c: Connection): boolean {
    if (this.subs.count(c) < this.opts.maxSubscriptions) return false;
    const n = this.opts.maxSubscriptions;
    this.refuse(c, 'TOO_MANY_SUBSCRIPTIONS', `At most ${n} subscriptions per connection`);
    return true;
  }

  private unsubscribe(c: Connection, channel: string, currency: string): void {
    if (this.byName.has(channel)) {
      if (!c.channels.has(channel)) {
        this.refuse(c, 'NOT_SUBSCRIBED', `Not subscribed to ${channel}`);
        return;
      }
      this.subs.dropChannel(c, channel);
      c.sendControl(envelope('unsubscribed', { channel }));
      return;
    }
    const s = isMarketId(channel) ? c.books.get(bookKey(channel, currency as 'CASH')) : undefined;
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
      for (const ch of this.table) {
        const sub = c.channels.get(ch.name);
        if (sub === undefined) continue;
        // A channel with nothing pending for it is current up to the released journal seq; one
        // catching up is where its replay stands.
        const journalSeq = sub.catchingUp ? sub.seq : this.releasedJournalSeq;
        c.sendControl(envelope('heartbeat', { channel: ch.name, journalSeq, ts }));
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
    const set = this.subs.ofAccount(PRIVATE_CHANNEL, accountId);
    if (set !== undefined) for (const c of set) c.sendControl(frame);
  }

  /** Retained frames by log (`books`, each channel by name) and pending, for metrics and tests. */
  retained(): Record<string, number> {
    return { ...this.logs.frames(), pending: this.pending.length - this.pendingHead };
  }

  /** What retention holds against its budget, and how many book and account logs it keeps. */
  retention(): ReturnType<StreamLogs['usage']> {
    return this.logs.usage();
  }

  /** Replays under way (metrics, tests). */
  get replaysInFlight(): number {
    return this.replays.size;
  }
}
