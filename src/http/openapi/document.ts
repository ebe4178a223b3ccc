// The OpenAPI document's finishing (docs/openapi.md): every operation gets an operationId and an
// explicit security requirement, the shared shapes become named components, and the server entry
// is same-origin so "Try it out" on /docs works from whatever address the browser used.

import type { FastifySchema } from 'fastify';
import { NAMED_SCHEMAS } from './components.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

/**
 * A stable operationId from method and path when the route declares none:
 * GET /nbx/v2/emm/events/{eventId} → getNbxV2EmmEventsByEventId.
 */
export function operationIdFor(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((s) => s !== '')
    .map((seg) => {
      const param = /^[:{]([^}]+)}?$/.exec(seg);
      const text = param ? `by-${param[1]}` : seg;
      return text
        .split(/[^A-Za-z0-9]+/)
        .filter((w) => w !== '')
        .map((w) => w[0]?.toUpperCase() + w.slice(1))
        .join('');
    });
  return method.toLowerCase() + words.join('');
}

/** Scheme names in components.securitySchemes; protected routes accept either. */
export const SECURITY_BEARER = 'bearer';
export const SECURITY_OAUTH2 = 'clientCredentials';

/** @fastify/swagger `transform`: operationId and explicit security for each route. */
export function transformRoute({
  schema,
  url,
  route,
}: {
  schema: FastifySchema;
  url: string;
  route: { method: string | string[] };
}): { schema: FastifySchema; url: string } {
  const s = { ...(schema ?? {}) } as FastifySchema & {
    operationId?: string;
    security?: Array<Record<string, string[]>>;
    summary?: string;
    description?: string;
    tags?: string[];
    hide?: boolean;
  };
  // The GraphiQL page and its scripts are a development tool, not API operations.
  if (url === '/graphiql' || url.startsWith('/graphiql/')) return { schema: { ...s, hide: true }, url };
  // The GraphQL endpoint is registered by mercurius without a schema of ours: describe it here.
  if (url === '/v1/graphql') {
    s.summary ??= 'GraphQL read interface (events, games, markets, outcomes, open orders)';
    s.description ??=
      'Hasura-style legacy read interface served from memory: POST a {query, variables} document, or GET with ?query=. See docs/graphql.md.';
    s.tags ??= ['graphql'];
  }
  const method = Array.isArray(route.method) ? (route.method[0] ?? 'get') : route.method;
  s.operationId ??= operationIdFor(method, url);
  // No security on a route means it is public: say so (security: []) rather than leave it unsaid.
  // A bearer route also accepts the docs page's client-credentials login.
  if (s.security === undefined || s.security.length === 0) s.security = [];
  else if (s.security.some((r) => SECURITY_BEARER in r) && !s.security.some((r) => SECURITY_OAUTH2 in r)) {
    s.security = [...s.security, { [SECURITY_OAUTH2]: [] }];
  }
  return { schema: s, url };
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Replaces, below `node`, every subschema equal to a named one by a $ref (not `node` itself). */
function hoist(node: Json, byShape: Map<string, string>, used: Set<string>): Json {
  if (Array.isArray(node)) return node.map((x) => refOrHoist(x, byShape, used));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    // `properties` and similar maps hold schemas as values; `example`/`enum` hold data.
    out[k] =
      k === 'example' || k === 'examples' || k === 'enum' || k === 'const' ? v : refOrHoist(v, byShape, used);
  }
  return out;
}

function refOrHoist(node: Json, byShape: Map<string, string>, used: Set<string>): Json {
  if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
    const name = byShape.get(canonical(node));
    if (name !== undefined) {
      used.add(name);
      return { $ref: `#/components/schemas/${name}` };
    }
  }
  return hoist(node, byShape, used);
}

/** @fastify/swagger `transformObject`: named components and a same-origin server. */
export function finishDocument(doc: JsonObject): JsonObject {
  const byShape = new Map<string, string>();
  const bodies = new Map<string, Json>();
  for (const [name, schema] of NAMED_SCHEMAS) {
    const plain = JSON.parse(JSON.stringify(schema)) as Json;
    byShape.set(canonical(plain), name);
    bodies.set(name, plain);
  }
  const used = new Set<string>();
  const paths = hoist(doc.paths ?? {}, byShape, used);
  // Components may use one another (Market holds Outcomes and a Book): hoist inside them too,
  // until no new name turns up.
  const schemas: JsonObject = {};
  let pending = [...used];
  while (pending.length > 0) {
    const next: string[] = [];
    for (const name of pending) {
      if (name in schemas) continue;
      const before = new Set(used);
      schemas[name] = hoist(bodies.get(name) ?? {}, byShape, used);
      for (const n of used) if (!before.has(n)) next.push(n);
    }
    pending = next;
  }
  const components = (doc.components ?? {}) as JsonObject;
  const existing = (components.schemas ?? {}) as JsonObject;
  const sorted = Object.fromEntries(
    Object.entries({ ...existing, ...schemas }).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  return { ...doc, paths, components: { ...components, schemas: sorted } };
}
