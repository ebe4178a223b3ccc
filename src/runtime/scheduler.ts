// Time enters the state machine only through commands: this module looks at the
// state and the clock and says which commands are due — GTT expiries and lock expiries (one
// `Expire` command covers both), when configured OPEN_PREGAME → OPEN_INGAME at scheduledStart, and
// the house's quotes on recent parlay requests it has not quoted (house-quote.ts: the house desk
// quotes each request when it is applied; this pass retries what it could not), and the chunks of
// a parlay settlement (SettleParlays, docs/parlays.md "Settlement in chunks"), and the ageing of
// idempotency keys (ExpireClientOrderIds, docs/exchange.md "Idempotency window"). (The demo market
// maker's own parlay quotes come from the demo driver, src/demo/driver.ts, a participant like any
// other.)
// The engine never reads a clock, so replaying the journal reproduces the same state.

import type { Config } from '../config.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { CommandInput } from './exchange-port.ts';
import { type HouseExposure, type HouseQuoteOptions, houseQuoteOptions, houseQuotes } from './house-quote.ts';

/**
 * The default of PARLAY_SETTLE_CHUNK (a configuration variable, src/config.ts; a test holds the two
 * equal): parlays one command advances when a market they share settles (docs/parlays.md
 * "Settlement in chunks"), a settling command's parlayBudget and each SettleParlays' max. In the
 * server a chunk's apply costs 7–8 µs of CPU a parlay (engine, frames deferred): 500 kept one chunk
 * at a median 3 ms and at most 16 ms, under the 50 ms a request may wait; with the frames built at
 * apply, on a loaded machine, 2,000 took up to 104 ms (docs/bench-parlay-trading.md).
 */
export const PARLAY_SETTLE_CHUNK = 500;

export interface ScheduleOptions {
  autoGoLive: boolean;
  /** Parlays per settlement chunk (config PARLAY_SETTLE_CHUNK); absent: the scheduler issues none. */
  parlayChunk?: number;
  /** The house quote's maker (house-quote.ts), when configured. */
  house?: HouseQuoteOptions | undefined;
  /** How long a clientOrderId is kept (config CLIENT_ORDER_ID_WINDOW_HOURS), ms; absent or 0: for good. */
  keyWindowMs?: number;
}

/**
 * Idempotency keys one ExpireClientOrderIds walks while an older generation drains (docs/exchange.md
 * "Idempotency window"): at 0.3–0.5 µs of CPU a key (bench/key-window.ts), a couple of milliseconds
 * a command; at one a scheduler pass (250 ms), 20,000 keys a second, 72 million an hour, far more
 * than a client places.
 */
export const KEY_SWEEP_CHUNK = 5_000;

/** The options from config. With the living demo on, the demo drives its own games' lifecycle
 * (with delays and closes), so the scheduler does not move them live. */
export function scheduleOptions(config: Config): ScheduleOptions {
  return {
    autoGoLive: config.autoGoLive && !config.demoLive,
    parlayChunk: config.parlaySettleChunk,
    house: houseQuoteOptions(config),
    keyWindowMs: config.clientOrderIdWindowMs,
  };
}

/**
 * Commands due at `now`, given the state. Pure. `houseExposure`: the house desk's running count
 * (house-quote.ts), instead of a pass over the house's parlays.
 */
export function dueCommands(
  reader: ExchangeReader,
  now: number,
  opts: ScheduleOptions,
  houseExposure?: HouseExposure,
): CommandInput[] {
  const out: CommandInput[] = [];
  let expire = false;
  const next = reader.nextExpiry();
  if (next !== null && next <= now) expire = true;
  const locks = reader.locks();
  for (const l of [locks.system, ...locks.events]) {
    if (l && l.expiresAt !== null && l.expiresAt <= now) expire = true;
  }
  if (expire) out.push({ type: 'Expire' });
  const windowMs = opts.keyWindowMs ?? 0;
  if (windowMs > 0 && reader.clientOrderIdsDue(now, windowMs)) {
    out.push({ type: 'ExpireClientOrderIds', windowMs, max: KEY_SWEEP_CHUNK });
  }
  if (opts.autoGoLive) {
    // eventsSorted() is ordered by scheduledStart: stop at the first event still in the future.
    for (const ev of reader.eventsSorted()) {
      if (ev.scheduledStart > now) break;
      if (ev.type === 'Game' && ev.status === 'OPEN_PREGAME') {
        out.push({ type: 'SetEventStatus', eventId: ev.id, status: 'OPEN_INGAME' });
      }
    }
  }
  if (opts.house !== undefined) out.push(...houseQuotes(reader, now, opts.house, houseExposure));
  // where the runtime's ParlaySettleLoop runs (parlay-settle-loop.ts) it alone issues the chunks
  // and the runtime's pass omits parlayChunk (it kicks the loop, which also resumes a failed
  // chunk); here for a caller without the loop, so a due settlement never waits for another
  if (opts.parlayChunk !== undefined) out.push(...parlaySettleCommands(reader, opts.parlayChunk));
  return out;
}

/** The next chunk of a parlay settlement: the first due market's next `chunk` parlays, or none. */
export function parlaySettleCommands(reader: ExchangeReader, chunk: number): CommandInput[] {
  const due = reader.parlaySettlementsDue()[0];
  return due === undefined ? [] : [{ type: 'SettleParlays', marketId: due.marketId, max: chunk }];
}
