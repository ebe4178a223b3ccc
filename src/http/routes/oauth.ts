// The token server's HTTP face (docs/auth.md, docs/http.md "Tokens", docs/http.md "Tokens"):
//   POST /nbx/v1/auth/emm-token          client-credentials grant (RFC 6749 §4.4)
//   POST /oauth/token                     the deprecated legacy endpoint (audience required)
//   POST /oauth/revoke                    RFC 7009
//   POST /oauth/introspect                RFC 7662
//   GET  /.well-known/jwks.json           the published signing keys
//   GET  /.well-known/oauth-authorization-server   RFC 8414 metadata
// The four POST endpoints live in their own encapsulated scope with the form-body parser and an
// error handler that answers every failure — malformed JSON, wrong types, oversized or
// unexpected bodies — with an RFC 6749 §5.2 body instead of the §8 envelope, never a 5xx.

import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { LEGACY_TOKEN_BODY, TOKEN_BODY, TOKEN_HINT_BODY } from '../../auth/oauth-bodies.ts';
import { OAuthError, oauthErrorBody } from '../../auth/oauth-errors.ts';
import type { AuthService } from '../../auth/service.ts';
import { type OAuthRequest, tokenHintRequest, tokenRequest } from '../../auth/token-endpoint.ts';
import type { Config } from '../../config.ts';
import { fastifyErrorCode } from '../error-handler.ts';
import { loggerOptions } from '../logger.ts';
import { registerBearer } from '../plugins/bearer.ts';
import adminClientRoutes from './admin-clients.ts';

export interface OAuthRoutesOptions {
  auth: AuthService;
}

export const TOKEN_PATH = '/nbx/v1/auth/emm-token';
export const LEGACY_TOKEN_PATH = '/oauth/token';
/** Token requests are a few hundred bytes; anything near this is not a token request. */
const TOKEN_BODY_LIMIT = 16 * 1024;

// --- schemas (the bodies' are the token service's, src/auth/oauth-bodies.ts) --------------------

const tokenResponseSchema = {
  type: 'object',
  properties: {
    access_token: { type: 'string', description: 'JWT (RFC 9068)' },
    scope: { type: 'string', description: 'Space-separated granted scopes' },
    expires_in: { type: 'integer', description: 'Lifetime in seconds' },
    token_type: { type: 'string', enum: ['Bearer'] },
  },
  required: ['access_token', 'scope', 'expires_in', 'token_type'],
} as const;

const tokenResponses = {
  200: tokenResponseSchema,
  400: oauthErrorBody,
  401: oauthErrorBody,
  403: oauthErrorBody,
  429: oauthErrorBody,
};

const consumes = ['application/json', 'application/x-www-form-urlencoded'];

/** Errors of revocation and introspection: a bad request, an unauthenticated client, throttling. */
const tokenHintErrors = { 400: oauthErrorBody, 401: oauthErrorBody, 429: oauthErrorBody };

/** What the token service needs of the request (src/auth/token-endpoint.ts). */
function oauthRequest(request: FastifyRequest): OAuthRequest {
  return { body: request.body, authorization: request.headers.authorization, ip: request.ip };
}

// --- error handling -----------------------------------------------------------------------------

function toOAuthError(err: unknown): OAuthError {
  if (err instanceof OAuthError) return err;
  const fe = err as { statusCode?: number; code?: string; message?: string };
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    // Fastify's own refusals: FST_ERR_CTP_INVALID_JSON_BODY, _EMPTY_JSON_BODY, _BODY_TOO_LARGE,
    // _INVALID_MEDIA_TYPE, _INVALID_CONTENT_LENGTH … all mean the request itself is malformed.
    const code = fastifyErrorCode(err);
    const what =
      code === 'BODY_TOO_LARGE'
        ? 'The request body is too large'
        : code === 'UNSUPPORTED_MEDIA_TYPE'
          ? 'Content-Type must be application/json or application/x-www-form-urlencoded'
          : code === 'MALFORMED_JSON' || err instanceof SyntaxError
            ? 'The request body is not valid JSON'
            : 'Malformed request';
    return new OAuthError('invalid_request', what);
  }
  return new OAuthError('server_error', 'The authorization server encountered an unexpected condition');
}

function sendOAuthError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const oe = toOAuthError(err);
  if (oe.status >= 500) request.log.error({ err }, 'token endpoint failure');
  else request.log.info({ oauthError: oe.error, status: oe.status }, 'oauth request rejected');
  return reply.code(oe.status).headers(oe.headers).type('application/json').send(oe.body());
}

// --- the endpoints ------------------------------------------------------------------------------

interface TokenEndpointOptions extends OAuthRoutesOptions {
  /** Register the legacy /oauth/token only (the LEGACY_AUTH_PORT listener). */
  legacyOnly?: boolean;
}

async function tokenEndpoints(app: FastifyInstance, opts: TokenEndpointOptions): Promise<void> {
  const { auth } = opts;
  const base = auth.metadata().issuer as string;
  await app.register(formbody, { bodyLimit: TOKEN_BODY_LIMIT });
  // The body schemas are published here and checked by the token service (src/auth/oauth-bodies.ts,
  // token-endpoint.ts), because each failure has its own RFC 6749 §5.2 error (invalid_request,
  // unsupported_grant_type, invalid_client with a Basic challenge…) in an order the RFC sets, with
  // the rules a schema cannot state (credentials from the body or HTTP Basic but not both, the
  // legacy audience) after client authentication: none of that is the §8 envelope the app's
  // validator answers (docs/http.md "Validation and errors"). So the scope validates nothing itself.
  app.setValidatorCompiler(() => () => true);
  app.setErrorHandler((err, request, reply) => sendOAuthError(request, reply, err));
  // RFC 6749 §5.1: token responses (and errors) must not be cached.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store');
    reply.header('pragma', 'no-cache');
    return payload;
  });

  const issue =
    (legacy: boolean) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const body = await tokenRequest(auth, oauthRequest(request), legacy);
      return reply.code(200).type('application/json').send(body);
    };

  const routeOpts = (legacy: boolean) => ({
    bodyLimit: TOKEN_BODY_LIMIT,
    schema: {
      tags: ['auth'],
      summary: legacy ? 'Obtain an access token (deprecated)' : 'Obtain an access token',
      description: legacy
        ? `Deprecated predecessor of ${TOKEN_PATH}: same fields plus audience (the API base URL).`
        : 'OAuth2 client-credentials grant (RFC 6749 §4.4). JSON or form body; client credentials in the body or HTTP Basic.',
      deprecated: legacy || undefined,
      consumes,
      body: (legacy ? LEGACY_TOKEN_BODY : TOKEN_BODY).schema,
      response: tokenResponses,
    },
  });

  if (!opts.legacyOnly) app.post(TOKEN_PATH, routeOpts(false), issue(false));
  app.post(
    LEGACY_TOKEN_PATH,
    {
      ...routeOpts(true),
      onRequest: async (_request, reply) => {
        // draft-ietf-httpapi-deprecation-header (`true`) and RFC 8288 successor link.
        reply.header('deprecation', 'true');
        reply.header('link', `<${base}${TOKEN_PATH}>; rel="successor-version"`);
      },
    },
    issue(true),
  );
  if (opts.legacyOnly) return;

  app.post(
    '/oauth/revoke',
    {
      bodyLimit: TOKEN_BODY_LIMIT,
      schema: {
        tags: ['auth'],
        summary: 'Revoke an access token (RFC 7009)',
        consumes,
        body: TOKEN_HINT_BODY.schema,
        response: {
          200: { type: 'null', description: 'Revoked, or nothing to revoke (RFC 7009 §2.2)' },
          ...tokenHintErrors,
        },
      },
    },
    async (request, reply) => {
      const { token, client } = tokenHintRequest(auth, oauthRequest(request));
      await auth.revokeToken(token, client);
      return reply.code(200).send();
    },
  );

  app.post(
    '/oauth/introspect',
    {
      bodyLimit: TOKEN_BODY_LIMIT,
      schema: {
        tags: ['auth'],
        summary: 'Introspect an access token (RFC 7662)',
        consumes,
        body: TOKEN_HINT_BODY.schema,
        response: {
          200: {
            type: 'object',
            properties: {
              active: { type: 'boolean' },
              scope: { type: 'string' },
              client_id: { type: 'string' },
              token_type: { type: 'string' },
              exp: { type: 'integer' },
              iat: { type: 'integer' },
              nbf: { type: 'integer' },
              sub: { type: 'string' },
              aud: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
              iss: { type: 'string' },
              jti: { type: 'string' },
            },
            required: ['active'],
          },
          ...tokenHintErrors,
        },
      },
    },
    async (request, reply) => {
      const { token, client } = tokenHintRequest(auth, oauthRequest(request));
      return reply
        .code(200)
        .type('application/json')
        .send(await auth.introspect(token, client));
    },
  );
}

/** The token server routes; register on the root app (after registerBearer). */
export default async function oauthRoutes(app: FastifyInstance, opts: OAuthRoutesOptions): Promise<void> {
  const { auth } = opts;
  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        tags: ['auth'],
        summary: 'Published token signing keys (JWK Set)',
        response: {
          200: {
            type: 'object',
            properties: { keys: { type: 'array', items: { type: 'object', additionalProperties: true } } },
            required: ['keys'],
          },
        },
      },
    },
    async (_request, reply) => {
      // Short max-age: a rotation is picked up quickly; verifiers refetch on an unknown kid anyway.
      reply.header('cache-control', 'public, max-age=60');
      return auth.jwks();
    },
  );
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      schema: {
        tags: ['auth'],
        summary: 'Authorization server metadata (RFC 8414)',
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return auth.metadata();
    },
  );
  await app.register(tokenEndpoints, { auth });
}

/**
 * The stand-in for the separate legacy auth host (LEGACY_AUTH_PORT): a minimal app serving only
 * POST /oauth/token with the same AuthService. main.ts listens on it.
 */
export async function buildLegacyAuthApp(deps: {
  config: Config;
  auth: AuthService;
  logStream?: NodeJS.WritableStream;
}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(deps.config.logLevel, deps.logStream),
    bodyLimit: deps.config.bodyLimit,
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .type('application/json')
      .send({
        error: 'invalid_request',
        error_description: `Route ${request.method}:${request.url.split('?')[0]} not found`,
      }),
  );
  await app.register(tokenEndpoints, { auth: deps.auth, legacyOnly: true });
  return app;
}

/**
 * Everything the token server adds to the main app, in the order it needs: the bearer guard on
 * the root instance, then the OAuth routes and the admin API. For buildApp's `features`.
 */
export async function registerAuthHttp(app: FastifyInstance, auth: AuthService): Promise<void> {
  registerBearer(app, auth);
  await app.register(oauthRoutes, { auth });
  await app.register(adminClientRoutes, { auth });
}
