// OAuth clients: records in auth_clients, mirrored in memory. Every token request authenticates a
// client and every bearer check looks its status up, so both read the in-memory map; all writes go
// through this module (the CLI's client commands call the running server's admin API), which
// writes the store first and then the map.

import type { Queryable } from '../store/types.ts';
import { isScope, type Scope } from './scopes.ts';
import { verifySecret } from './secrets.ts';

export type ClientStatus = 'active' | 'disabled' | 'revoked';

export interface ClientRecord {
  clientId: string;
  name: string;
  secretHash: string;
  oldSecretHash: string | null;
  /** Epoch ms until which oldSecretHash is still accepted (secret rotation grace). */
  oldSecretExpiresAt: number | null;
  scopes: Scope[];
  accountId: string | null;
  status: ClientStatus;
  createdAt: number;
  updatedAt: number;
  /**
   * Epoch ms (a whole second): tokens with an earlier `iat` no longer verify. Set when the secret
   * is rotated or the client disabled or revoked (tokensNotBeforeAt); 0 when never.
   */
  tokensNotBefore: number;
}

/**
 * The not-before to record for a credentials change at `nowMs`: the next whole second. `iat` has
 * whole-second precision, so every token issued up to `nowMs` has an iat below it; tokens minted
 * afterwards take it as their iat at the least (TokenIssuer.mint, token-issuer.ts), at most 1 s ahead.
 */
export function tokensNotBeforeAt(nowMs: number): number {
  return (Math.floor(nowMs / 1000) + 1) * 1000;
}

/** What the admin API shows of a client: never a secret or a hash. */
export interface ClientView {
  clientId: string;
  name: string;
  scopes: Scope[];
  accountId: string | null;
  status: ClientStatus;
  createdAt: string;
  updatedAt: string;
  oldSecretExpiresAt: string | null;
}

interface ClientRow {
  client_id: string;
  name: string;
  secret_hash: string;
  old_secret_hash: string | null;
  old_secret_expires_at: number | string | null;
  scopes: string;
  account_id: string | null;
  status: ClientStatus;
  created_at: number | string;
  updated_at: number | string;
  tokens_not_before: number | string | null;
}

export function toView(c: ClientRecord, now: number): ClientView {
  return {
    clientId: c.clientId,
    name: c.name,
    scopes: [...c.scopes],
    accountId: c.accountId,
    status: c.status,
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
    oldSecretExpiresAt:
      c.oldSecretExpiresAt !== null && c.oldSecretExpiresAt > now
        ? new Date(c.oldSecretExpiresAt).toISOString()
        : null,
  };
}

function fromRow(r: ClientRow): ClientRecord {
  return {
    clientId: r.client_id,
    name: r.name,
    secretHash: r.secret_hash,
    oldSecretHash: r.old_secret_hash,
    oldSecretExpiresAt: r.old_secret_expires_at === null ? null : Number(r.old_secret_expires_at),
    scopes: r.scopes.split(' ').filter(isScope),
    accountId: r.account_id,
    status: r.status,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    tokensNotBefore: Number(r.tokens_not_before ?? 0),
  };
}

export class ClientRegistry {
  private readonly byId = new Map<string, ClientRecord>();

  constructor(private readonly db: Queryable) {}

  async load(): Promise<void> {
    const r = await this.db.query<ClientRow>('SELECT * FROM auth_clients');
    this.byId.clear();
    for (const row of r.rows) this.byId.set(row.client_id, fromRow(row));
  }

  get(clientId: string): ClientRecord | undefined {
    return this.byId.get(clientId);
  }

  all(): ClientRecord[] {
    return [...this.byId.values()].sort(
      (a, b) => a.createdAt - b.createdAt || a.clientId.localeCompare(b.clientId),
    );
  }

  /** True when `secret` is the client's secret, or its previous one within the grace period. */
  secretMatches(c: ClientRecord, secret: string, now: number): boolean {
    // Both comparisons always run, so the timing does not reveal which one matched.
    const current = verifySecret(secret, c.secretHash);
    const old =
      c.oldSecretHash !== null && c.oldSecretExpiresAt !== null && c.oldSecretExpiresAt > now
        ? verifySecret(secret, c.oldSecretHash)
        : false;
    return current || old;
  }

  async insert(c: ClientRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO auth_clients (client_id, name, secret_hash, old_secret_hash, old_secret_expires_at, scopes, account_id, status, tokens_not_before, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [...clientColumns(c), c.createdAt, c.updatedAt],
    );
    this.byId.set(c.clientId, c);
  }

  async update(c: ClientRecord): Promise<void> {
    await this.db.query(
      `UPDATE auth_clients SET name = $2, secret_hash = $3, old_secret_hash = $4, old_secret_expires_at = $5,
         scopes = $6, account_id = $7, status = $8, tokens_not_before = $9, updated_at = $10 WHERE client_id = $1`,
      [...clientColumns(c), c.updatedAt],
    );
    this.byId.set(c.clientId, c);
  }
}

/** $1..$9 of both the INSERT and the UPDATE of a client row. */
function clientColumns(c: ClientRecord): unknown[] {
  return [
    c.clientId,
    c.name,
    c.secretHash,
    c.oldSecretHash,
    c.oldSecretExpiresAt,
    c.scopes.join(' '),
    c.accountId,
    c.status,
    c.tokensNotBefore,
  ];
}
