// Logger options: pino JSON lines with a request id; secrets, tokens and Authorization headers
// are redacted wherever they could appear (headers, bodies, error objects).

import type { FastifyServerOptions } from 'fastify';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'client_secret',
  'clientSecret',
  'access_token',
  'token',
  'secret',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.token',
  '*.secret',
  '*.authorization',
  '*.*.authorization',
  'body.client_secret',
  'req.body.client_secret',
  // One level deeper (pino paths have no recursive wildcard): `{ body: { nested: { token } } }`.
  '*.*.client_secret',
  '*.*.clientSecret',
  '*.*.access_token',
  '*.*.token',
  '*.*.secret',
];

/** Query parameters whose values never reach the logs (RFC 6750 §2.3 allows access_token there). */
const SENSITIVE_QUERY = /([?&](?:access_token|token|client_secret|secret|password)=)[^&#]*/gi;

/** The request URL as logged: sensitive query values masked. */
export function redactUrl(url: string): string {
  return url.includes('?') ? url.replace(SENSITIVE_QUERY, '$1[redacted]') : url;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

// Fastify's default request serializer plus URL masking.
const serializers = {
  req(request: LoggedRequest) {
    return {
      method: request.method,
      url: redactUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    };
  },
};

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers,
    ...(stream ? { stream } : {}),
  } as FastifyServerOptions['logger'];
}
