// Bearer-token verification (RFC 6750, RFC 9068 §4). The first sight of a token runs the full
// check through jose: signature against the local key ring (no network), header alg equal to the
// key's alg (so `none`, and HS256 keyed with the public key, never pass), typ at+jwt, iss, both
// audiences, exp/nbf, the required claims. A verified token is then cached by its string until it
// expires, so a repeat costs a Map lookup plus O(1) checks that make revocation immediate: the jti
// against the revocation set, the client's current status and its not-before (a token issued before
// the client's secret was rotated or the client disabled no longer verifies; docs/auth.md).

import { type JWTPayload, errors as joseErrors, jwtVerify, type ProtectedHeaderParameters } from 'jose';
import type { TickbookEnv } from '../config.ts';
import type { ClientRegistry } from './clients.ts';
import type { KeyRing } from './keys.ts';
import { isScope, type Principal, type Scope } from './scopes.ts';
import { envAudience } from './tokens.ts';

export type InvalidReason =
  | 'malformed'
  | 'signature'
  | 'unknown_kid'
  | 'alg'
  | 'expired'
  | 'not_yet_valid'
  | 'claims'
  | 'revoked'
  | 'client_inactive'
  | 'superseded';

export class InvalidTokenError extends Error {
  constructor(
    readonly reason: InvalidReason,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

interface Cached {
  principal: Principal;
  expMs: number;
  /** `iat` in ms, checked against the client's tokensNotBefore on every hit. */
  iatMs: number;
  claims: JWTPayload;
}

export interface VerifiedToken {
  principal: Principal;
  claims: JWTPayload;
}

export interface VerifierOptions {
  issuer: string;
  audience: string;
  env: TickbookEnv;
  /** Bounded memory: the oldest cached tokens are dropped past this many. */
  maxCached?: number;
  clockToleranceSeconds?: number;
  now?: () => number;
  /** Called on an unknown kid: re-reads the key table (rate-limited by the caller). */
  onUnknownKid?: () => Promise<boolean>;
}

export class TokenVerifier {
  private readonly cache = new Map<string, Cached>();
  private readonly maxCached: number;
  private readonly now: () => number;

  constructor(
    private readonly keys: KeyRing,
    private readonly clients: ClientRegistry,
    private readonly revoked: { has(jti: string): boolean },
    private readonly opts: VerifierOptions,
  ) {
    this.maxCached = opts.maxCached ?? 100_000;
    this.now = opts.now ?? Date.now;
  }

  /** The cache-hit path, synchronous: undefined when the token is not cached (or no longer valid). */
  cached(token: string): VerifiedToken | undefined {
    const c = this.cache.get(token);
    if (c === undefined) return undefined;
    if (c.expMs <= this.now()) {
      this.cache.delete(token);
      return undefined;
    }
    this.checkLive(c);
    return c;
  }

  /**
   * Throws InvalidTokenError when revoked, when the client is no longer active, or when the token
   * was issued before the client's not-before (secret rotated, client disabled).
   */
  private checkLive(c: Cached): void {
    const p = c.principal;
    if (this.revoked.has(p.tokenId))
      throw new InvalidTokenError('revoked', 'The access token has been revoked');
    const client = this.clients.get(p.clientId);
    if (client === undefined || client.status !== 'active') {
      throw new InvalidTokenError('client_inactive', 'The client of this access token is not active');
    }
    if (c.iatMs < client.tokensNotBefore) {
      throw new InvalidTokenError(
        'superseded',
        "The access token was issued before the client's credentials changed",
      );
    }
  }

  async verify(token: string): Promise<VerifiedToken> {
    const hit = this.cached(token);
    if (hit !== undefined) return hit;
    const { payload } = await this.verifyJws(token);
    const scope = typeof payload.scope === 'string' ? payload.scope : '';
    const scopes = new Set<Scope>(scope.split(' ').filter(isScope));
    const clientId = String(payload.client_id ?? payload.sub);
    const client = this.clients.get(clientId);
    const principal: Principal = {
      clientId,
      accountId: client?.accountId ?? null,
      scopes,
      tokenId: String(payload.jti),
    };
    const entry: Cached = {
      principal,
      expMs: (payload.exp as number) * 1000,
      iatMs: (payload.iat as number) * 1000,
      claims: payload,
    };
    this.checkLive(entry);
    if (this.cache.size >= this.maxCached) this.evictSome();
    this.cache.set(token, entry);
    return entry;
  }

  private async verifyJws(token: string, retried = false): Promise<{ payload: JWTPayload }> {
    if (typeof token !== 'string' || token.length > 8192 || token.split('.').length !== 3) {
      throw new InvalidTokenError('malformed', 'The access token is not a JWS compact serialization');
    }
    let unknownKid = false;
    try {
      const { payload } = await jwtVerify(
        token,
        (header: ProtectedHeaderParameters) => {
          const key = header.kid === undefined ? undefined : this.keys.get(header.kid);
          if (key === undefined) {
            unknownKid = true;
            throw new InvalidTokenError('unknown_kid', 'The access token was signed by an unknown key');
          }
          if (header.alg !== key.alg)
            throw new InvalidTokenError('alg', 'The access token algorithm is not the key’s');
          return key.publicKey;
        },
        {
          issuer: this.opts.issuer,
          audience: this.opts.audience,
          algorithms: this.keys.algorithms(),
          typ: 'at+jwt',
          requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id', 'scope'],
          clockTolerance: this.opts.clockToleranceSeconds ?? 5,
          currentDate: new Date(this.now()),
        },
      );
      // jose accepts any numeric iat; one from the future (beyond the same clock skew as exp/nbf)
      // was not issued by a server with a sane clock.
      const skew = this.opts.clockToleranceSeconds ?? 5;
      if (typeof payload.iat !== 'number' || payload.iat > this.now() / 1000 + skew) {
        throw new InvalidTokenError('not_yet_valid', 'The access token was issued in the future');
      }
      // The environment audience (see tokens.ts): both audiences must be present.
      const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      if (!aud.includes(envAudience(this.opts.env))) {
        throw new InvalidTokenError('claims', 'The access token belongs to another environment');
      }
      if (
        typeof payload.client_id !== 'string' ||
        payload.client_id !== payload.sub ||
        typeof payload.jti !== 'string'
      ) {
        throw new InvalidTokenError('claims', 'The access token claims are malformed');
      }
      return { payload };
    } catch (err) {
      if (unknownKid && !retried && this.opts.onUnknownKid && (await this.opts.onUnknownKid())) {
        return this.verifyJws(token, true);
      }
      throw toInvalid(err);
    }
  }

  /** Forgets cached verifications of one token id (revocation) or of one client. */
  evict(match: (p: Principal) => boolean): void {
    for (const [t, c] of this.cache) if (match(c.principal)) this.cache.delete(t);
  }

  get size(): number {
    return this.cache.size;
  }

  private evictSome(): void {
    const now = this.now();
    for (const [t, c] of this.cache) if (c.expMs <= now) this.cache.delete(t);
    // Still full: drop the oldest tenth (Map iterates in insertion order).
    let drop = this.cache.size >= this.maxCached ? Math.ceil(this.maxCached / 10) : 0;
    for (const t of this.cache.keys()) {
      if (drop-- <= 0) break;
      this.cache.delete(t);
    }
  }
}

function toInvalid(err: unknown): InvalidTokenError {
  if (err instanceof InvalidTokenError) return err;
  if (err instanceof joseErrors.JWTExpired)
    return new InvalidTokenError('expired', 'The access token expired');
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf')
      return new InvalidTokenError('not_yet_valid', 'The access token is not yet valid');
    return new InvalidTokenError('claims', `The access token ${err.claim} claim is not accepted`);
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed || err instanceof joseErrors.JOSENotSupported) {
    return new InvalidTokenError('alg', 'The access token algorithm is not accepted');
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
    return new InvalidTokenError('signature', 'The access token signature does not verify');
  }
  return new InvalidTokenError('malformed', 'The access token is malformed');
}
