// The demo's fixture grid: which games each league plays on a given local calendar day, at
// realistic local start times. A pure function of (seed, league, day): the slate
// and the living demo (which keeps adding days so the slate never runs dry) compute the same
// fixtures and the same ids for a day, so the living demo can tell which ones already exist.
//
// Weekly leagues (NFL, NCAAF, MLS, EPL, UFC) pair their teams once per week so that no team plays
// twice in a round; daily leagues (NBA, NHL, MLB, NCAAB, PGA rounds) pair per day.

import { leagueInfo, teamId } from '../catalog/leagues.ts';
import { rngFor, shuffled } from '../catalog/rng.ts';

const DAY_MS = 86_400_000;

interface LeagueCalendar {
  pairing: 'day' | 'week';
  /** Day of week (0 = Sunday) the league's round starts on, for weekly pairing. */
  weekStart: number;
  /** Local start times per day of week (index 0 = Sunday), one entry per game. */
  slots: readonly (readonly string[])[];
}

const rep = (n: number, t: string): string[] => Array.from({ length: n }, () => t);

const CALENDARS: Record<string, LeagueCalendar> = {
  // Thursday night, the Sunday early/late/night windows, Monday night: 16 games a week.
  NFL: {
    pairing: 'week',
    weekStart: 4,
    slots: [
      [...rep(9, '13:00'), '16:05', '16:05', '16:25', '16:25', '20:20'],
      ['20:15'],
      [],
      [],
      ['20:15'],
      [],
      [],
    ],
  },
  NBA: {
    pairing: 'day',
    weekStart: 0,
    slots: [
      ['15:30', '18:00', '19:00', '21:00', '21:30'],
      ['19:00', '19:30', '20:00', '22:00', '22:30'],
      ['19:30', '20:00', '22:00', '19:00'],
      ['19:00', '19:00', '19:30', '20:00', '20:30', '22:00', '22:30'],
      ['19:30', '22:00', '20:00'],
      ['19:00', '19:30', '20:00', '20:00', '22:00', '22:30'],
      ['17:00', '19:00', '20:00', '21:00', '22:30'],
    ],
  },
  MLB: {
    pairing: 'day',
    weekStart: 0,
    slots: [
      ['13:35', '13:40', '16:10', '19:10'],
      ['18:40', '19:10', '22:10'],
      ['18:40', '19:05', '19:10', '22:10'],
      ['13:10', '18:45', '19:05', '21:40'],
      ['13:05', '19:10', '22:10'],
      ['19:05', '19:10', '19:15', '22:10'],
      ['13:10', '16:05', '19:15', '22:05'],
    ],
  },
  NHL: {
    pairing: 'day',
    weekStart: 0,
    slots: [
      ['15:00', '17:00', '19:00'],
      ['19:00', '19:30', '22:00'],
      ['19:00', '19:00', '19:30', '20:00', '21:00', '22:00', '22:30'],
      ['19:30', '20:00', '22:00'],
      ['19:00', '19:00', '19:00', '19:30', '20:00', '21:00', '22:00', '22:30'],
      ['19:00', '20:00', '22:00'],
      ['13:00', '15:00', '19:00', '19:00', '19:00', '20:00', '22:00', '22:00', '22:30'],
    ],
  },
  // Midweek MACtion, a Friday night game, then the Saturday noon / 3:30 / prime-time windows.
  NCAAF: {
    pairing: 'week',
    weekStart: 2,
    slots: [
      [],
      [],
      ['19:00'],
      ['19:00'],
      ['19:30'],
      ['20:00'],
      [...rep(4, '12:00'), ...rep(4, '15:30'), '19:00', '19:00', '19:30', '20:00'],
    ],
  },
  NCAAB: {
    pairing: 'day',
    weekStart: 0,
    slots: [
      ['12:00', '14:00', '16:00', '18:00'],
      ['19:00', '20:00', '21:00', '18:30'],
      ['19:00', '19:00', '20:30', '21:00', '18:30'],
      ['19:00', '20:00', '21:00', '21:30', '18:30'],
      ['19:00', '21:00', '20:00', '18:30'],
      ['19:00', '21:00', '22:00'],
      ['12:00', '12:00', '14:00', '14:30', '16:00', '18:00', '20:00', '21:00'],
    ],
  },
  MLS: {
    pairing: 'week',
    weekStart: 3,
    slots: [['19:00', '21:30'], [], [], ['19:30', '19:30'], [], [], [...rep(5, '19:30'), '22:30', '22:30']],
  },
  // London times: Friday night, Saturday 12:30 / 15:00 / 17:30, Sunday 14:00 / 16:30, Monday night.
  EPL: {
    pairing: 'week',
    weekStart: 5,
    slots: [
      ['14:00', '14:00', '16:30'],
      ['20:00'],
      [],
      [],
      [],
      ['20:00'],
      ['12:30', ...rep(3, '15:00'), '17:30'],
    ],
  },
  // One fight card on Saturday: prelims from 18:00, main card from 22:00, a bout every 30 minutes.
  UFC: {
    pairing: 'week',
    weekStart: 6,
    slots: [
      [],
      [],
      [],
      [],
      [],
      [],
      ['18:00', '18:30', '19:00', '19:30', '20:00', '20:30', '22:00', '22:30', '23:00', '23:30'],
    ],
  },
  // Tournament rounds Thursday to Sunday: head-to-head matchups by tee time.
  PGA: {
    pairing: 'day',
    weekStart: 4,
    slots: [
      ['09:40', '10:30', '11:20', '12:10', '13:00'],
      [],
      [],
      [],
      ['07:45', '08:35', '12:55', '13:45', '08:10'],
      ['07:45', '08:35', '12:55', '13:45', '08:10'],
      ['09:40', '10:30', '11:20', '12:10', '13:00'],
    ],
  },
};

export interface Fixture {
  /** Stable key of the fixture: `${league}:${day}:${slot}`; every id of the game derives from it. */
  key: string;
  league: string;
  scheduledStart: number;
  homeTeamId: string;
  awayTeamId: string;
  homeIndex: number;
  awayIndex: number;
}

/** Offset of a time zone from UTC at instant `ms`, in ms (positive east of Greenwich). */
export function zoneOffset(timeZone: string, ms: number): number {
  const parts = zoneFormatter(timeZone).formatToParts(new Date(ms));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)!.value);
  const asUtc = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour') % 24,
    get('minute'),
    get('second'),
  );
  return asUtc - Math.floor(ms / 1000) * 1000;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Local calendar day number (days since 1970-01-01 on the zone's wall clock) of instant `ms`. */
export function localDay(timeZone: string, ms: number): number {
  return Math.floor((ms + zoneOffset(timeZone, ms)) / DAY_MS);
}

/** The UTC instant of local wall time `hh:mm` on local day `day` (DST handled by re-checking the offset). */
export function localToUtc(timeZone: string, day: number, hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const wall = day * DAY_MS + (h * 60 + m) * 60_000;
  let utc = wall - zoneOffset(timeZone, wall);
  utc = wall - zoneOffset(timeZone, utc);
  return utc;
}

/** 0 = Sunday; day 0 (1970-01-01) was a Thursday. */
export function dayOfWeek(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** The fixtures of one league on one local day. */
export function fixturesForDay(seed: string, leagueCode: string, day: number): Fixture[] {
  const league = leagueInfo(leagueCode);
  const cal = CALENDARS[leagueCode];
  if (!league || !cal) return [];
  const dow = dayOfWeek(day);
  const times = cal.slots[dow]!;
  if (times.length === 0) return [];
  let order: number[];
  let first: number;
  const indexes = league.teams.map((_, i) => i);
  if (cal.pairing === 'day') {
    order = shuffled(rngFor(seed, 'fixtures', leagueCode, day), indexes);
    first = 0;
  } else {
    const offset = (dow - cal.weekStart + 7) % 7;
    const weekStartDay = day - offset;
    order = shuffled(rngFor(seed, 'fixtures', leagueCode, 'week', weekStartDay), indexes);
    first = 0;
    for (let o = 0; o < offset; o++) first += cal.slots[(cal.weekStart + o) % 7]!.length;
  }
  const out: Fixture[] = [];
  times.forEach((hhmm, slot) => {
    const hi = order[2 * (first + slot)];
    const ai = order[2 * (first + slot) + 1];
    if (hi === undefined || ai === undefined) return; // more slots than pairs: the grid is capped by team count
    out.push({
      key: `${leagueCode}:${day}:${slot}`,
      league: leagueCode,
      scheduledStart: localToUtc(league.timeZone, day, hhmm),
      homeTeamId: teamId(leagueCode, league.teams[hi]!.symbol),
      awayTeamId: teamId(leagueCode, league.teams[ai]!.symbol),
      homeIndex: hi,
      awayIndex: ai,
    });
  });
  return out;
}

export const SCHEDULED_LEAGUES: readonly string[] = Object.keys(CALENDARS);
