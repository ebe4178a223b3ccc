// Building blocks of the route schemas. The same objects validate requests (Fastify's Ajv),
// describe responses (and thereby the OpenAPI document, @fastify/swagger) and check shapes in the
// tests — one definition per wire shape.

import { errorEnvelope } from '../../errors.ts';
import { uuid } from '../../wire/schema.ts';

/** The one error envelope (docs/http.md "Validation and errors"), declared in src/errors.ts. */
export { errorEnvelope } from '../../errors.ts';

// The wire's building blocks are declared in src/wire/schema.ts; the route schemas use them from here.
export { currency, isoTime, nullableIsoTime, qtyMcu, units, uuid } from '../../wire/schema.ts';

// Path parameters that name one entity by its UUID, shared by the public and admin routes.
export const eventParams = { type: 'object', properties: { eventId: uuid }, required: ['eventId'] } as const;
export const marketParams = {
  type: 'object',
  properties: { marketId: uuid },
  required: ['marketId'],
} as const;
export const accountParams = {
  type: 'object',
  properties: { accountId: uuid },
  required: ['accountId'],
} as const;
export const lockParams = { type: 'object', properties: { lockId: uuid }, required: ['lockId'] } as const;
export const orderIdParams = {
  type: 'object',
  properties: { orderId: uuid },
  required: ['orderId'],
} as const;
export const price = {
  type: 'number',
  exclusiveMinimum: 0,
  exclusiveMaximum: 1,
  description: 'Probability on the tick table (GET /nbx/v2/emm/ticks), e.g. 0.667',
} as const;

export const notModified = {
  description: 'Not Modified (If-None-Match matched the ETag)',
  type: 'null',
} as const;

/** The error statuses every bearer-protected route can answer. */
export const authErrors = { 401: errorEnvelope, 403: errorEnvelope, 429: errorEnvelope } as const;

export const bearer = [{ bearer: [] }];

export const pagination = {
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 100, description: 'Page size (1–100)' },
  offset: { type: 'integer', minimum: 0, default: 0, description: 'Rows to skip' },
} as const;
