// The living demo's fixture list, kept full: every day up to the horizon is emitted once, and
// more days while the slate holds fewer open games than wanted (src/demo/live.ts calls it each step).

import { leagueInfo } from '../catalog/leagues.ts';
import type { CommandInput } from '../catalog/types.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { Id } from '../exchange/types.ts';
import { createGameEvent, gameIds, gameMarkets } from './game-markets.ts';
import { type QuoteConfig, quoteMarket } from './market-maker.ts';
import { gameLine } from './rating-model.ts';
import { fixturesForDay, localDay, SCHEDULED_LEAGUES } from './schedule.ts';
import { TIMING } from './slate.ts';

/** What the schedule needs of the living demo's config. */
export interface ScheduleConfig {
  seed: string;
  horizonMs: number;
  minUpcoming: number;
  leagues?: readonly string[];
}

/** Emits the fixtures of every day up to the horizon not generated yet (and more while below minUpcoming). */
export function extendSchedule(
  reader: ExchangeReader,
  config: ScheduleConfig,
  generatedThrough: Record<string, number>,
  now: number,
  upcoming: number,
  quoteOpts: { seed: string; round: string; accountId: Id; config: QuoteConfig },
): CommandInput[] {
  const out: CommandInput[] = [];
  const { seed } = config;
  let count = upcoming;
  const emitDay = (code: string, day: number): number => {
    let n = 0;
    for (const f of fixturesForDay(seed, code, day)) {
      if (f.scheduledStart <= now + TIMING.closeBeforeMs) continue;
      const ids = gameIds(seed, f.key);
      if (reader.event(ids.eventId)) continue;
      const home = reader.team(f.homeTeamId);
      const away = reader.team(f.awayTeamId);
      if (!home || !away) continue; // league not seeded with the demo teams
      const line = gameLine(seed, code, home.id, away.id);
      const { specs, infos } = gameMarkets(seed, f.key, code, home, away, line);
      const status = f.scheduledStart - now > TIMING.openAheadMs ? 'INITIAL' : 'OPEN_PREGAME';
      out.push(createGameEvent(ids, code, home, away, f.scheduledStart, status, specs));
      if (status === 'OPEN_PREGAME') for (const m of infos) out.push(...quoteMarket(m, m.fair, quoteOpts));
      n++;
    }
    return n;
  };
  const scheduled = SCHEDULED_LEAGUES.filter((c) => !config.leagues || config.leagues.includes(c));
  for (const code of scheduled) {
    const target = localDay(leagueInfo(code)!.timeZone, now + config.horizonMs);
    while ((generatedThrough[code] ?? target - 1) < target) {
      const day = (generatedThrough[code] ?? target - 1) + 1;
      generatedThrough[code] = day;
      count += emitDay(code, day);
    }
  }
  // Fallback for a thin slate (few leagues seeded): list up to a week beyond the horizon early.
  for (const code of scheduled) {
    const cap = localDay(leagueInfo(code)!.timeZone, now + config.horizonMs) + 7;
    while (count < config.minUpcoming && generatedThrough[code]! < cap) {
      const day = generatedThrough[code]! + 1;
      generatedThrough[code] = day;
      count += emitDay(code, day);
    }
  }
  return out;
}
