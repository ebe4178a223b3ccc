// OAuth 2.0 error responses (RFC 6749 §5.2, RFC 7009 §2.2.1, RFC 7662 §2.3): the token,
// revocation and introspection endpoints answer `{ error, error_description }` with the RFC's
// error names, not the one error envelope (docs/http.md "Validation and errors").

import type { FromSchema } from 'json-schema-to-ts';

/** The error body, declared once: the token routes publish it (src/http/routes/oauth.ts) and
 * OAuthError.body() builds it; the codes are those these endpoints answer. */
export const oauthErrorBody = {
  type: 'object',
  description: 'RFC 6749 §5.2 error',
  properties: {
    error: {
      type: 'string',
      enum: [
        'invalid_request',
        'invalid_client',
        'unsupported_grant_type',
        'invalid_scope',
        'access_denied',
        'temporarily_unavailable',
        'server_error',
      ],
    },
    error_description: { type: 'string' },
  },
  required: ['error', 'error_description'],
} as const;

export type OAuthErrorBody = FromSchema<typeof oauthErrorBody>;
export type OAuthErrorCode = OAuthErrorBody['error'];

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  // Auth0-style legacy host behaviour (production-api.md): a wrong audience or a disabled client is 403.
  access_denied: 403,
  // Throttled client authentication: 429 with Retry-After.
  temporarily_unavailable: 429,
  server_error: 500,
};

export class OAuthError extends Error {
  readonly status: number;
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
    this.status = status ?? STATUS[error];
  }

  body(): OAuthErrorBody {
    return { error: this.error, error_description: this.description };
  }
}
