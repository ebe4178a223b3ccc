// Deterministic UUIDs (RFC 9562 §5.5, version 5: SHA-1 of a namespace and a name). The demo slate
// must be identical for a given seed and start time, and the living demo must be
// able to recompute the id of a game or order it created earlier, so ids are derived from names
// rather than drawn at random.

import { createHash } from 'node:crypto';

/** Tickbook's own namespace for catalog names (a fixed random UUID). */
const NAMESPACE = Buffer.from('6f1c2f2e8b9a4d0e9a3b5c7d1e2f3a4b', 'hex');

/** A version-5 UUID for the name made of `parts` joined with ':' under the Tickbook namespace. */
export function uuidFor(...parts: (string | number)[]): string {
  const h = createHash('sha1').update(NAMESPACE).update(parts.join(':')).digest();
  h[6] = (h[6]! & 0x0f) | 0x50; // version 5
  h[8] = (h[8]! & 0x3f) | 0x80; // RFC variant
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID_RE.test(s);
}
