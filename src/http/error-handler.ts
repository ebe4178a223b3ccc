// Maps every failure on the HTTP edge to the one error envelope (docs/http.md "Validation and errors"): the project's ApiErrors,
// Fastify's own errors (validation, body parsing, content types, body size) and anything
// unexpected (logged, answered 500 without internals). Unknown routes answer 404 and a known
// path with the wrong method 405 with an Allow header (RFC 9110 §15.5.6).

import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError, type ErrorCode, ErrorCodes, type ErrorEnvelope, envelope } from '../errors.ts';
import { JSON_TYPE } from './response-cache.ts';

export interface MappedError {
  status: number;
  body: ErrorEnvelope;
  headers?: Record<string, string>;
}

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_FAILED',
  FST_ERR_RATE_LIMITED: 'RATE_LIMITED',
};

/**
 * The registry code of one of Fastify's own request errors (body parsing, content type, body size,
 * rate limit), or undefined. The one classifier of Fastify errors: the §8 error handler below and
 * the OAuth scope's RFC 6749 handler (routes/oauth.ts) both use it.
 */
export function fastifyErrorCode(err: unknown): ErrorCode | undefined {
  const code = (err as Partial<FastifyError> | null)?.code;
  return code ? FASTIFY_CODES[code] : undefined;
}

/** Turns any thrown value into the status, envelope and headers to answer with. */
export function mapError(err: unknown): MappedError {
  if (err instanceof ApiError) {
    return {
      status: err.statusCode,
      body: envelope(err.statusCode, err.code, err.message, err.details),
      headers: err.headers,
    };
  }
  const fe = err as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (fe && Array.isArray(fe.validation)) {
    const details = fe.validation.map((v) => {
      const e = v as { instancePath?: string; message?: string; params?: Record<string, unknown> };
      const extra = e.params?.additionalProperty ?? e.params?.missingProperty;
      const path = `${fe.validationContext ?? ''}${e.instancePath ?? ''}${extra ? `/${String(extra)}` : ''}`;
      return { path, message: e.message ?? 'invalid' };
    });
    const msg = details.map((d) => `${d.path} ${d.message}`).join('; ');
    return {
      status: 400,
      body: envelope(400, 'VALIDATION_FAILED', msg || ErrorCodes.VALIDATION_FAILED.message, details),
    };
  }
  const mapped = fastifyErrorCode(err);
  if (mapped) {
    const status = ErrorCodes[mapped].status;
    return { status, body: envelope(status, mapped, fe.message ?? ErrorCodes[mapped].message) };
  }
  // A SyntaxError from a body parser is the client's malformed body.
  if (err instanceof SyntaxError && (fe.statusCode === 400 || fe.statusCode === undefined)) {
    return { status: 400, body: envelope(400, 'MALFORMED_JSON', ErrorCodes.MALFORMED_JSON.message) };
  }
  const status =
    typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500 ? fe.statusCode : 500;
  if (status < 500) {
    return { status, body: envelope(status, 'VALIDATION_FAILED', fe.message ?? 'Bad request') };
  }
  return { status: 500, body: envelope(500, 'INTERNAL_ERROR', ErrorCodes.INTERNAL_ERROR.message) };
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Installs the error handler, the 404/405 handler and the route index they use. */
export function registerErrorHandling(app: FastifyInstance): void {
  // A second router holding every route only to answer "which methods does this path allow?".
  const index = FindMyWay();
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter((m) =>
      (METHODS as readonly string[]).includes(m),
    );
    for (const m of methods) {
      try {
        index.on(m as (typeof METHODS)[number], route.url, () => {});
      } catch {
        // same route registered twice (HEAD/GET pairs): already indexed
      }
    }
  });

  app.setErrorHandler((err, request: FastifyRequest, reply) => {
    const m = mapError(err);
    if (m.status >= 500) request.log.error({ err }, 'unhandled error');
    // The access-log line already records the status; the code is detail (docs/http.md).
    else request.log.debug({ code: m.body.code, status: m.status }, 'request rejected');
    if (m.headers) reply.headers(m.headers);
    return reply.code(m.status).type(JSON_TYPE).send(m.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => m !== request.method && index.find(m, path) !== null);
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD' as never);
      return reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(envelope(405, 'METHOD_NOT_ALLOWED', `Method ${request.method} not allowed on ${path}`));
    }
    return reply
      .code(404)
      .send(envelope(404, 'ROUTE_NOT_FOUND', `Route ${request.method}:${path} not found`));
  });
}
