// The leagues of the production list (docs/http.md "Events", event-metadata/leagues) with
// their full names and the real teams or competitors the demo slate and the importer use.

import type { League, Team } from '../exchange/types.ts';
import { uuidFor } from '../ids.ts';
import { EPL_TEAMS } from './teams/epl.ts';
import { MLB_TEAMS } from './teams/mlb.ts';
import { MLS_TEAMS } from './teams/mls.ts';
import { NBA_TEAMS } from './teams/nba.ts';
import { NCAAB_TEAMS } from './teams/ncaab.ts';
import { NCAAF_TEAMS } from './teams/ncaaf.ts';
import { NFL_TEAMS } from './teams/nfl.ts';
import { NHL_TEAMS } from './teams/nhl.ts';
import { PGA_GOLFERS } from './teams/pga.ts';
import { UFC_FIGHTERS } from './teams/ufc.ts';
import type { TeamSeed } from './types.ts';

export interface LeagueInfo extends League {
  /** 'team' sports, or 'individual' ones where a Game is a head-to-head of two competitors. */
  kind: 'team' | 'individual';
  /** The sport, upper case (FOOTBALL, BASKETBALL, …), as GraphQL's `game.sport` shows it. */
  sport: string;
  /** IANA zone whose local clock the league's start times follow (schedule realism only). */
  timeZone: string;
  teams: readonly TeamSeed[];
}

/** In the order of the production metadata list. */
export const LEAGUES: readonly LeagueInfo[] = [
  {
    code: 'NFL',
    name: 'National Football League',
    sport: 'FOOTBALL',
    kind: 'team',
    timeZone: 'America/New_York',
    teams: NFL_TEAMS,
  },
  {
    code: 'NBA',
    name: 'National Basketball Association',
    sport: 'BASKETBALL',
    kind: 'team',
    timeZone: 'America/New_York',
    teams: NBA_TEAMS,
  },
  {
    code: 'MLB',
    name: 'Major League Baseball',
    sport: 'BASEBALL',
    kind: 'team',
    timeZone: 'America/New_York',
    teams: MLB_TEAMS,
  },
  {
    code: 'NHL',
    name: 'National Hockey League',
    sport: 'HOCKEY',
    kind: 'team',
    timeZone: 'America/New_York',
    teams: NHL_TEAMS,
  },
  {
    code: 'NCAAF',
    name: 'NCAA Division I Football',
    sport: 'FOOTBALL',
    kind: 'team',
    timeZone: 'America/New_York',
    teams: NCAAF_TEAMS,
  },
  {
    code: 'NCAAB',
    name: "NCAA Division I Men's Basketball",
    sport: 'BASKETBALL',
    kind: 'team',
    timeZone: 'America/New_York',
    teams: NCAAB_TEAMS,
  },
  {
    code: 'MLS',
    name: 'Major League Soccer',
    sport: 'SOCCER',
    kind: 'team',
    timeZone: 'America/New_York',
    teams: MLS_TEAMS,
  },
  {
    code: 'EPL',
    name: 'English Premier League',
    sport: 'SOCCER',
    kind: 'team',
    timeZone: 'Europe/London',
    teams: EPL_TEAMS,
  },
  {
    code: 'UFC',
    name: 'Ultimate Fighting Championship',
    sport: 'MMA',
    kind: 'individual',
    timeZone: 'America/New_York',
    teams: UFC_FIGHTERS,
  },
  {
    code: 'PGA',
    name: 'PGA Tour',
    sport: 'GOLF',
    kind: 'individual',
    timeZone: 'America/New_York',
    teams: PGA_GOLFERS,
  },
];

export const LEAGUE_CODES: readonly string[] = LEAGUES.map((l) => l.code);

export function leagueInfo(code: string): LeagueInfo | undefined {
  return LEAGUES.find((l) => l.code === code);
}

/** Team ids are derived from league and symbol only, so they are stable across seeds and runs. */
export function teamId(league: string, symbol: string): string {
  return uuidFor('team', league, symbol);
}

export function teamRecords(league: LeagueInfo): Team[] {
  return league.teams.map((t) => ({ id: teamId(league.code, t.symbol), league: league.code, ...t }));
}
