// The import rule (docs/architecture.md "The import rule"): imports flow one way, edge (http/, cli/)
// → application (runtime/) → demo participant (demo/) → domain (exchange/, pricing/, auth/,
// catalog/, journal/) → store interface (store/). Shared leaves (config.ts, errors.ts,
// observability/) import no layer. The engine (exchange/) imports nothing outside itself, and the
// pricer only the engine's types. This test reads every import in src/ and fails on any that runs the
// other way, so the direction stays true in CI.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

type Unit =
  | 'root'
  | 'http'
  | 'cli'
  | 'application'
  | 'demo'
  | 'domain'
  | 'exchange'
  | 'pricing'
  | 'store'
  | 'shared';

/** The unit a file under src/ belongs to. */
function unitOf(rel: string): Unit {
  const [top, second] = rel.split('/');
  if (second === undefined) {
    if (top === 'config.ts' || top === 'errors.ts') return 'shared';
    return 'root'; // main.ts, app.ts: the composition root
  }
  switch (top) {
    case 'start': // start-up output of the composition root (banner, progress, logs, errors)
      return 'root';
    case 'http':
    case 'stream': // the WebSocket edge: wire frames of committed batches (docs/stream.md)
      return 'http';
    case 'cli':
      return 'cli';
    case 'runtime':
    case 'cluster': // leader/replica roles over the runtime (docs/cluster.md)
      return 'application';
    case 'demo':
      return 'demo';
    case 'exchange':
      return 'exchange';
    case 'pricing':
      return 'pricing';
    case 'auth':
    case 'catalog':
    case 'journal':
      return 'domain';
    case 'store':
      return 'store';
    case 'observability':
      return 'shared';
    default:
      throw new Error(`src/${rel}: folder ${top} has no layer; add it to the import rule`);
  }
}

/** What each unit may import (besides itself). */
const MAY_IMPORT: Record<Unit, readonly Unit[]> = {
  root: ['http', 'cli', 'application', 'demo', 'domain', 'exchange', 'pricing', 'store', 'shared'],
  http: ['application', 'domain', 'exchange', 'pricing', 'store', 'shared'],
  // The CLI is the binary: its `server` command starts the composition root (main.ts).
  cli: ['root', 'application', 'domain', 'exchange', 'pricing', 'store', 'shared'],
  application: ['demo', 'domain', 'exchange', 'pricing', 'store', 'shared'],
  demo: ['domain', 'exchange', 'pricing', 'shared'],
  domain: ['domain', 'exchange', 'pricing', 'store', 'shared'],
  pricing: ['exchange'],
  exchange: [],
  store: ['shared'],
  shared: ['shared'],
};

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Module specifiers of static imports, re-exports and dynamic imports. */
export function specifiers(text: string): string[] {
  const out: string[] = [];
  const re =
    /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[\w*${},\s]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push((m[1] ?? m[2]) as string);
  return out;
}

interface Edge {
  from: string;
  to: string;
}

function relativeImports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of walk(SRC)) {
    const from = relative(SRC, file).split('\\').join('/');
    for (const spec of specifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const to = relative(SRC, normalize(join(dirname(file), spec)))
        .split('\\')
        .join('/');
      edges.push({ from, to });
    }
  }
  return edges;
}

describe('import direction', () => {
  test('the parser finds every kind of import', () => {
    const text = [
      "import a from './a.ts';",
      "import type { B } from '../b.ts';",
      'import {\n  c,\n  type D,\n} from "./c.ts";',
      "export { e } from './e.ts';",
      "export * from './f.ts';",
      "import './g.ts';",
      "const h = await import('./h.ts');",
    ].join('\n');
    assert.deepEqual(specifiers(text), [
      './a.ts',
      '../b.ts',
      './c.ts',
      './e.ts',
      './f.ts',
      './g.ts',
      './h.ts',
    ]);
  });

  test('every import in src/ flows from the edge towards the store', () => {
    const edges = relativeImports();
    assert.ok(edges.length > 200, `expected the whole tree, read ${edges.length} imports`);
    const wrong: string[] = [];
    for (const { from, to } of edges) {
      if (to.startsWith('..')) {
        wrong.push(`src/${from} imports ${to}, outside src/`);
        continue;
      }
      const a = unitOf(from);
      const b = unitOf(to);
      if (a === b || MAY_IMPORT[a].includes(b)) continue;
      wrong.push(`src/${from} (${a}) imports src/${to} (${b})`);
    }
    assert.deepEqual(wrong, [], `imports against the rule in docs/architecture.md:\n${wrong.join('\n')}`);
  });

  test('only the CLI binary imports the composition root', () => {
    const into = relativeImports().filter(
      (e) => unitOf(e.to) === 'root' && !['root', 'cli'].includes(unitOf(e.from)),
    );
    assert.deepEqual(into, []);
  });
});
