// Every id Tickbook makes, and the one check of an id's form. Two kinds, both UUIDs (RFC 9562):
// - `uuidv7` (§5.7) for what the exchange creates as it runs (orders, commands, history rows): 48-bit
//   Unix milliseconds, then random bits, so ids sort by creation time (orders, fills and history
//   rows page in time order without a separate index on time);
// - `uuidFor` (§5.5, version 5: SHA-1 of a namespace and a name) for what must come out the same
//   each time: the demo slate is identical for a given seed and start time, and the living demo
//   recomputes the id of a game or order it created earlier, so those ids derive from names.
// Two more for ids nothing stores or orders: `offerIdSource` for the parlay price route's offers,
// `randomTokenId` for a token's `jti`. `isUuid` is the one check of an id's form.

import { createHash, randomBytes, randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;
let lastMs = 0;
let seq = 0;

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const DASH = 0x2d;
const text = Buffer.alloc(36);

export function uuidv7(now: number = Date.now()): string {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const b = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  // Monotonic within one millisecond: a 12-bit counter in rand_a (RFC 9562 §6.2 method 1).
  if (now <= lastMs) {
    seq = (seq + 1) & 0xfff;
    if (seq === 0) lastMs += 1;
    now = lastMs;
  } else {
    lastMs = now;
    seq = b[6]! & 0x07; // start low so the counter has room
  }
  b[0] = Math.floor(now / 2 ** 40) & 0xff;
  b[1] = Math.floor(now / 2 ** 32) & 0xff;
  b[2] = (now >>> 24) & 0xff;
  b[3] = (now >>> 16) & 0xff;
  b[4] = (now >>> 8) & 0xff;
  b[5] = now & 0xff;
  b[6] = 0x70 | ((seq >>> 8) & 0x0f);
  b[7] = seq & 0xff;
  b[8] = (b[8]! & 0x3f) | 0x80;
  // Hex digits go into one reused 36-byte buffer, decoded once: the result is a flat string.
  // Concatenating 20 pieces made a cons-string tree that every later reader (the engine's id
  // hash, Map keys, JSON.stringify) had to flatten first, about a quarter of the engine's time
  // per order (docs/bench-engine.md).
  let o = 0;
  for (let i = 0; i < 16; i++) {
    const v = b[i]!;
    text[o++] = HEX_DIGITS[v >>> 4]!;
    text[o++] = HEX_DIGITS[v & 15]!;
    if (i === 3 || i === 5 || i === 7 || i === 9) text[o++] = DASH;
  }
  return text.toString('latin1', 0, 36);
}

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

/**
 * Offer ids: UUID-shaped (version 4 and variant bits set), a random 80-bit prefix drawn once per
 * source plus a 48-bit counter. Offers are not stored or redeemed, so ids need to be unique, not
 * secret; this avoids a crypto call per quote (randomUUID showed up in profiles of the parlay
 * price route).
 */
export function offerIdSource(): () => string {
  const b = randomBytes(10);
  b[6] = (b[6]! & 0x0f) | 0x40; // b holds 10 bytes
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  const prefix = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-`;
  let n = Number.parseInt(randomBytes(4).toString('hex'), 16); // start anywhere in the counter space
  return () => {
    n = (n + 1) % 2 ** 48;
    return prefix + n.toString(16).padStart(12, '0');
  };
}

/** 128 random bits, base64url: a token id (RFC 7519 `jti`) unique without coordination and not
 * guessable, so a revocation names exactly one token. */
export function randomTokenId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * The one definition of a well-formed id, used everywhere an id arrives (request schemas through
 * Ajv's `uuid` format, src/http/validation.ts; GraphQL's `uuid` scalar; the stream's market
 * channels; the pricer's legs; the import file): the RFC 9562 §4 text form, 8-4-4-4-12 hex
 * digits, either case, any version and variant. An id is a key to look up, not something to
 * decode: the nil and max UUIDs (RFC 9562 §5.9, §5.10), a version-4 id from another system or one
 * of a future version are well formed, and a well-formed id that names nothing is "not found"
 * (404), not "malformed" (400) — as PostgreSQL's uuid type, which GraphQL emulates, reads them
 * (docs/http.md "Identifiers").
 */
export const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(s: unknown): s is string {
  return typeof s === 'string' && UUID_RE.test(s);
}
