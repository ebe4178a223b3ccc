// The legacy GraphQL read interface, `/v1/graphql` (docs/http.md "GraphQL",
// docs/graphql.md): Hasura-style root fields over the in-memory exchange state, served by mercurius
// (graphql-js, compiled with graphql-jit after the first run of a query). POST with a JSON body or
// GET with `?query=` (queries only). No route touches the store.

import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import mercurius from 'mercurius';
import type { ExchangeReader } from '../../exchange/reader.ts';
import { graphiqlPage } from '../graphiql.ts';
import { costLimitRule } from '../graphql/limits.ts';
import type { GqlContext } from '../graphql/model.ts';
import { newRegexState } from '../graphql/regex.ts';
import { buildGraphqlSchema } from '../graphql/schema.ts';
import { JSON_TYPE, LruCache } from '../response-cache.ts';

export const GRAPHQL_PATH = '/v1/graphql';
/** Deepest selection accepted: the odds screen (event → markets → outcomes → orders → price) is 5. */
export const MAX_DEPTH = 8;
/** Most field selections in one operation after fragment expansion (limits.ts). */
export const MAX_COST = 500;

export interface GraphqlRouteOptions {
  /** The current exchange state (called once per request). */
  reader: () => ExchangeReader;
  /** Requests per client per minute (production: 650); 0 lifts the limit. */
  rateLimit: number;
  /** Serve the GraphiQL page at /graphiql. */
  graphiql: boolean;
  /**
   * The rate-limit key of an authenticated caller (its client id), or undefined when the request
   * carries no valid bearer token; anonymous callers are counted by address. An invalid token
   * counts by address too, so minting junk tokens cannot buy fresh quotas.
   */
  identify?: (request: FastifyRequest) => Promise<string | undefined>;
  /** Entries of the result cache (0 turns it off; the benchmark measures both). Default 1,024. */
  resultCache?: number;
}

/** Longest request (query + variables) whose answer is cached; longer ones always execute. */
const MAX_CACHED_KEY = 16_384;

export default async function graphqlRoutes(app: FastifyInstance, opts: GraphqlRouteOptions): Promise<void> {
  if (opts.rateLimit > 0) {
    // Registered inside this plugin's scope, so `global` covers only the GraphQL routes.
    await app.register(rateLimit, {
      global: true,
      max: opts.rateLimit,
      timeWindow: 60_000,
      keyGenerator: async (request) => {
        const client = opts.identify ? await opts.identify(request) : undefined;
        return client === undefined ? `ip:${request.ip}` : `client:${client}`;
      },
    });
  }
  // A POST body must be an object whose `query` is a string (GraphQL over HTTP §"Request
  // parameters"); mercurius would hand anything else to graphql-js as a document.
  app.addHook('preValidation', (request, reply, done) => {
    if (request.method !== 'POST' || request.routeOptions.url !== GRAPHQL_PATH) return done();
    const b = request.body as { query?: unknown } | undefined;
    if (b === null || typeof b !== 'object' || Array.isArray(b) || typeof b.query !== 'string') {
      reply.code(400).send({
        data: null,
        errors: [{ message: 'The body must be a JSON object with a string `query`' }],
      });
      return;
    }
    done();
  });
  // Result cache: the JSON of a successful answer, keyed by the request's query, variables and
  // operation name, valid while the exchange has applied no further command (`lastSeq`: any
  // change to events, books, orders moves it). The odds screen polled by many clients between two
  // commands executes once; under a steady stream of commands every answer is fresh, as without
  // the cache. Answers with errors are never cached. Same idea as the REST routes' cached bytes
  // (docs/http.md), with a coarser version because a query may read anything.
  const capacity = opts.resultCache ?? 1024;
  const results = capacity > 0 ? new LruCache<string, { seq: number; body: Buffer }>(capacity) : undefined;
  const pending = new WeakMap<FastifyRequest, { key: string; seq: number }>();
  if (results) {
    app.addHook('preHandler', (request, reply, done) => {
      if (request.routeOptions.url !== GRAPHQL_PATH) return done();
      const src = (request.method === 'POST' ? request.body : request.query) as {
        query?: unknown;
        variables?: unknown;
        operationName?: unknown;
      };
      if (typeof src?.query !== 'string') return done();
      const vars = typeof src.variables === 'string' ? src.variables : JSON.stringify(src.variables ?? null);
      const key = `${request.method}\u0000${String(src.operationName ?? '')}\u0000${vars}\u0000${src.query}`;
      if (key.length > MAX_CACHED_KEY) return done();
      const seq = opts.reader().lastSeq;
      const hit = results.get(key);
      if (hit !== undefined && hit.seq === seq) {
        reply.header('content-type', JSON_TYPE).send(hit.body);
        return;
      }
      pending.set(request, { key, seq });
      done();
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      const p = pending.get(request);
      if (
        p !== undefined &&
        reply.statusCode === 200 &&
        typeof payload === 'string' &&
        !payload.includes('"errors"')
      ) {
        results.set(p.key, { seq: p.seq, body: Buffer.from(payload) });
      }
      done(null, payload);
    });
  }
  await app.register(mercurius, {
    schema: buildGraphqlSchema(),
    path: GRAPHQL_PATH,
    // GraphiQL is served from this server's own copies of its assets (src/http/graphiql.ts), not
    // mercurius' page, which loads them from a CDN.
    graphiql: false,
    jit: 1,
    queryDepth: MAX_DEPTH,
    validationRules: [costLimitRule(MAX_COST)],
    allowBatchedQueries: false,
    context: (): GqlContext => ({ reader: opts.reader(), regex: newRegexState() }),
  });
  if (opts.graphiql) await app.register(graphiqlPage, { endpoint: GRAPHQL_PATH });
}
