// Throttling of failed client authentication (docs/auth.md "Throttling"): at most `limit` failures
// per key per fixed one-minute window; beyond that the token endpoints answer 429 with Retry-After
// before even checking the secret. The keys are (client_id, address), limit AUTH_FAILURE_LIMIT, and
// address, limit ADDRESS_FACTOR times that — never client_id alone: a client-wide count would let
// anyone lock a client's owner out by sending wrong secrets, whereas these slow only the sender.
// Guessing stays bounded per address (and a 256-bit secret cannot be guessed at any rate anyway);
// the looser address limit keeps one mistyping client from blocking everyone behind a shared NAT.

import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * The address a failure is counted against: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64
 * prefix, because one host is routinely given a whole /64 and can rotate through it (RFC 4291
 * §2.5.4: the interface identifier is 64 bits).
 */
export function throttleAddress(ip: string): string {
  if (ip.toLowerCase().startsWith('::ffff:') && isIPv4(ip.slice(7))) return ip.slice(7);
  const bare = ip.includes('%') ? ip.slice(0, ip.indexOf('%')) : ip;
  if (!isIPv6(bare)) return ip;
  const groups = (part: string): string[] => {
    if (part === '') return [];
    const out: string[] = [];
    for (const g of part.split(':')) {
      if (isIPv4(g)) {
        const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
        out.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
      } else out.push(g);
    }
    return out;
  };
  const cut = bare.indexOf('::');
  const head = groups(cut < 0 ? bare : bare.slice(0, cut));
  const tail = cut < 0 ? [] : groups(bare.slice(cut + 2));
  const all = [...head, ...new Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** How many more failures an address may have than one (client_id, address) pair. */
export const ADDRESS_FACTOR = 5;

export interface ThrottleKey {
  key: string;
  limit: number;
}

export class FailureThrottle {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The keys one failed authentication of `clientId` from `address` counts against. */
  keysFor(clientId: string, address: string): ThrottleKey[] {
    const a = throttleAddress(address);
    // A client_id is caller-chosen (up to the 16 KiB body): long ones are keyed by their digest.
    const c = clientId.length <= 128 ? clientId : createHash('sha256').update(clientId).digest('base64url');
    return [
      { key: `ca:${a}\u0000${c}`, limit: this.limit },
      { key: `a:${a}`, limit: this.limit * ADDRESS_FACTOR },
    ];
  }

  /** Seconds until the first of `keys` that is over its limit may try again; 0 when none is. */
  retryAfter(keys: readonly ThrottleKey[]): number {
    const now = this.now();
    let wait = 0;
    for (const { key, limit } of keys) {
      const w = this.windows.get(key);
      if (w === undefined || w.resetAt <= now) continue;
      if (w.count >= limit) wait = Math.max(wait, Math.ceil((w.resetAt - now) / 1000));
    }
    return wait;
  }

  fail(keys: readonly ThrottleKey[]): void {
    const now = this.now();
    if (this.windows.size > 100_000) this.sweep(now);
    for (const { key: k } of keys) {
      const w = this.windows.get(k);
      if (w === undefined || w.resetAt <= now)
        this.windows.set(k, { count: 1, resetAt: now + this.windowMs });
      else w.count++;
    }
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}
