// Access-token checks as the rest of the process asks for them: the bearer guard's verification
// (counted in the auth-failure metric, retried once after a client-registry refresh) and RFC 7662
// introspection, which reports the same verification to the token's own client.

import type { Metrics } from '../observability/metrics.ts';
import type { ClientRecord, ClientRegistry } from './clients.ts';
import type { Principal } from './scopes.ts';
import { InvalidTokenError, type TokenVerifier, type VerifiedToken } from './verifier.ts';

export interface IntrospectionResponse {
  active: boolean;
  scope?: string;
  client_id?: string;
  token_type?: 'Bearer';
  exp?: number;
  iat?: number;
  nbf?: number;
  sub?: string;
  aud?: string | string[];
  iss?: string;
  jti?: string;
}

export class TokenChecks {
  private lastClientRefresh = 0;

  constructor(
    private readonly verifier: TokenVerifier,
    private readonly clients: ClientRegistry,
    private readonly metrics: Metrics,
    private readonly now: () => number,
  ) {}

  /** The synchronous cache-hit path of verify (undefined on a miss). Throws InvalidTokenError. */
  cached(token: string): Principal | undefined {
    try {
      return this.verifier.cached(token)?.principal;
    } catch (err) {
      if (err instanceof InvalidTokenError) this.metrics.authFailures.inc({ reason: `token_${err.reason}` });
      throw err;
    }
  }

  /** Full verification (RFC 6750/9068). Throws InvalidTokenError. */
  async verify(token: string): Promise<Principal> {
    try {
      return (await this.verifier.verify(token)).principal;
    } catch (err) {
      // A validly signed token whose client this process does not know yet: on PostgreSQL another
      // process may have created it since the last auth refresh (docs/cluster.md "Shared auth
      // state"). Reload the clients once (throttled) and verify again before refusing.
      if (
        err instanceof InvalidTokenError &&
        err.reason === 'client_inactive' &&
        (await this.refreshClients())
      ) {
        try {
          return (await this.verifier.verify(token)).principal;
        } catch (again) {
          if (again instanceof InvalidTokenError)
            this.metrics.authFailures.inc({ reason: `token_${again.reason}` });
          throw again;
        }
      }
      if (err instanceof InvalidTokenError) this.metrics.authFailures.inc({ reason: `token_${err.reason}` });
      throw err;
    }
  }

  /** The verified token, or undefined when it does not verify (for any reason). */
  async tryVerify(token: string): Promise<VerifiedToken | undefined> {
    try {
      return await this.verifier.verify(token);
    } catch {
      return undefined;
    }
  }

  /** RFC 7662: a client may introspect its own tokens; an admin client any token. */
  async introspect(token: string, requester: ClientRecord): Promise<IntrospectionResponse> {
    const v = await this.tryVerify(token);
    if (v === undefined) return { active: false };
    const c = v.claims;
    if (c.client_id !== requester.clientId && !requester.scopes.includes('admin')) return { active: false };
    return {
      active: true,
      scope: String(c.scope),
      client_id: String(c.client_id),
      token_type: 'Bearer',
      exp: c.exp,
      iat: c.iat,
      ...(c.nbf !== undefined ? { nbf: c.nbf } : {}),
      sub: c.sub,
      aud: c.aud,
      iss: c.iss,
      jti: c.jti,
    };
  }

  /** Reloads the client registry from the store, at most every 250 ms; true when it did. */
  private async refreshClients(): Promise<boolean> {
    const now = this.now();
    if (now - this.lastClientRefresh < 250) return false;
    this.lastClientRefresh = now;
    try {
      await this.clients.load();
      return true;
    } catch {
      return false;
    }
  }
}
