// Hasura's `uuid` and `timestamptz` scalars for /v1/graphql (docs/graphql.md "Scalars and filters"). Clients of
// the production interface declare their variables with these types (`$eventId: uuid!`), which
// must exist by name for their queries to validate. Inputs are checked and brought to the form the
// columns carry, so the filters compare like PostgreSQL would: a uuid in lower case (PostgreSQL
// compares uuids by value, so case does not matter), a time as the wire's ISO 8601 UTC text with
// milliseconds, whose code-point order is time order (docs/http.md). Outputs are the wire's text.

import { GraphQLError, type GraphQLScalarType, type GraphQLSchema, Kind, type ValueNode } from 'graphql';
import { isUuid } from '../../ids.ts';
import { isoMillis, WIRE_MAX_MS, WIRE_MIN_MS } from '../../wire/names.ts';

/** The first characters of a bad input, for an error message that cannot grow with the input. */
const shown = (v: unknown) => JSON.stringify(typeof v === 'string' ? v.slice(0, 64) : v) ?? String(v);

/** A uuid input (RFC 9562 text form, any case) → lower case; anything else is a GraphQL error. */
export function parseUuid(v: unknown): string {
  if (!isUuid(v)) {
    throw new GraphQLError(`invalid input syntax for type uuid: ${shown(v)}`);
  }
  return v.toLowerCase();
}

// RFC 3339 date-time with `T` or a space between date and time (PostgreSQL accepts both), an
// optional fraction and an optional zone (none means UTC, the zone Hasura's server runs in); a
// bare date is midnight UTC.
const TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A timestamptz input → the wire's text ("2026-11-22T18:00:00.000Z"), to the millisecond.
 * Out-of-range fields (month 13, 25:00) and times outside the wire's years 0000–9999 are errors.
 */
export function parseTimestamptz(v: unknown): string {
  const m = typeof v === 'string' ? TIME.exec(v.trim()) : null;
  if (m === null) throw new GraphQLError(`invalid input syntax for type timestamptz: ${shown(v)}`);
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((x) => Number(x ?? 0));
  const ms = Math.trunc(Number(`0.${m[7] ?? '0'}`) * 1000);
  let offsetMin = 0;
  const zone = m[8];
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    offsetMin = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * (zone[0] === '-' ? -1 : 1);
  }
  // setUTCFullYear, not Date.UTC, which reads years 0–99 as 1900–1999.
  const d = new Date(0);
  d.setUTCFullYear(year!, month! - 1, day!);
  d.setUTCHours(hour, minute, second, ms);
  // Fields roll over (month 13 → next year): a rolled-over time is not the one written.
  const rolled =
    d.getUTCFullYear() !== year ||
    d.getUTCMonth() !== month! - 1 ||
    d.getUTCDate() !== day ||
    d.getUTCHours() !== hour ||
    d.getUTCMinutes() !== minute ||
    d.getUTCSeconds() !== second;
  const t = d.getTime() - offsetMin * 60_000;
  if (rolled || Number.isNaN(t) || t < WIRE_MIN_MS || t > WIRE_MAX_MS) {
    throw new GraphQLError(`timestamptz out of range: ${shown(v)}`);
  }
  return isoMillis(t);
}

function literal(parse: (v: unknown) => string) {
  return (ast: ValueNode): string => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError(`expected a string, got ${ast.kind}`);
    return parse(ast.value);
  };
}

/** Gives the schema's `uuid` and `timestamptz` scalars their parsing (the SDL only names them). */
export function attachScalars(schema: GraphQLSchema): void {
  for (const [name, parse] of [
    ['uuid', parseUuid],
    ['timestamptz', parseTimestamptz],
  ] as const) {
    const t = schema.getType(name) as GraphQLScalarType | undefined;
    if (!t) throw new Error(`schema has no scalar ${name}`);
    t.parseValue = parse;
    t.parseLiteral = literal(parse);
    t.serialize = (v) => v;
  }
}
