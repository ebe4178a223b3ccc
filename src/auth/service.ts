// The token server's domain service (docs/auth.md): the one object HTTP routes
// (src/http/routes/oauth.ts, admin-clients.ts), the bearer guard and the CLI go through. It builds
// the parts at start-up and hands each call to the module that holds the behaviour:
// client-authentication.ts, token-issuer.ts, token-verification.ts (verification, introspection),
// token-revocation.ts, client-admin.ts, admin-bootstrap.ts, server-metadata.ts; keys live in
// keys.ts. What stays here is the wiring, the background refresh, and key administration.

import { availableParallelism } from 'node:os';
import type { JWK } from 'jose';
import type { Config } from '../config.ts';
import type { Log } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Store } from '../store/types.ts';
import { type AdminBootstrap, ensureAdminClient } from './admin-bootstrap.ts';
import { ClientAdmin, type CreatedClient, type NewClient, type RotatedSecret } from './client-admin.ts';
import { ClientAuthenticator } from './client-authentication.ts';
import { type ClientRecord, ClientRegistry, type ClientView } from './clients.ts';
import { type KeyInfo, KeyRing, type SigningKey } from './keys.ts';
import type { AccountsPort } from './ports.ts';
import { RevocationList } from './revocations.ts';
import type { Principal, Scope } from './scopes.ts';
import { authorizationServerMetadata } from './server-metadata.ts';
import { InlineSigner, type Signer, WorkerPoolSigner } from './signer.ts';
import { FailureThrottle } from './throttle.ts';
import { grantScopes, TokenIssuer, type TokenResponse } from './token-issuer.ts';
import { revokeToken } from './token-revocation.ts';
import { type IntrospectionResponse, TokenChecks } from './token-verification.ts';
import { TokenMinter } from './tokens.ts';
import { TokenVerifier } from './verifier.ts';

export type { AdminBootstrap } from './admin-bootstrap.ts';
export type { CreatedClient, RotatedSecret } from './client-admin.ts';
export type { ClientView } from './clients.ts';
export type { AccountsPort } from './ports.ts';
export type { TokenResponse } from './token-issuer.ts';
export type { IntrospectionResponse } from './token-verification.ts';

export interface AuthServiceDeps {
  config: Config;
  store: Store;
  metrics: Metrics;
  log: Log;
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
  private readonly authenticator: ClientAuthenticator;
  private readonly issuer: TokenIssuer;
  private readonly checks: TokenChecks;
  private readonly admin: ClientAdmin;

  private constructor(
    private readonly deps: AuthServiceDeps,
    keys: KeyRing,
    clients: ClientRegistry,
    revocations: RevocationList,
    signer: Signer,
  ) {
    const { config, metrics } = deps;
    this.now = deps.now ?? Date.now;
    this.keys = keys;
    this.clients = clients;
    this.revocations = revocations;
    this.signer = signer;
    this.minter = new TokenMinter(signer);
    this.throttle = new FailureThrottle(config.authFailureLimit, 60_000, this.now);
    this.verifier = new TokenVerifier(keys, clients, revocations, {
      issuer: config.publicBaseUrl,
      audience: config.publicBaseUrl,
      env: config.env,
      now: this.now,
      onUnknownKid: () => this.reloadKeysThrottled(),
    });
    this.authenticator = new ClientAuthenticator(clients, this.throttle, metrics, this.now);
    this.issuer = new TokenIssuer({
      config,
      keys,
      minter: this.minter,
      revocations,
      metrics,
      now: this.now,
      reuseMs: 1000 * (deps.tokenReuseSeconds ?? Math.min(60, Math.floor(config.tokenTtlSeconds / 100))),
    });
    this.checks = new TokenChecks(this.verifier, clients, metrics, this.now);
    this.admin = new ClientAdmin(clients, deps.accounts, deps.log, this.now, (id) => this.forgetTokensOf(id));
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

  /** Audiences the legacy /oauth/token accepts (LEGACY_TOKEN_AUDIENCES, docs/auth.md). */
  get legacyTokenAudiences(): readonly string[] {
    return this.deps.config.legacyTokenAudiences;
  }

  // --- client authentication and issuance (RFC 6749 §2.3.1, §4.4): client-authentication.ts,
  // token-issuer.ts --------------------------------------------------------------------------------

  authenticateClient(clientId: string, secret: string, address: string): ClientRecord {
    return this.authenticator.authenticate(clientId, secret, address);
  }

  grantScopes(client: ClientRecord, requested: string | undefined): Scope[] {
    return grantScopes(client, requested);
  }

  issueToken(
    client: ClientRecord,
    requestedScope: string | undefined,
    endpoint: string,
  ): Promise<TokenResponse> {
    return this.issuer.issue(client, requestedScope, endpoint);
  }

  /** Signs arbitrary claims with the current key (tests and tooling; not reachable over HTTP). */
  signRaw(
    claims: object,
    header?: Record<string, unknown>,
    key: SigningKey = this.keys.current(),
  ): Promise<string> {
    return this.minter.sign(key, claims, header);
  }

  // --- verification, revocation, introspection: token-verification.ts, token-revocation.ts ------

  verifyCached(token: string): Principal | undefined {
    return this.checks.cached(token);
  }

  verifyAccessToken(token: string): Promise<Principal> {
    return this.checks.verify(token);
  }

  revokeToken(token: string, requester: ClientRecord): Promise<boolean> {
    return revokeToken(
      { checks: this.checks, revocations: this.revocations, verifier: this.verifier, issuer: this.issuer },
      token,
      requester,
    );
  }

  introspect(token: string, requester: ClientRecord): Promise<IntrospectionResponse> {
    return this.checks.introspect(token, requester);
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

  /** RFC 8414 authorization server metadata (server-metadata.ts). */
  metadata(): Record<string, unknown> {
    return authorizationServerMetadata(this.deps.config.publicBaseUrl, this.keys.algorithms());
  }

  // --- clients (admin API): client-admin.ts ------------------------------------------------------

  listClients(): ClientView[] {
    return this.admin.list();
  }

  getClient(clientId: string): ClientView {
    return this.admin.get(clientId);
  }

  createClient(input: NewClient): Promise<CreatedClient> {
    return this.admin.create(input);
  }

  rotateSecret(clientId: string, graceSeconds = 0): Promise<RotatedSecret> {
    return this.admin.rotateSecret(clientId, graceSeconds);
  }

  revokeClient(clientId: string): Promise<ClientView> {
    return this.admin.revoke(clientId);
  }

  setClientStatus(clientId: string, status: 'active' | 'disabled'): Promise<ClientView> {
    return this.admin.setStatus(clientId, status);
  }

  // --- operator bootstrap: admin-bootstrap.ts -----------------------------------------------------

  ensureAdminClient(): Promise<AdminBootstrap> {
    return ensureAdminClient({
      config: this.deps.config,
      clients: this.clients,
      admin: this.admin,
      accounts: this.deps.accounts,
      log: this.deps.log,
      now: this.now,
      invalidateTokens: (id) => this.forgetTokensOf(id),
    });
  }

  /** Drops a client's verified and reusable tokens (after its not-before or status changed). */
  private forgetTokensOf(clientId: string): void {
    this.verifier.evict((p) => p.clientId === clientId);
    this.issuer.forget((r) => r.clientId === clientId);
  }
}
