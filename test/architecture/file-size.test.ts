// The size rule for files (docs/contributing.md "Size of files"): a file of src/ is at most as long
// as the page's table says, the default row (`src/`) for every file not named. The table is read
// from the page, so the page and the check cannot drift; a named file that fits the default fails
// too, so the list of exceptions only shrinks.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGE = 'docs/contributing.md';

interface SizeRow {
  path: string;
  most: number;
  why: string;
}

/** Rows of the `| File | Most lines | Why |` table. */
function parseSizeRules(markdown: string): SizeRow[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => /^\|\s*File\s*\|\s*Most lines\s*\|\s*Why\s*\|/.test(l));
  if (start === -1) throw new Error(`${PAGE} has no table headed | File | Most lines | Why |`);
  const rows: SizeRow[] = [];
  for (let i = start + 2; i < lines.length && lines[i]?.startsWith('|'); i++) {
    const [file = '', most = '', why = ''] = (lines[i] as string)
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
    const path = /`([^`]+)`/.exec(file)?.[1];
    if (path === undefined || !/^\d+$/.test(most) || why.length < 10)
      throw new Error(`${PAGE}: a size row needs a file, a number of lines and a reason: ${lines[i]}`);
    rows.push({ path, most: Number(most), why });
  }
  return rows;
}

/** Lines of a file as `wc -l` counts them (newline characters). */
function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : name.endsWith('.ts') ? [p] : [];
  });
}

/** Each file of the tree longer than its row allows, and each row that no longer needs to exist. */
function sizeFindings(root: string, rows: SizeRow[]): string[] {
  const limit = rows.find((r) => r.path === 'src/');
  if (limit === undefined) throw new Error(`${PAGE}: the size table has no default row for \`src/\``);
  const named = new Map(rows.filter((r) => r !== limit).map((r) => [r.path, r]));
  const out: string[] = [];
  const sizes = new Map<string, number>();
  for (const abs of walk(join(root, 'src'))) {
    const rel = relative(root, abs).split('\\').join('/');
    const n = lineCount(readFileSync(abs, 'utf8'));
    sizes.set(rel, n);
    const most = named.get(rel)?.most ?? limit.most;
    if (n > most)
      out.push(
        `${rel} has ${n} lines, more than the ${most} ${PAGE} "Size of files" allows: split it by behaviour`,
      );
  }
  for (const path of named.keys()) {
    const n = sizes.get(path);
    if (n === undefined) out.push(`${PAGE} names ${path}, which does not exist: delete its row`);
    else if (n <= limit.most)
      out.push(`${path} has ${n} lines, within the ${limit.most} of the rule: delete its row in ${PAGE}`);
  }
  return out;
}

describe('size of files', () => {
  const rows = parseSizeRules(readFileSync(join(ROOT, PAGE), 'utf8'));

  test('the table has the default and names the matching loop as the exception', () => {
    assert.equal(rows.find((r) => r.path === 'src/')?.most, 400);
    assert.ok(rows.some((r) => r.path === 'src/exchange/matching.ts'));
  });

  test('every file of src/ is within the size docs/contributing.md allows it', () => {
    const found = sizeFindings(ROOT, rows);
    assert.deepEqual(found, [], found.join('\n'));
  });

  test('a file over the limit, a grown exception and a stale row are each named', () => {
    const fake = [
      { path: 'src/', most: 100, why: 'the default for the test' },
      { path: 'src/exchange/matching.ts', most: 150, why: 'an exception smaller than the file' },
      { path: 'src/config.ts', most: 9_999, why: 'a row the file does not need any more' },
      // Built, not written out: the docs' citation check would take a written path for a citation.
      { path: ['src', 'exchange', 'gone.ts'].join('/'), most: 200, why: 'a row for a file that was removed' },
    ];
    const found = sizeFindings(ROOT, fake);
    assert.ok(found.some((f) => /^src\/app\.ts has \d+ lines, more than the 100 /.test(f)));
    assert.ok(found.some((f) => /^src\/exchange\/matching\.ts has \d+ lines, more than the 150 /.test(f)));
    assert.ok(!found.some((f) => f.startsWith('src/config.ts has')));
    assert.ok(found.some((f) => /names src\/exchange\/gone\.ts, which does not exist/.test(f)));
    const small = sizeFindings(ROOT, [
      { path: 'src/', most: 400, why: 'the real default' },
      { path: 'src/exchange/units.ts', most: 500, why: 'a row a small file does not need' },
    ]);
    assert.ok(
      small.some((f) => /^src\/exchange\/units\.ts has \d+ lines, within the 400 of the rule/.test(f)),
    );
  });
});
