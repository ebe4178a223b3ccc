// The token endpoint as a chain of small named steps, after node-oidc-provider's
// lib/actions/token.js and lib/shared/client_auth.js: read the parameters (the body's schema,
// oauth-bodies.ts: single strings, and RFC 6749 §4.4: client_credentials only), authenticate the
// client (RFC 6749 §2.3: HTTP Basic or body credentials, one method per request), check the
// audience (the legacy endpoint), issue the token. Every failure is an OAuthError with its RFC 6749
// §5.2 name. No HTTP framework here: the route (src/http/routes/oauth.ts) passes the body, the
// Authorization header and the peer address, and writes the answer (docs/architecture.md;
// docs/auth.md).

import type { ClientRecord } from './clients.ts';
import {
  type ClientParams,
  LEGACY_TOKEN_BODY,
  TOKEN_BODY,
  TOKEN_HINT_BODY,
  type TokenParams,
} from './oauth-bodies.ts';
import { OAuthError } from './oauth-errors.ts';
import type { AuthService } from './service.ts';

const REALM = 'tickbook';

/** What the token endpoints need of an HTTP request. */
export interface OAuthRequest {
  body: unknown;
  /** The Authorization header, if any. */
  authorization: string | undefined;
  /** The peer address (the failed-authentication throttle keys on it). */
  ip: string;
}

/** RFC 6749 §2.3.1: the Basic user and password are form-urlencoded before base64. */
function formDecode(s: string): string {
  return decodeURIComponent(s.replace(/\+/g, ' '));
}

interface Credentials {
  clientId: string;
  secret: string;
  basic: boolean;
}

export function basicChallenge(): Record<string, string> {
  return { 'www-authenticate': `Basic realm="${REALM}", charset="UTF-8"` };
}

/** Step 2a: the client's credentials, from HTTP Basic or the body (never both). */
function readCredentials(authorization: string | undefined, p: ClientParams): Credentials {
  const header = authorization;
  if (header !== undefined && header !== '') {
    const m = /^Basic[ ]+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
    if (m === null)
      throw new OAuthError(
        'invalid_client',
        'Unsupported or malformed Authorization header',
        basicChallenge(),
      );
    const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'Malformed Basic credentials', basicChallenge());
    let clientId: string;
    let secret: string;
    try {
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw new OAuthError('invalid_client', 'Malformed Basic credentials', basicChallenge());
    }
    // RFC 6749 §2.3: one authentication method per request (client_id alone in the body is harmless).
    if (p.client_secret !== undefined || (p.client_id !== undefined && p.client_id !== clientId)) {
      throw new OAuthError(
        'invalid_request',
        'Client credentials given both in the Authorization header and in the body',
      );
    }
    return { clientId, secret, basic: true };
  }
  if (p.client_id === undefined || p.client_id === '' || p.client_secret === undefined) {
    // RFC 6749 §5.2: "no client authentication included" is invalid_client.
    throw new OAuthError(
      'invalid_client',
      'Client authentication is required (client_id and client_secret, or HTTP Basic)',
    );
  }
  return { clientId: p.client_id, secret: p.client_secret, basic: false };
}

/** Step 2: client authentication (RFC 6749 §2.3); a failed Basic attempt carries the challenge. */
function authenticateClient(auth: AuthService, request: OAuthRequest, p: ClientParams): ClientRecord {
  const c = readCredentials(request.authorization, p);
  try {
    return auth.authenticateClient(c.clientId, c.secret, request.ip);
  } catch (err) {
    // RFC 6749 §5.2: a 401 for a Basic attempt carries the challenge the client used.
    if (c.basic && err instanceof OAuthError && err.error === 'invalid_client') {
      throw new OAuthError(err.error, err.description, { ...err.headers, ...basicChallenge() });
    }
    throw err;
  }
}

/** Accepted audiences named in an error; the list is bounded at start (64), this keeps the
 * description short. */
const NAMED_AUDIENCES = 8;

/** An audience as error_description may carry it: RFC 6749 §5.2 allows printable ASCII without
 * `"` and `\`, so anything else becomes `?`; quoted with `'`, at most 200 characters. */
function quoteAudience(a: string): string {
  return `'${a.slice(0, 200).replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?')}'`;
}

/** "accepted: 'a', 'b' (and 3 more)": the accepted audiences are public base addresses, so naming
 * them tells a misconfigured client what to send instead of leaving it to guess. */
function acceptedText(accepted: readonly string[]): string {
  const named = accepted.slice(0, NAMED_AUDIENCES).map(quoteAudience);
  const more = accepted.length - named.length;
  return `accepted: ${named.join(', ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/** Step 3: the legacy host demanded the API's base URL as audience; the server's own address
 * (PUBLIC_BASE_URL) is always accepted and an operator may add the audience strings existing
 * clients were built with (LEGACY_TOKEN_AUDIENCES, docs/auth.md). Exact string match. The new
 * endpoint ignores the field. */
function checkAudience(p: TokenParams, legacy: boolean, accepted: readonly string[]): void {
  if (!legacy) return;
  if (p.audience === undefined) {
    throw new OAuthError('access_denied', `audience is required on this endpoint; ${acceptedText(accepted)}`);
  }
  if (!accepted.includes(p.audience)) {
    throw new OAuthError(
      'access_denied',
      `Unknown audience ${quoteAudience(p.audience)}; ${acceptedText(accepted)}`,
    );
  }
}

/** The token endpoint: parameters and grant → client → audience → issuance. Resolves to the RFC
 * 6749 §5.1 body; rejects with an OAuthError. */
export async function tokenRequest(
  auth: AuthService,
  request: OAuthRequest,
  legacy: boolean,
): Promise<Awaited<ReturnType<AuthService['issueToken']>>> {
  const p = (legacy ? LEGACY_TOKEN_BODY : TOKEN_BODY).read(request.body);
  const client = authenticateClient(auth, request, p);
  checkAudience(p, legacy, auth.legacyTokenAudiences);
  return auth.issueToken(client, p.scope, legacy ? 'legacy' : 'emm-token');
}

/** Revocation (RFC 7009 §2.1) and introspection (RFC 7662 §2.1): parameters → client → the token
 * (its absence is reported to an authenticated client only). */
export function tokenHintRequest(
  auth: AuthService,
  request: OAuthRequest,
): { token: string; client: ClientRecord } {
  const p = TOKEN_HINT_BODY.read(request.body);
  const client = authenticateClient(auth, request, p);
  if (p.token === undefined || p.token === '') throw new OAuthError('invalid_request', 'Missing token');
  return { token: p.token, client };
}
