// Live data for one event page (docs/ui.md "Data"). Two sources behind one listener interface:
//
// - polling: getMarketsByEvent every 500 ms with If-None-Match (an unchanged book is a 304 without
//   a body), the event and the locks every 2 s; trades are inferred from volume changes between
//   answers (several fills between two polls print as one line);
// - stream: the WebSocket GET /tape through the page's TapeSocket (tape-socket.ts: the token as the
//   `access_token` query parameter, subscriptions kept across reconnects and paced under the
//   server's message limit), one subscription per market. Each subscription starts with
//   the book's snapshot; its ticks are applied to that book in the page (book-delta.ts), and a book
//   is read again over REST only when a tick is missing (a seq gap); `resync_required` subscribes
//   again, which brings a fresh snapshot. The ticks' taker fills print on the tape exactly; the
//   `lifecycle` channel reports market and event status changes. While the stream is up the REST
//   polls only back it up (every 30 s for books, 10 s for the event and locks), so a live page
//   costs a few requests a minute however fast the book moves.
//
// The stream is tried first; if the upgrade fails or the socket drops, the feed falls back to
// polling at once and tries the stream again after 30 s. The state shown is the one in use.

import {
  ApiError,
  type BookWire,
  type EventWire,
  getMarketData,
  type LocksWire,
  type MarketWire,
} from './api.ts';
import { BookSync, isTick } from './book-delta.ts';
import { learn } from './names.ts';
import { STREAM_CHANNELS } from './stream-channels.ts';
import { TapeSocket } from './tape-socket.ts';

export type ConnState = 'connecting' | 'stream' | 'polling' | 'error';

export interface Trade {
  key: string;
  at: number;
  marketId: string;
  market: string;
  outcome: string;
  price: number;
  qty: number;
  exact: boolean;
}

export interface Activity {
  key: string;
  at: number;
  text: string;
}

export interface FeedListener {
  markets(markets: MarketWire[], receivedAt: number): void;
  event(event: EventWire): void;
  locks(locks: LocksWire): void;
  trade(t: Trade): void;
  activity(a: Activity): void;
  state(s: ConnState, detail: string): void;
}

const BOOK_POLL_MS = 500;
const SLOW_POLL_MS = 2000;
const STREAM_RETRY_MS = 30_000;
const STREAM_SAFETY_POLL_MS = 30_000;
const STREAM_SLOW_POLL_MS = 10_000;

let keySeq = 0;
const key = () => String(++keySeq);

export class EventFeed {
  private stopped = false;
  private timers: ReturnType<typeof setTimeout>[] = [];
  private prev = new Map<string, MarketWire>();
  private prevEvent: EventWire | undefined;
  private prevLocks: string | undefined;
  private readonly socket: TapeSocket;
  private streaming = false;
  private inflight = 0;
  private requested = 0;
  private applied = 0;
  /** The books as the page shows them, kept current from the stream's ticks. */
  private readonly sync: BookSync;
  /** The markets in the order of the REST answer, each with its latest book. */
  private shown: MarketWire[] = [];
  /** Books being read again after a gap (one request per book at a time). */
  private readonly fetching = new Set<string>();
  /** REST requests made, for the page's own accounting and the browser test. */
  requests = 0;

  constructor(
    private readonly eventId: string,
    private readonly currency: string,
    private readonly l: FeedListener,
    private readonly useStream = true,
  ) {
    this.sync = new BookSync(currency);
    this.socket = new TapeSocket(
      (f) => this.onFrame(f),
      (up) => (up ? this.streamUp() : this.streamDown()),
      STREAM_RETRY_MS,
    );
  }

  start(): void {
    this.l.state('connecting', 'loading');
    void this.refreshBooks();
    void this.refreshSlow();
    this.loopBooks();
    this.loopSlow();
    if (this.useStream) this.socket.start();
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.socket.stop();
  }

  /** Refetch the books now (after the viewer's own order, or on a stream tick). */
  refreshNow(): Promise<void> {
    return this.refreshBooks(true);
  }

  private later(ms: number, f: () => void): void {
    if (this.stopped) return;
    this.timers.push(setTimeout(f, ms));
    if (this.timers.length > 64) this.timers = this.timers.slice(-8);
  }

  private loopBooks(): void {
    const ms = this.streaming ? STREAM_SAFETY_POLL_MS : BOOK_POLL_MS;
    this.later(ms, () => {
      // A hidden tab does not poll (the stream, when up, still delivers).
      if (document.visibilityState !== 'hidden') void this.refreshBooks();
      this.loopBooks();
    });
  }

  private loopSlow(): void {
    this.later(this.streaming ? STREAM_SLOW_POLL_MS : SLOW_POLL_MS, () => {
      if (document.visibilityState !== 'hidden') void this.refreshSlow();
      this.loopSlow();
    });
  }

  /**
   * Periodic polls skip while a fetch is in flight; a forced refresh (own action, stream tick) goes
   * at once. Answers are applied in request order: one overtaken by a later request is dropped, so
   * an old book never replaces a newer one.
   */
  private refreshBooks(force = false): Promise<void> {
    if (this.inflight > 0 && !force) return Promise.resolve();
    const gen = ++this.requested;
    this.inflight++;
    return (async () => {
      try {
        const path = `/nbx/v2/emm/events/getMarketsByEvent/${this.eventId}?currency=${this.currency}`;
        this.requests++;
        const r = await getMarketData<MarketWire[]>(path);
        if (this.stopped || gen < this.applied) return;
        this.applied = gen;
        if (!this.streaming) this.l.state('polling', `every ${BOOK_POLL_MS} ms`);
        if (r.changed) this.diff(r.body);
        this.merge(r.body);
        this.subscribeAll();
        this.l.markets(this.shown, Date.now());
      } catch (err) {
        if (!this.stopped) this.l.state('error', err instanceof Error ? err.message : String(err));
      } finally {
        this.inflight--;
      }
    })();
  }

  private async refreshSlow(): Promise<void> {
    try {
      this.requests += 2;
      const [ev, locks] = await Promise.all([
        getMarketData<EventWire>(`/nbx/v2/emm/events/${this.eventId}`),
        getMarketData<LocksWire>('/nbx/v2/emm/locks'),
      ]);
      if (this.stopped) return;
      if (this.prevEvent && this.prevEvent.status !== ev.body.status)
        this.l.activity({
          key: key(),
          at: Date.now(),
          text: `Event ${this.prevEvent.status} → ${ev.body.status}`,
        });
      this.prevEvent = ev.body;
      this.l.event(ev.body);
      const lockKey = JSON.stringify(locks.body);
      if (this.prevLocks !== undefined && this.prevLocks !== lockKey) {
        const locked = locks.body.systemLock !== null || locks.body.lockedEventIds.includes(this.eventId);
        this.l.activity({
          key: key(),
          at: Date.now(),
          text: locked
            ? 'Trading locked by the operator'
            : 'Locks changed: trading not locked for this event',
        });
      }
      this.prevLocks = lockKey;
      this.l.locks(locks.body);
    } catch (err) {
      if (!this.stopped && err instanceof ApiError && err.status === 404)
        this.l.state('error', 'This event does not exist');
    }
  }

  /** Status changes become activity lines; volume growth becomes a trade line (polling only). */
  private diff(markets: MarketWire[]): void {
    learn(markets);
    const now = Date.now();
    for (const m of markets) {
      const before = this.prev.get(m.id);
      if (before) {
        if (before.status !== m.status && !this.streaming)
          this.l.activity({ key: key(), at: now, text: `${m.description}: ${before.status} → ${m.status}` });
        const dv = m.volume - before.volume;
        const o = m.outcomes[0];
        if (dv > 0 && !this.streaming && o && o.last !== null)
          this.l.trade({
            key: key(),
            at: now,
            marketId: m.id,
            market: m.description,
            outcome: o.description,
            price: o.last,
            qty: dv,
            exact: false,
          });
      }
      this.prev.set(m.id, m);
    }
  }

  private streamUp(): void {
    this.streaming = true;
    this.l.state('stream', 'WebSocket /tape');
  }

  /** Every market of the page and the lifecycle channel; the socket subscribes what is new. */
  private subscribeAll(): void {
    if (this.useStream) this.socket.want([STREAM_CHANNELS.lifecycle, ...this.prev.keys()]);
  }

  /** The socket retries by itself (after STREAM_RETRY_MS); meanwhile the page polls. */
  private streamDown(): void {
    const was = this.streaming;
    this.streaming = false;
    if (this.stopped) return;
    this.l.state('polling', was ? 'stream lost, polling' : `every ${BOOK_POLL_MS} ms`);
  }

  /**
   * A REST answer against the books the stream keeps: a book the stream has carried further stays;
   * an older or missing one is replaced by the answer (and followed from there).
   */
  private merge(markets: MarketWire[]): void {
    this.shown = markets.map((m) => {
      const live = this.sync.isLive(m.id) ? this.sync.view(m.id) : undefined;
      if (live !== undefined && live.book.seq >= m.book.seq) return live;
      // A book being read again after a gap gets that answer, not this one.
      if (!this.fetching.has(m.id)) this.load(m);
      return m;
    });
  }

  private load(m: MarketWire): void {
    if (this.sync.load(m)) this.refetchBook(m.id);
  }

  private replace(m: MarketWire): void {
    this.shown = this.shown.map((x) => (x.id === m.id ? m : x));
  }

  private publish(): void {
    this.l.markets(this.shown, Date.now());
  }

  /** Read one book again over REST after a gap; its ticks wait in the sync meanwhile. */
  private refetchBook(marketId: string): void {
    if (this.fetching.has(marketId) || this.stopped) return;
    const base = this.shown.find((x) => x.id === marketId);
    if (base === undefined) return;
    this.fetching.add(marketId);
    this.requests++;
    void getMarketData<BookWire>(`/nbx/v2/emm/book/${marketId}?currency=${this.currency}`)
      .then((r) => {
        this.fetching.delete(marketId);
        if (this.stopped) return;
        const current = this.shown.find((x) => x.id === marketId) ?? base;
        this.load({ ...current, book: r.body });
        const v = this.sync.view(marketId);
        if (v !== undefined) {
          this.replace(v);
          this.publish();
        }
      })
      .catch(() => {
        this.fetching.delete(marketId);
        // Try again shortly: the ticks keep waiting in the sync until a book arrives.
        this.later(1000, () => this.refetchBook(marketId));
      });
  }

  private onFrame(frame: unknown): void {
    const f = frame as {
      type?: string;
      event?: string;
      data?: { channel?: string; marketId?: string } & Partial<BookWire>;
      eventId?: string;
      fills?: {
        price: number;
        qty: number;
        isTaker: boolean;
        outcomeId: string;
        marketId: string;
        id: string;
      }[];
      market?: { id: string; description: string; status?: string };
    };
    if (typeof f !== 'object' || f === null) return;
    if (f.event === 'book' && f.data?.marketId !== undefined) {
      // A subscription's snapshot: the book at its seq, ticks follow.
      const current = this.shown.find((x) => x.id === f.data?.marketId);
      if (current === undefined) return;
      this.load({ ...current, book: f.data as BookWire });
      const v = this.sync.view(current.id);
      if (v !== undefined) {
        this.replace(v);
        this.publish();
      }
    } else if (f.type === 'PLACE' || f.type === 'CANCEL') {
      for (const fill of f.fills ?? []) {
        // Both sides of a match arrive; the taker's side is the trade print.
        if (!fill.isTaker) continue;
        const m = this.shown.find((x) => x.id === fill.marketId);
        const o = m?.outcomes.find((x) => x.id === fill.outcomeId);
        this.l.trade({
          key: fill.id,
          at: Date.now(),
          marketId: fill.marketId,
          market: m?.description ?? f.market?.description ?? '',
          outcome: o?.description ?? '',
          price: fill.price,
          qty: fill.qty,
          exact: true,
        });
      }
      if (!isTick(f)) return;
      const step = this.sync.tick(f);
      for (const id of step.refetch) this.refetchBook(id);
      if (step.changed && f.market) {
        const v = this.sync.view(f.market.id);
        if (v !== undefined) {
          this.replace(v);
          this.publish();
        }
      }
    } else if (f.type && f.market && this.shown.some((x) => x.id === f.market?.id)) {
      // Lifecycle (OPEN, START, END, CLOSE, EVENT_GOLIVE, EVENT_UNLIVE) of one of this event's markets.
      this.l.activity({ key: key(), at: Date.now(), text: `${f.market.description}: ${f.type}` });
      void this.refreshBooks(true);
      void this.refreshSlow();
    } else if (f.event === 'resync_required' && f.data?.channel) {
      // The server dropped this subscription (we fell behind): subscribe again, which brings the
      // book's snapshot; its ticks wait until then.
      const ch = f.data.channel;
      if (this.shown.some((x) => x.id === ch)) this.sync.resync([ch]);
      this.l.activity({ key: key(), at: Date.now(), text: 'Stream fell behind: resynchronising' });
      this.socket.resubscribe(ch, false);
    }
  }
}
