// Hasura's query arguments over in-memory rows (docs/graphql.md): `where` (column comparisons,
// `_and`/`_or`/`_not`, relations: an object relation matches when its row does, an array relation
// when any of its rows does), `order_by`, `distinct_on`, `offset`, `limit`. Comparisons follow SQL,
// which Hasura compiles to: a null column matches only `_is_null: true`, never `_eq`/`_neq`/`_in`/
// `_nin`/`_gt`…; strings compare by code point (ISO 8601 times therefore in time order).

import { GraphQLError } from 'graphql';
import type { ExchangeReader } from '../../exchange/reader.ts';
import { TABLES, type TableName } from './model.ts';

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

function compare(value: unknown, exp: Record<string, unknown>): boolean {
  const v = (value === undefined ? null : value) as Scalar;
  for (const op of Object.keys(exp)) {
    const arg = exp[op];
    if (op === '_is_null') {
      if ((v === null) !== arg) return false;
      continue;
    }
    if (arg === null || arg === undefined) continue; // Hasura ignores a null operand
    if (v === null) return false;
    switch (op) {
      case '_eq':
        if (v !== arg) return false;
        break;
      case '_neq':
        if (v === arg) return false;
        break;
      case '_in':
        if (!(arg as Scalar[]).includes(v)) return false;
        break;
      case '_nin':
        if ((arg as Scalar[]).includes(v)) return false;
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
      default:
        throw new GraphQLError(`unknown comparison operator ${op}`);
    }
  }
  return true;
}

/** Whether `row` of `table` satisfies the bool expression. */
export function matches(table: TableName, row: unknown, where: BoolExp, r: ExchangeReader): boolean {
  const t = TABLES[table];
  for (const key of Object.keys(where)) {
    const exp = where[key];
    if (exp === null || exp === undefined) continue;
    if (key === '_and') {
      for (const e of exp as BoolExp[]) if (!matches(table, row, e, r)) return false;
    } else if (key === '_or') {
      const list = exp as BoolExp[];
      if (list.length > 0 && !list.some((e) => matches(table, row, e, r))) return false;
    } else if (key === '_not') {
      if (matches(table, row, exp as BoolExp, r)) return false;
    } else if (t.columns[key] !== undefined) {
      if (!compare(t.columns[key].get(row, r, 'CASH'), exp as Record<string, unknown>)) return false;
    } else if (t.relations[key] !== undefined) {
      const rel = t.relations[key];
      const got = rel.get(row, r);
      if (rel.kind === 'object') {
        if (got === undefined || got === null || !matches(rel.table, got, exp as BoolExp, r)) return false;
      } else if (!(got as unknown[]).some((x) => matches(rel.table, x, exp as BoolExp, r))) return false;
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
export function select<T>(table: TableName, rows: readonly T[], args: ListArgs, r: ExchangeReader): T[] {
  const t = TABLES[table];
  let out: T[] = args.where
    ? rows.filter((row) => matches(table, row, args.where as BoolExp, r))
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
