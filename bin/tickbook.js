#!/usr/bin/env node
// The `tickbook` command (package.json "bin"): runs the built CLI (dist/cli/main.js, made by
// `npm run build`, which `npm ci` runs through `prepare`). When the sources are newer than the build
// (an edited checkout) or there is no build, it runs the TypeScript sources through tsx, a
// development dependency, so the command never runs stale code (docs/packaging.md).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = `${root}dist/.build-stamp`;

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of readdirSync(path)) newest = Math.max(newest, newestMtime(`${path}/${e}`));
  return newest;
}

const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
const stale = existsSync(`${root}src`) && newestMtime(`${root}src`) > builtAt;
const tsx = stale && existsSync(`${root}node_modules/tsx`);
let main;
if (tsx || builtAt < 0) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
} else {
  ({ main } = await import('../dist/cli/main.js'));
}
const code = await main(process.argv.slice(2));
// Setting the exit code does not end the process: after a successful `start` (code 0) its
// listeners keep it running until SIGINT/SIGTERM; every other command ends here.
process.exitCode = code;
