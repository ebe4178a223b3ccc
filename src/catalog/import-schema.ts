// The schema of an import file (docs/import-format.md; published as docs/import-schema.json) and
// the first pass of the importer: the file checked against it with Ajv, every failure as an
// ImportError `{row, path, message}`. Each part of the schema that can fail carries the sentence
// the report shows (`errorMessage`, the annotation ajv-errors made customary). What a schema
// cannot state is the second pass's (./import.ts): references to leagues and teams of the file or
// of the exchange, duplicates across rows, and outcomes that depend on the event's teams.

import AjvModule, { type ErrorObject } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import { EVENT_TYPES, type EventStatus, MARKET_TYPES, type MarketType } from '../exchange/types.ts';
import { UUID_RE } from '../ids.ts';

export interface ImportError {
  /** Index of the row in its section (`leagues`, `teams`, `events`); -1 for the file itself. */
  row: number;
  /** Where in the file, e.g. `events[3].markets[1].strike`. */
  path: string;
  message: string;
}

/** Statuses an imported event may start in; later transitions go through the admin API. */
export const IMPORTABLE_STATUSES: readonly EventStatus[] = ['INITIAL', 'OPEN_PREGAME'];

const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
/** ISO 8601 date-time with a zone, and a real calendar date (Date.parse would roll 02-30 into March). */
export function isIsoDateTime(s: string): boolean {
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

/** A non-empty text (not only blanks) of at most `max` characters. */
const text = (max: number, errorMessage: string) =>
  ({ type: 'string', pattern: '\\S', maxLength: max, errorMessage }) as const;
const named = (field: string, max = 200) => text(max, `${field} must be a non-empty string`);
const id = { type: 'string', format: 'uuid', errorMessage: 'id must be a UUID' } as const;
const badGame = 'a Game needs game: {home, away} (team symbols or ids)';
const ref = {
  type: 'string',
  description: 'a team symbol of the league, or a team id',
  errorMessage: badGame,
} as const;

const league = {
  type: 'object',
  errorMessage: 'a league must be an object {code, name}',
  required: ['code', 'name'],
  properties: {
    code: {
      type: 'string',
      pattern: '^[A-Z0-9_]{2,16}$',
      errorMessage: 'code must be 2–16 upper-case letters, digits or _',
    },
    name: named('name'),
  },
} as const;

const team = {
  type: 'object',
  errorMessage: 'a team must be an object {league, name, shortName, symbol, mascot}',
  required: ['league', 'name', 'shortName', 'symbol', 'mascot'],
  properties: {
    id,
    league: { type: 'string', errorMessage: 'league must be a league code' },
    name: named('name'),
    shortName: named('shortName'),
    symbol: {
      type: 'string',
      pattern: "^[A-Za-z0-9&.'-]{1,8}$",
      errorMessage: "symbol must be 1–8 letters, digits or & . ' -",
    },
    mascot: named('mascot'),
  },
} as const;

const outcome = {
  type: 'object',
  errorMessage: 'an outcome needs a description',
  required: ['description'],
  properties: {
    description: text(200, 'an outcome needs a description'),
    id,
    competitor: {
      type: ['string', 'null'],
      description: 'a team symbol of the league, or a team id',
      errorMessage: 'competitor must be a team symbol or id',
    },
  },
} as const;

/** Market types whose strike is required (a half-line on margin or total). */
export const STRIKED: ReadonlySet<MarketType> = new Set([
  'SPREAD',
  'TOTAL',
  'TEAM_TOTAL',
  'SPREAD_1H',
  'TOTAL_1H',
]);

/** The strike rule of one market type: required in half points (a positive one but for spreads),
 * or absent. One rule per type, so that the report names the type. */
function strikeRule(type: MarketType) {
  const strike = !STRIKED.has(type)
    ? { type: 'null', errorMessage: `bad strike: a ${type} market has no strike` }
    : {
        errorMessage: `bad strike: a ${type} needs a numeric strike in half points (e.g. -2.5, 47.5)`,
        allOf: [
          {
            type: 'number',
            multipleOf: 0.5,
            errorMessage: `bad strike: a ${type} needs a numeric strike in half points (e.g. -2.5, 47.5)`,
          },
          ...(type === 'SPREAD' || type === 'SPREAD_1H'
            ? []
            : [{ exclusiveMinimum: 0, errorMessage: `bad strike: a ${type} strike must be positive` }]),
          { minimum: -1000, maximum: 1000, errorMessage: 'bad strike: out of range' },
        ],
      };
  return {
    if: { required: ['type'], properties: { type: { const: type } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, never awaited
    then: { ...(STRIKED.has(type) ? { required: ['strike'] } : {}), properties: { strike } },
  };
}

/** A market's fields; `market` adds the strike rule of each type. */
const marketShape = {
  type: 'object',
  errorMessage: 'a market must be an object {type, strike?, description?, outcomes?}',
  required: ['type'],
  properties: {
    type: { enum: MARKET_TYPES, errorMessage: `type must be one of ${MARKET_TYPES.join(', ')}` },
    strike: { description: 'half points; required for SPREAD*, TOTAL*, TEAM_TOTAL, absent otherwise' },
    id,
    description: named('description', 300),
    outcomes: {
      type: 'array',
      minItems: 2,
      maxItems: 2,
      errorMessage: 'a market must have exactly two outcomes (index 0 = home/over/yes, 1 = away/under/no)',
      items: outcome,
    },
  },
} as const;
const market = { ...marketShape, allOf: MARKET_TYPES.map(strikeRule) };

/** An event's fields (its markets as their fields only); `event` adds the rules between them. */
const eventShape = {
  type: 'object',
  errorMessage: 'an event must be an object',
  required: ['league', 'scheduledStart', 'markets'],
  properties: {
    id,
    type: { enum: EVENT_TYPES, errorMessage: `type must be one of ${EVENT_TYPES.join(', ')}` },
    league: { type: 'string', errorMessage: 'league must be a league code' },
    status: {
      enum: IMPORTABLE_STATUSES,
      errorMessage: `status must be ${IMPORTABLE_STATUSES.join(' or ')} (later statuses are set through the admin API)`,
    },
    scheduledStart: {
      type: 'string',
      format: 'zoned-date-time',
      description: 'ISO 8601 with a time zone; seconds and up to 3 decimals optional; a real calendar date',
      errorMessage: 'bad date: scheduledStart must be ISO 8601 with a time zone, e.g. "2026-11-29T18:00:00Z"',
    },
    description: named('description', 300),
    game: {},
    markets: { type: 'array', errorMessage: 'markets must be an array', items: marketShape },
  },
} as const;
const event = {
  ...eventShape,
  properties: {
    ...eventShape.properties,
    markets: { ...eventShape.properties.markets, items: market },
  },
  // A Game (the default type) has its two teams; any other event has a description and no game.
  if: { properties: { type: { const: 'Game' } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, never awaited
  then: {
    required: ['game'],
    properties: {
      game: {
        type: 'object',
        errorMessage: badGame,
        required: ['home', 'away'],
        properties: { home: ref, away: ref },
      },
    },
  },
  else: {
    required: ['description'],
    properties: {
      description: { errorMessage: 'a Future or a Tournament needs a description' },
      game: { type: 'null', errorMessage: 'only a Game has a game' },
    },
  },
} as const;

const section = (name: string, items: object) =>
  ({ type: 'array', errorMessage: `${name} must be an array`, items }) as const;

/** The import file (docs/import-format.md). */
export const importSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Tickbook schedule import (tickbook import FILE.json)',
  type: 'object',
  errorMessage: 'the file must hold a JSON object with leagues, teams and events arrays',
  additionalProperties: false,
  properties: {
    version: { const: 1, errorMessage: 'unsupported version (this server reads version 1)' },
    leagues: section('leagues', league),
    teams: section('teams', team),
    events: section('events', event),
  },
} as const;

/** The rows of a file that passed the schema (the rules between fields are not in these types). */
export type LeagueRow = FromSchema<typeof league>;
export type TeamRow = FromSchema<typeof team>;
export type EventRow = FromSchema<typeof eventShape>;
export type MarketRow = FromSchema<typeof marketShape>;

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
// Every problem, not the first: the report lists each bad field of each row (a file on the
// operator's disk, not input from the network).
const ajv = new Ajv({ allErrors: true, verbose: true, strictTypes: false });
ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
ajv.addFormat('uuid', UUID_RE);
ajv.addFormat('zoned-date-time', isIsoDateTime);
const validate = ajv.compile(importSchema);

/** `/events/3/markets/1/strike` → `events[3].markets[1].strike`. */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .reduce((p, s) => (/^\d+$/.test(s) ? `${p}[${s}]` : p === '' ? s : `${p}.${s}`), '');
}

type Annotated = { errorMessage?: string; properties?: Record<string, { errorMessage?: string }> };

/** The failure as the report says it, or null for one that only accompanies another (`if`). */
function reported(e: ErrorObject): { pointer: string; message: string } | null {
  const parent = e.parentSchema as Annotated;
  if (e.keyword === 'if' || e.keyword === 'allOf') return null;
  if (e.keyword === 'required') {
    const p = (e.params as { missingProperty: string }).missingProperty;
    const message = parent.properties?.[p]?.errorMessage ?? `${p} is required`;
    return { pointer: `${e.instancePath}/${p}`, message };
  }
  if (e.keyword === 'additionalProperties') {
    const p = (e.params as { additionalProperty: string }).additionalProperty;
    return { pointer: `${e.instancePath}/${p}`, message: `unknown top-level field "${p}"` };
  }
  return { pointer: e.instancePath, message: parent.errorMessage ?? `${e.instancePath} ${e.message}` };
}

export interface SchemaCheck {
  errors: ImportError[];
  /** The file is unusable as a whole (not an object, another version): nothing is imported. */
  fatal: boolean;
  /** Rows with an error, `section[index]`: the second pass skips them. */
  badRows: Set<string>;
}

/** The first pass: the file against the schema, one error per field (the first found). */
export function checkSchema(json: unknown): SchemaCheck {
  const errors: ImportError[] = [];
  const badRows = new Set<string>();
  if (validate(json)) return { errors, fatal: false, badRows };
  const seen = new Set<string>();
  for (const e of validate.errors ?? []) {
    const r = reported(e);
    if (r === null) continue;
    const path = pathOf(r.pointer);
    if (seen.has(path)) continue;
    seen.add(path);
    const m = /^(leagues|teams|events)\[(\d+)\]/.exec(path);
    if (m) badRows.add(m[0]);
    errors.push({ row: m ? Number(m[2]) : -1, path, message: r.message });
  }
  const top = (path: string) => errors.some((e) => e.path === path);
  // A file of another version (or no object at all) is not read further: only its own problems.
  if (top('') || top('version')) return { errors: errors.filter((e) => e.row < 0), fatal: true, badRows };
  return { errors, fatal: false, badRows };
}
