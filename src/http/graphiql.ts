// The GraphiQL page at /graphiql, served entirely from this server. mercurius' own page loads
// React and GraphiQL from a public CDN, so on a machine without internet access it stays blank;
// here the same builds come from npm packages (graphiql, react, react-dom: exact versions in
// package.json) and are read from node_modules on first request. No asset names another host, and
// the page's script is a file of its own, so a strict Content-Security-Policy can hold
// (docs/graphql.md "GraphiQL").

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';

const require = createRequire(import.meta.url);

/** A package's directory (through its package.json, which every package exports). */
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

interface Asset {
  file: () => string;
  type: string;
}

/** The files the page loads, by the name it loads them under. */
const ASSETS: Record<string, Asset> = {
  'react.js': {
    file: () => join(packageDir('react'), 'umd/react.production.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'react-dom.js': {
    file: () => join(packageDir('react-dom'), 'umd/react-dom.production.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'graphiql.js': {
    file: () => join(packageDir('graphiql'), 'graphiql.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'graphiql.css': {
    file: () => join(packageDir('graphiql'), 'graphiql.min.css'),
    type: 'text/css; charset=utf-8',
  },
};

/** The first query shown in the editor: one that answers on any store. */
export const DEFAULT_QUERY = `# Tickbook's GraphQL read interface (Hasura-style; docs/graphql.md).
{
  event(limit: 3) {
    id
    description
    league
    status
    markets {
      type
      outcomes { id description last available }
    }
  }
}
`;

function page(): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>GraphiQL · Tickbook</title>
  <meta name="robots" content="noindex">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/graphiql/graphiql.css">
  <style>body { margin: 0; } #graphiql { height: 100vh; }</style>
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="/graphiql/react.js"></script>
  <script src="/graphiql/react-dom.js"></script>
  <script src="/graphiql/graphiql.js"></script>
  <script src="/graphiql/start.js"></script>
</body>
</html>
`;
}

/** The page's own script: GraphiQL on this server's endpoint. */
function startScript(endpoint: string): string {
  return `/* global React, ReactDOM, GraphiQL */
const fetcher = GraphiQL.createFetcher({ url: new URL(${JSON.stringify(endpoint)}, window.location.href).href });
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, {
    fetcher,
    defaultQuery: ${JSON.stringify(DEFAULT_QUERY)},
    shouldPersistHeaders: true,
  }),
);
`;
}

export interface GraphiqlOptions {
  /** The GraphQL endpoint the page queries (same origin). */
  endpoint: string;
}

export async function graphiqlPage(app: FastifyInstance, opts: GraphiqlOptions): Promise<void> {
  const loaded = new Map<string, Buffer>();
  const html = page();
  const start = startScript(opts.endpoint);
  app.get('/graphiql', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html),
  );
  app.get('/graphiql/start.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(start),
  );
  app.get<{ Params: { asset: string } }>(
    '/graphiql/:asset',
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = Object.hasOwn(ASSETS, request.params.asset) ? ASSETS[request.params.asset] : undefined;
      if (asset === undefined) throw new ApiError('ROUTE_NOT_FOUND');
      let body = loaded.get(request.params.asset);
      if (body === undefined) {
        body = await readFile(asset.file());
        loaded.set(request.params.asset, body);
      }
      // The files change only with the pinned package versions.
      return reply.type(asset.type).header('cache-control', 'public, max-age=86400').send(body);
    },
  );
}
