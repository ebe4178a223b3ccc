// Shared auth state across processes (docs/cluster.md): clients (secrets, status), revocations and
// signing keys live in the store; each process holds them in memory for its per-request checks
// (src/auth/verifier.ts). This poller keeps that memory in step with the store: every interval it
// reads one small fingerprint row of the three tables and reloads only what changed, so a
// revocation, secret rotation or client status change made through any process (or the CLI)
// takes effect everywhere within about one interval (250 ms by default, the 1 s goal with room).

import type { AuthService } from '../auth/service.ts';
import type { Log } from '../observability/log.ts';
import type { Queryable } from '../store/types.ts';

const FINGERPRINT = `SELECT
  (SELECT count(*)::text || ':' || coalesce(sum(updated_at), 0)::text FROM auth_clients) AS clients,
  (SELECT count(*)::text || ':' || coalesce(max(revoked_at), 0)::text FROM auth_revoked_tokens) AS revoked,
  (SELECT count(*)::text || ':' || coalesce(max(created_at), 0)::text || ':' || count(retired_at)::text
     FROM auth_signing_keys) AS keys`;

interface Fingerprint {
  clients: string;
  revoked: string;
  keys: string;
}

export class AuthSync {
  private last: Fingerprint | undefined;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly store: Queryable,
    private readonly auth: Pick<AuthService, 'clients' | 'revocations' | 'keys'>,
    private readonly log: Log,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** One pass: reloads what changed since the previous pass. */
  async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const r = await this.store.query<Fingerprint>(FINGERPRINT);
      const now = r.rows[0];
      if (now === undefined) return;
      const last = this.last;
      if (last === undefined || last.clients !== now.clients) await this.auth.clients.load();
      if (last === undefined || last.revoked !== now.revoked) await this.auth.revocations.load();
      if (last === undefined || last.keys !== now.keys) await this.auth.keys.reload();
      this.last = now;
    } catch (err) {
      // The store is away: the in-memory state keeps serving; the next pass retries.
      this.log.warn({ err: String(err) }, 'auth state refresh failed; retrying');
    } finally {
      this.busy = false;
    }
  }
}
