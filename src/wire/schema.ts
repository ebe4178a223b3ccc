// The building blocks of the wire schemas, and how a wire type is derived from its schema: every
// wire shape of src/wire/ is declared once, as a JSON schema `as const`, and its TypeScript type is
// `Wire<typeof schema>` (json-schema-to-ts). The same schema objects describe the HTTP responses
// (and the OpenAPI document), validate request bodies where they are reused there, and check the
// real responses in the tests (test/wire/responses.test.ts).

import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { CURRENCIES } from '../exchange/types.ts';

/** The TypeScript type of a wire schema. */
export type Wire<S extends JSONSchema> = FromSchema<S>;

export const uuid = { type: 'string', format: 'uuid', description: 'UUID' } as const;
export const isoTime = {
  type: 'string',
  format: 'date-time',
  description: 'ISO 8601 UTC with milliseconds',
} as const;
export const nullableIsoTime = {
  type: ['string', 'null'],
  format: 'date-time',
  description: 'ISO 8601 UTC with milliseconds, or null',
} as const;
export const currency = { type: 'string', enum: [...CURRENCIES], description: 'Wallet currency' } as const;
export const qtyMcu = {
  type: 'integer',
  minimum: 0,
  description: 'Payout in minimum currency units (CASH: 0.01, COIN: 1)',
} as const;
export const units = {
  type: 'number',
  description: 'Amount in currency units (up to 5 decimals)',
} as const;

/**
 * Some of an object schema's properties, all required: a narrower view of one wire shape (the
 * stream's order frames carry part of the REST order), so the fields are declared once.
 */
export function pickSchema<P extends Record<string, JSONSchema>, K extends keyof P & string>(
  schema: { properties: P },
  keys: readonly K[],
) {
  const properties = Object.fromEntries(keys.map((k) => [k, schema.properties[k]])) as Pick<P, K>;
  return { type: 'object', required: keys, properties } as const;
}
