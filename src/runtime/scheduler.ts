// Time enters the state machine only through commands: this module looks at the
// state and the clock and says which commands are due — GTT expiries and lock expiries (one
// `Expire` command covers both) and, when configured, OPEN_PREGAME → OPEN_INGAME at scheduledStart.
// The engine never reads a clock, so replaying the journal reproduces the same state.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { CommandInput } from './exchange-port.ts';

export interface ScheduleOptions {
  autoGoLive: boolean;
}

/** Commands due at `now`, given the state. Pure. */
export function dueCommands(reader: ExchangeReader, now: number, opts: ScheduleOptions): CommandInput[] {
  const out: CommandInput[] = [];
  let expire = false;
  const next = reader.nextExpiry();
  if (next !== null && next <= now) expire = true;
  const locks = reader.locks();
  for (const l of [locks.system, ...locks.events]) {
    if (l && l.expiresAt !== null && l.expiresAt <= now) expire = true;
  }
  if (expire) out.push({ type: 'Expire' });
  if (opts.autoGoLive) {
    // eventsSorted() is ordered by scheduledStart: stop at the first event still in the future.
    for (const ev of reader.eventsSorted()) {
      if (ev.scheduledStart > now) break;
      if (ev.type === 'Game' && ev.status === 'OPEN_PREGAME') {
        out.push({ type: 'SetEventStatus', eventId: ev.id, status: 'OPEN_INGAME' });
      }
    }
  }
  return out;
}
