// Access-token minting: JWTs in the RFC 9068 profile (header typ "at+jwt"; claims iss, sub, aud,
// client_id, scope, iat, exp, jti), built by hand around the signer so that the only per-token
// work is two base64url encodings and one signature (the header per key is encoded once).
//
// Audience: ["<PUBLIC_BASE_URL>", "urn:tickbook:env:<TICKBOOK_ENV>"]. The first is what RFC 9068
// asks for (the resource server's identifier); the second makes a token carry its environment,
// so that a qa token is rejected by production even if both were ever configured with the same
// base URL or shared key material (production-api.md: QA tokens are not valid in production).

import type { TickbookEnv } from '../config.ts';
import type { SigningKey } from './keys.ts';
import type { Signer } from './signer.ts';

export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string[];
  client_id: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  nbf?: number;
}

export function envAudience(env: TickbookEnv): string {
  return `urn:tickbook:env:${env}`;
}

export function audiences(publicBaseUrl: string, env: TickbookEnv): string[] {
  return [publicBaseUrl, envAudience(env)];
}

const b64json = (v: unknown): string => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');

export class TokenMinter {
  private readonly headers = new Map<string, string>();

  constructor(private readonly signer: Signer) {}

  private header(key: SigningKey): string {
    let h = this.headers.get(key.kid);
    if (h === undefined) {
      h = b64json({ alg: key.alg, typ: 'at+jwt', kid: key.kid });
      this.headers.set(key.kid, h);
    }
    return h;
  }

  /** A signed compact JWS of `claims` under `key`; `header` overrides exist for tests only. */
  async sign(key: SigningKey, claims: object, header?: Record<string, unknown>): Promise<string> {
    const input = `${header ? b64json(header) : this.header(key)}.${b64json(claims)}`;
    return `${input}.${await this.signer.sign(key, input)}`;
  }
}
