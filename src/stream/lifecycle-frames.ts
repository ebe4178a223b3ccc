// The `lifecycle` channel's frames (docs/stream.md "Messages"): market and event status changes of
// one applied command, read from the state right after it (so a tick's market is that command's).

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Id } from '../exchange/types.ts';
import type { FrameInput } from './channel-types.ts';
import type { LifecycleTick, LifecycleType } from './messages.ts';
import { tickMarket } from './messages.ts';

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

/** The commands that may change a market's or an event's status; every other (orders) has no frame. */
const LIFECYCLE_COMMANDS: ReadonlySet<string> = new Set([
  'CreateEvent',
  'AddMarkets',
  'SetMarketStatus',
  'SettleMarket',
  'SetEventStatus',
]);

export function lifecycleFrames({ reader: r, cmd, events, journalSeq }: FrameInput): string[] | undefined {
  // Runs for every accepted command: an order leaves before its list and closure are made.
  if (!LIFECYCLE_COMMANDS.has(cmd.type)) return undefined;
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
      return undefined;
  }
  return out.length > 0 ? out : undefined;
}
