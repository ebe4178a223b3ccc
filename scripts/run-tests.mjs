#!/usr/bin/env node
// Runs every test file under test/ with Node's own test runner (the runner CI reads) and tsx
// for TypeScript. Node 20's --test does not expand globs, so the files are listed here.
// Usage: node scripts/run-tests.mjs [--unit] [substring-filter ...]
// --unit: only the fast unit tests (UNIT below: pure domain code, no server, no store), what
// `npm run test:unit` runs; docs/architecture.md "Tests".
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Unit tests: no Fastify instance, no PGlite or PostgreSQL, no child process. */
const UNIT = [
  'test/architecture/',
  'test/catalog/',
  'test/demo/',
  'test/exchange/',
  'test/http/rejections.test.ts',
  'test/pricing/bivariate-normal.test.ts',
  'test/pricing/exchange-integration.test.ts',
  'test/pricing/parlay.test.ts',
  'test/property/',
  'test/runtime/ids.test.ts',
  'test/ui/',
];
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const filters = args.filter((a) => a !== '--unit');
const files = walk('test')
  .map((f) => f.split('\\').join('/'))
  .filter((f) => !unitOnly || UNIT.some((u) => f.startsWith(u)))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const run = (list, n) =>
  spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', `--test-concurrency=${n}`, '--test-reporter=spec', ...list],
    { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
  ).status ?? 1;
// The browser tests run last and one at a time: beside a CPU-heavy file (the living demo's days,
// a cluster failover) on two cores, a page's first load could take longer than its waits.
const browser = files.filter((f) => f.startsWith('test/e2e/'));
const rest = files.filter((f) => !f.startsWith('test/e2e/'));
const first = rest.length > 0 ? run(rest, concurrency) : 0;
const second = browser.length > 0 ? run(browser, '1') : 0;
process.exit(first !== 0 ? first : second);
