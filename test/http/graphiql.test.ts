// GraphiQL at /graphiql works without internet access (src/http/graphiql.ts): the page and every
// asset it loads come from this server (React and GraphiQL from their npm packages), no asset names
// another host, and the query the page opens with answers without errors.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_QUERY } from '../../src/http/graphiql.ts';
import graphqlRoutes from '../../src/http/routes/graphql.ts';
import { addOpenGame, seedCatalog } from './fixture.ts';
import { type Harness, makeHarness } from './harness.ts';

let h: Harness;
before(async () => {
  h = await makeHarness({
    extra: async (app, port) => {
      await app.register(graphqlRoutes, { reader: () => port.reader(), rateLimit: 0, graphiql: true });
    },
  });
  seedCatalog(h.port);
  addOpenGame(h.port, 3000);
});
after(() => h.close());

test('the page and every asset it loads are served here; none names another host', async () => {
  const page = await h.app.inject({ url: '/graphiql' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  const refs = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.deepEqual(refs.sort(), [
    '/graphiql/graphiql.css',
    '/graphiql/graphiql.js',
    '/graphiql/react-dom.js',
    '/graphiql/react.js',
    '/graphiql/start.js',
  ]);
  const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/ };
  for (const ref of refs) {
    const r = await h.app.inject({ url: ref });
    assert.equal(r.statusCode, 200, ref);
    assert.match(String(r.headers['content-type']), types[ref.split('.').pop()!]!, ref);
    assert.ok(r.rawPayload.length > 100, ref);
    // What mercurius' page did: load the builds from a CDN at run time.
    assert.doesNotMatch(r.body.slice(0, 200_000), /unpkg\.com|jsdelivr|esm\.sh/, ref);
  }
  assert.match((await h.app.inject({ url: '/graphiql/react.js' })).body, /React/);
  assert.match((await h.app.inject({ url: '/graphiql/graphiql.js' })).body, /GraphiQL/);
  const start = (await h.app.inject({ url: '/graphiql/start.js' })).body;
  assert.match(start, /createFetcher\(\{ url: new URL\("\/v1\/graphql"/);
  const unknown = await h.app.inject({ url: '/graphiql/other.js' });
  assert.equal(unknown.statusCode, 404);
  assert.equal(JSON.parse(unknown.body).code, 'ROUTE_NOT_FOUND');
});

test('the query the page opens with answers without errors', async () => {
  const r = await h.app.inject({
    method: 'POST',
    url: '/v1/graphql',
    headers: { 'content-type': 'application/json' },
    payload: { query: DEFAULT_QUERY },
  });
  assert.equal(r.statusCode, 200, r.body);
  const body = JSON.parse(r.body) as { data: { event: unknown[] }; errors?: unknown };
  assert.equal(body.errors, undefined, r.body);
  assert.ok(body.data.event.length > 0);
});
