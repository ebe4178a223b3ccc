-- 002: the token server (docs/auth.md). Times are epoch milliseconds in bigint columns, so that
-- PGlite and PostgreSQL hand back the same JavaScript numbers (no timestamptz/Date mapping).

-- OAuth clients. Only a hash of the secret is stored (see docs/auth.md); during a rotation grace
-- period the previous hash stays valid until old_secret_expires_at.
CREATE TABLE IF NOT EXISTS auth_clients (
  client_id text PRIMARY KEY,
  name text NOT NULL,
  secret_hash text NOT NULL,
  old_secret_hash text,
  old_secret_expires_at bigint,
  scopes text NOT NULL,
  account_id text,
  status text NOT NULL CHECK (status IN ('active', 'disabled', 'revoked')),
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);

-- Token signing keys. The private JWK is AES-256-GCM encrypted when KEY_ENCRYPTION_SECRET is set
-- (private_key_enc = 'v1.<salt>.<iv>.<ciphertext>.<tag>'), plain JSON otherwise. A retired key
-- stays published in the JWKS until publish_until (its last token's expiry).
CREATE TABLE IF NOT EXISTS auth_signing_keys (
  kid text PRIMARY KEY,
  alg text NOT NULL,
  public_jwk text NOT NULL,
  private_key_enc text NOT NULL,
  created_at bigint NOT NULL,
  retired_at bigint,
  publish_until bigint
);

-- Revoked access tokens (RFC 7009), kept until the token would have expired anyway.
CREATE TABLE IF NOT EXISTS auth_revoked_tokens (
  jti text PRIMARY KEY,
  client_id text NOT NULL,
  expires_at bigint NOT NULL,
  revoked_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS auth_revoked_tokens_expires ON auth_revoked_tokens (expires_at);
