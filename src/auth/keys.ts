// Token signing keys (docs/auth.md): generated on first start, persisted in the store, private
// half encrypted at rest with KEY_ENCRYPTION_SECRET (AES-256-GCM under a scrypt-derived key),
// `kid` = RFC 7638 JWK thumbprint. Rotation makes a new key current; the previous ones stay
// published in the JWKS until the last token they signed has expired (publish_until).

import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  generateKeyPair,
  type KeyObject,
  randomBytes,
  scryptSync,
} from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { TokenAlg } from '../config.ts';
import type { Queryable, Store } from '../store/types.ts';

const generateKeyPairAsync = promisify(generateKeyPair);

/** Extra publication time after the last token's expiry, for clock skew between servers. */
const PUBLISH_SKEW_MS = 60_000;

export interface SigningKey {
  kid: string;
  alg: TokenAlg;
  publicJwk: JWK;
  /** The private key as a JWK, handed to the signing workers. */
  privateJwk: JWK;
  privateKey: KeyObject;
  publicKey: KeyObject;
  createdAt: number;
  retiredAt: number | null;
  publishUntil: number | null;
}

export interface KeyInfo {
  kid: string;
  alg: TokenAlg;
  createdAt: string;
  retiredAt: string | null;
  publishUntil: string | null;
  current: boolean;
}

export interface KeyRingOptions {
  alg: TokenAlg;
  tokenTtlSeconds: number;
  encryptionSecret: string | undefined;
  now?: () => number;
}

interface KeyRow {
  kid: string;
  alg: string;
  public_jwk: string;
  private_key_enc: string;
  created_at: number | string;
  retired_at: number | string | null;
  publish_until: number | string | null;
}

const numOrNull = (v: number | string | null): number | null => (v === null ? null : Number(v));

// --- encryption at rest -------------------------------------------------------------------------

/** 'v1.<salt>.<iv>.<ciphertext>.<tag>' (base64url parts) or 'plain.<json base64url>'. */
export function sealPrivateJwk(jwk: JWK, secret: string | undefined): string {
  const json = Buffer.from(JSON.stringify(jwk), 'utf8');
  if (secret === undefined) return `plain.${json.toString('base64url')}`;
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = scryptSync(secret, salt, 32);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(json), cipher.final()]);
  return ['v1', salt, iv, ct, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export class KeyDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyDecryptionError';
  }
}

export function openPrivateJwk(sealed: string, secret: string | undefined): JWK {
  const parts = sealed.split('.');
  if (parts[0] === 'plain' && parts.length === 2)
    return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  if (parts[0] !== 'v1' || parts.length !== 5)
    throw new KeyDecryptionError('unrecognised private key format');
  if (secret === undefined) {
    throw new KeyDecryptionError(
      'signing keys are encrypted: KEY_ENCRYPTION_SECRET must be set to the secret used to create them',
    );
  }
  // Five parts, checked above: the format tag, then salt, iv, ciphertext and auth tag.
  const [salt, iv, ct, tag] = parts.slice(1).map((p) => Buffer.from(p, 'base64url')) as [
    Buffer,
    Buffer,
    Buffer,
    Buffer,
  ];
  try {
    const decipher = createDecipheriv('aes-256-gcm', scryptSync(secret, salt, 32), iv);
    decipher.setAuthTag(tag);
    return JSON.parse(Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8'));
  } catch {
    throw new KeyDecryptionError(
      'cannot decrypt the signing keys: KEY_ENCRYPTION_SECRET is not the secret used to create them',
    );
  }
}

// --- generation ---------------------------------------------------------------------------------

async function generate(alg: TokenAlg): Promise<{ privateKey: KeyObject; publicKey: KeyObject }> {
  switch (alg) {
    case 'RS256':
      return generateKeyPairAsync('rsa', { modulusLength: 2048 });
    case 'ES256':
      return generateKeyPairAsync('ec', { namedCurve: 'P-256' });
    case 'EdDSA':
      return generateKeyPairAsync('ed25519');
  }
}

async function newKey(alg: TokenAlg, now: number): Promise<SigningKey> {
  const { privateKey, publicKey } = await generate(alg);
  const bare = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(bare, 'sha256');
  return {
    kid,
    alg,
    publicJwk: { ...bare, kid, alg, use: 'sig' },
    privateJwk: { ...(privateKey.export({ format: 'jwk' }) as JWK), kid, alg },
    privateKey,
    publicKey,
    createdAt: now,
    retiredAt: null,
    publishUntil: null,
  };
}

// --- the ring -----------------------------------------------------------------------------------

export class KeyRing {
  private keys = new Map<string, SigningKey>();
  private currentKey!: SigningKey;
  private readonly now: () => number;

  private constructor(
    private readonly store: Store,
    private readonly opts: KeyRingOptions,
  ) {
    this.now = opts.now ?? Date.now;
  }

  /**
   * Loads the published keys; creates the first key when there is none, and rotates when the
   * current key's algorithm is not TOKEN_ALG (a changed configuration takes effect at start).
   * With ensureCurrent false (`tickbook keys list`) it only reads.
   */
  static async open(store: Store, opts: KeyRingOptions, ensureCurrent = true): Promise<KeyRing> {
    const ring = new KeyRing(store, opts);
    await ring.reload();
    const usable = ring.keys.size > 0 && ring.currentKey !== undefined && ring.currentKey.alg === opts.alg;
    if (ensureCurrent && !usable) await ring.rotate();
    return ring;
  }

  current(): SigningKey {
    return this.currentKey;
  }

  /** Keys loaded (published ones). */
  get size(): number {
    return this.keys.size;
  }

  get(kid: string): SigningKey | undefined {
    const k = this.keys.get(kid);
    if (k === undefined) return undefined;
    if (k.publishUntil !== null && k.publishUntil <= this.now()) return undefined;
    return k;
  }

  /** Algorithms of the keys still published (a token's alg must be its key's). */
  algorithms(): TokenAlg[] {
    return [...new Set([...this.keys.values()].map((k) => k.alg))];
  }

  /** The JWK Set of every published key, current first. */
  jwks(): { keys: JWK[] } {
    const now = this.now();
    const published = [...this.keys.values()]
      .filter((k) => k.publishUntil === null || k.publishUntil > now)
      .sort((a, b) => b.createdAt - a.createdAt);
    return { keys: published.map((k) => k.publicJwk) };
  }

  list(): KeyInfo[] {
    const iso = (n: number | null) => (n === null ? null : new Date(n).toISOString());
    return [...this.keys.values()]
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((k) => ({
        kid: k.kid,
        alg: k.alg,
        createdAt: new Date(k.createdAt).toISOString(),
        retiredAt: iso(k.retiredAt),
        publishUntil: iso(k.publishUntil),
        current: k === this.currentKey,
      }));
  }

  /** Re-reads the key table (another process — `tickbook keys rotate` — may have rotated). Returns true on change. */
  async reload(): Promise<boolean> {
    const now = this.now();
    const r = await this.store.query<KeyRow>(
      'SELECT kid, alg, public_jwk, private_key_enc, created_at, retired_at, publish_until FROM auth_signing_keys WHERE publish_until IS NULL OR publish_until > $1 ORDER BY created_at',
      [now],
    );
    const next = new Map<string, SigningKey>();
    let current: SigningKey | undefined;
    for (const row of r.rows) {
      const known = this.keys.get(row.kid);
      const key: SigningKey = known
        ? { ...known, retiredAt: numOrNull(row.retired_at), publishUntil: numOrNull(row.publish_until) }
        : this.fromRow(row);
      next.set(key.kid, key);
      if (key.retiredAt === null && (current === undefined || key.createdAt >= current.createdAt))
        current = key;
    }
    const changed =
      next.size !== this.keys.size ||
      current?.kid !== this.currentKey?.kid ||
      [...next.keys()].some((k) => !this.keys.has(k));
    this.keys = next;
    if (current !== undefined) this.currentKey = current;
    return changed;
  }

  private fromRow(row: KeyRow): SigningKey {
    const privateJwk = openPrivateJwk(row.private_key_enc, this.opts.encryptionSecret);
    const publicJwk = JSON.parse(row.public_jwk) as JWK;
    return {
      kid: row.kid,
      alg: row.alg as TokenAlg,
      publicJwk,
      privateJwk,
      privateKey: createPrivateKey({ key: privateJwk as never, format: 'jwk' }),
      publicKey: createPublicKey({ key: publicJwk as never, format: 'jwk' }),
      createdAt: Number(row.created_at),
      retiredAt: numOrNull(row.retired_at),
      publishUntil: numOrNull(row.publish_until),
    };
  }

  /**
   * Makes a fresh key current. The retiring keys stay published until every token they signed
   * has expired: now + TOKEN_TTL_SECONDS (+ skew).
   */
  async rotate(alg: TokenAlg = this.opts.alg): Promise<SigningKey> {
    const now = this.now();
    const key = await newKey(alg, now);
    await this.store.transaction(async (tx: Queryable) => {
      await tx.query(
        'UPDATE auth_signing_keys SET retired_at = $1, publish_until = $2 WHERE retired_at IS NULL',
        [now, now + this.opts.tokenTtlSeconds * 1000 + PUBLISH_SKEW_MS],
      );
      await tx.query(
        'INSERT INTO auth_signing_keys (kid, alg, public_jwk, private_key_enc, created_at) VALUES ($1, $2, $3, $4, $5)',
        [
          key.kid,
          key.alg,
          JSON.stringify(key.publicJwk),
          sealPrivateJwk(key.privateJwk, this.opts.encryptionSecret),
          now,
        ],
      );
    });
    this.keys.set(key.kid, key);
    await this.reload();
    return this.currentKey;
  }
}
