// The GraphQL schema of /v1/graphql, derived from the table model (model.ts) in Hasura's naming
// (docs/graphql.md): one object type per table with the production column names, `<table>_bool_exp`,
// `<table>_order_by`, `<table>_select_column`, `<scalar>_comparison_exp` with the operators Hasura
// gives each scalar, the `uuid`, `timestamptz` and `jsonb` scalars and the `order_by` enum; root
// fields `event`, `game`, `market`, `outcome` under `query_root`. Resolvers are attached to the
// built schema's fields, so the SDL and the resolvers cannot disagree.

import {
  buildSchema,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { Currency } from '../../exchange/types.ts';
import { type ListArgs, select } from './filter.ts';
import { type GqlContext, ROOT_TABLES, rootRows, type ScalarType, TABLES, type TableName } from './model.ts';
import { attachScalars } from './scalars.ts';

const ORDERED = ['_eq', '_neq', '_in', '_nin', '_gt', '_gte', '_lt', '_lte', '_is_null'] as const;

/** Hasura's operators per scalar (filter.ts evaluates each). */
export const COMPARISON_OPERATORS: Readonly<Record<ScalarType, readonly string[]>> = {
  String: [
    ...ORDERED,
    '_like',
    '_nlike',
    '_ilike',
    '_nilike',
    '_regex',
    '_nregex',
    '_iregex',
    '_niregex',
    '_similar',
    '_nsimilar',
  ],
  Int: ORDERED,
  Float: ORDERED,
  Boolean: ORDERED,
  uuid: ORDERED,
  timestamptz: ORDERED,
  jsonb: [
    '_eq',
    '_neq',
    '_in',
    '_nin',
    '_is_null',
    '_contains',
    '_contained_in',
    '_has_key',
    '_has_keys_all',
    '_has_keys_any',
  ],
};

/** The GraphQL type of an operator's operand. */
function operandType(scalar: ScalarType, op: string): string {
  if (op === '_is_null') return 'Boolean';
  if (op === '_in' || op === '_nin') return `[${scalar}!]`;
  if (op === '_has_key') return 'String';
  if (op === '_has_keys_all' || op === '_has_keys_any') return '[String!]';
  return scalar;
}

function listArgs(table: TableName): string {
  return (
    `(where: ${table}_bool_exp, order_by: [${table}_order_by!], limit: Int, offset: Int, ` +
    `distinct_on: [${table}_select_column!])`
  );
}

const doc = (s: string | undefined) => (s ? `  """${s.replace(/"/g, "'")}"""\n` : '');

/** The SDL text (exported for docs and tests). */
export function schemaSdl(): string {
  const parts: string[] = [
    'scalar jsonb',
    '"""A UUID (RFC 9562), any case on input"""\nscalar uuid',
    '"""A time: RFC 3339 on input (no zone is UTC), ISO 8601 UTC with milliseconds on output"""\nscalar timestamptz',
    'enum currency { CASH COIN }',
    'enum order_by { asc asc_nulls_first asc_nulls_last desc desc_nulls_first desc_nulls_last }',
  ];
  for (const [s, ops] of Object.entries(COMPARISON_OPERATORS) as [ScalarType, readonly string[]][]) {
    parts.push(`input ${s}_comparison_exp { ${ops.map((op) => `${op}: ${operandType(s, op)}`).join(' ')} }`);
  }
  for (const [name, t] of Object.entries(TABLES) as [TableName, (typeof TABLES)[TableName]][]) {
    const fields: string[] = [];
    const exp: string[] = [`_and: [${name}_bool_exp!]`, `_or: [${name}_bool_exp!]`, `_not: ${name}_bool_exp`];
    const order: string[] = [];
    const selectable: string[] = [];
    for (const [col, c] of Object.entries(t.columns)) {
      const args = c.byCurrency ? '(currency: currency = CASH)' : '';
      fields.push(`${doc(c.description)}  ${col}${args}: ${c.type}`);
      // Columns taking a currency filter and order by their default (CASH), as Hasura does with a
      // computed field's default argument.
      exp.push(`${col}: ${c.type}_comparison_exp`);
      // jsonb filters only: PostgreSQL's jsonb order is not one a client can rely on.
      if (c.type === 'jsonb') continue;
      order.push(`${col}: order_by`);
      selectable.push(col);
    }
    for (const [rel, r] of Object.entries(t.relations)) {
      fields.push(
        r.kind === 'object' ? `  ${rel}: ${r.table}` : `  ${rel}${listArgs(r.table)}: [${r.table}!]!`,
      );
      exp.push(`${rel}: ${r.table}_bool_exp`);
    }
    parts.push(`"""${t.description}"""\ntype ${name} {\n${fields.join('\n')}\n}`);
    parts.push(`input ${name}_bool_exp { ${exp.join(' ')} }`);
    parts.push(`input ${name}_order_by { ${order.join(' ')} }`);
    parts.push(`enum ${name}_select_column { ${selectable.join(' ')} }`);
  }
  parts.push(`type query_root {\n${ROOT_TABLES.map((n) => `  ${n}${listArgs(n)}: [${n}!]!`).join('\n')}\n}`);
  parts.push('schema { query: query_root }');
  return parts.join('\n\n');
}

type Resolver = GraphQLFieldResolver<unknown, GqlContext, Record<string, unknown>>;

function field(type: GraphQLObjectType, name: string): GraphQLField<unknown, GqlContext> {
  const f = type.getFields()[name];
  if (!f) throw new Error(`schema has no field ${type.name}.${name}`);
  return f as GraphQLField<unknown, GqlContext>;
}

/** The executable schema: the SDL with a resolver on every field. */
export function buildGraphqlSchema(): GraphQLSchema {
  const schema = buildSchema(schemaSdl());
  attachScalars(schema);
  const root = schema.getQueryType()!;
  for (const table of ROOT_TABLES) {
    const resolve: Resolver = (_src, args, ctx) =>
      select(table, rootRows(table, ctx.reader), args as ListArgs, ctx.reader, ctx.regex);
    field(root, table).resolve = resolve;
  }
  for (const [name, t] of Object.entries(TABLES) as [TableName, (typeof TABLES)[TableName]][]) {
    const type = schema.getType(name) as GraphQLObjectType;
    for (const [col, c] of Object.entries(t.columns)) {
      const resolve: Resolver = c.byCurrency
        ? (row, args, ctx) => c.get(row, ctx.reader, (args.currency as Currency | undefined) ?? 'CASH')
        : (row, _args, ctx) => c.get(row, ctx.reader, 'CASH');
      field(type, col).resolve = resolve;
    }
    for (const [rel, r] of Object.entries(t.relations)) {
      const resolve: Resolver =
        r.kind === 'object'
          ? (row, _args, ctx) => r.get(row, ctx.reader) ?? null
          : (row, args, ctx) =>
              select(r.table, r.get(row, ctx.reader) as unknown[], args as ListArgs, ctx.reader, ctx.regex);
      field(type, rel).resolve = resolve;
    }
  }
  return schema;
}
