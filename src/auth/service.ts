// The token server's domain service (DESIGN.md §7): clients and their secrets,
// signing keys, token issuance, verification, revocation and introspection, and the operator
// bootstrap. HTTP routes (src/http/routes/oauth.ts, admin-clients.ts), the bearer guard and the
// CLI all go through one AuthService.

import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { JWK } from 'jose';
import type { Config } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Store } from '../store/types.ts';
import { type ClientRecord, ClientRegistry, type ClientView, tokensNotBeforeAt, toView } from './clients.ts';

export type { ClientView } from './clients.ts';

import { type KeyInfo, KeyRing, type SigningKey } from './keys.ts';
import { OAuthError } from './oauth-errors.ts';
import { RevocationList } from './revocations.ts';
import { DEFAULT_TRADER_SCOPES, isScope, type Principal, SCOPES, type Scope } from './scopes.ts';
import { generateSecret, hashSecret, verifySecret } from './secrets.ts';
import { InlineSigner, type Signer, WorkerPoolSigner } from './signer.ts';
import { FailureThrottle } from './throttle.ts';
import { type AccessTokenClaims, audiences, newJti, TokenMinter } from './tokens.ts';
import { InvalidTokenError, TokenVerifier, type VerifiedToken } from './verifier.ts';

/** The exchange's accounts, as the token server needs them (wired by main.ts). */
export interface AccountsPort {
  /** Opens a fresh account and returns its id. */
  create(): Promise<string>;
  exists(id: string): boolean;
}

/** The subset of a pino logger used here (Fastify's app.log and pino both fit). */
export interface AuthLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface AuthServiceDeps {
  config: Config;
  store: Store;
  metrics: Metrics;
  log: AuthLog;
  accounts: AccountsPort;
  /**
   * Worker threads that sign tokens. Default: one per core for RS256 (0.45 ms/signature), none
   * for ES256/EdDSA (cheaper than the hop to a worker). See signer.ts and docs/auth.md.
   */
  signingThreads?: number;
  /** Seconds between re-reads of the key table (picks up `tickbook keys rotate`); 0 disables. */
  keyRefreshSeconds?: number;
  /**
   * A client asking again for the same scopes within this many seconds of an issuance gets that
   * same token back (with the remaining expires_in) instead of a fresh signature. Default: 60 s,
   * capped at 1 % of TOKEN_TTL_SECONDS; 0 disables. See docs/auth.md "Performance".
   */
  tokenReuseSeconds?: number;
  now?: () => number;
}

export interface TokenResponse {
  access_token: string;
  scope: string;
  expires_in: number;
  token_type: 'Bearer';
}

export interface CreatedClient {
  clientId: string;
  clientSecret: string;
  scopes: Scope[];
  accountId: string | null;
}

export interface RotatedSecret {
  clientId: string;
  clientSecret: string;
  /** ISO time until which the previous secret still works; null without grace. */
  oldSecretExpiresAt: string | null;
}

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

export interface AdminBootstrap {
  clientId: string;
  created: boolean;
  /** Where generated credentials were written (never logged with the secret). */
  credentialsFile?: string;
}

interface MintedToken {
  token: string;
  exp: number;
  jti: string;
}

interface RecentToken {
  minted: Promise<MintedToken>;
  issuedAt: number;
  kid: string;
  clientId: string;
  /** Known once signed. */
  jti: string | undefined;
}

const ADMIN_SCOPES: readonly Scope[] = ['admin', ...DEFAULT_TRADER_SCOPES];
const CLIENT_NAME_MAX = 200;

export class AuthService {
  readonly clients: ClientRegistry;
  readonly keys: KeyRing;
  readonly revocations: RevocationList;
  readonly verifier: TokenVerifier;
  readonly minter: TokenMinter;
  readonly throttle: FailureThrottle;
  private readonly signer: Signer;
  private readonly now: () => number;
  private readonly timers: NodeJS.Timeout[] = [];
  private lastKeyReload = 0;
  /** Recently issued tokens by client and granted scope (concurrent misses share one signature). */
  private readonly recent = new Map<string, RecentToken>();
  private readonly reuseMs: number;

  private constructor(
    private readonly deps: AuthServiceDeps,
    keys: KeyRing,
    clients: ClientRegistry,
    revocations: RevocationList,
    signer: Signer,
  ) {
    const { config } = deps;
    this.now = deps.now ?? Date.now;
    this.keys = keys;
    this.clients = clients;
    this.revocations = revocations;
    this.signer = signer;
    this.minter = new TokenMinter(signer);
    this.throttle = new FailureThrottle(config.authFailureLimit, 60_000, this.now);
    this.reuseMs = 1000 * (deps.tokenReuseSeconds ?? Math.min(60, Math.floor(config.tokenTtlSeconds / 100)));
    this.verifier = new TokenVerifier(keys, clients, revocations, {
      issuer: config.publicBaseUrl,
      audience: config.publicBaseUrl,
      env: config.env,
      now: this.now,
      onUnknownKid: () => this.reloadKeysThrottled(),
    });
  }

  /** Loads clients, revocations and keys (creating the first key); the store must be migrated. */
  static async create(deps: AuthServiceDeps): Promise<AuthService> {
    const { config, store, log } = deps;
    if (config.keyEncryptionSecret === undefined) {
      log.warn(
        { variable: 'KEY_ENCRYPTION_SECRET' },
        '!!! KEY_ENCRYPTION_SECRET is not set: token signing keys are stored UNENCRYPTED in the store. Anyone who can read the database can mint valid access tokens. Set KEY_ENCRYPTION_SECRET in production. !!!',
      );
    }
    const now = deps.now ?? Date.now;
    const keys = await KeyRing.open(store, {
      alg: config.tokenAlg,
      tokenTtlSeconds: config.tokenTtlSeconds,
      encryptionSecret: config.keyEncryptionSecret,
      now,
    });
    const clients = new ClientRegistry(store);
    await clients.load();
    const revocations = new RevocationList(store, now);
    await revocations.load();
    const threads = deps.signingThreads ?? (config.tokenAlg === 'RS256' ? availableParallelism() : 0);
    const signer = threads > 0 ? new WorkerPoolSigner(threads) : new InlineSigner();
    const svc = new AuthService(deps, keys, clients, revocations, signer);
    const refresh = deps.keyRefreshSeconds ?? 30;
    if (refresh > 0) {
      const t = setInterval(() => {
        svc.keys.reload().catch((err) => log.error({ err }, 'reloading signing keys failed'));
        svc.revocations.purgeExpired().catch((err) => log.error({ err }, 'purging revocations failed'));
      }, refresh * 1000);
      t.unref();
      svc.timers.push(t);
    }
    log.info(
      { kid: keys.current().kid, alg: keys.current().alg, signingThreads: threads },
      'token signing key loaded',
    );
    return svc;
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.signer.close();
  }

  private get config(): Config {
    return this.deps.config;
  }

  /** Audiences the legacy /oauth/token accepts (LEGACY_TOKEN_AUDIENCES, docs/auth.md). */
  get legacyTokenAudiences(): readonly string[] {
    return this.deps.config.legacyTokenAudiences;
  }

  // --- client authentication and issuance (RFC 6749 §2.3.1, §4.4) --------------------------------

  /**
   * Authenticates a client by id and secret. Failures are counted per (client_id, address) and per
   * address (throttle.ts: never per client alone, which would be a lockout anyone can trigger);
   * past their limits a minute the answer is 429 before the secret is even looked at.
   */
  authenticateClient(clientId: string, secret: string, address: string): ClientRecord {
    const keys = this.throttle.keysFor(clientId, address);
    const wait = this.throttle.retryAfter(keys);
    if (wait > 0) {
      this.deps.metrics.authFailures.inc({ reason: 'throttled' });
      throw new OAuthError('temporarily_unavailable', 'Too many failed client authentications; retry later', {
        'retry-after': String(wait),
      });
    }
    const client = this.clients.get(clientId);
    // An unknown client still pays for a comparison, so timing does not reveal which ids exist.
    const ok =
      client !== undefined ? this.clients.secretMatches(client, secret, this.now()) : dummyCompare(secret);
    if (!ok || client === undefined) {
      this.throttle.fail(keys);
      this.deps.metrics.authFailures.inc({ reason: 'invalid_client' });
      throw new OAuthError('invalid_client', 'Client authentication failed');
    }
    if (client.status === 'revoked') {
      this.deps.metrics.authFailures.inc({ reason: 'client_revoked' });
      throw new OAuthError('invalid_client', 'Client authentication failed');
    }
    return client;
  }

  /** The granted scopes: the client's, narrowed by `requested` (RFC 6749 §3.3). */
  grantScopes(client: ClientRecord, requested: string | undefined): Scope[] {
    if (requested === undefined || requested.trim() === '') return [...client.scopes];
    const asked = [...new Set(requested.split(' ').filter((s) => s !== ''))];
    const bad = asked.filter((s) => !isScope(s) || !client.scopes.includes(s));
    if (bad.length > 0)
      throw new OAuthError('invalid_scope', `Scope not allowed for this client: ${bad.join(' ')}`);
    return asked as Scope[];
  }

  /** Issues an access token to an authenticated client (checks status and scope). */
  async issueToken(
    client: ClientRecord,
    requestedScope: string | undefined,
    endpoint: string,
  ): Promise<TokenResponse> {
    if (client.status !== 'active') throw new OAuthError('access_denied', 'The client is disabled');
    const scopes = this.grantScopes(client, requestedScope);
    const scope = scopes.join(' ');
    const key = this.keys.current();
    const now = this.now();
    let minted: Promise<MintedToken> | undefined;
    const reuseKey = `${client.clientId}\u0000${scope}`;
    if (this.reuseMs > 0) {
      const r = this.recent.get(reuseKey);
      if (
        r !== undefined &&
        r.kid === key.kid &&
        r.issuedAt + this.reuseMs > now &&
        !(r.jti && this.revocations.has(r.jti))
      ) {
        minted = r.minted;
      }
    }
    if (minted === undefined) {
      minted = this.mint(client.clientId, scope, key, now, client.tokensNotBefore);
      if (this.reuseMs > 0) {
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
    this.deps.metrics.tokensIssued.inc({ endpoint });
    const expiresIn = m.exp - Math.floor(this.now() / 1000);
    return { access_token: m.token, scope, expires_in: expiresIn, token_type: 'Bearer' };
  }

  private async mint(
    clientId: string,
    scope: string,
    key: SigningKey,
    nowMs: number,
    notBeforeMs: number,
  ): Promise<MintedToken> {
    // Never an iat below the client's not-before, which a credentials change sets to the next
    // whole second (clients.ts tokensNotBeforeAt): so up to 1 s ahead, within the verifier's skew.
    const iat = Math.max(Math.floor(nowMs / 1000), Math.ceil(notBeforeMs / 1000));
    const exp = Math.floor(nowMs / 1000) + this.config.tokenTtlSeconds;
    const claims: AccessTokenClaims = {
      iss: this.config.publicBaseUrl,
      sub: clientId,
      aud: audiences(this.config.publicBaseUrl, this.config.env),
      client_id: clientId,
      scope,
      iat,
      exp,
      jti: newJti(),
    };
    return { token: await this.minter.sign(key, claims), exp, jti: claims.jti };
  }

  private sweepRecent(now: number): void {
    for (const [k, r] of this.recent) if (r.issuedAt + this.reuseMs <= now) this.recent.delete(k);
  }

  /** Forgets reusable tokens of a client (revoked, disabled) or one token id (revoked). */
  private forgetRecent(match: (r: RecentToken) => boolean): void {
    for (const [k, r] of this.recent) if (match(r)) this.recent.delete(k);
  }

  /** Signs arbitrary claims with the current key (tests and tooling; not reachable over HTTP). */
  signRaw(
    claims: object,
    header?: Record<string, unknown>,
    key: SigningKey = this.keys.current(),
  ): Promise<string> {
    return this.minter.sign(key, claims, header);
  }

  // --- verification, revocation, introspection -------------------------------------------------

  /** The synchronous cache-hit path of verify (undefined on a miss). Throws InvalidTokenError. */
  verifyCached(token: string): Principal | undefined {
    try {
      return this.verifier.cached(token)?.principal;
    } catch (err) {
      if (err instanceof InvalidTokenError)
        this.deps.metrics.authFailures.inc({ reason: `token_${err.reason}` });
      throw err;
    }
  }

  /** Full verification (RFC 6750/9068). Throws InvalidTokenError. */
  async verifyAccessToken(token: string): Promise<Principal> {
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
            this.deps.metrics.authFailures.inc({ reason: `token_${again.reason}` });
          throw again;
        }
      }
      if (err instanceof InvalidTokenError)
        this.deps.metrics.authFailures.inc({ reason: `token_${err.reason}` });
      throw err;
    }
  }

  private lastClientRefresh = 0;

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

  private async tryVerify(token: string): Promise<VerifiedToken | undefined> {
    try {
      return await this.verifier.verify(token);
    } catch {
      return undefined;
    }
  }

  /**
   * RFC 7009: revokes `token` when it was issued to `requester` (admins may revoke any). Invalid or
   * foreign tokens are ignored — the endpoint answers 200 either way (§2.2).
   */
  async revokeToken(token: string, requester: ClientRecord): Promise<boolean> {
    // Already-revoked, expired or foreign-server tokens fail verification: nothing to revoke.
    const verified = await this.tryVerify(token);
    if (verified === undefined) return false;
    const claims = verified.claims;
    const owner = String(claims.client_id);
    if (owner !== requester.clientId && !requester.scopes.includes('admin')) return false;
    await this.revocations.add(String(claims.jti), owner, Number(claims.exp) * 1000);
    const jti = String(claims.jti);
    this.verifier.evict((p) => p.tokenId === jti);
    this.forgetRecent((r) => r.jti === jti);
    return true;
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

  // --- keys -----------------------------------------------------------------------------------

  jwks(): { keys: JWK[] } {
    return this.keys.jwks();
  }

  async rotateKeys(): Promise<KeyInfo> {
    const k = await this.keys.rotate();
    this.deps.log.info({ kid: k.kid, alg: k.alg }, 'signing key rotated');
    return this.keys.list().find((i) => i.kid === k.kid)!;
  }

  listKeys(): KeyInfo[] {
    return this.keys.list();
  }

  private async reloadKeysThrottled(): Promise<boolean> {
    const now = this.now();
    if (now - this.lastKeyReload < 5_000) return false;
    this.lastKeyReload = now;
    return this.keys.reload();
  }

  /** RFC 8414 authorization server metadata. */
  metadata(): Record<string, unknown> {
    const base = this.config.publicBaseUrl;
    const methods = ['client_secret_basic', 'client_secret_post'];
    return {
      issuer: base,
      token_endpoint: `${base}/nbx/v1/auth/emm-token`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      scopes_supported: [...SCOPES],
      response_types_supported: ['token'],
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: methods,
      revocation_endpoint: `${base}/oauth/revoke`,
      revocation_endpoint_auth_methods_supported: methods,
      introspection_endpoint: `${base}/oauth/introspect`,
      introspection_endpoint_auth_methods_supported: methods,
      // RFC 9068 tokens are signed with the current key's algorithm.
      access_token_signing_alg_values_supported: this.keys.algorithms(),
      service_documentation: `${base}/docs`,
    };
  }

  // --- clients (admin API) ----------------------------------------------------------------------

  listClients(): ClientView[] {
    const now = this.now();
    return this.clients.all().map((c) => toView(c, now));
  }

  getClient(clientId: string): ClientView {
    return toView(this.mustGet(clientId), this.now());
  }

  /**
   * Creates a client. A client with trader scopes acts for an account: `accountId` when given
   * (it must exist), a fresh one otherwise.
   */
  async createClient(input: {
    name: string;
    scopes?: readonly string[];
    accountId?: string;
    clientId?: string;
    clientSecret?: string;
  }): Promise<CreatedClient> {
    const name = input.name.trim();
    if (name === '' || name.length > CLIENT_NAME_MAX) {
      throw new ApiError('VALIDATION_FAILED', `name must be 1 to ${CLIENT_NAME_MAX} characters`);
    }
    const scopes = [...new Set(input.scopes ?? DEFAULT_TRADER_SCOPES)];
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) throw new ApiError('VALIDATION_FAILED', `Unknown scope: ${unknown.join(' ')}`);
    if (scopes.length === 0) throw new ApiError('VALIDATION_FAILED', 'scopes must not be empty');
    const clientId = input.clientId ?? randomUUID();
    if (this.clients.get(clientId) !== undefined)
      throw new ApiError('ALREADY_EXISTS', `Client ${clientId} already exists`);
    let accountId: string | null = null;
    if (input.accountId !== undefined) {
      if (!this.deps.accounts.exists(input.accountId)) {
        throw new ApiError('ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`);
      }
      accountId = input.accountId;
    } else if (scopes.some((s) => s === 'read:trader' || s === 'execute:trader')) {
      accountId = await this.deps.accounts.create();
    }
    const clientSecret = input.clientSecret ?? generateSecret();
    const now = this.now();
    await this.clients.insert({
      clientId,
      name,
      secretHash: hashSecret(clientSecret),
      oldSecretHash: null,
      oldSecretExpiresAt: null,
      scopes: scopes as Scope[],
      accountId,
      status: 'active',
      createdAt: now,
      updatedAt: now,
      tokensNotBefore: 0,
    });
    this.deps.log.info({ clientId, scopes, accountId }, 'client created');
    return { clientId, clientSecret, scopes: scopes as Scope[], accountId };
  }

  /**
   * New secret, shown once; the old one keeps working for `graceSeconds` (0: stops at once). Tokens
   * issued before stop verifying at once either way (the client's not-before; docs/auth.md).
   */
  async rotateSecret(clientId: string, graceSeconds = 0): Promise<RotatedSecret> {
    const c = this.mustGet(clientId);
    if (c.status === 'revoked')
      throw new ApiError('INVALID_TRANSITION', 'A revoked client cannot be rotated');
    const now = this.now();
    const clientSecret = generateSecret();
    const graceUntil = graceSeconds > 0 ? now + graceSeconds * 1000 : null;
    await this.clients.update({
      ...c,
      secretHash: hashSecret(clientSecret),
      oldSecretHash: graceUntil === null ? null : c.secretHash,
      oldSecretExpiresAt: graceUntil,
      updatedAt: now,
      tokensNotBefore: tokensNotBeforeAt(now),
    });
    this.forgetTokensOf(clientId);
    this.deps.log.info({ clientId, graceSeconds }, 'client secret rotated');
    return {
      clientId,
      clientSecret,
      oldSecretExpiresAt: graceUntil === null ? null : new Date(graceUntil).toISOString(),
    };
  }

  /** Revokes a client: its secret stops working and every token it holds is rejected at once. */
  async revokeClient(clientId: string): Promise<ClientView> {
    const c = this.mustGet(clientId);
    const now = this.now();
    const next: ClientRecord = {
      ...c,
      status: 'revoked',
      oldSecretHash: null,
      oldSecretExpiresAt: null,
      updatedAt: now,
      tokensNotBefore: tokensNotBeforeAt(now),
    };
    await this.clients.update(next);
    this.forgetTokensOf(clientId);
    this.deps.log.info({ clientId }, 'client revoked');
    return toView(next, now);
  }

  /** Disables (403 access_denied at the token endpoint, tokens rejected) or re-enables a client. */
  async setClientStatus(clientId: string, status: 'active' | 'disabled'): Promise<ClientView> {
    const c = this.mustGet(clientId);
    if (c.status === 'revoked')
      throw new ApiError('INVALID_TRANSITION', 'A revoked client cannot change status');
    const now = this.now();
    // Disabling sets the not-before, so re-enabling does not revive the tokens held before.
    const next: ClientRecord = {
      ...c,
      status,
      updatedAt: now,
      ...(status === 'disabled' ? { tokensNotBefore: tokensNotBeforeAt(now) } : {}),
    };
    await this.clients.update(next);
    if (status === 'disabled') this.forgetTokensOf(clientId);
    this.deps.log.info({ clientId, status }, 'client status changed');
    return toView(next, now);
  }

  /** Drops a client's verified and reusable tokens (after its not-before or status changed). */
  private forgetTokensOf(clientId: string): void {
    this.verifier.evict((p) => p.clientId === clientId);
    this.forgetRecent((r) => r.clientId === clientId);
  }

  private mustGet(clientId: string): ClientRecord {
    const c = this.clients.get(clientId);
    if (c === undefined) throw new ApiError('CLIENT_NOT_FOUND', `Client ${clientId} not found`);
    return c;
  }

  // --- operator bootstrap ------------------------------------------------------

  /**
   * Makes sure an operator client exists. With TICKBOOK_ADMIN_CLIENT_ID/_SECRET: that client, with
   * scope admin plus the trader scopes, active, accepting that secret. Without: when no active
   * admin client exists yet, generates one and writes it to the store's credentials file
   * (config.adminCredentialsFile, mode 0600); the log names the file, never the secret.
   */
  async ensureAdminClient(): Promise<AdminBootstrap> {
    const { adminClientId, adminClientSecret, adminCredentialsFile } = this.config;
    if (adminClientId !== undefined && adminClientSecret !== undefined) {
      if (adminClientSecret.length < 32) {
        this.deps.log.warn(
          { variable: 'TICKBOOK_ADMIN_CLIENT_SECRET' },
          'TICKBOOK_ADMIN_CLIENT_SECRET is shorter than 32 characters; use a long random secret (e.g. `openssl rand -base64 32`)',
        );
      }
      const existing = this.clients.get(adminClientId);
      if (existing === undefined) {
        await this.createClient({
          name: 'operator',
          scopes: ADMIN_SCOPES,
          clientId: adminClientId,
          clientSecret: adminClientSecret,
        });
        return { clientId: adminClientId, created: true };
      }
      const scopes = [...new Set([...existing.scopes, ...ADMIN_SCOPES])];
      const accountId = existing.accountId ?? (await this.deps.accounts.create());
      // A changed secret in the environment is a rotation: the tokens issued before end.
      const changed = !verifySecret(adminClientSecret, existing.secretHash);
      await this.clients.update({
        ...existing,
        scopes,
        accountId,
        status: 'active',
        secretHash: hashSecret(adminClientSecret),
        updatedAt: this.now(),
        ...(changed ? { tokensNotBefore: tokensNotBeforeAt(this.now()) } : {}),
      });
      if (changed) this.forgetTokensOf(adminClientId);
      return { clientId: adminClientId, created: false };
    }
    const admin = this.clients.all().find((c) => c.status === 'active' && c.scopes.includes('admin'));
    if (admin !== undefined) return { clientId: admin.clientId, created: false };
    const created = await this.createClient({ name: 'operator', scopes: ADMIN_SCOPES });
    const file = resolve(adminCredentialsFile);
    mkdirSync(dirname(file), { recursive: true });
    const body = {
      clientId: created.clientId,
      clientSecret: created.clientSecret,
      scopes: created.scopes,
      tokenUrl: `${this.config.publicBaseUrl}/nbx/v1/auth/emm-token`,
      createdAt: new Date(this.now()).toISOString(),
    };
    writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    this.deps.log.warn(
      { clientId: created.clientId, path: file },
      'generated operator credentials; they are in this file (mode 0600)',
    );
    return { clientId: created.clientId, created: true, credentialsFile: file };
  }
}

const DUMMY_HASH = hashSecret('tickbook-dummy-secret-for-timing');
function dummyCompare(secret: string): boolean {
  // Same work as a real comparison; the result is discarded.
  verifySecret(secret, DUMMY_HASH);
  return false;
}
