// The signed-in trader's parlays kept current from the stream (docs/stream.md "Messages", docs/ui.md
// "Parlay bets"): the private channel carries `parlayQuote` for each quote on the trader's request and
// `parlayFill` / `parlayUpdate` (the REST parlay shape) for each parlay of the trader. REST reads a
// request or the list only to load it, when the stream has lost frames (the socket came up again, or
// `resync_required` on `private`), and as the fallback while the stream is down. The private channel's
// `journalSeq` counts every command of the exchange, not the account's, so a skipped number is no
// gap: the socket's state and `resync_required` are what say frames were lost.
//
// Pure logic, no DOM and no socket, so the unit tests drive it with hand-made frames and count reads.

import {
  isOpen,
  myParlays,
  type ParlayWire,
  type QuoteWire,
  type RequestWire,
  readRequest,
} from './parlay-bet.ts';

export type PrivateFrame =
  | { kind: 'quote'; quote: QuoteWire & { requestId: string } }
  | { kind: 'parlay'; parlay: ParlayWire }
  /** The server dropped the private subscription: frames were lost. */
  | { kind: 'resync' };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** A private-channel frame the parlay views read, or undefined for anything else. */
export function readPrivateFrame(f: unknown): PrivateFrame | undefined {
  if (!isObj(f) || !isObj(f.data)) return undefined;
  const d = f.data;
  if (f.event === 'parlayQuote') {
    if (typeof d.id !== 'string' || typeof d.requestId !== 'string' || typeof d.price !== 'number') return;
    if (typeof d.expiresAt !== 'string' || typeof d.createdAt !== 'string') return;
    return {
      kind: 'quote',
      quote: {
        id: d.id,
        requestId: d.requestId,
        price: d.price,
        maxQty: typeof d.maxQty === 'number' ? d.maxQty : 0,
        createdAt: d.createdAt,
        expiresAt: d.expiresAt,
      },
    };
  }
  if (f.event === 'parlayFill' || f.event === 'parlayUpdate') {
    if (typeof d.id !== 'string' || typeof d.status !== 'string' || !Array.isArray(d.legs)) return;
    return { kind: 'parlay', parlay: d as unknown as ParlayWire };
  }
  if (f.event === 'resync_required' && d.channel === 'private') return { kind: 'resync' };
  return undefined;
}

/** A quote on the followed request, by id (a frame seen twice, or also in a REST answer, counts once). */
export function withQuote(r: RequestWire, q: QuoteWire & { requestId: string }): RequestWire {
  if (q.requestId !== r.id || r.quotes.some((x) => x.id === q.id)) return r;
  const { requestId: _, ...quote } = q;
  return { ...r, quotes: [...r.quotes, quote] };
}

/**
 * How far a parlay has come: its legs are decided one by one and then it settles; it never goes
 * back. A frame or an answer that is behind what the page shows is older, whichever came last.
 */
export function progress(p: ParlayWire): number {
  let decided = 0;
  for (const l of p.legs) if (l.status !== 'TBD') decided++;
  return (p.status === 'OPEN' ? 0 : 1000) + decided;
}

export type ParlayFilter = '' | 'OPEN' | 'SETTLED';

/** The list with `p` in it (newest first; an older state of a shown parlay is ignored), filtered. */
export function withParlay(list: readonly ParlayWire[], p: ParlayWire, filter: ParlayFilter): ParlayWire[] {
  const i = list.findIndex((x) => x.id === p.id);
  if (i >= 0 && progress(list[i]!) > progress(p)) return list as ParlayWire[];
  const fits = filter === '' || p.status === filter;
  if (i >= 0) {
    const next = [...list];
    if (fits) next[i] = p;
    else next.splice(i, 1);
    return next;
  }
  if (!fits) return list as ParlayWire[];
  const next = [p, ...list];
  next.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  return next;
}

/**
 * A value loaded over REST and then kept current by frames. While a load is in flight the frames
 * are applied to what is shown and kept; the answer is the base and they go on top again (each
 * apply is idempotent), so a frame that arrives during the read is never lost. A load asked while
 * one is in flight runs once more after it: the first answer may predate the frames' loss.
 */
export class Follow<T, F> {
  value: T | undefined;
  /** REST reads made, for the tests and the page's own accounting. */
  reads = 0;
  private loading = false;
  private again = false;
  private kept: F[] = [];
  private stopped = false;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly apply: (v: T, f: F) => T,
    private readonly onChange: (v: T) => void,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  reload(): void {
    if (this.stopped) return;
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = true;
    this.kept = [];
    this.reads++;
    this.load().then(
      (v) => this.loaded(v),
      (e: unknown) => {
        this.loading = false;
        if (this.stopped) return;
        this.onError(e);
        if (this.again) {
          this.again = false;
          this.reload();
        }
      },
    );
  }

  /** A read unless one is in flight (a poll: the answer under way is as good). */
  poll(): void {
    if (!this.loading) this.reload();
  }

  /** Sets the value without a read (an answer the page already holds, such as a POST's). */
  set(v: T): void {
    this.value = v;
    this.onChange(v);
  }

  frame(f: F): void {
    if (this.stopped) return;
    if (this.loading) this.kept.push(f);
    if (this.value === undefined) return;
    const next = this.apply(this.value, f);
    if (next === this.value) return;
    this.set(next);
  }

  stop(): void {
    this.stopped = true;
  }

  private loaded(v: T): void {
    this.loading = false;
    if (this.stopped) return;
    let next = v;
    for (const f of this.kept) next = this.apply(next, f);
    this.kept = [];
    this.set(next);
    if (this.again) {
      this.again = false;
      this.reload();
    }
  }
}

/**
 * How a followed view reads while the stream is down: `poll` every `everyMs`, one read at a time
 * and the next `everyMs` after the previous answer. Stream up: no polling; coming up again is a
 * gap, so one read.
 */
export class StreamOrPoll {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private up: boolean | undefined;
  private stopped = false;

  constructor(
    private readonly poll: () => void,
    private readonly everyMs: number,
    /** Frames were lost: a read that starts after the subscription (a poll in flight may not). */
    private readonly gap: () => void = poll,
  ) {}

  /** The stream's state now and at each change (a first `true` is the load that follows its opening). */
  state(up: boolean): void {
    if (this.stopped || up === this.up) return;
    const was = this.up;
    this.up = up;
    if (up) {
      this.clear();
      // The frames between the last read and this subscription are nowhere else.
      if (was !== undefined) this.gap();
    } else this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    this.clear();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped || this.up) return;
      this.poll();
      this.schedule();
    }, this.everyMs);
  }
}

/** The account's private frames and the stream's state (account-stream.ts; a fake in the tests). */
export interface PrivateStream {
  /** Calls `onState` with the state now, then at each change; returns the unsubscribe. */
  listen(onFrame: (f: PrivateFrame) => void, onState: (up: boolean) => void): () => void;
}

type QuoteFrame = QuoteWire & { requestId: string };

/**
 * One open request of the slip: its quotes arrive as `parlayQuote` frames. Read again only when
 * frames were lost (the stream came back, or `resync_required`), or once a second while the stream
 * is down; never once the request is closed.
 */
export class RequestWatch {
  readonly follow: Follow<RequestWire, QuoteFrame>;
  private readonly fallback: StreamOrPoll;
  private readonly off: () => void;

  constructor(
    first: RequestWire,
    stream: PrivateStream,
    onChange: (r: RequestWire) => void,
    onError: (e: unknown) => void,
    read: (id: string) => Promise<RequestWire> = readRequest,
    private readonly now: () => number = Date.now,
    pollMs = 1000,
  ) {
    this.follow = new Follow(() => read(first.id), withQuote, onChange, onError);
    this.follow.set(first);
    this.fallback = new StreamOrPoll(
      () => this.readIfOpen(false),
      pollMs,
      () => this.readIfOpen(true),
    );
    this.off = stream.listen(
      (f) => {
        if (f.kind === 'quote') this.follow.frame(f.quote);
        else if (f.kind === 'resync') this.readIfOpen(true);
      },
      (up) => this.fallback.state(up),
    );
  }

  stop(): void {
    this.off();
    this.fallback.stop();
    this.follow.stop();
  }

  private readIfOpen(gap: boolean): void {
    const r = this.follow.value;
    if (r === undefined || !isOpen(r, this.now())) return;
    if (gap) this.follow.reload();
    else this.follow.poll();
  }
}

/**
 * "My parlays": loaded once, then each `parlayFill` and `parlayUpdate` frame changes its row. Read
 * again when frames were lost, every `pollMs` while the stream is down, and after the trader's own
 * placement only while the stream is down (up, its `parlayFill` brings it).
 */
export class ParlaysWatch {
  readonly follow: Follow<ParlayWire[], ParlayWire>;
  private readonly fallback: StreamOrPoll;
  private readonly off: () => void;
  private up = false;

  constructor(
    filter: ParlayFilter,
    stream: PrivateStream,
    onChange: (l: ParlayWire[]) => void,
    onError: (e: unknown) => void,
    list: (status?: 'OPEN' | 'SETTLED') => Promise<ParlayWire[]> = myParlays,
    pollMs = 5000,
  ) {
    this.follow = new Follow(
      () => list(filter === '' ? undefined : filter),
      (l, p) => withParlay(l, p, filter),
      onChange,
      onError,
    );
    this.follow.reload();
    this.fallback = new StreamOrPoll(
      () => this.follow.poll(),
      pollMs,
      () => this.follow.reload(),
    );
    this.off = stream.listen(
      (f) => {
        if (f.kind === 'parlay') this.follow.frame(f.parlay);
        else if (f.kind === 'resync') this.follow.reload();
      },
      (up) => {
        this.up = up;
        this.fallback.state(up);
      },
    );
  }

  /** The trader placed a parlay: the stream brings it; without the stream, read now. */
  placed(): void {
    if (!this.up) this.follow.reload();
  }

  stop(): void {
    this.off();
    this.fallback.stop();
    this.follow.stop();
  }
}
