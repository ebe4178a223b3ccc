// The demo slate: every league of the production list with its real teams, at
// least 300 games over the coming two weeks at realistic local start times, each with MONEY,
// SPREAD and TOTAL markets priced by the rating model, a few Futures, and events in every status.
// Pure: `buildDemoSlate({seed, now})` returns the commands (without `ts`, the sequencer stamps it)
// and a description of each game; the same seed and now give the same commands, byte for byte.
//
// Past and running games get a real lifecycle: CreateEvent OPEN_PREGAME, then SetEventStatus
// CLOSED_PREGAME → OPEN_INGAME (→ DELAYED), and for finished ones SetGameScore, FINAL, every
// market CLOSED and settled from the simulated score — the same transitions the living demo
// (./live.ts) issues, so the journal reads like an exchange that has been running.

import { LEAGUES, leagueInfo, teamRecords } from '../catalog/leagues.ts';
import { randInt, rngFor } from '../catalog/rng.ts';
import type { CommandInput } from '../catalog/types.ts';
import type { EventStatus, Id, Team } from '../exchange/types.ts';
import { uuidFor } from '../ids.ts';
import { futureEvents } from './futures.ts';
import type { DemoGameInfo } from './game-info.ts';
import { createGameEvent, type DemoMarketInfo, gameIds, gameMarkets } from './game-markets.ts';
import { type FinalScore, gameLine, leagueModel, simulateScore } from './rating-model.ts';
import { fixturesForDay, localDay, SCHEDULED_LEAGUES } from './schedule.ts';
import { marketResult } from './settle.ts';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Lifecycle timing shared with the living demo (docs/catalog.md). */
export const TIMING = {
  /** Games further out than this are listed INITIAL (not yet open for trading). */
  openAheadMs: 13 * DAY,
  /** Pregame trading closes this long before the scheduled start (CLOSED_PREGAME). */
  closeBeforeMs: 5 * MINUTE,
  /** The slate covers games scheduled within this long before `now`… */
  pastMs: 24 * HOUR,
  /** …and up to this long after it. */
  horizonMs: 14 * DAY,
} as const;

/** Minimum number of events per status the slate guarantees, whatever the hour of `now`. */
const MIN_PER_STATUS: Partial<Record<EventStatus, number>> = {
  INITIAL: 1,
  CLOSED_PREGAME: 2,
  OPEN_INGAME: 4,
  DELAYED: 1,
  FINAL: 4,
  CANCELED: 1,
};

export interface DemoSlate {
  commands: CommandInput[];
  games: DemoGameInfo[];
  /** Fair probability of outcome 0 per market id, for the market maker. */
  fairByMarket: Map<Id, number>;
}

export interface SlateOptions {
  seed: string | number;
  /** Start time the slate is built around, ms since the epoch. */
  now: number;
  /**
   * Only schedule games (and futures) of these leagues; all leagues and teams are still created.
   * Default: every league. Meant for fast tests and small sandboxes.
   */
  leagues?: readonly string[];
}

const floor5 = (ms: number): number => Math.floor(ms / (5 * MINUTE)) * 5 * MINUTE;
const ceil5 = (ms: number): number => Math.ceil(ms / (5 * MINUTE)) * 5 * MINUTE;

/** Every team of every league, keyed by id. */
export function allTeams(): Map<Id, Team> {
  const m = new Map<Id, Team>();
  for (const l of LEAGUES) for (const t of teamRecords(l)) m.set(t.id, t);
  return m;
}

interface Planned {
  key: string;
  league: string;
  start: number;
  home: Team;
  away: Team;
  status: EventStatus;
}

/** The status an event of the slate should be in at `now`, from its start time. */
function statusAt(p: { key: string; league: string; start: number }, now: number, seed: string): EventStatus {
  const duration = leagueModel(p.league).durationMin * MINUTE;
  const rng = rngFor(seed, 'status', p.key);
  const r = rng();
  if (p.start + duration <= now) return 'FINAL';
  if (p.start <= now) return r < 0.2 ? 'DELAYED' : 'OPEN_INGAME';
  if (p.start - now <= TIMING.closeBeforeMs) return 'CLOSED_PREGAME';
  if (p.start - now > TIMING.openAheadMs) return 'INITIAL';
  return r < 0.005 ? 'CANCELED' : 'OPEN_PREGAME';
}

export function buildDemoSlate(opts: SlateOptions): DemoSlate {
  const seed = String(opts.seed);
  const now = opts.now;
  const teams = allTeams();
  const commands: CommandInput[] = [];

  for (const l of LEAGUES) commands.push({ type: 'CreateLeague', code: l.code, name: l.name });
  for (const l of LEAGUES) for (const team of teamRecords(l)) commands.push({ type: 'CreateTeam', team });

  // 1. The fixture grid over [now − 24 h, now + 14 days].
  const planned: Planned[] = [];
  const scheduled = SCHEDULED_LEAGUES.filter((c) => !opts.leagues || opts.leagues.includes(c));
  for (const code of scheduled) {
    const tz = leagueInfo(code)!.timeZone;
    const first = localDay(tz, now - TIMING.pastMs);
    const last = localDay(tz, now + TIMING.horizonMs);
    for (let day = first; day <= last; day++) {
      for (const f of fixturesForDay(seed, code, day)) {
        if (f.scheduledStart < now - TIMING.pastMs || f.scheduledStart > now + TIMING.horizonMs) continue;
        const p = { key: f.key, league: code, start: f.scheduledStart };
        planned.push({
          ...p,
          home: teams.get(f.homeTeamId)!,
          away: teams.get(f.awayTeamId)!,
          status: statusAt(p, now, seed),
        });
      }
    }
  }

  // 2. Featured games so that every status shows, whatever the hour of `now` (a 4 a.m. start
  //    would otherwise have nothing live).
  const featuredLeagues = ['NBA', 'EPL', 'NHL', 'NCAAB', 'PGA', 'MLB', 'NFL', 'UFC', 'MLS', 'NCAAF'].filter(
    (c) => scheduled.includes(c),
  );
  let k = 0;
  for (const [status, min] of Object.entries(MIN_PER_STATUS) as [EventStatus, number][]) {
    const have = planned.filter((p) => p.status === status).length;
    for (let i = have; i < min && featuredLeagues.length > 0; i++, k++) {
      const league = featuredLeagues[k % featuredLeagues.length]!;
      const info = leagueInfo(league)!;
      const rng = rngFor(seed, 'featured', now, status, i);
      const hi = randInt(rng, info.teams.length);
      let ai = randInt(rng, info.teams.length - 1);
      if (ai >= hi) ai++;
      const roster = teamRecords(info);
      const duration = leagueModel(league).durationMin * MINUTE;
      const start =
        status === 'CLOSED_PREGAME'
          ? ceil5(now + 1)
          : status === 'OPEN_INGAME' || status === 'DELAYED'
            ? floor5(now - (0.15 + 0.15 * (i % 4)) * duration)
            : status === 'FINAL'
              ? floor5(now - duration - (1 + i) * HOUR)
              : status === 'INITIAL'
                ? floor5(now + TIMING.openAheadMs + (6 + i) * HOUR)
                : floor5(now + (1 + i) * DAY); // CANCELED: a postponed game
      planned.push({
        key: `${league}:featured:${status}:${i}:${now}`,
        league,
        start,
        home: roster[hi]!,
        away: roster[ai]!,
        status,
      });
    }
  }

  planned.sort((a, b) => a.start - b.start || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

  // 3. Events and their lifecycles.
  const games: DemoGameInfo[] = [];
  for (const p of planned) {
    const ids = gameIds(seed, p.key);
    const line = gameLine(seed, p.league, p.home.id, p.away.id);
    const { specs, infos } = gameMarkets(seed, p.key, p.league, p.home, p.away, line);
    const initial: EventStatus = p.status === 'INITIAL' ? 'INITIAL' : 'OPEN_PREGAME';
    commands.push(createGameEvent(ids, p.league, p.home, p.away, p.start, initial, specs));
    let score: FinalScore | null = null;
    const setStatus = (status: EventStatus) =>
      commands.push({ type: 'SetEventStatus', eventId: ids.eventId, status });
    switch (p.status) {
      case 'CLOSED_PREGAME':
      case 'CANCELED':
        setStatus(p.status);
        break;
      case 'OPEN_INGAME':
        setStatus('CLOSED_PREGAME');
        setStatus('OPEN_INGAME');
        break;
      case 'DELAYED':
        setStatus('CLOSED_PREGAME');
        setStatus('OPEN_INGAME');
        setStatus('DELAYED');
        break;
      case 'FINAL':
        setStatus('CLOSED_PREGAME');
        setStatus('OPEN_INGAME');
        score = simulateScore(p.league, line, rngFor(seed, 'score', p.key));
        commands.push(...finishGameCommands(p.league, ids.eventId, ids.gameId, infos, score));
        break;
      default:
        break;
    }
    games.push({
      key: p.key,
      eventId: ids.eventId,
      gameId: ids.gameId,
      type: 'Game',
      league: p.league,
      description: `${p.away.name} @ ${p.home.name}`,
      scheduledStart: p.start,
      durationMs: leagueModel(p.league).durationMin * MINUTE,
      homeTeamId: p.home.id,
      awayTeamId: p.away.id,
      line,
      status: p.status,
      score,
      markets: infos,
    });
  }

  // 4. Futures: yes/no markets on season titles.
  for (const f of futureEvents(seed, now, opts.leagues)) {
    commands.push(f.command);
    games.push(f.info);
  }

  const fairByMarket = new Map<Id, number>();
  for (const g of games) for (const m of g.markets) fairByMarket.set(m.marketId, m.fair);
  return { commands, games, fairByMarket };
}

/**
 * Ending a game: the final score, FINAL, every market CLOSED (which cancels resting orders) and
 * settled from the score (docs/lifecycle.md). Shared with the living demo.
 */
export function finishGameCommands(
  league: string,
  eventId: Id,
  gameId: Id,
  markets: readonly Pick<DemoMarketInfo, 'marketId' | 'type' | 'strike' | 'outcomeIds'>[],
  score: FinalScore,
): CommandInput[] {
  const out: CommandInput[] = [
    { type: 'SetGameScore', gameId, homeScore: score.homeScore, awayScore: score.awayScore },
    { type: 'SetEventStatus', eventId, status: 'FINAL' },
  ];
  for (const m of markets) out.push({ type: 'SetMarketStatus', marketId: m.marketId, status: 'CLOSED' });
  for (const m of markets)
    out.push({ type: 'SettleMarket', marketId: m.marketId, result: marketResult(league, m, score) });
  return out;
}

/** Deterministic id for anything else the demo needs to name (accounts, orders). */
export function demoId(seed: string | number, ...parts: (string | number)[]): Id {
  return uuidFor(String(seed), ...parts);
}
