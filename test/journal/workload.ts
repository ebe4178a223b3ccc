// Deterministic exchange workloads for the journal tests and bench/recovery.ts: a small catalog,
// funded accounts, then a stream of random bids (some crossing the other outcome's bids, so they
// trade), cancels and occasional expiry sweeps. Same seed → same commands (ts excluded: the
// sequencer stamps it).

import { TICKS } from '../../src/exchange/ticks.ts';
import type { Command } from '../../src/exchange/types.ts';
import type { Submittable } from '../../src/journal/sequencer.ts';

export type Cmd = Submittable<Command>;

import { rng } from '../helpers/prng.ts';

export { rng };

export interface WorkloadShape {
  events: number;
  marketsPerEvent: number;
  accounts: number;
}

/** Catalog and funding commands: leagues, teams, events (OPEN_PREGAME) with MONEY/TOTAL markets, accounts. */
export function setupCommands(shape: WorkloadShape, prefix = 'w'): Cmd[] {
  const out: Cmd[] = [{ type: 'CreateLeague', code: 'NFL', name: 'National Football League' }];
  for (let e = 0; e < shape.events; e++) {
    const home = `${prefix}-team-${e}-h`;
    const away = `${prefix}-team-${e}-a`;
    for (const id of [home, away]) {
      out.push({
        type: 'CreateTeam',
        team: { id, league: 'NFL', name: `Team ${id}`, shortName: id, symbol: id.slice(-3), mascot: 'M' },
      });
    }
    const markets = [];
    for (let m = 0; m < shape.marketsPerEvent; m++) {
      const id = `${prefix}-m-${e}-${m}`;
      markets.push({
        id,
        type: m === 0 ? ('MONEY' as const) : ('TOTAL' as const),
        strike: m === 0 ? null : 40.5 + m,
        description: `market ${id}`,
        outcomes: [
          { id: `${id}-0`, description: 'home/over' },
          { id: `${id}-1`, description: 'away/under' },
        ] as [{ id: string; description: string }, { id: string; description: string }],
      });
    }
    out.push({
      type: 'CreateEvent',
      event: {
        id: `${prefix}-ev-${e}`,
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: `${away} @ ${home}`,
        league: 'NFL',
        scheduledStart: 1_900_000_000_000 + e * 3_600_000,
      },
      game: { id: `${prefix}-g-${e}`, homeTeamId: home, awayTeamId: away },
      markets,
    });
  }
  for (let a = 0; a < shape.accounts; a++) {
    const accountId = `${prefix}-acct-${a}`;
    out.push({ type: 'CreateAccount', accountId });
    // 10 million Cash each (Money = 1e-5 unit): enough that random bids rarely run dry.
    out.push({ type: 'Deposit', accountId, currency: 'CASH', amount: 1_000_000_000_000 });
  }
  return out;
}

/** Outcome ids of the setup's markets. */
export function outcomeIds(shape: WorkloadShape, prefix = 'w'): string[] {
  const ids: string[] = [];
  for (let e = 0; e < shape.events; e++) {
    for (let m = 0; m < shape.marketsPerEvent; m++)
      ids.push(`${prefix}-m-${e}-${m}-0`, `${prefix}-m-${e}-${m}-1`);
  }
  return ids;
}

/**
 * An endless generator of trading commands: ~80 % bids priced around the middle of the tick table
 * (a bid on one side at p and the other side at q >= 1000 - p trade), ~17 % cancels of an earlier
 * order (possibly already filled: then rejected, which the journal must skip), ~3 % other
 * commands (IOC bids, Expire sweeps).
 */
export function* tradingCommands(shape: WorkloadShape, seed: number, prefix = 'w'): Generator<Cmd> {
  const r = rng(seed);
  const outcomes = outcomeIds(shape, prefix);
  const mid = TICKS.indexOf(500);
  const placed: { orderId: string; accountId: string }[] = [];
  let n = 0;
  for (;;) {
    const x = r();
    const accountId = `${prefix}-acct-${Math.floor(r() * shape.accounts)}`;
    if (x < 0.17 && placed.length > 0) {
      const o = placed[Math.floor(r() * placed.length)]!;
      yield { type: 'CancelOrder', accountId: o.accountId, orderId: o.orderId };
      continue;
    }
    if (x > 0.995) {
      yield { type: 'Expire' };
      continue;
    }
    const orderId = `${prefix}-o-${seed}-${n++}`;
    const outcomeId = outcomes[Math.floor(r() * outcomes.length)]!;
    const price = TICKS[mid + Math.floor(r() * 21) - 10]!;
    const qty = 100 * (1 + Math.floor(r() * 20));
    const tif = x > 0.97 ? ('IOC' as const) : x > 0.95 ? ('GTT' as const) : ('GTC' as const);
    placed.push({ orderId, accountId });
    if (placed.length > 5000) placed.splice(0, 2500);
    yield {
      type: 'PlaceOrder',
      orderId,
      accountId,
      outcomeId,
      currency: 'CASH',
      price,
      qty,
      tif,
      ...(tif === 'GTT' ? { ttl: 1 + Math.floor(r() * 5000) } : {}),
    };
  }
}

/** `n` commands from a generator. */
export function take<T>(g: Generator<T>, n: number): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const v = g.next();
    if (v.done) break;
    out.push(v.value);
  }
  return out;
}
