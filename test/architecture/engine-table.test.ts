// docs/architecture.md "The engine" says where each behaviour of the state machine lives, one row
// per behaviour naming its modules; docs/contributing.md sends a reader there to find the module
// a command belongs in. So every file of src/exchange/ must be named in that table, and every
// module the table names must exist: a new module without its row, or a row left behind by a
// rename, fails here.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

const page = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
const files = readdirSync(new URL('../../src/exchange/', import.meta.url)).filter((f) => f.endsWith('.ts'));

/** The backquoted file names of the second column of the `| Behaviour | Module |` table. */
function tableModules(): string[] {
  const section = page.split('\n## The engine\n')[1]?.split('\n## ')[0];
  assert.ok(section, 'docs/architecture.md has a section "The engine"');
  const lines = section.split('\n');
  const start = lines.findIndex((l) => /^\|\s*Behaviour\s*\|\s*Module\s*\|/.test(l));
  assert.ok(start !== -1, 'the section has a table headed | Behaviour | Module |');
  const out: string[] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    const module = lines[i]!.replace(/^\||\|$/g, '').split('|')[1] ?? '';
    for (const m of module.matchAll(/`([^`]+\.ts)`/g)) out.push(m[1]!);
  }
  return out;
}

describe('the engine table', () => {
  test('names every file of src/exchange/, and only those', () => {
    const named = new Set(tableModules());
    assert.deepEqual(
      files.filter((f) => !named.has(f)),
      [],
      'files of src/exchange/ without a row in docs/architecture.md "The engine"',
    );
    assert.deepEqual(
      [...named].filter((f) => !files.includes(f)),
      [],
      'modules named in docs/architecture.md "The engine" that do not exist',
    );
  });
});
