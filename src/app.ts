// The application as a Fastify instance (after fastify/demo): main.ts, the CLI and
// the tests all build it through buildApp, so tests exercise exactly what `npm start` runs.

import { randomBytes } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino from 'pino';
import { bearerScheme, type Scope } from './auth/scopes.ts';
import type { Config } from './config.ts';
import { AccessLog, type AccessLogMode } from './http/access-log.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { registerJsonBodyParser } from './http/json-body.ts';
import { loggerOptions } from './http/logger.ts';
import { finishDocument, SECURITY_OAUTH2, transformRoute } from './http/openapi/document.ts';
import { type ChildLoggerFactory, requestLoggerFactory, routeLoggerFactory } from './http/request-logger.ts';
import opsRoutes from './http/routes/ops.ts';
import { buildRequestValidator, REQUEST_AJV_OPTIONS } from './http/validation.ts';
import { Metrics } from './observability/metrics.ts';
import type { Store } from './store/types.ts';
import './http/fastify-types.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  metrics?: Metrics;
  /** Where log lines go (tests capture them); stdout by default. */
  logStream?: NodeJS.WritableStream;
  /** An existing logger (main.ts shares one with the runtime); overrides logStream. */
  logger?: FastifyBaseLogger;
  /** Which requests the access log writes a line for (src/http/access-log.ts); `every` by default. */
  accessLog?: AccessLogMode;
  /** Extra readiness condition for /readyz. */
  ready?: () => boolean;
  /** Registers the feature plugins (auth, market data, trading, parlay) on the instance. */
  features?: (app: FastifyInstance) => Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The scopes the docs page's login offers: those of a trader client (src/auth/scopes.ts). */
const TRADER_SCOPE_TEXT: Record<Exclude<Scope, 'admin'>, string> = {
  'read:tape': 'Market data: metadata, events, markets, books',
  'read:trader': "The caller's own account: balance, positions, orders, fills",
  'execute:trader': 'Order entry',
  'make:parlay': 'Quoting parlay requests as a market maker',
};

/**
 * Request ids minted here: a random per-process prefix and a counter. Unique within a process and,
 * by the 48-bit prefix, across restarts and processes in practice; far cheaper than a UUID per
 * request (docs/http.md, "Access log and request ids").
 */
function requestIdMinter(): () => string {
  const prefix = `${randomBytes(6).toString('hex')}-`;
  let n = 0;
  return () => prefix + (++n).toString(36);
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const metrics = deps.metrics ?? new Metrics();
  const mintRequestId = requestIdMinter();
  // Always a logger, silent when LOG_LEVEL=silent: the end of every request is then reported to the
  // log controller below, which counts the request metrics too, so no onResponse hook is needed.
  const logger = deps.logger ? undefined : loggerOptions(config.logLevel, deps.logStream);
  const app = Fastify({
    ...(deps.logger
      ? { loggerInstance: deps.logger }
      : logger
        ? { logger }
        : { loggerInstance: pino({ level: 'silent' }) }),
    // request.log is made on first use, not per request (src/http/request-logger.ts).
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: config.bodyLimit,
    // Honour a caller's x-request-id when it is sane, otherwise mint one; echoed on the response.
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && REQUEST_ID.test(h) ? h : mintRequestId();
    },
    requestIdHeader: false,
    // One access-log line per request instead of Fastify's two, and the request metrics, both
    // when the response has been sent (src/http/access-log.ts).
    logController: new AccessLog(metrics.requests, deps.accessLog),
    // Request validation (src/http/validation.ts): bodies are validated without type coercion.
    ajv: { customOptions: REQUEST_AJV_OPTIONS },
    schemaController: { compilersFactory: { buildValidator: buildRequestValidator } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Parser errors (431, malformed request lines) leave with the envelope too (client-errors.ts).
    clientErrorHandler,
  });

  registerErrorHandling(app);
  registerJsonBodyParser(app);

  // The one app-level hook (docs/http.md, "What every request pays"). Callback style: an async
  // hook costs a promise per request, which shows on the small cached GETs (bench/read-path.ts).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Request metrics (request-metrics.ts): each route's factory of request loggers hands its stats
  // object to the request, and the log controller records the response there, so a request costs a
  // few increments, no label work and no onResponse hook. The not-found handler (404/405) has no
  // route of its own: its requests count as route "unmatched".
  const requests = metrics.requests;
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const stats =
      methods.length === 1
        ? requests.route(route.url, String(methods[0]))
        : new Map(methods.map((m) => [String(m), requests.route(route.url, String(m))]));
    route.childLoggerFactory = routeLoggerFactory(
      stats,
      route.childLoggerFactory as ChildLoggerFactory | undefined,
    ) as typeof route.childLoggerFactory;
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tickbook',
        version: '0.1.0',
        description:
          'Sports event-contract exchange: parlay prices, OAuth2 client-credentials tokens, event metadata, events, markets with orderbooks, orders and account balance.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      // Same origin first, so "Try it out" on /docs works from whatever address the browser used
      // (docs/openapi.md); the configured public URL second.
      servers: [
        { url: '/', description: 'This server (same origin as the page)' },
        { url: config.publicBaseUrl, description: 'PUBLIC_BASE_URL' },
      ],
      components: {
        securitySchemes: {
          bearer: bearerScheme('Paste an access token'),
          [SECURITY_OAUTH2]: {
            type: 'oauth2',
            // Only the scopes a trader client can hold are offered: ticking one the client lacks
            // (an operator's `admin` for a trader) makes the login fail with invalid_scope.
            description:
              'Log in with a client id and secret (OAuth 2.0 client credentials, RFC 6749 §4.4). Tick no scope to get every scope the client holds: a trader client has read:tape, read:trader and execute:trader; the operator client also has admin, which the operator API needs. Ticking scopes narrows the token to them.',
            flows: {
              clientCredentials: {
                tokenUrl: '/nbx/v1/auth/emm-token',
                scopes: TRADER_SCOPE_TEXT,
              },
            },
          },
        },
      },
    },
    transform: transformRoute as never,
    transformObject: ((d: { openapiObject?: unknown }) => finishDocument(d.openapiObject as never)) as never,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { persistAuthorization: true } });

  await app.register(opsRoutes, { store: deps.store, metrics, ready: deps.ready });
  if (deps.features) await deps.features(app);
  return app;
}
