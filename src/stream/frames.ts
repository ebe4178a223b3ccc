// One applied command → the stream frames it produces (docs/stream.md "Messages"), serialized once,
// read from the state right after that command was applied (so a tick's market volume and
// status are the ones that command left, not a later command's): the book ticks of every book it
// changed, then each channel's frames by its builder in the channel table (channels.ts). What the
// state says is read now; the text is made when first read (lazy-frames.ts).

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Command, Currency, DomainEvent, Fill, Id, OrderRecord } from '../exchange/types.ts';
import type { BookGroup, ChannelFrames, ChannelSpec, CommandFrames, FrameInput } from './channel-types.ts';
import { CHANNELS } from './channels.ts';
import { countOf, type Frames, LazyFrames } from './lazy-frames.ts';
import { type BookTick, type TickMarket, tickFill, tickMarket, tickOrder } from './messages.ts';

export type { BookGroup, CommandFrames };

/** Book keys by currency, then market, each made once (bounded: cleared past this many). */
const BOOK_KEYS = new Map<Currency, Map<Id, string>>();
const MAX_BOOK_KEYS = 100_000;

/**
 * A book's key, `marketId:currency`. Every order's ticks name their book, and the text made per
 * call (a concatenation, flattened again when a map hashes it) was an order's garbage: the key of
 * a book is the same string every time.
 */
export function bookKey(marketId: Id, currency: Currency): string {
  let byMarket = BOOK_KEYS.get(currency);
  if (byMarket === undefined) {
    byMarket = new Map();
    BOOK_KEYS.set(currency, byMarket);
  }
  let key = byMarket.get(marketId);
  if (key === undefined) {
    if (byMarket.size >= MAX_BOOK_KEYS) byMarket.clear();
    key = `${marketId}:${currency}`;
    byMarket.set(marketId, key);
  }
  return key;
}

/** A book tick as captured at apply time: the rest is records (its book's market is the group's). */
interface CapturedTick {
  type: 'PLACE' | 'CANCEL';
  order: OrderRecord;
  fills: readonly Fill[];
}

/**
 * Bytes of a book tick's text without its fills, and per fill (a tick with uuid ids, a market of
 * a usual description; measured on serialized ticks): the retention charge of ticks not built yet.
 */
const TICK_BYTES = 490;
const TICK_FILL_BYTES = 250;

/** A book the command changed: its ticks, and its market as the command left it (null: none). */
interface ChangedBook {
  key: string;
  marketId: Id;
  currency: Currency;
  ticks: CapturedTick[];
  market: TickMarket | null | undefined;
}

/**
 * One book's ticks of one command, serialized when first read. Its inputs are fields, not a
 * closure's context (lazy-frames.ts): every order makes one, and retention keeps it.
 */
class TickFrames extends LazyFrames {
  constructor(
    estimate: number,
    private ticks: readonly CapturedTick[],
    private readonly market: TickMarket,
    private readonly seq: number,
    private readonly journalSeq: number,
  ) {
    super(ticks.length, estimate);
  }

  protected override build(): string[] {
    return tickFrames(this.ticks, this.market, this.seq, this.journalSeq);
  }

  protected override release(): void {
    this.ticks = NO_TICKS;
  }
}

const NO_TICKS: readonly CapturedTick[] = [];

/** The ticks of every book the command changed (the engine bumps each one's seq once and says so). */
function bookGroups(r: ExchangeReader, events: readonly DomainEvent[], journalSeq: number): BookGroup[] {
  // An order changes one book: its group needs no map (nor a key string per lookup); a second
  // changed book (a settlement, a drain) makes one.
  let first: ChangedBook | undefined;
  let changed: Map<string, ChangedBook> | undefined;
  let fills: Fill[] | undefined;
  for (const e of events) {
    if (e.kind === 'BookChanged') {
      const key = bookKey(e.marketId, e.currency);
      const g: ChangedBook = {
        key,
        marketId: e.marketId,
        currency: e.currency,
        ticks: [],
        market: undefined,
      };
      if (first === undefined) first = g;
      else {
        changed ??= new Map([[first.key, first]]);
        changed.set(key, g);
      }
    } else if (e.kind === 'OrderFilled') {
      fills ??= [];
      fills.push(e.fill);
    }
  }
  if (first === undefined) return [];
  // A command's orders mostly share one book (a mass quote: up to twenty): its group and its
  // market are looked up once, and its ticks share the one market object read now.
  let last: ChangedBook | undefined;
  for (const e of events) {
    // An amended order is announced as a placement of its new state (docs/stream.md).
    if (e.kind !== 'OrderPlaced' && e.kind !== 'OrderAmended' && e.kind !== 'OrderCanceled') continue;
    const o = e.order;
    const g =
      last !== undefined && last.marketId === o.marketId && last.currency === o.currency
        ? last
        : changed !== undefined
          ? changed.get(bookKey(o.marketId, o.currency))
          : first.marketId === o.marketId && first.currency === o.currency
            ? first
            : undefined;
    if (g === undefined) continue;
    last = g;
    if (g.market === undefined) {
      // The market (its volume, its status) is read now: later commands move it.
      const m = r.market(o.marketId);
      g.market = m === undefined ? null : tickMarket(m, o.currency);
    }
    if (g.market === null) continue;
    const placed = e.kind !== 'OrderCanceled';
    const own = placed && fills !== undefined ? ownFills(fills, o) : NO_FILLS;
    g.ticks.push({ type: placed ? 'PLACE' : 'CANCEL', order: o, fills: own });
  }
  if (changed === undefined) return [bookGroup(r, first, journalSeq)];
  const books: BookGroup[] = [];
  for (const g of changed.values()) books.push(bookGroup(r, g, journalSeq));
  return books;
}

function bookGroup(r: ExchangeReader, g: ChangedBook, journalSeq: number): BookGroup {
  const seq = r.bookSeq(g.marketId, g.currency);
  const ticks = g.ticks;
  let estimate = 0;
  for (const t of ticks) estimate += TICK_BYTES + t.fills.length * TICK_FILL_BYTES;
  // No tick (its market gone): nothing to build, and no market to build it with.
  const frames: Frames =
    ticks.length === 0 || g.market == null
      ? NO_FRAMES
      : new TickFrames(estimate, ticks, g.market, seq, journalSeq);
  return { key: g.key, marketId: g.marketId, currency: g.currency, seq, frames };
}

const NO_FRAMES: readonly string[] = [];
const NO_FILLS: readonly Fill[] = [];

function ownFills(fills: readonly Fill[], o: OrderRecord): readonly Fill[] {
  let own: Fill[] | undefined;
  for (const f of fills) {
    if (f.marketId !== o.marketId || f.currency !== o.currency) continue;
    own ??= [];
    own.push(f);
  }
  return own ?? NO_FILLS;
}

/** The serialized ticks of one book: every tick carries the book's seq after the command. */
function tickFrames(
  ticks: readonly CapturedTick[],
  market: TickMarket,
  seq: number,
  journalSeq: number,
): string[] {
  const parts = ticks.length;
  return ticks.map((t, i) => {
    const tick: BookTick = {
      type: t.type,
      order: tickOrder(t.order),
      fills: t.fills.map(tickFill),
      market,
      seq,
      journalSeq,
      part: i + 1,
      parts,
    };
    return JSON.stringify(tick);
  });
}

/** Builds every frame of one accepted command: its book ticks, then each channel's. */
export function commandFrames(
  r: ExchangeReader,
  cmd: Command,
  events: readonly DomainEvent[],
  journalSeq: number,
  table: readonly ChannelSpec[] = CHANNELS,
): CommandFrames {
  const books = bookGroups(r, events, journalSeq);
  const input: FrameInput = { reader: r, cmd, events, journalSeq, books };
  const channels = new Map<string, ChannelFrames>();
  for (const ch of table) {
    const out = ch.build(input);
    if (out !== undefined && (out instanceof Map ? out.size : countOf(out)) > 0) channels.set(ch.name, out);
  }
  return { journalSeq, ts: cmd.ts, books, channels };
}
