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
//
// Two passes: the file against its published schema (./import-schema.ts: each field's form, each
// row's shape, the rules between a row's own fields), then here what a schema cannot state: the
// leagues and teams a row refers to, duplicates across rows, and what the exchange already holds.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { EventStatus, EventType, Id, MarketSpec, Team } from '../exchange/types.ts';
import { uuidFor } from '../ids.ts';
import { gameDescription } from './descriptions.ts';
import { parseMarket } from './import-markets.ts';
import {
  checkSchema,
  type EventRow,
  type ImportError,
  type LeagueRow,
  type TeamRow,
} from './import-schema.ts';
import { teamId } from './leagues.ts';
import type { CommandInput } from './types.ts';

export { IMPORTABLE_STATUSES, type ImportError, importSchema } from './import-schema.ts';

export interface ImportResult {
  commands: CommandInput[];
  errors: ImportError[];
  /** Rows accepted per section (skipped restatements excluded). */
  accepted: { leagues: number; teams: number; events: number; markets: number };
}

const SECTIONS = ['leagues', 'teams', 'events'] as const;
type Section = (typeof SECTIONS)[number];

/** The file's problems in file order: the file's own first, then each section's rows in turn. */
function inFileOrder(errors: ImportError[]): ImportError[] {
  const rank = (e: ImportError) =>
    e.row < 0 ? -1 : SECTIONS.findIndex((s) => e.path.startsWith(`${s}[`)) * 2 ** 32 + e.row;
  return errors
    .map((e, i) => ({ e, i, r: rank(e) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.e);
}

export function parseSchedule(json: unknown, existing?: ExchangeReader): ImportResult {
  const commands: CommandInput[] = [];
  const accepted = { leagues: 0, teams: 0, events: 0, markets: 0 };
  // First pass: the schema (import-schema.ts). A row with any problem there is skipped below.
  const check = checkSchema(json);
  const errors = check.errors;
  if (check.fatal) return { commands, errors, accepted };
  const file = json as Partial<Record<Section, unknown>>;
  function rows<T>(name: Section): [number, T][] {
    const list = file[name];
    if (!Array.isArray(list)) return [];
    return [...(list as T[]).entries()].filter(([i]) => !check.badRows.has(`${name}[${i}]`));
  }
  const errorAt =
    (name: Section, i: number, into = errors) =>
    (p: string, message: string) =>
      into.push({ row: i, path: p ? `${name}[${i}].${p}` : `${name}[${i}]`, message });

  // Second pass: references, duplicates and what the exchange already holds.
  // ---------------------------------------------------------------- leagues
  const leagues = new Map<string, string>(); // code → name, known after this file
  for (const l of existing?.leagues() ?? []) leagues.set(l.code, l.name);
  for (const [i, row] of rows<LeagueRow>('leagues')) {
    const err = errorAt('leagues', i);
    const { code } = row;
    const name = row.name.trim();
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
  for (const [i, row] of rows<TeamRow>('teams')) {
    const err = errorAt('teams', i);
    const league = row.league;
    if (!leagues.has(league)) {
      err('league', `unknown league ${JSON.stringify(league)}`);
      continue;
    }
    const team: Team = {
      id: row.id ?? teamId(league, row.symbol),
      league,
      name: row.name.trim(),
      shortName: row.shortName.trim(),
      symbol: row.symbol,
      mascot: row.mascot.trim(),
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
  for (const [i, row] of rows<EventRow>('events')) {
    const rowErrors: ImportError[] = [];
    const err = errorAt('events', i, rowErrors);
    const finish = () => errors.push(...rowErrors);
    const type: EventType = row.type ?? 'Game';
    const status: EventStatus = row.status ?? 'OPEN_PREGAME';
    const league = row.league;
    const leagueOk = leagues.has(league);
    if (!leagueOk) err('league', `unknown league ${JSON.stringify(league)}`);
    const start = Date.parse(row.scheduledStart);

    let home: Team | undefined;
    let away: Team | undefined;
    const game = row.game as { home: string; away: string } | undefined;
    if (type === 'Game' && game && leagueOk) {
      home = findTeam(league, game.home);
      away = findTeam(league, game.away);
      if (!home) err('game.home', `unknown team ${JSON.stringify(game.home)} in league ${league}`);
      if (!away) err('game.away', `unknown team ${JSON.stringify(game.away)} in league ${league}`);
      if (home && away && home.id === away.id) err('game.away', 'home and away must be different teams');
    }

    // Stop before ids and markets if the event itself is unusable.
    if (rowErrors.length > 0) {
      finish();
      continue;
    }
    const description = row.description?.trim() ?? gameDescription(home!, away!);
    const eventId: Id =
      row.id ??
      (type === 'Game'
        ? uuidFor('import', 'event', league, start, home!.id, away!.id)
        : uuidFor('import', 'event', league, type, description));
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
    markets: for (const [j, m] of row.markets.entries()) {
      const mp = `markets[${j}]`;
      const spec = parseMarket(m, mp, err, { eventId, league, home, away, findTeam });
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
      event: { id: eventId, type, status, description, league, scheduledStart: start },
      game: gameId ? { id: gameId, homeTeamId: home!.id, awayTeamId: away!.id } : null,
      markets: specs,
    });
    accepted.events++;
    accepted.markets += specs.length;
  }

  return { commands, errors: inFileOrder(errors), accepted };
}
