// Every citation in the repository resolves inside it: code comments, docs, tests, scripts and the
// text the server serves (OpenAPI descriptions live in src/) cite files of this repository, and a
// `docs/<page>.md "Section"` citation names a heading of that page. Files outside the repository
// (the specification and design documents the project was built from, the production API's
// reference folder) cannot be opened by a reader of a clone, so citing them is refused outright.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const self = relative(root, fileURLToPath(import.meta.url));

/** Where citations are written: sources, tests, docs, scripts, the UI's sources. */
const ROOTS = ['src', 'test', 'docs', 'bench', 'scripts', 'ui/src', 'deploy', '.ci', 'bin'];
const ROOT_FILES = ['README.md', 'BENCHMARKS.md', 'Dockerfile', 'docker-compose.yml', 'package.json'];
const TEXT = /\.(ts|tsx|mjs|js|md|sql|json|ya?ml|css|html|sh)$|^run$/;

function walk(dir: string, out: string[]): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return out;
  for (const name of readdirSync(abs)) {
    const rel = `${dir}/${name}`;
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(join(root, rel)).isDirectory()) walk(rel, out);
    else if (TEXT.test(name)) out.push(rel);
  }
  return out;
}

function files(): string[] {
  const out = ROOT_FILES.filter((f) => existsSync(join(root, f)));
  for (const d of ROOTS) walk(d, out);
  return out.filter((f) => f !== self);
}

interface Hit {
  file: string;
  line: number;
  text: string;
}

function scan(re: RegExp, each: (m: RegExpExecArray, hit: Hit) => boolean): Hit[] {
  const bad: Hit[] = [];
  for (const file of files()) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((text, i) => {
      for (const m of text.matchAll(new RegExp(re.source, 'g'))) {
        const hit = { file, line: i + 1, text: m[0] };
        if (!each(m as RegExpExecArray, hit)) bad.push(hit);
      }
    });
  }
  return bad;
}

const report = (hits: Hit[]) => hits.map((h) => `${h.file}:${h.line}: ${h.text}`).join('\n');

// Built from pieces so that this file does not cite what it looks for.
const OUTSIDE = new RegExp(
  [
    `\\b${'SPEC'}\\.md\\b`,
    `\\b${'DESIGN'}\\.md\\b`,
    `\\.\\./${'shared'}/`,
    `(?<![\\w./-])${'reference'}/[\\w.-]+\\.md\\b`,
  ].join('|'),
);

test('no citation of a file outside the repository', () => {
  const bad = scan(OUTSIDE, () => false);
  assert.equal(bad.length, 0, `cited files that are not in the repository:\n${report(bad)}`);
});

/** A path into the repository as text cites it: src/…, docs/…, test/… with a file extension. */
const REPO_PATH =
  /(?<![\w.@/-])(?:src|test|docs|bench|scripts|ui\/src|deploy|bin)\/[\w./-]*[\w-]\.(?:ts|tsx|mjs|js|md|sql|json|css|html|ya?ml)\b/;

test('every cited repository file exists', () => {
  const bad = scan(REPO_PATH, (m) => {
    const path = m[0];
    // A pattern or a placeholder, not a file: src/store/migrations/NNN_name.sql, test/x/y.test.ts.
    if (/NNN|\/x\/|<|\*/.test(path)) return true;
    return existsSync(join(root, path));
  });
  assert.equal(bad.length, 0, `cited files that do not exist:\n${report(bad)}`);
});

/**
 * The headings of a docs page, lower case, without code marks: `#` headings, and the bold run-in
 * labels that open a paragraph or a list item (`**Fencing** (…)`, `- **Fees**: …`), which the
 * pages use as the headings of short subsections.
 */
const headingsOf = new Map<string, string[]>();
function headings(doc: string): string[] {
  let h = headingsOf.get(doc);
  if (h === undefined) {
    h = readFileSync(join(root, doc), 'utf8')
      .split('\n')
      .map((l) => /^#{1,6}\s+(.*?)\s*$/.exec(l)?.[1] ?? /^\s*(?:[-*]\s+)?\*\*([^*]+?)\.?\*\*/.exec(l)?.[1])
      .filter((t): t is string => t !== undefined)
      .map(normal);
    headingsOf.set(doc, h);
  }
  return h;
}

function normal(s: string): string {
  return s.replaceAll('`', '').toLowerCase().trim();
}

/** A section is named by a heading's words: the whole heading or a run of its words. */
function names(heading: string, section: string): boolean {
  const s = normal(section);
  const at = heading.indexOf(s);
  if (at < 0) return false;
  const before = heading[at - 1];
  const after = heading[at + s.length];
  return (before === undefined || /\W/.test(before)) && (after === undefined || /\W/.test(after));
}

test('every docs section cited by name is a heading of that page', () => {
  const bad = scan(/(docs\/[\w.-]+\.md)[,:]?\s*(?:§\s*)?"([^"]+)"/, (m) => {
    const doc = m[1]!;
    if (!existsSync(join(root, doc))) return false;
    return headings(doc).some((h) => names(h, m[2]!));
  });
  assert.equal(bad.length, 0, `section names that match no heading of the cited page:\n${report(bad)}`);
});

test('the checks find what they are for', () => {
  // The matchers themselves, on made-up lines.
  assert.ok(OUTSIDE.test(`see ${'SPEC'}.md §4.2`));
  assert.ok(OUTSIDE.test(`(${'reference'}/production-api.md)`));
  assert.ok(!OUTSIDE.test('the API reference/docs page'));
  assert.ok(REPO_PATH.test('see docs/journal.md'));
  assert.equal(existsSync(join(root, 'docs/no-such-page.md')), false);
  assert.ok(names(normal('Snapshots and retention'), 'Retention'));
  assert.ok(names(normal('Projector (history tables)'), 'Projector'));
  assert.ok(!names(normal('Projector (history tables)'), 'Project'));
  assert.ok(headings('docs/exchange.md').includes('fees'), 'a bold run-in label counts as a heading');
});
