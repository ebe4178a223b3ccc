// The UI plugin (src/http/routes/ui.ts, docs/ui.md) on the real app (buildApp: error handler,
// router options): redirect, index.html revalidated, hashed assets cached for a year, the CSP on
// every UI answer, no path escapes the built folder, the not-built page, and the UI setting.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import uiRoutes, { UI_CSP } from '../../src/http/routes/ui.ts';
import { nullStore } from './harness.ts';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function fakeDist(withIndex: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'tickbook-ui-routes-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
  if (withIndex)
    writeFileSync(
      join(dir, 'dist', 'index.html'),
      '<!doctype html><script type="module" src="/ui/assets/index-abc123.js"></script>',
    );
  writeFileSync(join(dir, 'dist', 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'outside the built folder');
  return join(dir, 'dist');
}

async function app(dist: string, viewer = true): Promise<FastifyInstance> {
  const a = await buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent' }),
    store: nullStore,
    features: async (f) => {
      await f.register(uiRoutes, {
        distDir: dist,
        buildIfMissing: false,
        viewer: () => (viewer ? { clientId: 'tickbook-ui-viewer', clientSecret: 's3cret' } : undefined),
      });
    },
  });
  await a.ready();
  return a;
}

describe('UI routes', () => {
  test('/ redirects to /ui/; /ui and /ui/ answer index.html, revalidated, with the CSP', async () => {
    const a = await app(fakeDist(true));
    const root = await a.inject({ method: 'GET', url: '/' });
    assert.equal(root.statusCode, 302);
    assert.equal(root.headers.location, '/ui/');
    for (const url of ['/ui', '/ui/']) {
      const r = await a.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 200, url);
      assert.match(String(r.headers['content-type']), /^text\/html/);
      assert.equal(r.headers['cache-control'], 'no-cache');
      assert.equal(r.headers['content-security-policy'], UI_CSP);
      assert.match(r.body, /index-abc123\.js/);
      const again = await a.inject({
        method: 'GET',
        url,
        headers: { 'if-none-match': String(r.headers.etag) },
      });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
    }
    await a.close();
  });

  test('hashed assets are cached for a year; unknown files and escapes are 404', async () => {
    const a = await app(fakeDist(true));
    const r = await a.inject({ method: 'GET', url: '/ui/assets/index-abc123.js' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(r.headers['content-security-policy'], UI_CSP);
    assert.match(String(r.headers['content-type']), /javascript/);
    for (const url of [
      '/ui/assets/nope.js',
      '/ui/../secret.txt',
      '/ui/%2e%2e/secret.txt',
      '/ui/..%2fsecret.txt',
    ]) {
      const x = await a.inject({ method: 'GET', url });
      assert.ok(
        x.statusCode === 404 || x.statusCode === 400 || x.statusCode === 403,
        `${url}: ${x.statusCode}`,
      );
      assert.doesNotMatch(x.body, /outside the built folder/);
    }
    await a.close();
  });

  test('the CSP allows only this origin: no inline script or style, no framing', () => {
    assert.match(UI_CSP, /default-src 'self'/);
    assert.match(UI_CSP, /script-src 'self'(;|$)/);
    assert.match(UI_CSP, /style-src 'self'(;|$)/);
    assert.match(UI_CSP, /connect-src 'self'(;|$)/);
    assert.match(UI_CSP, /frame-ancestors 'none'/);
    assert.doesNotMatch(UI_CSP, /unsafe/);
  });

  test('/ui/config.json publishes the read-only client, never cached', async () => {
    const a = await app(fakeDist(true));
    const r = await a.inject({ method: 'GET', url: '/ui/config.json' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.deepEqual(r.json(), { viewer: { clientId: 'tickbook-ui-viewer', clientSecret: 's3cret' } });
    await a.close();
    const b = await app(fakeDist(true), false);
    assert.deepEqual((await b.inject({ method: 'GET', url: '/ui/config.json' })).json(), { viewer: null });
    await b.close();
  });

  test('not built and not buildable: /ui says how to build it', async () => {
    const a = await app(fakeDist(false));
    for (const url of ['/ui', '/ui/', '/ui/anything']) {
      const r = await a.inject({ method: 'GET', url });
      assert.equal(r.statusCode, 503, url);
      assert.match(r.body, /npm run build:ui/);
      assert.equal(r.headers['content-security-policy'], UI_CSP);
    }
    await a.close();
  });

  test('UI setting: on by default, UI=false turns it off, anything else stops the start', () => {
    assert.equal(loadConfig({}).ui, true);
    assert.equal(loadConfig({ UI: 'false' }).ui, false);
    assert.equal(loadConfig({ UI: '0' }).ui, false);
    assert.throws(
      () => loadConfig({ UI: 'maybe' }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'UI',
    );
  });
});
