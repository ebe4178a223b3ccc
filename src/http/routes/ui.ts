// The browser UI (docs/ui.md): the built files of ui/ served at /ui, `/` redirecting there, and
// /ui/config.json telling the page which read-only client to take a market-data token with.
// The page talks to the server through the public API only; this plugin serves files.
//
// Built files come from `npm run build:ui` (run by `npm ci` through the `prepare` script). When
// they are missing at start, the plugin builds them once (a few seconds) if the build tools are
// installed, and otherwise answers /ui with a page saying how to build them.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Log } from '../../observability/log.ts';
import type { ViewerCredentials } from '../ui-viewer.ts';

const ROOT = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
export const UI_DIST = join(ROOT, 'ui', 'dist');

export interface UiOptions {
  /** The read-only client the page takes its market-data token with (none: the page asks to sign in). */
  viewer: () => ViewerCredentials | undefined;
  /** Build ui/dist when it is missing (default true). */
  buildIfMissing?: boolean;
  /** Where the built files are (tests point elsewhere). */
  distDir?: string;
  log?: Log;
}

/**
 * Same-origin only (W3C CSP Level 3): scripts, styles, images and fonts from this server; fetch and
 * the WebSocket to this server ('self' covers ws:/wss: to the same host in CSP Level 3); no framing.
 */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed file names (Vite's `[name]-[hash].ext` under assets/) never change content: cache for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export default async function uiRoutes(app: FastifyInstance, opts: UiOptions): Promise<void> {
  const dist = opts.distDir ?? UI_DIST;
  if (!existsSync(join(dist, 'index.html')) && opts.buildIfMissing !== false) buildUi(dist, opts.log);
  const built = existsSync(join(dist, 'index.html'));

  app.get('/', { schema: { hide: true } }, (_req, reply) => {
    reply.redirect('/ui/', 302);
  });

  app.get('/ui/config.json', { schema: { hide: true } }, (_req, reply) => {
    const viewer = opts.viewer();
    reply
      .header('cache-control', 'no-store')
      .header('content-security-policy', UI_CSP)
      .send({ viewer: viewer ?? null });
  });

  if (!built) {
    const page = notBuiltPage();
    const send = (_req: unknown, reply: FastifyReply) => {
      reply
        .code(503)
        .header('cache-control', 'no-store')
        .header('content-security-policy', UI_CSP)
        .type('text/html; charset=utf-8')
        .send(page);
    };
    app.get('/ui', { schema: { hide: true } }, send);
    app.get('/ui/*', { schema: { hide: true } }, send);
    return;
  }

  // index.html is small and names the hashed assets: kept in memory, revalidated on every visit.
  const index = readFileSync(join(dist, 'index.html'));
  const indexTag = `"${createHash('sha1').update(index).digest('base64url')}"`;
  app.get('/ui', { schema: { hide: true } }, (req, reply) => {
    reply
      .header('cache-control', 'no-cache')
      .header('etag', indexTag)
      .header('content-security-policy', UI_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer');
    if (req.headers['if-none-match'] === indexTag) return reply.code(304).send();
    return reply.type('text/html; charset=utf-8').send(index);
  });

  await app.register(fastifyStatic, {
    root: dist,
    prefix: '/ui/',
    decorateReply: false,
    index: false,
    wildcard: true,
    // Precompressed .gz/.br are not produced; compression is left to a proxy in front.
    preCompressed: false,
    etag: true,
    lastModified: false,
    setHeaders(res, path) {
      res.header('content-security-policy', UI_CSP);
      res.header('x-content-type-options', 'nosniff');
      res.header('referrer-policy', 'no-referrer');
      // index.html names the hashed assets, so it must be revalidated every time.
      res.header('cache-control', /[\\/]assets[\\/]/.test(path) ? IMMUTABLE : 'no-cache');
    },
    schemaHide: true,
  });
}

/**
 * Runs `vite build` into a temporary folder and renames it into place, so two servers starting
 * together on a fresh checkout cannot serve a half-written folder. Vite is a devDependency: on an
 * install without it nothing is built and /ui explains what to run.
 */
export function buildUi(dist: string, log?: UiOptions['log']): boolean {
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite)) {
    log?.warn({ dist }, 'the UI is not built and Vite is not installed: run `npm ci && npm run build:ui`');
    return false;
  }
  const tmp = `${dist}.tmp-${process.pid}`;
  log?.info({ dist }, 'building the UI (first start; `npm run build:ui` does it ahead of time)');
  const r = spawnSync(
    process.execPath,
    [vite, 'build', '--config', join(ROOT, 'ui', 'vite.config.ts'), '--outDir', tmp, '--logLevel', 'warn'],
    // NODE_ENV picks the libraries' production builds (the test runner sets it to "test").
    {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 120_000,
    },
  );
  if (r.status !== 0 || !existsSync(join(tmp, 'index.html'))) {
    rmSync(tmp, { recursive: true, force: true });
    log?.warn({ status: r.status, stderr: String(r.stderr ?? '').slice(0, 2000) }, 'building the UI failed');
    return false;
  }
  try {
    renameSync(tmp, dist);
  } catch {
    // Another process put its build in place first; theirs is as good as ours.
    rmSync(tmp, { recursive: true, force: true });
  }
  return existsSync(join(dist, 'index.html'));
}

function notBuiltPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tickbook UI not built</title></head>
<body><main><h1>The Tickbook UI is not built</h1>
<p>This server has no built UI files and could not build them (Vite is not installed).
Run <code>npm ci &amp;&amp; npm run build:ui</code> in the Tickbook folder, then restart the server.</p>
<p>The API works without it: see <a href="/docs">/docs</a>.</p></main></body></html>
`;
}
