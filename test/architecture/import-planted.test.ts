// The import check catches what it claims to (docs/architecture.md "The import rule"): a copy of
// src/ gets one wrong import at a time, and the check must name it. A check that passed with these
// planted would be checking nothing.

import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkTree, parseRules } from './imports.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const rules = parseRules(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));

let copy: string;
let baseline: string[];

/** The findings the planted lines add to the copy's own, with the copy restored afterwards. */
function plant(lines: Record<string, string>): string[] {
  const saved = new Map<string, string | undefined>();
  for (const [file, line] of Object.entries(lines)) {
    const abs = join(copy, file);
    let old: string | undefined;
    try {
      old = readFileSync(abs, 'utf8');
    } catch {
      old = undefined;
      mkdirSync(dirname(abs), { recursive: true });
    }
    saved.set(abs, old);
    if (old === undefined) writeFileSync(abs, `${line}\n`);
    else appendFileSync(abs, `\n${line}\n`);
  }
  try {
    return checkTree(copy, rules).filter((f) => !baseline.includes(f));
  } finally {
    for (const [abs, old] of saved) {
      if (old === undefined) rmSync(abs);
      else writeFileSync(abs, old);
    }
  }
}

function assertNamed(found: string[], pattern: RegExp): void {
  assert.ok(
    found.some((f) => pattern.test(f)),
    `expected a finding matching ${pattern}, the check found:\n${found.join('\n') || '(nothing)'}`,
  );
}

describe('the import check fails on each planted wrong import', () => {
  before(() => {
    copy = join(mkdtempSync(join(tmpdir(), 'tickbook-imports-')), 'src');
    cpSync(join(ROOT, 'src'), copy, { recursive: true });
    baseline = checkTree(copy, rules);
  });
  after(() => rmSync(dirname(copy), { recursive: true, force: true }));

  test('the engine importing a package that is not a Node built-in', () => {
    const found = plant({ 'exchange/exchange.ts': "import { fastify } from 'fastify';" });
    assertNamed(found, /^src\/exchange\/exchange\.ts:\d+ imports 'fastify': package fastify is not among/);
  });

  test('a cycle between the catalog and the journal', () => {
    const found = plant({
      'catalog/types.ts': "import type { Sequencer } from '../journal/sequencer.ts';",
      'journal/sequencer.ts': "import type { CommandInput } from '../catalog/types.ts';",
    });
    assertNamed(
      found,
      /^src\/catalog\/types\.ts:\d+ imports '\.\.\/journal\/sequencer\.ts': catalog may not import journal/,
    );
    assertNamed(
      found,
      /^src\/journal\/sequencer\.ts:\d+ imports '\.\.\/catalog\/types\.ts': journal may not import catalog/,
    );
    assertNamed(
      found,
      /^import cycle: src\/catalog\/types\.ts → src\/journal\/sequencer\.ts → src\/catalog\/types\.ts/,
    );
  });

  test('the pricer reaching past the reader into the matching loop', () => {
    const found = plant({ 'pricing/parlay.ts': "import { placeOrder } from '../exchange/matching.ts';" });
    assertNamed(
      found,
      /^src\/pricing\/parlay\.ts:\d+ imports '\.\.\/exchange\/matching\.ts': pricing may reach exchange only through exchange\/reader\.ts, exchange\/types\.ts/,
    );
  });

  test('auth reaching a store implementation instead of the interface', () => {
    const found = plant({
      'auth/clients.ts': "import type { PgliteStore } from '../store/pglite-store.ts';",
    });
    assertNamed(
      found,
      /^src\/auth\/clients\.ts:\d+ imports '\.\.\/store\/pglite-store\.ts': auth may reach store only through store\/types\.ts/,
    );
  });

  test('the stream importing the route that serves it', () => {
    const found = plant({ 'stream/hub.ts': "import { tapeRoutes } from '../http/routes/tape.ts';" });
    assertNamed(
      found,
      /^src\/stream\/hub\.ts:\d+ imports '\.\.\/http\/routes\/tape\.ts': stream may not import http/,
    );
    assertNamed(found, /^import cycle: .*src\/http\/routes\/tape\.ts.*src\/stream\/hub\.ts/);
  });

  test('a cycle inside one unit', () => {
    const found = plant({ 'exchange/units.ts': "import { Exchange } from './exchange.ts';" });
    assertNamed(found, /^import cycle: .*src\/exchange\/units\.ts → src\/exchange\/exchange\.ts/);
  });

  test('a new top-level folder without a row in the table', () => {
    const found = plant({ 'gateway/index.ts': "export const gateway = 'new';" });
    assertNamed(found, /^src\/gateway\/ has no row in the unit table of docs\/architecture\.md/);
  });
});
