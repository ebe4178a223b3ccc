// One applied command → the stream frames it produces (docs/stream.md "Messages"), serialized once
// here, read from the state right after that command was applied (so a tick's market volume and
// status are the ones that command left, not a later command's): the book ticks of every book it
// changed, then each channel's frames by its builder in the channel table (channels.ts).

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Command, Currency, DomainEvent, Fill, Id } from '../exchange/types.ts';
import type { BookGroup, ChannelFrames, ChannelSpec, CommandFrames, FrameInput } from './channel-types.ts';
import { CHANNELS } from './channels.ts';
import { type BookTick, tickFill, tickMarket, tickOrder } from './messages.ts';

export type { BookGroup, CommandFrames };

export const bookKey = (marketId: Id, currency: Currency): string => `${marketId}:${currency}`;

/** The ticks of every book the command changed (the engine bumps each one's seq once and says so). */
function bookGroups(r: ExchangeReader, events: readonly DomainEvent[], journalSeq: number): BookGroup[] {
  let changed:
    | Map<string, { marketId: Id; currency: Currency; ticks: Omit<BookTick, 'part' | 'parts'>[] }>
    | undefined;
  let fills: Fill[] | undefined;
  for (const e of events) {
    if (e.kind === 'BookChanged') {
      changed ??= new Map();
      changed.set(bookKey(e.marketId, e.currency), { marketId: e.marketId, currency: e.currency, ticks: [] });
    } else if (e.kind === 'OrderFilled') {
      fills ??= [];
      fills.push(e.fill);
    }
  }
  if (changed === undefined) return [];
  for (const e of events) {
    // An amended order is announced as a placement of its new state (docs/stream.md).
    if (e.kind !== 'OrderPlaced' && e.kind !== 'OrderAmended' && e.kind !== 'OrderCanceled') continue;
    const o = e.order;
    const g = changed.get(bookKey(o.marketId, o.currency));
    if (g === undefined) continue;
    const m = r.market(o.marketId);
    if (m === undefined) continue;
    const placed = e.kind !== 'OrderCanceled';
    const own = placed
      ? (fills?.filter((f) => f.marketId === o.marketId && f.currency === o.currency) ?? [])
      : [];
    g.ticks.push({
      type: placed ? 'PLACE' : 'CANCEL',
      order: tickOrder(o),
      fills: own.map(tickFill),
      market: tickMarket(m, o.currency),
      seq: 0,
      journalSeq,
    });
  }
  const books: BookGroup[] = [];
  for (const [key, g] of changed) {
    const seq = r.bookSeq(g.marketId, g.currency);
    const parts = g.ticks.length;
    const frames = g.ticks.map((t, i) => JSON.stringify({ ...t, seq, part: i + 1, parts }));
    books.push({ key, marketId: g.marketId, currency: g.currency, seq, frames });
  }
  return books;
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
    if (out !== undefined && (out instanceof Map ? out.size : out.length) > 0) channels.set(ch.name, out);
  }
  return { journalSeq, ts: cmd.ts, books, channels };
}
