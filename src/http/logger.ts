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
];

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  if (level === 'silent') return false;
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    ...(stream ? { stream } : {}),
  } as FastifyServerOptions['logger'];
}
