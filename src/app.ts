// The application as a Fastify instance (DESIGN.md §10, after fastify/demo): main.ts, the CLI and
// the tests all build it through buildApp, so tests exercise exactly what `npm start` runs.

import { randomBytes } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type onResponseHookHandler } from 'fastify';
import type { Config } from './config.ts';
import { AccessLog } from './http/access-log.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { registerJsonBodyParser } from './http/json-body.ts';
import { loggerOptions } from './http/logger.ts';
import { finishDocument, SECURITY_OAUTH2, transformRoute } from './http/openapi/document.ts';
import { requestLoggerFactory } from './http/request-logger.ts';
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
  /** Extra readiness condition for /readyz. */
  ready?: () => boolean;
  /** Registers the feature plugins (auth, market data, trading, parlay) on the instance. */
  features?: (app: FastifyInstance) => Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

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
  const logger = deps.logger ? undefined : loggerOptions(config.logLevel, deps.logStream);
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger }),
    // request.log is made on first use, not per request (src/http/request-logger.ts); without a
    // logger Fastify already skips the child.
    ...(deps.logger || logger ? { childLoggerFactory: requestLoggerFactory } : {}),
    bodyLimit: config.bodyLimit,
    // Honour a caller's x-request-id when it is sane, otherwise mint one; echoed on the response.
    genReqId: (req) => {
      const h = req.headers['x-request-id'];
      return typeof h === 'string' && REQUEST_ID.test(h) ? h : mintRequestId();
    },
    requestIdHeader: false,
    // One access-log line per request instead of Fastify's two (src/http/access-log.ts).
    logController: new AccessLog(),
    // Request validation (src/http/validation.ts): bodies are validated without type coercion.
    ajv: { customOptions: REQUEST_AJV_OPTIONS },
    schemaController: { compilersFactory: { buildValidator: buildRequestValidator } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Parser errors (431, malformed request lines) leave with the envelope too (client-errors.ts).
    clientErrorHandler,
  });

  registerErrorHandling(app);
  registerJsonBodyParser(app);

  // Callback-style hooks: an async hook costs a promise per request, which shows on the small
  // cached GETs (bench/read-path.ts).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Request metrics (request-metrics.ts): each route gets its own onResponse hook closed over its
  // stats object, so a request costs a few increments and no label work. The not-found handler
  // (404/405) has no route of its own; one root hook counts it as route "unmatched".
  const requests = metrics.requests;
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const byMethod = new Map(methods.map((m) => [String(m), requests.route(route.url, String(m))]));
    const hook: onResponseHookHandler = (request, reply, done) => {
      byMethod.get(request.method)?.observe(reply.statusCode, reply.elapsedTime);
      done();
    };
    const own = route.onResponse;
    route.onResponse = own === undefined ? [hook] : [...(Array.isArray(own) ? own : [own]), hook];
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404)
      requests.route('unmatched', request.method).observe(reply.statusCode, reply.elapsedTime);
    done();
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
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Paste an access token',
          },
          [SECURITY_OAUTH2]: {
            type: 'oauth2',
            description: 'Log in with a client id and secret (OAuth 2.0 client credentials, RFC 6749 §4.4)',
            flows: {
              clientCredentials: {
                tokenUrl: '/nbx/v1/auth/emm-token',
                scopes: {
                  'read:tape': 'Market data: metadata, events, markets, books',
                  'read:trader': "The caller's own account: balance, positions, orders, fills",
                  'execute:trader': 'Order entry',
                  admin: 'The operator API',
                },
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
