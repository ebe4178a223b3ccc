// Type-checks with `noUncheckedIndexedAccess` on and fails on any error outside the folders still
// being made clean. It exists only until the flag is on in tsconfig.json (then `tsc --noEmit` says
// the same); until then it keeps the folders that are already clean from slipping back.
//
//   node scripts/check-strict-index.mjs [--allow src/exchange,src/journal]
//
// Prints the error count per folder; exit 1 when any error lies outside the allowed folders.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { allow: { type: 'string', default: '' } } });
const allowed = values.allow
  .split(',')
  .map((s) => s.trim().replace(/\/+$/, ''))
  .filter((s) => s !== '');

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const run = spawnSync(
  process.execPath,
  [tsc, '--noEmit', '--noUncheckedIndexedAccess', '--pretty', 'false'],
  {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  },
);
if (run.error) throw run.error;

// tsc prints `path(line,col): error TSnnnn: message`; continuation lines start with spaces.
const errors = run.stdout.split('\n').filter((l) => /^\S.*\(\d+,\d+\): error TS\d+:/.test(l));
// Anything else on a failing run (a crash, a bad option) must not pass as "no errors".
if (run.status !== 0 && errors.length === 0) {
  process.stderr.write(run.stdout + run.stderr);
  process.exit(2);
}
const isAllowed = (file) => allowed.some((a) => file === a || file.startsWith(`${a}/`));
const perFolder = new Map();
const outside = [];
for (const line of errors) {
  const file = line.slice(0, line.indexOf('('));
  const folder = file.split('/').slice(0, 2).join('/');
  perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
  if (!isAllowed(file)) outside.push(line);
}
for (const [folder, n] of [...perFolder].sort((a, b) => b[1] - a[1])) {
  console.log(`${String(n).padStart(5)}  ${folder}${isAllowed(folder) ? '  (allowed)' : ''}`);
}
console.log(
  `${errors.length} error(s) with noUncheckedIndexedAccess; ${outside.length} outside the allowed folders`,
);
if (outside.length > 0) {
  console.log(outside.join('\n'));
  process.exit(1);
}
