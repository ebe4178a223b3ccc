// Hasura's query arguments over in-memory rows (docs/graphql.md): `where` (column comparisons,
// `_and`/`_or`/`_not`, relations: an object relation matches when its row does, an array relation
// when any of its rows does), `order_by`, `distinct_on`, `offset`, `limit`. Comparisons follow SQL,
// which Hasura compiles to: a null column matches only `_is_null: true`, never `_eq`/`_neq`/`_in`/
// `_nin`/`_gt`/`_like`…; strings compare by code point (the wire's ISO 8601 times, which every
// `timestamptz` input is brought to, therefore in time order); `_like`/`_ilike` are SQL LIKE,
// `_regex`/`_iregex`/`_similar` PostgreSQL's `~`, `~*` and SIMILAR TO on RE2, a linear-time engine
// (regex.ts); jsonb compares and contains as PostgreSQL's jsonb does.

import { GraphQLError } from 'graphql';
import type { ExchangeReader } from '../../exchange/reader.ts';
import { type ScalarType, TABLES, type TableName } from './model.ts';
import { type RegexState, regexMatch } from './regex.ts';

type Scalar = string | number | boolean | null;
export type BoolExp = Record<string, unknown>;
export type OrderBy = Record<string, string>;

export interface ListArgs {
  where?: BoolExp | null;
  order_by?: OrderBy | OrderBy[] | null;
  distinct_on?: string | string[] | null;
  limit?: number | null;
  offset?: number | null;
}

function cmp(a: Scalar, b: Scalar): number {
  if (a === b) return 0;
  return (a as string | number) < (b as string | number) ? -1 : 1;
}

/** A pattern of SQL LIKE as tokens: a code point to match, `_` (any one) or `%` (any run). */
type LikeToken = string | typeof ONE | typeof ANY;
const ONE = Symbol('_');
const ANY = Symbol('%');

function likeTokens(pattern: string, caseless: boolean): LikeToken[] {
  const out: LikeToken[] = [];
  const chars = Array.from(caseless ? pattern.toLowerCase() : pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      // PostgreSQL's default escape character: the next character stands for itself.
      if (i + 1 === chars.length) throw new GraphQLError('LIKE pattern must not end with escape character');
      out.push(chars[++i]!);
    } else out.push(c === '%' ? ANY : c === '_' ? ONE : c);
  }
  return out;
}

/**
 * SQL LIKE over the whole value (ILIKE with `caseless`). Greedy, going back only to the last `%`
 * seen, so a match costs at most value length × pattern length steps whatever the pattern (a
 * regular expression built from a client's pattern could backtrack exponentially).
 */
export function likeMatch(value: string, pattern: string, caseless: boolean): boolean {
  const v = Array.from(caseless ? value.toLowerCase() : value);
  const p = likeTokens(pattern, caseless);
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (i < v.length) {
    const tok = p[j];
    if (j < p.length && (tok === ONE || tok === v[i])) {
      i++;
      j++;
    } else if (tok === ANY) {
      star = j++;
      mark = i;
    } else if (star !== -1) {
      j = star + 1;
      i = ++mark;
    } else return false;
  }
  while (p[j] === ANY) j++;
  return j === p.length;
}

/** jsonb equality: objects equal whatever their key order (PostgreSQL keeps jsonb keys unordered). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const y = b as unknown[];
    return a.length === y.length && a.every((x, i) => jsonEqual(x, y[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x);
  return kx.length === Object.keys(y).length && kx.every((k) => k in y && jsonEqual(x[k], y[k]));
}

/** PostgreSQL's jsonb `a @> b`: every member of b is in a, recursively; an array contains a
 * primitive it has as an element. */
function jsonContains(a: unknown, b: unknown): boolean {
  if (Array.isArray(b)) {
    return Array.isArray(a) && b.every((y) => a.some((x) => jsonContains(x, y)));
  }
  if (typeof b === 'object' && b !== null) {
    if (typeof a !== 'object' || a === null || Array.isArray(a)) return false;
    const x = a as Record<string, unknown>;
    return Object.entries(b).every(([k, y]) => k in x && jsonContains(x[k], y));
  }
  if (Array.isArray(a)) return a.some((x) => jsonEqual(x, b));
  return jsonEqual(a, b);
}

/** PostgreSQL's jsonb `?`: a top-level key of an object, or a string element of an array. */
function jsonHasKey(a: unknown, key: string): boolean {
  if (Array.isArray(a)) return a.includes(key);
  return typeof a === 'object' && a !== null && Object.hasOwn(a, key);
}

function compare(value: unknown, exp: Record<string, unknown>, type: ScalarType, rx: RegexState): boolean {
  const v = (value === undefined ? null : value) as Scalar;
  const json = type === 'jsonb';
  for (const op of Object.keys(exp)) {
    const arg = exp[op];
    if (op === '_is_null') {
      if (arg === null || arg === undefined) continue;
      if ((v === null) !== arg) return false;
      continue;
    }
    if (arg === null || arg === undefined) continue; // Hasura ignores a null operand
    if (v === null) return false;
    switch (op) {
      case '_eq':
        if (json ? !jsonEqual(v, arg) : v !== arg) return false;
        break;
      case '_neq':
        if (json ? jsonEqual(v, arg) : v === arg) return false;
        break;
      case '_in':
        if (!(arg as Scalar[]).some((x) => (json ? jsonEqual(v, x) : v === x))) return false;
        break;
      case '_nin':
        if ((arg as Scalar[]).some((x) => (json ? jsonEqual(v, x) : v === x))) return false;
        break;
      case '_gt':
        if (!(cmp(v, arg as Scalar) > 0)) return false;
        break;
      case '_gte':
        if (!(cmp(v, arg as Scalar) >= 0)) return false;
        break;
      case '_lt':
        if (!(cmp(v, arg as Scalar) < 0)) return false;
        break;
      case '_lte':
        if (!(cmp(v, arg as Scalar) <= 0)) return false;
        break;
      case '_like':
      case '_nlike':
      case '_ilike':
      case '_nilike':
        if (likeMatch(String(v), String(arg), op.endsWith('ilike')) === op.startsWith('_n')) return false;
        break;
      case '_regex':
      case '_nregex':
      case '_iregex':
      case '_niregex':
      case '_similar':
      case '_nsimilar':
        if (regexMatch(rx, op, String(v), String(arg)) === op.startsWith('_n')) return false;
        break;
      case '_contains':
        if (!jsonContains(v, arg)) return false;
        break;
      case '_contained_in':
        if (!jsonContains(arg, v)) return false;
        break;
      case '_has_key':
        if (!jsonHasKey(v, arg as string)) return false;
        break;
      case '_has_keys_all':
        if (!(arg as string[]).every((k) => jsonHasKey(v, k))) return false;
        break;
      case '_has_keys_any':
        if (!(arg as string[]).some((k) => jsonHasKey(v, k))) return false;
        break;
      default:
        throw new GraphQLError(`unknown comparison operator ${op}`);
    }
  }
  return true;
}

/** Whether `row` of `table` satisfies the bool expression. */
export function matches(
  table: TableName,
  row: unknown,
  where: BoolExp,
  r: ExchangeReader,
  rx: RegexState,
): boolean {
  const t = TABLES[table];
  for (const key of Object.keys(where)) {
    const exp = where[key];
    if (exp === null || exp === undefined) continue;
    if (key === '_and') {
      for (const e of exp as BoolExp[]) if (!matches(table, row, e, r, rx)) return false;
    } else if (key === '_or') {
      const list = exp as BoolExp[];
      if (list.length > 0 && !list.some((e) => matches(table, row, e, r, rx))) return false;
    } else if (key === '_not') {
      if (matches(table, row, exp as BoolExp, r, rx)) return false;
    } else if (t.columns[key] !== undefined) {
      const c = t.columns[key];
      if (!compare(c.get(row, r, 'CASH'), exp as Record<string, unknown>, c.type, rx)) return false;
    } else if (t.relations[key] !== undefined) {
      const rel = t.relations[key];
      const got = rel.get(row, r);
      if (rel.kind === 'object') {
        if (got === undefined || got === null || !matches(rel.table, got, exp as BoolExp, r, rx))
          return false;
      } else if (!(got as unknown[]).some((x) => matches(rel.table, x, exp as BoolExp, r, rx))) return false;
    } else {
      throw new GraphQLError(`unknown field ${key} in ${table}_bool_exp`);
    }
  }
  return true;
}

const DIRECTIONS: Record<string, { desc: boolean; nullsFirst: boolean }> = {
  asc: { desc: false, nullsFirst: false },
  asc_nulls_last: { desc: false, nullsFirst: false },
  asc_nulls_first: { desc: false, nullsFirst: true },
  desc: { desc: true, nullsFirst: true },
  desc_nulls_first: { desc: true, nullsFirst: true },
  desc_nulls_last: { desc: true, nullsFirst: false },
};

/** Applies where, order_by, distinct_on, offset, limit, in Hasura's order. */
export function select<T>(
  table: TableName,
  rows: readonly T[],
  args: ListArgs,
  r: ExchangeReader,
  rx: RegexState,
): T[] {
  const t = TABLES[table];
  let out: T[] = args.where
    ? rows.filter((row) => matches(table, row, args.where as BoolExp, r, rx))
    : rows.slice();
  const orderBy: [string, { desc: boolean; nullsFirst: boolean }][] = [];
  for (const o of args.order_by ? [args.order_by].flat() : []) {
    for (const [col, dir] of Object.entries(o)) {
      if (dir === null || dir === undefined) continue;
      orderBy.push([col, DIRECTIONS[dir] ?? DIRECTIONS.asc!]);
    }
  }
  const distinct = args.distinct_on ? [args.distinct_on].flat() : [];
  if (distinct.length > 0) {
    if (orderBy.length === 0) for (const c of distinct) orderBy.push([c, DIRECTIONS.asc!]);
    // Hasura (after PostgreSQL's DISTINCT ON) requires order_by to begin with the distinct columns.
    const lead = orderBy.slice(0, distinct.length).map(([c]) => c);
    if (lead.length < distinct.length || distinct.some((c) => !lead.includes(c))) {
      throw new GraphQLError('"distinct_on" columns must match initial "order_by" columns');
    }
  }
  if (orderBy.length > 0) {
    const keyed = out.map((row, i) => ({
      row,
      i,
      k: orderBy.map(([c]) => t.columns[c]!.get(row, r, 'CASH')),
    }));
    keyed.sort((a, b) => {
      for (let j = 0; j < orderBy.length; j++) {
        const { desc, nullsFirst } = orderBy[j]![1];
        const x = a.k[j] as Scalar;
        const y = b.k[j] as Scalar;
        if (x === y) continue;
        if (x === null || x === undefined) return nullsFirst ? -1 : 1;
        if (y === null || y === undefined) return nullsFirst ? 1 : -1;
        const c = cmp(x, y);
        return desc ? -c : c;
      }
      return a.i - b.i; // stable: the natural (REST) order breaks ties
    });
    out = keyed.map((x) => x.row);
  }
  if (distinct.length > 0) {
    const seen = new Set<string>();
    out = out.filter((row) => {
      const key = JSON.stringify(distinct.map((c) => t.columns[c]!.get(row, r, 'CASH')));
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  const offset = args.offset ?? 0;
  if (offset < 0) throw new GraphQLError('offset must be ≥ 0');
  if (args.limit !== null && args.limit !== undefined && args.limit < 0)
    throw new GraphQLError('limit must be ≥ 0');
  if (offset > 0 || (args.limit !== null && args.limit !== undefined)) {
    out = out.slice(
      offset,
      args.limit === null || args.limit === undefined ? undefined : offset + args.limit,
    );
  }
  return out;
}
