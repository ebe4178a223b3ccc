// The request validators: Fastify's Ajv compiler, built twice. A querystring, path parameter or
// header arrives as text, so its schema must coerce ("100" → 100 for an integer, a single value →
// a one-element array). A JSON body arrives typed, and coercing it would accept what the client
// did not send: `"qty": true` would become 1, `"price": null` 0, `"name": 123` "123", a bare id an
// array of one. So bodies are validated with type coercion off; every other part keeps it
// (docs/http.md "Validation and errors").
//
// Fastify takes this as `schemaController.compilersFactory.buildValidator` (src/app.ts); a route
// plugin that validates a batch item by hand compiles it with httpPart 'body' so that the item gets
// the body's rules (`request.compileValidationSchema(schema, 'body')`).

import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import { UUID_RE } from '../ids.ts';

/** The Ajv options of every request validator (Fastify's defaults otherwise). */
export const REQUEST_AJV_OPTIONS = {
  // One error, not all: allErrors on untrusted input is a denial-of-service lever.
  allErrors: false,
  coerceTypes: 'array',
  // Unknown fields are refused (bodies say additionalProperties: false), never silently dropped.
  removeAdditional: false,
} as const;

/**
 * Runs on every validator's Ajv once ajv-formats is in: format `uuid` becomes the one definition of
 * a well-formed id (src/ids.ts, docs/http.md "Identifiers") instead of ajv-formats' own, which
 * also takes a `urn:uuid:` prefix no id of this API has.
 */
function onCreate(ajv: { addFormat(name: string, format: RegExp): unknown }): void {
  ajv.addFormat('uuid', UUID_RE);
}

/**
 * The validator factory Fastify calls once per schema set: the `body` part (and batch items
 * compiled as 'body') gets the non-coercing compiler, every other part the coercing one.
 */
export const buildRequestValidator: BuildCompilerFromPool = (externalSchemas, options) => {
  const build = AjvCompiler();
  // Fastify hands over its `ajv` server option ({customOptions, plugins}), Ajv (not JTD) mode.
  const base = (options ?? {}) as { customOptions?: object; plugins?: never[] };
  const customOptions = { ...REQUEST_AJV_OPTIONS, ...base.customOptions };
  const coercing = build(externalSchemas, { ...base, customOptions, onCreate });
  const exact = build(externalSchemas, {
    ...base,
    customOptions: { ...customOptions, coerceTypes: false },
    onCreate,
  });
  // Fastify passes the route definition ({schema, method, url, httpPart}), which the pool's
  // compilers take as well; their declared type names only the schema.
  return ((route: { httpPart?: string }) =>
    route.httpPart === 'body' ? exact(route as never) : coercing(route as never)) as never;
};

let bodyCompiler: ((route: { schema: unknown }) => unknown) | undefined;

/**
 * A body validator compiler for a route that must validate the same way in any Fastify instance
 * (the parlay route also runs bare, in its tests and bench): the app's body rules, no coercion.
 */
export function bodyValidatorCompiler(route: { schema: unknown }) {
  if (bodyCompiler === undefined) {
    const customOptions = { ...REQUEST_AJV_OPTIONS, coerceTypes: false };
    bodyCompiler = AjvCompiler()({}, { customOptions, onCreate }) as never;
  }
  return bodyCompiler(route) as (data: unknown) => boolean;
}
