// Client administration (the admin API and the CLI): create, list, rotate a secret, disable,
// re-enable, revoke. Every credentials change sets the client's token not-before and tells the
// caller (onTokensInvalidated) so the verified-token cache and the reuse window drop its tokens.

import { ApiError } from '../errors.ts';
import { uuidv7 } from '../ids.ts';
import type { Log } from '../observability/log.ts';
import {
  type ClientRecord,
  type ClientRegistry,
  type ClientView,
  tokensNotBeforeAt,
  toView,
} from './clients.ts';
import type { AccountsPort } from './ports.ts';
import { DEFAULT_TRADER_SCOPES, isScope, type Scope } from './scopes.ts';
import { generateSecret, hashSecret } from './secrets.ts';

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

export interface NewClient {
  name: string;
  scopes?: readonly string[];
  accountId?: string;
  clientId?: string;
  clientSecret?: string;
}

const CLIENT_NAME_MAX = 200;

export class ClientAdmin {
  constructor(
    private readonly clients: ClientRegistry,
    private readonly accounts: AccountsPort,
    private readonly log: Log,
    private readonly now: () => number,
    /** Called after a client's not-before or status changed: its tokens must stop working now. */
    private readonly onTokensInvalidated: (clientId: string) => void,
  ) {}

  list(): ClientView[] {
    const now = this.now();
    return this.clients.all().map((c) => toView(c, now));
  }

  get(clientId: string): ClientView {
    return toView(this.mustGet(clientId), this.now());
  }

  /**
   * Creates a client. A client with trader scopes acts for an account: `accountId` when given
   * (it must exist), a fresh one otherwise.
   */
  async create(input: NewClient): Promise<CreatedClient> {
    const name = input.name.trim();
    if (name === '' || name.length > CLIENT_NAME_MAX) {
      throw new ApiError('VALIDATION_FAILED', `name must be 1 to ${CLIENT_NAME_MAX} characters`);
    }
    const scopes = [...new Set(input.scopes ?? DEFAULT_TRADER_SCOPES)];
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) throw new ApiError('VALIDATION_FAILED', `Unknown scope: ${unknown.join(' ')}`);
    if (scopes.length === 0) throw new ApiError('VALIDATION_FAILED', 'scopes must not be empty');
    const clientId = input.clientId ?? uuidv7();
    if (this.clients.get(clientId) !== undefined)
      throw new ApiError('ALREADY_EXISTS', `Client ${clientId} already exists`);
    let accountId: string | null = null;
    if (input.accountId !== undefined) {
      if (!this.accounts.exists(input.accountId)) {
        throw new ApiError('ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`);
      }
      accountId = input.accountId;
    } else if (scopes.some((s) => s === 'read:trader' || s === 'execute:trader' || s === 'make:parlay')) {
      accountId = await this.accounts.create();
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
    this.log.info({ clientId, scopes, accountId }, 'client created');
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
    this.onTokensInvalidated(clientId);
    this.log.info({ clientId, graceSeconds }, 'client secret rotated');
    return {
      clientId,
      clientSecret,
      oldSecretExpiresAt: graceUntil === null ? null : new Date(graceUntil).toISOString(),
    };
  }

  /** Revokes a client: its secret stops working and every token it holds is rejected at once. */
  async revoke(clientId: string): Promise<ClientView> {
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
    this.onTokensInvalidated(clientId);
    this.log.info({ clientId }, 'client revoked');
    return toView(next, now);
  }

  /** Disables (403 access_denied at the token endpoint, tokens rejected) or re-enables a client. */
  async setStatus(clientId: string, status: 'active' | 'disabled'): Promise<ClientView> {
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
    if (status === 'disabled') this.onTokensInvalidated(clientId);
    this.log.info({ clientId, status }, 'client status changed');
    return toView(next, now);
  }

  private mustGet(clientId: string): ClientRecord {
    const c = this.clients.get(clientId);
    if (c === undefined) throw new ApiError('CLIENT_NOT_FOUND', `Client ${clientId} not found`);
    return c;
  }
}
