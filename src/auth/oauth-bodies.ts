// The bodies of the token (RFC 6749 §4.4.2), revocation (RFC 7009 §2.1) and introspection
// (RFC 7662 §2.1) requests, declared once as JSON schemas: the token routes publish them in the
// OpenAPI document (src/http/routes/oauth.ts) and the token service validates with them, through
// Ajv, as the first step (token-endpoint.ts). Each rule is a member of the schema's `allOf`, in the
// order its failure is reported, and names the RFC 6749 §5.2 error it raises: Ajv stops at the
// first failing member and `refuse` turns that failure into the same error the endpoints always
// answered. What a schema cannot state — credentials in the header or the body but not both, the
// legacy audience, a missing token — comes after client authentication, in token-endpoint.ts.

import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import { OAuthError } from './oauth-errors.ts';
import { SCOPES } from './scopes.ts';

const clientAuth = {
  client_id: { type: 'string', description: 'Client id (or use HTTP Basic)' },
  client_secret: { type: 'string', description: 'Client secret (or use HTTP Basic)' },
} as const;

/**
 * The parameters of a token request. Each one, if present, is a single string: a form parameter
 * given twice arrives as an array (RFC 6749 §3.2: parameters appear once). Others are ignored.
 */
const tokenParams = (legacy: boolean) =>
  ({
    type: 'object',
    properties: {
      grant_type: { type: 'string', description: 'client_credentials' },
      ...clientAuth,
      scope: { type: 'string', description: `Optional narrowing, space-separated: ${SCOPES.join(', ')}` },
      audience: {
        type: 'string',
        description: legacy
          ? "Required: the server's public base URL (PUBLIC_BASE_URL) or one of LEGACY_TOKEN_AUDIENCES; a refusal names the accepted values"
          : 'Ignored on this endpoint',
      },
    },
  }) as const;

/** The parameters of a revocation or introspection request: the token, its hint, the client. */
const tokenHintParams = {
  type: 'object',
  properties: {
    token: { type: 'string', description: 'The token (required; checked after client authentication)' },
    token_type_hint: { type: 'string' },
    ...clientAuth,
  },
} as const;

export type TokenParams = FromSchema<ReturnType<typeof tokenParams>>;
export type TokenHintParams = FromSchema<typeof tokenHintParams>;
/** What client authentication reads of either body. */
export type ClientParams = Pick<TokenParams, 'client_id' | 'client_secret'>;

/** A member of a body's `allOf` and the error its failure raises. */
interface Rule {
  schema: object;
  refuse: (e: ErrorObject) => OAuthError;
}

/** The body is an object whose named parameters are single strings. */
const singleStrings = (schema: object): Rule => ({
  schema,
  refuse: (e) =>
    e.instancePath === ''
      ? new OAuthError('invalid_request', 'The request body must be a JSON object or a form')
      : new OAuthError('invalid_request', `Parameter ${e.instancePath.slice(1)} must be a single string`),
});

/** RFC 6749 §4.4.2: grant_type is required, and only client_credentials is served (§5.2). */
const GRANT_RULES: Rule[] = [
  {
    schema: {
      type: 'object',
      required: ['grant_type'],
      properties: { grant_type: { type: 'string', minLength: 1 } },
    },
    refuse: () => new OAuthError('invalid_request', 'Missing grant_type'),
  },
  {
    schema: { type: 'object', properties: { grant_type: { const: 'client_credentials' } } },
    refuse: () => new OAuthError('unsupported_grant_type', 'Only grant_type=client_credentials is supported'),
  },
];

/** A body's schema (what the route publishes) and its validator. */
export interface BodyCheck<T> {
  readonly schema: { allOf: readonly object[] };
  /** The parameters of `body` (absent: none), or the OAuthError of its first failing rule. */
  read(body: unknown): T;
}

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
// One error, not all (src/http/validation.ts): the first failing rule is the answer.
const ajv = new Ajv({ allErrors: false });

function bodyCheck<T>(rules: readonly Rule[]): BodyCheck<T> {
  const schema = { allOf: rules.map((r) => r.schema) };
  const validate: ValidateFunction<T> = ajv.compile<T>(schema);
  return {
    schema,
    read(body) {
      const params = body ?? {};
      if (validate(params)) return params;
      const e = validate.errors?.[0] as ErrorObject;
      const member = Number(/^#\/allOf\/(\d+)\//.exec(e.schemaPath)?.[1]);
      throw (rules[member] as Rule).refuse(e);
    },
  };
}

export const TOKEN_BODY = bodyCheck<TokenParams>([singleStrings(tokenParams(false)), ...GRANT_RULES]);
/** The legacy endpoint's body: the same rules, its audience described as required. */
export const LEGACY_TOKEN_BODY = bodyCheck<TokenParams>([singleStrings(tokenParams(true)), ...GRANT_RULES]);
export const TOKEN_HINT_BODY = bodyCheck<TokenHintParams>([singleStrings(tokenHintParams)]);
