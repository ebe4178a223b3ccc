// `tickbook import FILE.json`: a documented JSON schedule of leagues, teams and
// events (with their game and markets) turned into catalog commands, with a report of every
// rejected row. Format and example: docs/import-format.md.
//
// Rules, chosen so that a file can be re-imported and fixed row by row:
//   - A bad row is skipped with one error per problem found; good rows still produce commands.
//   - Ids are optional. Omitted ids derive from the row's natural key (league code + symbol for a
//     team, league + start + teams for a game), so importing the same file twice names the same
//     things — and the second import reports the events as duplicates instead of doubling them.
//   - A league already present with the same name, or a team already present with identical
//     fields, is skipped silently (the file may restate what it references).
//   - Teams are referenced by symbol (within the event's league) or by id.

import type { ExchangeReader } from '../exchange/reader.ts';
import {
  EVENT_TYPES,
  type EventStatus,
  type EventType,
  type Id,
  type MarketSpec,
  type Team,
} from '../exchange/types.ts';
import { isUuid, uuidFor } from '../ids.ts';
import { gameDescription } from './descriptions.ts';
import { isObj, isText, parseMarket } from './import-markets.ts';
import { teamId } from './leagues.ts';
import type { CommandInput } from './types.ts';

export interface ImportError {
  /** Index of the row in its section (`leagues`, `teams`, `events`); -1 for the file itself. */
  row: number;
  /** Where in the file, e.g. `events[3].markets[1].strike`. */
  path: string;
  message: string;
}

export interface ImportResult {
  commands: CommandInput[];
  errors: ImportError[];
  /** Rows accepted per section (skipped restatements excluded). */
  accepted: { leagues: number; teams: number; events: number; markets: number };
}

/** Statuses an imported event may start in; later transitions go through the admin API. */
export const IMPORTABLE_STATUSES: readonly EventStatus[] = ['INITIAL', 'OPEN_PREGAME'];

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
/** ISO 8601 date-time with a zone, and a real calendar date (Date.parse would roll 02-30 into March). */
function isIsoDateTime(s: string): boolean {
  const m = ISO_RE.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi] = [
    s.slice(0, 4),
    s.slice(5, 7),
    s.slice(8, 10),
    s.slice(11, 13),
    s.slice(14, 16),
  ].map(Number) as [number, number, number, number, number];
  const sec = m[1] ? Number(s.slice(17, 19)) : 0;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59) return false;
  const zone = /([+-])(\d{2}):(\d{2})$/.exec(s);
  if (zone && (Number(zone[2]) > 23 || Number(zone[3]) > 59)) return false;
  if (new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) return false;
  return !Number.isNaN(Date.parse(s));
}

const CODE_RE = /^[A-Z0-9_]{2,16}$/;

export function parseSchedule(json: unknown, existing?: ExchangeReader): ImportResult {
  const errors: ImportError[] = [];
  const commands: CommandInput[] = [];
  const accepted = { leagues: 0, teams: 0, events: 0, markets: 0 };
  if (!isObj(json)) {
    errors.push({
      row: -1,
      path: '',
      message: 'the file must hold a JSON object with leagues, teams and events arrays',
    });
    return { commands, errors, accepted };
  }
  for (const k of Object.keys(json)) {
    if (!['version', 'leagues', 'teams', 'events'].includes(k)) {
      errors.push({ row: -1, path: k, message: `unknown top-level field "${k}"` });
    }
  }
  if (json.version !== undefined && json.version !== 1) {
    errors.push({ row: -1, path: 'version', message: 'unsupported version (this server reads version 1)' });
    return { commands, errors, accepted };
  }
  const section = (name: 'leagues' | 'teams' | 'events'): unknown[] => {
    const v = json[name];
    if (v === undefined) return [];
    if (!Array.isArray(v)) {
      errors.push({ row: -1, path: name, message: `${name} must be an array` });
      return [];
    }
    return v;
  };

  // ---------------------------------------------------------------- leagues
  const leagues = new Map<string, string>(); // code → name, known after this file
  for (const l of existing?.leagues() ?? []) leagues.set(l.code, l.name);
  for (const [i, row] of section('leagues').entries()) {
    const path = `leagues[${i}]`;
    const err = (p: string, message: string) =>
      errors.push({ row: i, path: p ? `${path}.${p}` : path, message });
    if (!isObj(row)) {
      err('', 'a league must be an object {code, name}');
      continue;
    }
    const before = errors.length;
    if (typeof row.code !== 'string' || !CODE_RE.test(row.code))
      err('code', 'code must be 2–16 upper-case letters, digits or _');
    if (!isText(row.name)) err('name', 'name must be a non-empty string');
    if (errors.length > before) continue;
    const code = row.code as string;
    const name = (row.name as string).trim();
    const known = leagues.get(code);
    if (known !== undefined) {
      if (known !== name) err('name', `league ${code} already exists as "${known}"`);
      continue; // restated: nothing to create
    }
    leagues.set(code, name);
    commands.push({ type: 'CreateLeague', code, name });
    accepted.leagues++;
  }

  // ---------------------------------------------------------------- teams
  const teamsById = new Map<Id, Team>();
  const teamsBySymbol = new Map<string, Team>(); // `${league}:${symbol}`
  const existingTeams = (league: string): readonly Team[] => existing?.teams(league) ?? [];
  const fileTeamIds = new Set<Id>();
  for (const [i, row] of section('teams').entries()) {
    const path = `teams[${i}]`;
    const err = (p: string, message: string) =>
      errors.push({ row: i, path: p ? `${path}.${p}` : path, message });
    if (!isObj(row)) {
      err('', 'a team must be an object {league, name, shortName, symbol, mascot}');
      continue;
    }
    const before = errors.length;
    if (typeof row.league !== 'string' || !leagues.has(row.league))
      err('league', `unknown league ${JSON.stringify(row.league)}`);
    for (const f of ['name', 'shortName', 'mascot'] as const)
      if (!isText(row[f])) err(f, `${f} must be a non-empty string`);
    if (typeof row.symbol !== 'string' || !/^[A-Za-z0-9&.'-]{1,8}$/.test(row.symbol))
      err('symbol', "symbol must be 1–8 letters, digits or & . ' -");
    if (row.id !== undefined && !isUuid(row.id)) err('id', 'id must be a UUID');
    if (errors.length > before) continue;
    const league = row.league as string;
    const team: Team = {
      id: (row.id as string | undefined) ?? teamId(league, row.symbol as string),
      league,
      name: (row.name as string).trim(),
      shortName: (row.shortName as string).trim(),
      symbol: row.symbol as string,
      mascot: (row.mascot as string).trim(),
    };
    if (fileTeamIds.has(team.id)) {
      err('id', `duplicate id ${team.id} in this file`);
      continue;
    }
    const symKey = `${league}:${team.symbol}`;
    if (teamsBySymbol.has(symKey)) {
      err('symbol', `duplicate symbol ${team.symbol} in league ${league}`);
      continue;
    }
    const prior = existing?.team(team.id);
    if (prior) {
      const same = (['league', 'name', 'shortName', 'symbol', 'mascot'] as const).every(
        (k) => prior[k] === team[k],
      );
      if (!same) {
        err('id', `team ${team.id} already exists with different fields`);
        continue;
      }
    } else {
      const clash = existingTeams(league).find((t) => t.symbol === team.symbol);
      if (clash) {
        err('symbol', `league ${league} already has team ${clash.symbol} (${clash.id})`);
        continue;
      }
    }
    fileTeamIds.add(team.id);
    teamsById.set(team.id, team);
    teamsBySymbol.set(symKey, team);
    if (!prior) {
      commands.push({ type: 'CreateTeam', team });
      accepted.teams++;
    }
  }
  const findTeam = (league: string, ref: unknown): Team | undefined => {
    if (typeof ref !== 'string') return undefined;
    const t = teamsById.get(ref) ?? teamsBySymbol.get(`${league}:${ref}`) ?? existing?.team(ref);
    if (t) return t.league === league ? t : undefined;
    return existingTeams(league).find((x) => x.symbol === ref);
  };

  // ---------------------------------------------------------------- events
  const usedIds = new Set<Id>();
  const idTaken = (id: Id): boolean =>
    usedIds.has(id) || !!existing?.event(id) || !!existing?.market(id) || !!existing?.outcome(id);
  for (const [i, row] of section('events').entries()) {
    const path = `events[${i}]`;
    const rowErrors: ImportError[] = [];
    const err = (p: string, message: string) =>
      rowErrors.push({ row: i, path: p ? `${path}.${p}` : path, message });
    const finish = () => errors.push(...rowErrors);
    if (!isObj(row)) {
      err('', 'an event must be an object');
      finish();
      continue;
    }
    const type = (row.type ?? 'Game') as EventType;
    if (!EVENT_TYPES.includes(type)) err('type', `type must be one of ${EVENT_TYPES.join(', ')}`);
    const league = row.league;
    const leagueOk = typeof league === 'string' && leagues.has(league);
    if (!leagueOk) err('league', `unknown league ${JSON.stringify(league)}`);
    const status = (row.status ?? 'OPEN_PREGAME') as EventStatus;
    if (!IMPORTABLE_STATUSES.includes(status)) {
      err(
        'status',
        `status must be ${IMPORTABLE_STATUSES.join(' or ')} (later statuses are set through the admin API)`,
      );
    }
    let start: number | null = null;
    if (typeof row.scheduledStart !== 'string' || !isIsoDateTime(row.scheduledStart)) {
      err(
        'scheduledStart',
        'bad date: scheduledStart must be ISO 8601 with a time zone, e.g. "2026-11-29T18:00:00Z"',
      );
    } else {
      start = Date.parse(row.scheduledStart);
    }
    if (row.id !== undefined && !isUuid(row.id)) err('id', 'id must be a UUID');
    if (row.description !== undefined && !isText(row.description, 300))
      err('description', 'description must be a non-empty string');

    let home: Team | undefined;
    let away: Team | undefined;
    if (type === 'Game') {
      if (!isObj(row.game)) err('game', 'a Game needs game: {home, away} (team symbols or ids)');
      else if (leagueOk) {
        home = findTeam(league as string, row.game.home);
        away = findTeam(league as string, row.game.away);
        if (!home) err('game.home', `unknown team ${JSON.stringify(row.game.home)} in league ${league}`);
        if (!away) err('game.away', `unknown team ${JSON.stringify(row.game.away)} in league ${league}`);
        if (home && away && home.id === away.id) err('game.away', 'home and away must be different teams');
      }
    } else {
      if (row.game !== undefined && row.game !== null)
        err('game', `only a Game has a game (this is a ${type})`);
      if (row.description === undefined) err('description', `a ${type} needs a description`);
    }
    if (!Array.isArray(row.markets)) err('markets', 'markets must be an array');

    // Stop before ids and markets if the event itself is unusable.
    if (rowErrors.length > 0 || start === null) {
      finish();
      continue;
    }
    const description = (row.description as string | undefined)?.trim() ?? gameDescription(home!, away!);
    const eventId: Id =
      (row.id as string | undefined) ??
      (type === 'Game'
        ? uuidFor('import', 'event', league as string, start, home!.id, away!.id)
        : uuidFor('import', 'event', league as string, type, description));
    if (idTaken(eventId)) {
      err('id', `duplicate id: event ${eventId} already exists`);
      finish();
      continue;
    }
    const gameId: Id | null = type === 'Game' ? uuidFor('import', 'game', eventId) : null;
    const rowIds = new Set<Id>([eventId]);
    if (gameId) rowIds.add(gameId);

    const specs: MarketSpec[] = [];
    const seenLines = new Set<string>();
    markets: for (const [j, m] of (row.markets as unknown[]).entries()) {
      const mp = `markets[${j}]`;
      const spec = parseMarket(m, mp, err, { eventId, league: league as string, home, away, findTeam });
      if (!spec) continue;
      const line = `${spec.type}:${spec.strike}`;
      if (seenLines.has(line)) {
        err(
          mp,
          `duplicate market ${spec.type}${spec.strike === null ? '' : ` ${spec.strike}`} in this event`,
        );
        continue;
      }
      seenLines.add(line);
      for (const [id, where] of [
        [spec.id, `${mp}.id`],
        [spec.outcomes[0].id, `${mp}.outcomes[0].id`],
        [spec.outcomes[1].id, `${mp}.outcomes[1].id`],
      ] as const) {
        if (rowIds.has(id) || idTaken(id)) {
          err(where, `duplicate id ${id}`);
          continue markets;
        }
        rowIds.add(id);
      }
      specs.push(spec);
    }
    if (rowErrors.length > 0) {
      finish();
      continue;
    }
    for (const id of rowIds) usedIds.add(id);
    commands.push({
      type: 'CreateEvent',
      event: { id: eventId, type, status, description, league: league as string, scheduledStart: start },
      game: gameId ? { id: gameId, homeTeamId: home!.id, awayTeamId: away!.id } : null,
      markets: specs,
    });
    accepted.events++;
    accepted.markets += specs.length;
  }

  return { commands, errors, accepted };
}
