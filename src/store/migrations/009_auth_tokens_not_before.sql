-- 009: a per-client not-before for access tokens (docs/auth.md "Verification"). Rotating a client's
-- secret, disabling or revoking it sets it to the next whole second (epoch milliseconds, like every
-- time here); a token whose iat (seconds) × 1000 is below it no longer verifies, so a re-enabled
-- client does not revive the tokens it held. 0: never set.
ALTER TABLE auth_clients ADD COLUMN IF NOT EXISTS tokens_not_before bigint NOT NULL DEFAULT 0;
