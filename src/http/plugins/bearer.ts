// The bearer guard for every protected route (RFC 6750, docs/auth.md; docs/http.md "Validation and errors"). Routes declare
// `preHandler: app.requireScope('read:tape')`; the guard sets request.principal.
//   no Authorization (or not Bearer) → 401 UNAUTHORIZED,     WWW-Authenticate: Bearer realm="tickbook"
//   invalid/expired/revoked token    → 401 INVALID_TOKEN,    … error="invalid_token"
//   valid token without the scope    → 403 INSUFFICIENT_SCOPE, … error="insufficient_scope", scope="…"
// Bodies are the §8 envelope. A token seen before costs a Map lookup (AuthService.verifyCached).
//
// Not a fastify-plugin (not installed): registerBearer decorates the root instance directly, so
// call it before registering the route plugins that use requireScope.

import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  preHandlerHookHandler,
} from 'fastify';
import type { Principal, Scope } from '../../auth/scopes.ts';
import type { AuthService } from '../../auth/service.ts';
import { InvalidTokenError } from '../../auth/verifier.ts';
import { ApiError } from '../../errors.ts';
import '../fastify-types.ts';

const REALM = 'tickbook';
// RFC 6750 §2.1 b64token.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * A quoted-string for a challenge parameter (RFC 9110 §5.6.4) holding only what RFC 6750 §3
 * allows in error_description (%x20-21 / %x23-5B / %x5D-7E): no quotes, backslashes or non-ASCII,
 * which a header cannot carry either.
 */
const q = (s: string) => `"${s.replace(/[^\x20-\x21\x23-\x5B\x5D-\x7E]/g, '')}"`;

function challenge(extra?: Record<string, string>): Record<string, string> {
  const params = [`realm=${q(REALM)}`, ...Object.entries(extra ?? {}).map(([k, v]) => `${k}=${q(v)}`)];
  return { 'www-authenticate': `Bearer ${params.join(', ')}` };
}

function invalidToken(message: string): ApiError {
  return new ApiError(
    'INVALID_TOKEN',
    message,
    undefined,
    challenge({ error: 'invalid_token', error_description: message }),
  );
}

/**
 * The token of a request's Authorization header, or an RFC 6750 ApiError. Plain string operations:
 * this runs on every protected request.
 */
function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const sp = header === undefined ? -1 : header.indexOf(' ');
  const scheme = header === undefined ? '' : sp < 0 ? header : header.slice(0, sp);
  if (header === undefined || scheme.toLowerCase() !== 'bearer') {
    // RFC 6750 §3.1: a request without authentication gets no error code.
    throw new ApiError('UNAUTHORIZED', 'A bearer access token is required', undefined, challenge());
  }
  return sp < 0 ? '' : header.slice(sp + 1).trim();
}

const kLastBearer = Symbol('tickbook.lastBearer');

interface LastBearer {
  /** The Authorization header as the connection last sent it. */
  header: string;
  /** Its token, the very string object that was looked up before. */
  token: string;
}

type MemoSocket = { [kLastBearer]?: LastBearer } | null | undefined;

/**
 * bearerToken, remembered per connection. A keep-alive client sends the same Authorization header
 * on every request, but each request's header is a new string, and the verified-token cache (a Map
 * keyed by the token) must hash all of its ~700 characters again before it can answer — a few µs,
 * the largest part of the guard (docs/http.md, "What every request pays"). Comparing the header
 * with the connection's previous one is a memcmp; on a match the token string from that earlier
 * request is looked up instead, and V8 keeps a string's hash once computed. Only the parse is
 * remembered: every request still goes through the cache's expiry, revocation and client checks.
 */
function connectionToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const socket = request.raw.socket as MemoSocket;
  const last = socket?.[kLastBearer];
  if (last !== undefined && last.header === header) return last.token;
  const token = bearerToken(request);
  // bearerToken threw unless the header is a Bearer one
  if (socket) socket[kLastBearer] = { header: header as string, token };
  return token;
}

/** The verified-token cache's answer (undefined: not cached), its rejections as RFC 6750 errors. */
function cachedPrincipal(auth: AuthService, token: string): Principal | undefined {
  try {
    return auth.verifyCached(token);
  } catch (err) {
    if (err instanceof InvalidTokenError) throw invalidToken(err.message);
    throw err;
  }
}

/** Verifies a token not in the verified-token cache (its syntax first). */
async function verifyUncached(auth: AuthService, token: string): Promise<Principal> {
  try {
    if (!B64TOKEN.test(token)) throw invalidToken('Malformed bearer token');
    return await auth.verifyAccessToken(token);
  } catch (err) {
    if (err instanceof InvalidTokenError) throw invalidToken(err.message);
    throw err;
  }
}

export function registerBearer(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('principal', undefined);
  app.decorate('requireScope', (scope: Scope): preHandlerHookHandler => {
    const denied = () =>
      new ApiError(
        'INSUFFICIENT_SCOPE',
        `This route requires the scope ${scope}`,
        { requiredScope: scope },
        challenge({
          error: 'insufficient_scope',
          error_description: `The scope ${scope} is required`,
          scope,
        }),
      );
    // Callback style with a synchronous path for a token already verified (the common case): an
    // async hook costs a promise and a microtask hop on every protected request (bench:read-path).
    /** Sets the principal when it carries the scope; otherwise the 403. */
    const admit = (request: FastifyRequest, done: HookHandlerDoneFunction, principal: Principal): void => {
      if (principal.scopes.has(scope)) {
        request.principal = principal;
        done();
      } else done(denied());
    };
    // Callback style with a synchronous path for a token already verified (the common case): an
    // async hook costs a promise and a microtask hop on every protected request (bench:read-path),
    // and nothing is allocated per request on that path.
    return function requireScope(
      request: FastifyRequest,
      _reply: FastifyReply,
      done: HookHandlerDoneFunction,
    ): void {
      let token: string;
      let hit: Principal | undefined;
      try {
        token = connectionToken(request);
        hit = cachedPrincipal(auth, token);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (hit !== undefined) admit(request, done, hit);
      else verifyUncached(auth, token).then((p) => admit(request, done, p), done);
    };
  });
}
