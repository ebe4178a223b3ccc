// One applied command → the stream frames it produces (docs/stream.md "Messages"),
// serialized once here, read from the state right after that command was applied (so a tick's
// market volume and status are the ones that command left, not a later command's).

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Command, Currency, DomainEvent, Fill, Id } from '../exchange/types.ts';
import {
  type BookTick,
  envelope,
  type LifecycleTick,
  type LifecycleType,
  privateCancel,
  privateFill,
  privatePlace,
  tickFill,
  tickMarket,
  tickOrder,
} from './messages.ts';

export interface BookGroup {
  key: string;
  marketId: Id;
  currency: Currency;
  /** Book seq after the command. */
  seq: number;
  frames: string[];
}

export interface CommandFrames {
  journalSeq: number;
  ts: number;
  lifecycle: string[];
  books: BookGroup[];
  /** accountId → its private frames, in event order. */
  private: Map<Id, string[]>;
}

export const bookKey = (marketId: Id, currency: Currency): string => `${marketId}:${currency}`;

/** Lifecycle tick type for an event status change, or undefined when it is not one. */
function eventLifecycleType(from: string, to: string): LifecycleType | undefined {
  if (to === 'OPEN_INGAME') return 'EVENT_GOLIVE';
  if (from === 'OPEN_INGAME' && to === 'DELAYED') return 'EVENT_UNLIVE';
  if (to === 'OPEN_PREGAME') return 'START';
  if (to === 'CLOSED_PREGAME' || to === 'FINAL' || to === 'CANCELED') return 'END';
  return undefined;
}

function lifecycleFrame(
  r: ExchangeReader,
  type: LifecycleType,
  marketId: Id,
  journalSeq: number,
): string | undefined {
  const m = r.market(marketId);
  if (m === undefined) return undefined;
  const t: LifecycleTick = { type, market: tickMarket(m, 'CASH'), eventId: m.eventId, journalSeq };
  return JSON.stringify(t);
}

function lifecycleFrames(
  r: ExchangeReader,
  cmd: Command,
  events: DomainEvent[],
  journalSeq: number,
): string[] {
  const out: string[] = [];
  const push = (type: LifecycleType, marketId: Id) => {
    const f = lifecycleFrame(r, type, marketId, journalSeq);
    if (f !== undefined) out.push(f);
  };
  switch (cmd.type) {
    case 'CreateEvent':
      for (const m of cmd.markets) push('OPEN', m.id);
      break;
    case 'AddMarkets':
      for (const m of cmd.markets) push('OPEN', m.id);
      break;
    case 'SetMarketStatus':
      push(cmd.status === 'OPEN' ? 'OPEN' : 'CLOSE', cmd.marketId);
      break;
    case 'SettleMarket':
      push('CLOSE', cmd.marketId);
      break;
    case 'SetEventStatus':
      for (const e of events) {
        if (e.kind !== 'EventStatusChanged') continue;
        const type = eventLifecycleType(e.from, e.to);
        const ev = r.event(e.eventId);
        if (type === undefined || ev === undefined) continue;
        // One per open market; an event that ends also reports the markets it closed or voided.
        const ends = e.to === 'FINAL' || e.to === 'CANCELED';
        for (const mid of ev.marketIds) {
          if (ends || r.market(mid)?.status === 'OPEN') push(type, mid);
        }
      }
      break;
    default:
      break;
  }
  return out;
}

/** Builds every frame of one accepted command. */
export function commandFrames(
  r: ExchangeReader,
  cmd: Command,
  events: DomainEvent[],
  journalSeq: number,
): CommandFrames {
  const lifecycle = lifecycleFrames(r, cmd, events, journalSeq);
  // Books this command changed (the engine bumps each one's seq once per command and says so).
  let changed:
    | Map<string, { marketId: Id; currency: Currency; ticks: Omit<BookTick, 'part' | 'parts'>[] }>
    | undefined;
  let fills: Fill[] | undefined;
  const priv = new Map<Id, string[]>();
  const privPush = (accountId: Id, frame: string) => {
    const list = priv.get(accountId);
    if (list === undefined) priv.set(accountId, [frame]);
    else list.push(frame);
  };
  for (const e of events) {
    if (e.kind === 'BookChanged') {
      changed ??= new Map();
      changed.set(bookKey(e.marketId, e.currency), { marketId: e.marketId, currency: e.currency, ticks: [] });
    } else if (e.kind === 'OrderFilled') {
      fills ??= [];
      fills.push(e.fill);
    }
  }
  for (const e of events) {
    // An amended order is announced as a placement of its new state (docs/stream.md).
    if (e.kind === 'OrderPlaced' || e.kind === 'OrderAmended') {
      const o = e.order;
      privPush(o.accountId, envelope('place', privatePlace(o), { journalSeq }));
      const g = changed?.get(bookKey(o.marketId, o.currency));
      if (g !== undefined) {
        const m = r.market(o.marketId);
        if (m === undefined) continue;
        const own = fills?.filter((f) => f.marketId === o.marketId && f.currency === o.currency) ?? [];
        g.ticks.push({
          type: 'PLACE',
          order: tickOrder(o),
          fills: own.map(tickFill),
          market: tickMarket(m, o.currency),
          seq: 0,
          journalSeq,
        });
      }
    } else if (e.kind === 'OrderFilled') {
      privPush(e.fill.accountId, envelope('fill', privateFill(e.fill), { journalSeq }));
    } else if (e.kind === 'OrderCanceled') {
      const o = e.order;
      privPush(o.accountId, envelope('cancel', privateCancel(o), { journalSeq }));
      const g = changed?.get(bookKey(o.marketId, o.currency));
      if (g !== undefined) {
        const m = r.market(o.marketId);
        if (m === undefined) continue;
        g.ticks.push({
          type: 'CANCEL',
          order: tickOrder(o),
          fills: [],
          market: tickMarket(m, o.currency),
          seq: 0,
          journalSeq,
        });
      }
    }
  }
  const books: BookGroup[] = [];
  if (changed !== undefined) {
    for (const [key, g] of changed) {
      const seq = r.bookSeq(g.marketId, g.currency);
      const parts = g.ticks.length;
      const frames = g.ticks.map((t, i) => JSON.stringify({ ...t, seq, part: i + 1, parts }));
      books.push({ key, marketId: g.marketId, currency: g.currency, seq, frames });
    }
  }
  return { journalSeq, ts: cmd.ts, lifecycle, books, private: priv };
}
