// The import rule (docs/architecture.md "The import rule"): the unit table and the exceptions table
// of that page are the rule, and this test holds src/ to them. It reads the tables from the page,
// so the page and the check cannot say different things.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkTree, importsOf, parseRules, readTree, tableCycles, unitOf } from './imports.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SRC = join(ROOT, 'src');
const rules = parseRules(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));

describe('import direction', () => {
  test('the parser finds every kind of import and tells type-only ones apart', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from '../b.ts';",
      'import {\n  c,\n  type D,\n} from "./c.ts";',
      "export { e } from './e.ts';",
      "export * from './f.ts';",
      "import './g.ts';",
      "const h = await import('./h.ts');",
      "export type { I } from './i.ts';",
      "type J = import('./j.ts').J;",
      "// import k from './k.ts';",
      'const s = "import l from \'./l.ts\'";',
    ].join('\n');
    assert.deepEqual(
      importsOf(text).map((i) => [i.spec, i.typeOnly, i.line]),
      [
        ['./a.ts', false, 1],
        ['../b.ts', true, 2],
        ['./c.ts', false, 6],
        ['./e.ts', false, 7],
        ['./f.ts', false, 8],
        ['./g.ts', false, 9],
        ['./h.ts', false, 10],
        ['./i.ts', true, 11],
        ['./j.ts', true, 12],
      ],
    );
  });

  test('the tables of docs/architecture.md give every unit of src/ a row, and flow one way', () => {
    const units = new Set(readTree(SRC).files.map(unitOf));
    assert.deepEqual([...rules.units.keys()].sort(), [...units].sort());
    assert.deepEqual(rules.units.get('exchange')?.mayImport, []);
    assert.deepEqual(rules.units.get('exchange')?.packages, ['node:']);
    assert.deepEqual(rules.units.get('pricing')?.mayImport, ['exchange/reader.ts', 'exchange/types.ts']);
    assert.ok(rules.exceptions.length > 0);
    assert.deepEqual(tableCycles(rules), []);
    // every file the tables name exists, so a rename cannot leave a row allowing nothing
    const files = new Set(readTree(SRC).files);
    const named = [
      ...[...rules.units.values()].flatMap((r) => r.mayImport.filter((n) => n.endsWith('.ts'))),
      ...rules.exceptions.flatMap((e) => [e.from, e.to]).filter((n) => n.endsWith('.ts')),
    ];
    assert.deepEqual(
      named.filter((n) => !files.has(n)),
      [],
    );
  });

  test('every import in src/ is one the tables allow, and no files import each other in a cycle', () => {
    const { imports } = readTree(SRC);
    assert.ok(imports.length > 500, `expected the whole tree, read ${imports.length} imports`);
    const wrong = checkTree(SRC, rules);
    assert.deepEqual(
      wrong,
      [],
      `imports against docs/architecture.md "The import rule":\n${wrong.join('\n')}`,
    );
  });

  test('only the CLI binary imports the composition root', () => {
    const into = readTree(SRC).imports.filter(
      (i) => i.to === 'main.ts' && !['main.ts', 'cli'].includes(unitOf(i.from)),
    );
    assert.deepEqual(into, []);
  });
});
