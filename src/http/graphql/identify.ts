// Who is calling /v1/graphql, for its rate limit (docs/graphql.md): the client id of a valid
// bearer token, or undefined (anonymous, or a token that does not verify — counted by address, so
// junk tokens cannot buy fresh quotas). The interface itself is public, so a bad token is not an
// error here.

import type { FastifyRequest } from 'fastify';
import type { AuthService } from '../../auth/service.ts';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

export function bearerClientId(auth: AuthService) {
  return async (request: FastifyRequest): Promise<string | undefined> => {
    const h = request.headers.authorization;
    if (typeof h !== 'string') return undefined;
    const token = BEARER.exec(h)?.[1];
    if (token === undefined) return undefined;
    try {
      return (auth.verifyCached(token) ?? (await auth.verifyAccessToken(token))).clientId;
    } catch {
      return undefined;
    }
  };
}
