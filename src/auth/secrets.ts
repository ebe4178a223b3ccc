// Client secrets (docs/auth.md): 256 random bits, base64url, shown once, stored only as a hash,
// compared in constant time.
//
// Why a fast hash and not scrypt/argon2: slow KDFs exist to make guessing *low-entropy* passwords
// expensive. A 256-bit random secret cannot be guessed whatever the hash speed (2^256 work), so a
// leaked hash table is as useless to an attacker under SHA-256 as under argon2 — while a slow KDF
// would cost ~50 ms of CPU on every token request and cap the token endpoint at ~40 req/s/core.
// The hash is HMAC-SHA-256 keyed with a fixed domain label so that hashes from this table cannot
// be replayed as plain SHA-256 digests elsewhere.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_BYTES = 32;
const HASH_PREFIX = 'hs256$';
const DOMAIN_KEY = 'tickbook:client-secret:v1';

/** A fresh client secret: 32 random bytes as base64url (43 characters). */
export function generateSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

function digest(secret: string): Buffer {
  return createHmac('sha256', DOMAIN_KEY).update(secret, 'utf8').digest();
}

/** The stored form of a secret. */
export function hashSecret(secret: string): string {
  return HASH_PREFIX + digest(secret).toString('base64url');
}

/** Constant-time check of `secret` against a stored hash (both digests have fixed length). */
export function verifySecret(secret: string, stored: string): boolean {
  if (!stored.startsWith(HASH_PREFIX)) return false;
  const expected = Buffer.from(stored.slice(HASH_PREFIX.length), 'base64url');
  const actual = digest(secret);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
