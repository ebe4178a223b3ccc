#!/usr/bin/env node
// `npm ci` runs this through the `prepare` script: builds the browser UI into ui/dist when Vite
// (a devDependency) is installed, so `npm ci && npm start` serves /ui with no extra step
// (docs/ui.md). An install without devDependencies skips it; the server then explains at /ui.
// A failed build does not fail the install: the server retries the build on its first start.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync('node_modules/vite/bin/vite.js')) {
  console.log('build-ui: Vite is not installed (production install); skipping the UI build');
  process.exit(0);
}
const r = spawnSync(
  process.execPath,
  ['node_modules/vite/bin/vite.js', 'build', '--config', 'ui/vite.config.ts'],
  {
    stdio: 'inherit',
  },
);
if (r.status !== 0) console.warn('build-ui: the UI build failed; the server will try again on start');
