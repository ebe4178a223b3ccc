// The OpenAPI document as a client generator and the /docs page see it (docs/openapi.md): a
// same-origin server entry, a client-credentials login, a unique operationId and an explicit
// security requirement on every operation, named component schemas; Redocly's recommended rules
// report no error, and openapi-typescript turns the components into named types.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { operationIdFor } from '../../src/http/openapi/document.ts';
import type { RunningServer } from '../../src/main.ts';
import { type ServerPlace, serverPlace, start } from '../helpers/server.ts';

const run = promisify(execFile);

interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: unknown;
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}
interface Doc {
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, unknown>;
    securitySchemes: Record<string, { type: string; flows?: { clientCredentials?: { tokenUrl: string } } }>;
  };
}

describe('OpenAPI document', () => {
  let place: ServerPlace;
  let srv: RunningServer;
  let doc: Doc;
  let raw: string;
  const dir = mkdtempSync(join(tmpdir(), 'tickbook-openapi-'));

  before(async () => {
    place = await serverPlace('pglite');
    srv = await start(place);
    // Asked for under the address a browser on this machine would use.
    const r = await srv.app.inject({ url: '/openapi.json', headers: { host: '127.0.0.1:8080' } });
    assert.equal(r.statusCode, 200);
    raw = r.body;
    doc = JSON.parse(raw) as Doc;
  });
  after(async () => {
    await srv?.close();
    await place?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );

  test('the first server is same-origin, so Try it out works from any address', () => {
    assert.equal(doc.servers[0]?.url, '/');
    assert.ok(!raw.includes('"url":"http://localhost'), 'no server entry pins localhost first');
  });

  test('the docs page can log in with client credentials at the token endpoint', () => {
    const oauth = Object.values(doc.components.securitySchemes).find((s) => s.type === 'oauth2');
    assert.equal(oauth?.flows?.clientCredentials?.tokenUrl, '/nbx/v1/auth/emm-token');
    const bearerOp = doc.paths['/nbx/v2/emm/events']?.get;
    assert.deepEqual(
      bearerOp?.security?.map((r) => Object.keys(r)[0]),
      ['bearer', 'clientCredentials'],
    );
  });

  test('Authorize offers the scopes a trader can hold and says what to pick', async () => {
    const oauth = Object.values(doc.components.securitySchemes).find((s) => s.type === 'oauth2') as
      | { description?: string; flows?: { clientCredentials?: { scopes: Record<string, string> } } }
      | undefined;
    assert.deepEqual(Object.keys(oauth?.flows?.clientCredentials?.scopes ?? {}).sort(), [
      'execute:trader',
      'make:parlay',
      'read:tape',
      'read:trader',
    ]);
    assert.match(oauth?.description ?? '', /Tick no scope to get every scope the client holds/);
    // Ticking no scope: the token endpoint grants the client's own scopes, admin for the operator.
    const r = await srv.app.inject({
      method: 'POST',
      url: '/nbx/v1/auth/emm-token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=${place.env.TICKBOOK_ADMIN_CLIENT_ID}&client_secret=${place.env.TICKBOOK_ADMIN_CLIENT_SECRET}`,
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.match(JSON.parse(r.body).scope, /\badmin\b/);
  });

  test('every operation has a unique operationId and an explicit security requirement', () => {
    const ops = operations();
    assert.ok(ops.length > 40, `only ${ops.length} operations`);
    const ids = ops.map((o) => o.op.operationId);
    for (const o of ops) {
      assert.equal(typeof o.op.operationId, 'string', `${o.method} ${o.path} has no operationId`);
      assert.ok(Array.isArray(o.op.security), `${o.method} ${o.path} has no security`);
    }
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    for (const [path, method] of [
      ['/healthz', 'get'],
      ['/nbx/v1/auth/emm-token', 'post'],
      ['/nbx/v1/parlay/request/unauthenticated', 'post'],
      ['/.well-known/jwks.json', 'get'],
    ] as const) {
      assert.deepEqual(doc.paths[path]?.[method]?.security, [], `${method} ${path} is public`);
    }
    assert.equal(doc.paths['/nbx/v2/emm/events/{eventId}']?.get?.operationId, 'getNbxV2EmmEventsByEventId');
  });

  // docs/http.md "Validation and errors": every route declares every status it answers. The two
  // any route can be sure to answer are checked here, so a route written without its error
  // responses fails: a bearer route can answer 401 and 403, and a route that reads parameters or a
  // body can answer 400 — each in the one error envelope.
  test('every operation declares the error statuses it can answer, with the error envelope', () => {
    // The routes whose errors are not the envelope (docs/http.md "Validation and errors"): OAuth
    // answers RFC 6749 errors and the parlay price route narrows the envelope inline; they must
    // still declare the status. GraphQL answers GraphQL-over-HTTP `{data, errors}` only.
    const ownShape = (path: string) =>
      path.startsWith('/oauth/') ||
      path === '/nbx/v1/auth/emm-token' ||
      path === '/nbx/v1/parlay/request/unauthenticated';
    const graphql = (path: string) => path === '/v1/graphql';
    const wrong: string[] = [];
    for (const { path, method, op } of operations()) {
      if (graphql(path)) continue;
      const needs: string[] = [];
      if ((op.security ?? []).length > 0) needs.push('401', '403');
      if ((op.parameters ?? []).length > 0 || op.requestBody !== undefined) needs.push('400');
      for (const status of needs) {
        const declared = op.responses?.[status];
        const ref = declared?.content?.['application/json']?.schema?.$ref;
        const fine = ownShape(path) ? declared !== undefined : ref === '#/components/schemas/Error';
        if (!fine) wrong.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
    assert.deepEqual(wrong, [], 'operations without these error responses in the envelope');
  });

  test('operationIdFor reads Fastify and OpenAPI parameters alike', () => {
    assert.equal(operationIdFor('DELETE', '/nbx/v2/emm/orders/:orderId'), 'deleteNbxV2EmmOrdersByOrderId');
    assert.equal(operationIdFor('get', '/.well-known/jwks.json'), 'getWellKnownJwksJson');
  });

  test('shared shapes are named components referenced by $ref', () => {
    for (const name of ['Error', 'Event', 'Market', 'Book', 'Order', 'Fill', 'Position', 'Balance']) {
      assert.ok(name in doc.components.schemas, `component ${name}`);
    }
    assert.match(raw, /"\$ref":"#\/components\/schemas\/Event"/);
    // The Market component refers to the Book and Outcome components, not copies of them.
    const market = JSON.stringify(doc.components.schemas.Market);
    assert.match(market, /#\/components\/schemas\/Outcome/);
  });

  test('redocly lint (recommended rules): 0 errors', { timeout: 180_000 }, async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, raw);
    const cli = join(process.cwd(), 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    let stdout = '';
    try {
      ({ stdout } = await run(process.execPath, [cli, 'lint', file, '--format=json'], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      }));
    } catch (err) {
      // Exit code 1 means problems were found; the JSON report is still on stdout.
      stdout = (err as { stdout?: string }).stdout ?? '';
    }
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; severity: string; message: string }>;
    };
    const errors = report.problems.filter((p) => p.severity === 'error');
    assert.deepEqual(
      errors.map((p) => `${p.ruleId}: ${p.message}`),
      [],
    );
    assert.equal(report.totals.errors, 0);
  });

  test('openapi-typescript generates named types for the components', async () => {
    const ast = await openapiTS(JSON.parse(raw));
    const ts = astToString(ast);
    for (const name of ['Event', 'Market', 'Order', 'Error', 'PlaceOrderRequest']) {
      assert.match(ts, new RegExp(`\\n\\s+${name}: \\{`), `type ${name}`);
    }
    assert.match(ts, /components\["schemas"\]\["Event"\]\[\]/);
    assert.match(ts, /getNbxV2EmmEventsByEventId: \{/);
  });
});
