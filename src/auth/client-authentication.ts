// Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3.1):
// client_id and secret against the registry, behind the failed-authentication throttle.

import type { Metrics } from '../observability/metrics.ts';
import type { ClientRecord, ClientRegistry } from './clients.ts';
import { OAuthError } from './oauth-errors.ts';
import { hashSecret, verifySecret } from './secrets.ts';
import type { FailureThrottle } from './throttle.ts';

export class ClientAuthenticator {
  constructor(
    private readonly clients: ClientRegistry,
    private readonly throttle: FailureThrottle,
    private readonly metrics: Metrics,
    private readonly now: () => number,
  ) {}

  /**
   * Authenticates a client by id and secret. Failures are counted per (client_id, address) and per
   * address (throttle.ts: never per client alone, which would be a lockout anyone can trigger);
   * past their limits a minute the answer is 429 before the secret is even looked at.
   */
  authenticate(clientId: string, secret: string, address: string): ClientRecord {
    const keys = this.throttle.keysFor(clientId, address);
    const wait = this.throttle.retryAfter(keys);
    if (wait > 0) {
      this.metrics.authFailures.inc({ reason: 'throttled' });
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
      this.metrics.authFailures.inc({ reason: 'invalid_client' });
      throw new OAuthError('invalid_client', 'Client authentication failed');
    }
    if (client.status === 'revoked') {
      this.metrics.authFailures.inc({ reason: 'client_revoked' });
      throw new OAuthError('invalid_client', 'Client authentication failed');
    }
    return client;
  }
}

const DUMMY_HASH = hashSecret('tickbook-dummy-secret-for-timing');
function dummyCompare(secret: string): boolean {
  // Same work as a real comparison; the result is discarded.
  verifySecret(secret, DUMMY_HASH);
  return false;
}
