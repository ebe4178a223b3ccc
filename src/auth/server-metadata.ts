// RFC 8414 authorization server metadata: where the endpoints are and what they accept.

import { SCOPES } from './scopes.ts';

export function authorizationServerMetadata(
  base: string,
  signingAlgorithms: string[],
): Record<string, unknown> {
  const methods = ['client_secret_basic', 'client_secret_post'];
  return {
    issuer: base,
    token_endpoint: `${base}/nbx/v1/auth/emm-token`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['token'],
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: methods,
    revocation_endpoint: `${base}/oauth/revoke`,
    revocation_endpoint_auth_methods_supported: methods,
    introspection_endpoint: `${base}/oauth/introspect`,
    introspection_endpoint_auth_methods_supported: methods,
    // RFC 9068 tokens are signed with the current key's algorithm.
    access_token_signing_alg_values_supported: signingAlgorithms,
    service_documentation: `${base}/docs`,
  };
}
