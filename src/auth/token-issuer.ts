// Access-token issuance (RFC 6749 §4.4, tokens in the RFC 9068 profile): scope narrowing, the
// claims, and the short reuse window in which a client asking again for the same scopes gets the
// token it was just given instead of a fresh signature (docs/auth.md "Performance").

import type { Config } from '../config.ts';
import { randomTokenId } from '../ids.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { ClientRecord } from './clients.ts';
import type { KeyRing, SigningKey } from './keys.ts';
import { OAuthError } from './oauth-errors.ts';
import type { RevocationList } from './revocations.ts';
import { isScope, type Scope } from './scopes.ts';
import { type AccessTokenClaims, audiences, type TokenMinter } from './tokens.ts';

export interface TokenResponse {
  access_token: string;
  scope: string;
  expires_in: number;
  token_type: 'Bearer';
}

interface MintedToken {
  token: string;
  exp: number;
  jti: string;
}

/** A recently issued token, kept for reuse by the same client and scope. */
export interface RecentToken {
  minted: Promise<MintedToken>;
  issuedAt: number;
  kid: string;
  clientId: string;
  /** Known once signed. */
  jti: string | undefined;
}

export interface TokenIssuerOptions {
  config: Config;
  keys: KeyRing;
  minter: TokenMinter;
  revocations: RevocationList;
  metrics: Metrics;
  now: () => number;
  /** The reuse window in ms; 0 disables reuse. */
  reuseMs: number;
}

/** The granted scopes: the client's, narrowed by `requested` (RFC 6749 §3.3). */
export function grantScopes(client: ClientRecord, requested: string | undefined): Scope[] {
  if (requested === undefined || requested.trim() === '') return [...client.scopes];
  const asked = [...new Set(requested.split(' ').filter((s) => s !== ''))];
  const bad = asked.filter((s) => !isScope(s) || !client.scopes.includes(s));
  if (bad.length > 0)
    throw new OAuthError('invalid_scope', `Scope not allowed for this client: ${bad.join(' ')}`);
  return asked as Scope[];
}

export class TokenIssuer {
  /** Recently issued tokens by client and granted scope (concurrent misses share one signature). */
  private readonly recent = new Map<string, RecentToken>();

  constructor(private readonly o: TokenIssuerOptions) {}

  /** Issues an access token to an authenticated client (checks status and scope). */
  async issue(
    client: ClientRecord,
    requestedScope: string | undefined,
    endpoint: string,
  ): Promise<TokenResponse> {
    if (client.status !== 'active') throw new OAuthError('access_denied', 'The client is disabled');
    const scopes = grantScopes(client, requestedScope);
    const scope = scopes.join(' ');
    const key = this.o.keys.current();
    const now = this.o.now();
    const reuseMs = this.o.reuseMs;
    let minted: Promise<MintedToken> | undefined;
    const reuseKey = `${client.clientId}\u0000${scope}`;
    if (reuseMs > 0) {
      const r = this.recent.get(reuseKey);
      if (
        r !== undefined &&
        r.kid === key.kid &&
        r.issuedAt + reuseMs > now &&
        !(r.jti && this.o.revocations.has(r.jti))
      ) {
        minted = r.minted;
      }
    }
    if (minted === undefined) {
      minted = this.mint(client.clientId, scope, key, now, client.tokensNotBefore);
      if (reuseMs > 0) {
        const entry: RecentToken = {
          minted,
          issuedAt: now,
          kid: key.kid,
          jti: undefined,
          clientId: client.clientId,
        };
        if (this.recent.size >= 10_000) this.sweepRecent(now);
        this.recent.set(reuseKey, entry);
        minted.then(
          (m) => {
            entry.jti = m.jti;
          },
          () => {
            if (this.recent.get(reuseKey) === entry) this.recent.delete(reuseKey);
          },
        );
      }
    }
    const m = await minted;
    this.o.metrics.tokensIssued.inc({ endpoint });
    const expiresIn = m.exp - Math.floor(this.o.now() / 1000);
    return { access_token: m.token, scope, expires_in: expiresIn, token_type: 'Bearer' };
  }

  /** Forgets reusable tokens of a client (revoked, disabled) or one token id (revoked). */
  forget(match: (r: RecentToken) => boolean): void {
    for (const [k, r] of this.recent) if (match(r)) this.recent.delete(k);
  }

  private async mint(
    clientId: string,
    scope: string,
    key: SigningKey,
    nowMs: number,
    notBeforeMs: number,
  ): Promise<MintedToken> {
    const { config } = this.o;
    // Never an iat below the client's not-before, which a credentials change sets to the next
    // whole second (clients.ts tokensNotBeforeAt): so up to 1 s ahead, within the verifier's skew.
    const iat = Math.max(Math.floor(nowMs / 1000), Math.ceil(notBeforeMs / 1000));
    const exp = Math.floor(nowMs / 1000) + config.tokenTtlSeconds;
    const claims: AccessTokenClaims = {
      iss: config.publicBaseUrl,
      sub: clientId,
      aud: audiences(config.publicBaseUrl, config.env),
      client_id: clientId,
      scope,
      iat,
      exp,
      jti: randomTokenId(),
    };
    return { token: await this.o.minter.sign(key, claims), exp, jti: claims.jti };
  }

  private sweepRecent(now: number): void {
    for (const [k, r] of this.recent) if (r.issuedAt + this.o.reuseMs <= now) this.recent.delete(k);
  }
}
