// `npm start` runs the built JavaScript (dist/main.js). `prestart` runs this script: when dist/ is
// missing or older than a file under src/ (or package.json), it runs `npm run build:all` first, so a
// fresh clone still starts with `npm ci && npm start` and an edited checkout never runs stale code.
// An install without devDependencies (no TypeScript compiler) keeps the dist/ it was shipped with.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, e)));
  return newest;
}

const built = existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
const sources = Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs);
if (built >= sources) process.exit(0);

const haveCompiler = existsSync(join(root, 'node_modules', 'typescript'));
if (!haveCompiler) {
  if (built >= 0) process.exit(0); // a production install: run what was shipped
  process.stderr.write(
    'dist/ is missing and TypeScript is not installed: run `npm ci` (with dev dependencies) first\n',
  );
  process.exit(1);
}
process.stderr.write(
  built < 0 ? 'building (first start)…\n' : 'sources changed since the last build: rebuilding…\n',
);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const r = spawnSync(npm, ['run', '--silent', 'build:all'], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
