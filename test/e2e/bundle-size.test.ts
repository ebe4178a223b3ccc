// The UI's JavaScript budget (docs/ui.md): at most 150 KB gzipped on first load, i.e. every script
// index.html loads or preloads. Chunks loaded later on demand (the depth chart's library) are
// reported but not counted. Built fresh into a temporary folder, so a stale ui/dist cannot pass.

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { buildUi } from '../../src/http/routes/ui.ts';

const FIRST_LOAD_BUDGET = 150 * 1024;

test('first-load JavaScript is within 150 KB gzipped', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tickbook-ui-build-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const dist = join(dir, 'dist');
  assert.ok(buildUi(dist), 'vite build succeeded');

  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const firstLoad = [
    ...html.matchAll(/<script[^>]+src="\/ui\/([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/ui\/([^"]+\.js)"/g),
  ].map((m) => m[1]!);
  assert.ok(firstLoad.length >= 1, `index.html loads a script: ${html}`);
  // Nothing inline: the CSP (script-src 'self') would refuse it.
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/);

  const gz = (file: string) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  let total = 0;
  for (const f of firstLoad) total += gz(f);
  const all = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js'));
  // The production builds of the libraries, not their development builds.
  assert.ok(!all.some((f) => f.includes('.development')), `development build shipped: ${all}`);
  const lazy = all.map((f) => `assets/${f}`).filter((f) => !firstLoad.includes(f));
  t.diagnostic(
    `first load ${(total / 1024).toFixed(1)} KB gzipped (${firstLoad.join(', ')}); ` +
      `on demand: ${lazy.map((f) => `${f} ${(gz(f) / 1024).toFixed(1)} KB`).join(', ')}`,
  );
  assert.ok(total <= FIRST_LOAD_BUDGET, `first-load JS ${total} bytes gzipped > ${FIRST_LOAD_BUDGET}`);
  // The budget would hold even if the chart were loaded at once; keep it that way.
  const everything = all.reduce((n, f) => n + gz(`assets/${f}`), 0);
  assert.ok(everything <= FIRST_LOAD_BUDGET, `all JS ${everything} bytes gzipped > ${FIRST_LOAD_BUDGET}`);
});
