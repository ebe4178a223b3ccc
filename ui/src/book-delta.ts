// A market's book kept current from the stream's book ticks (docs/stream.md "Sequences: one per
// book, shared with REST"): the REST book at seq S plus every tick of seq S+1, S+2… in part order is
// the book at the last complete seq. The page applies ticks here instead of refetching the book on
// every frame; it asks the server again only when this says `gap` (a tick is missing) or when the
// server says `resync_required`.
//
// Pure data, no DOM and no network, so the unit tests drive it with hand-made frames.

import type { BookWire, LadderRow, Level, MarketWire } from './api.ts';

/** What the stream sends for a book change (the fields the page reads). */
export interface TickFrame {
  type: 'PLACE' | 'CANCEL';
  order: {
    id: string;
    price: number;
    qty: number;
    originalQty?: number;
    outcomeId: string;
    marketId: string;
    status: string;
    created_at: string;
    currency?: string;
  };
  fills: { id: string; orderId: string; price: number; qty: number; isTaker: boolean; outcomeId: string }[];
  market: { id: string; status?: string; volume: number };
  seq: number;
  part: number;
  parts: number;
}

export type ApplyResult = 'applied' | 'duplicate' | 'gap';

/** A frame with what applying a tick needs; anything else is not applied (and not trusted). */
export function isTick(f: unknown): f is TickFrame {
  if (typeof f !== 'object' || f === null) return false;
  const t = f as Partial<TickFrame>;
  return (
    (t.type === 'PLACE' || t.type === 'CANCEL') &&
    typeof t.seq === 'number' &&
    typeof t.part === 'number' &&
    typeof t.parts === 'number' &&
    typeof t.order?.id === 'string' &&
    typeof t.market?.id === 'string' &&
    Array.isArray(t.fills)
  );
}

/** Price to integer ticks of 0.001, so mirrored prices compare exactly. */
const toTick = (p: number) => Math.round(p * 1000);

/**
 * One book being followed. `seq` is the last complete seq; `part` the parts of the next seq
 * already applied (0 between commands). Ticks of another currency are not this book's.
 */
export class LiveBook {
  seq: number;
  private part = 0;
  private readonly ladders: Map<string, LadderRow[]>;

  constructor(
    private market: MarketWire,
    readonly currency: string,
  ) {
    this.seq = market.book.seq;
    this.ladders = new Map(
      market.book.outcomeLadders.map((l) => [l.outcomeId, l.bids.map((b) => ({ ...b }))]),
    );
  }

  /** True between commands: the book shown is a state the server also had. */
  get complete(): boolean {
    return this.part === 0;
  }

  apply(t: TickFrame): ApplyResult {
    if (t.order.currency !== undefined && t.order.currency !== this.currency) return 'duplicate';
    if (this.part === 0) {
      if (t.seq <= this.seq) return 'duplicate';
      if (t.seq !== this.seq + 1 || t.part !== 1) return 'gap';
    } else if (t.seq !== this.seq + 1 || t.part !== this.part + 1) {
      return t.seq === this.seq + 1 && t.part <= this.part ? 'duplicate' : 'gap';
    }
    if (t.type === 'PLACE') this.place(t);
    else this.remove(t.order.outcomeId, t.order.id);
    this.marketFields(t);
    if (t.part === t.parts) {
      this.seq = t.seq;
      this.part = 0;
    } else this.part = t.part;
    return 'applied';
  }

  /** The market as the REST read would show it now (a new object, for the renderer). */
  view(): MarketWire {
    const outcomes = this.market.outcomeIds;
    const levels = (outcome: string | undefined, flip: boolean): Level[] => {
      const out: Level[] = [];
      for (const b of this.ladders.get(outcome ?? '') ?? []) {
        const price = flip ? (1000 - toTick(b.price)) / 1000 : b.price;
        const last = out[out.length - 1];
        if (last !== undefined && last.price === price) last.qty += b.qty;
        else out.push({ price, qty: b.qty });
      }
      return out;
    };
    const book: BookWire = {
      bids: levels(outcomes[0], false),
      asks: levels(outcomes[1], true),
      outcomeLadders: outcomes.map((outcomeId) => ({
        outcomeId,
        bids: (this.ladders.get(outcomeId) ?? []).map((b) => ({ ...b })),
      })),
      seq: this.seq,
      asOf: new Date().toISOString(),
    };
    this.market = { ...this.market, book };
    return this.market;
  }

  private place(t: TickFrame): void {
    // Makers' resting orders shrink by what they gave; the taker's own side is not on a ladder.
    for (const f of t.fills) {
      if (f.isTaker) continue;
      const l = this.ladders.get(f.outcomeId);
      const i = l?.findIndex((b) => b.id === f.orderId) ?? -1;
      if (l === undefined || i < 0) continue;
      const row = l[i]!;
      row.qty -= f.qty;
      if (row.qty <= 0) l.splice(i, 1);
    }
    const o = t.order;
    const l = this.ladders.get(o.outcomeId);
    if (l === undefined) return;
    // An amend arrives as a PLACE of an order already on the ladder (docs/stream.md): less quantity
    // at the same price keeps its place; anything else leaves it and queues it again below.
    const was = l.findIndex((b) => b.id === o.id);
    if (was >= 0) {
      const row = l[was]!;
      if (o.status === 'RESTING' && o.qty > 0 && o.price === row.price && o.qty <= row.qty) {
        row.qty = o.qty;
        return;
      }
      l.splice(was, 1);
    }
    if (o.status !== 'RESTING' || o.qty <= 0) return;
    // Price priority then time: after every bid priced at or above it.
    let at = l.length;
    while (at > 0 && l[at - 1]!.price < o.price) at--;
    l.splice(at, 0, { id: o.id, price: o.price, qty: o.qty, created_at: o.created_at });
  }

  private remove(outcomeId: string, orderId: string): void {
    const l = this.ladders.get(outcomeId);
    const i = l?.findIndex((b) => b.id === orderId) ?? -1;
    if (l !== undefined && i >= 0) l.splice(i, 1);
  }

  /** Volume, status and each outcome's last trade price travel with the tick. */
  private marketFields(t: TickFrame): void {
    const last = new Map<string, number>();
    for (const f of t.fills) last.set(f.outcomeId, f.price);
    this.market = {
      ...this.market,
      volume: t.market.volume,
      status: t.market.status ?? this.market.status,
      outcomes:
        last.size === 0
          ? this.market.outcomes
          : this.market.outcomes.map((o) => (last.has(o.id) ? { ...o, last: last.get(o.id)! } : o)),
    };
  }
}

/** What the feed must do after a frame: nothing, or ask for these markets' books again. */
export interface SyncStep {
  changed: boolean;
  refetch: string[];
}

/**
 * Every followed book of one page. Ticks for a book being refetched wait in a buffer and are
 * applied on top of the fetched book (those it already contains are duplicates), so a frame that
 * arrives during the fetch is never lost and never applied twice.
 */
export class BookSync {
  private readonly books = new Map<string, LiveBook>();
  private readonly pending = new Map<string, TickFrame[]>();

  constructor(readonly currency: string) {}

  /**
   * A REST answer (getMarketsByEvent or the book read) is the truth at its seq; the buffered ticks
   * go on top. True when they do not join it (the fetched book is older than the first of them):
   * the book must be read once more, with the ticks from the gap on kept waiting.
   */
  load(m: MarketWire): boolean {
    const live = new LiveBook(m, this.currency);
    const waiting = this.pending.get(m.id) ?? [];
    this.pending.delete(m.id);
    this.books.set(m.id, live);
    for (let i = 0; i < waiting.length; i++) {
      if (live.apply(waiting[i]!) !== 'gap') continue;
      this.books.delete(m.id);
      this.pending.set(m.id, waiting.slice(i));
      return true;
    }
    return false;
  }

  has(marketId: string): boolean {
    return this.books.has(marketId) || this.pending.has(marketId);
  }

  /** Loaded and not waiting for a refetch. */
  isLive(marketId: string): boolean {
    return this.books.has(marketId) && !this.pending.has(marketId);
  }

  /** Drop the book and buffer its ticks until `load` brings a fresh one. */
  markStale(marketId: string): void {
    this.books.delete(marketId);
    if (!this.pending.has(marketId)) this.pending.set(marketId, []);
  }

  tick(t: TickFrame): SyncStep {
    const id = t.market.id;
    const waiting = this.pending.get(id);
    if (waiting !== undefined) {
      // Bounded: a fetch that never answers must not grow memory without end.
      if (waiting.length < 10_000) waiting.push(t);
      return { changed: false, refetch: [] };
    }
    const live = this.books.get(id);
    if (live === undefined) return { changed: false, refetch: [] };
    const r = live.apply(t);
    if (r === 'gap') {
      this.markStale(id);
      this.pending.get(id)!.push(t);
      return { changed: false, refetch: [id] };
    }
    return { changed: r === 'applied', refetch: [] };
  }

  /** The server dropped a subscription: every book of it must be read again. */
  resync(marketIds: readonly string[]): SyncStep {
    for (const id of marketIds) this.markStale(id);
    return { changed: false, refetch: [...marketIds] };
  }

  view(marketId: string): MarketWire | undefined {
    return this.books.get(marketId)?.view();
  }
}
