// RFC 7009 token revocation: a client revokes a token it holds (an admin client any token). The
// token id joins the persisted revocation list, and the verified-token cache and the issuer's
// reuse window both drop it, so the next request presenting it is refused at once.

import type { ClientRecord } from './clients.ts';
import type { RevocationList } from './revocations.ts';
import type { TokenIssuer } from './token-issuer.ts';
import type { TokenChecks } from './token-verification.ts';
import type { TokenVerifier } from './verifier.ts';

export interface RevocationParts {
  checks: TokenChecks;
  revocations: RevocationList;
  verifier: TokenVerifier;
  issuer: TokenIssuer;
}

/**
 * Revokes `token` when it was issued to `requester` (admins may revoke any). Invalid or foreign
 * tokens are ignored — the endpoint answers 200 either way (RFC 7009 §2.2). True when revoked.
 */
export async function revokeToken(
  p: RevocationParts,
  token: string,
  requester: ClientRecord,
): Promise<boolean> {
  // Already-revoked, expired or foreign-server tokens fail verification: nothing to revoke.
  const verified = await p.checks.tryVerify(token);
  if (verified === undefined) return false;
  const claims = verified.claims;
  const owner = String(claims.client_id);
  if (owner !== requester.clientId && !requester.scopes.includes('admin')) return false;
  await p.revocations.add(String(claims.jti), owner, Number(claims.exp) * 1000);
  const jti = String(claims.jti);
  p.verifier.evict((v) => v.tokenId === jti);
  p.issuer.forget((r) => r.jti === jti);
  return true;
}
