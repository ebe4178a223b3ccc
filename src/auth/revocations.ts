// The revocation list (RFC 7009): revoked token ids, persisted in auth_revoked_tokens and held in
// memory so that the per-request check is a Set lookup. An entry is useless once the token it
// names has expired, so entries are purged then.

import type { Queryable } from '../store/types.ts';

export class RevocationList {
  private readonly expiries = new Map<string, number>();

  constructor(
    private readonly db: Queryable,
    private readonly now: () => number = Date.now,
  ) {}

  async load(): Promise<void> {
    const r = await this.db.query<{ jti: string; expires_at: number | string }>(
      'SELECT jti, expires_at FROM auth_revoked_tokens WHERE expires_at > $1',
      [this.now()],
    );
    this.expiries.clear();
    for (const row of r.rows) this.expiries.set(row.jti, Number(row.expires_at));
  }

  has(jti: string): boolean {
    return this.expiries.has(jti);
  }

  get size(): number {
    return this.expiries.size;
  }

  async add(jti: string, clientId: string, expiresAtMs: number): Promise<void> {
    if (this.expiries.has(jti)) return;
    await this.db.query(
      'INSERT INTO auth_revoked_tokens (jti, client_id, expires_at, revoked_at) VALUES ($1, $2, $3, $4) ON CONFLICT (jti) DO NOTHING',
      [jti, clientId, expiresAtMs, this.now()],
    );
    this.expiries.set(jti, expiresAtMs);
  }

  async purgeExpired(): Promise<void> {
    const now = this.now();
    await this.db.query('DELETE FROM auth_revoked_tokens WHERE expires_at <= $1', [now]);
    for (const [jti, exp] of this.expiries) if (exp <= now) this.expiries.delete(jti);
  }
}
