// The import check (docs/architecture.md "The import rule"). The rule is two tables in that page:
// what each unit of src/ may import (other units, single files of a unit, npm packages) and the
// named exceptions with their reasons. This module reads the tables from the page, reads every
// import in a src/ tree with the TypeScript parser, and lists each import the tables do not allow
// and each cycle of files. The test runs it on src/ and on copies of src/ with wrong imports
// planted, so the page, the check and the code cannot drift apart.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import type TS from 'typescript';

// Loaded with require: through the ESM loader the 9 MB compiler costs seconds more to start.
const ts = createRequire(import.meta.url)('typescript') as typeof TS;

/** One import of one file: a file of the tree (`to`, relative to src/) or an npm package. */
export interface Import {
  /** The importing file, relative to src/ with forward slashes. */
  from: string;
  /** The specifier as written. */
  spec: string;
  /** The imported file relative to src/, or undefined for a package. */
  to: string | undefined;
  /** The package name (`fastify`, `@fastify/static`, `node:fs`), or undefined for a file. */
  pkg: string | undefined;
  /** `import type` / `export type`: erased when compiled. */
  typeOnly: boolean;
  line: number;
}

/** One row of the unit table: a unit and what it may import besides itself. */
export interface UnitRule {
  unit: string;
  /** Whole units (`exchange`) and single files of a unit (`exchange/reader.ts`). */
  mayImport: string[];
  /** Package names; `node:` stands for every Node built-in. */
  packages: string[];
}

/** One row of the exceptions table: an import the unit table does not allow, with its reason. */
export interface Exception {
  /** A file (`cluster/node.ts`) or a folder with its trailing slash (`stream/`). */
  from: string;
  /** A file or a folder, as `from`. */
  to: string;
  why: string;
}

export interface Rules {
  units: Map<string, UnitRule>;
  exceptions: Exception[];
}

/** The unit of a file under src/: its top-level folder, or the file itself at src/ root. */
export function unitOf(rel: string): string {
  const slash = rel.indexOf('/');
  return slash === -1 ? rel : rel.slice(0, slash);
}

/**
 * The package an import specifier names: `@scope/name`, `name`, or `node:x` for a built-in. A
 * built-in without its prefix (`fs`) is a package of that name, so no row allows it.
 */
export function packageOf(spec: string): string {
  if (spec.startsWith('node:')) return spec;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

// ---- reading the tables ----

/** The backquoted names of a table cell; "—" or "none" leave it empty. */
function names(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
}

/** Rows of the first Markdown table whose header starts with the given cells. */
function tableRows(markdown: string, header: string[]): string[][] {
  const lines = markdown.split('\n');
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
  const start = lines.findIndex(
    (l) => l.trim().startsWith('|') && header.every((h, i) => cells(l)[i]?.toLowerCase() === h.toLowerCase()),
  );
  if (start === -1) throw new Error(`docs/architecture.md has no table headed | ${header.join(' | ')} |`);
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && lines[i]?.trim().startsWith('|'); i++)
    rows.push(cells(lines[i] as string));
  return rows;
}

/** The unit table (`| Unit | May import | Packages |`) and the exceptions (`| From | To | Why |`). */
export function parseRules(markdown: string): Rules {
  const units = new Map<string, UnitRule>();
  for (const [unitCell = '', mayCell = '', pkgCell = ''] of tableRows(markdown, [
    'Unit',
    'May import',
    'Packages',
  ])) {
    const unit = names(unitCell)[0]
      ?.replace(/^src\//, '')
      .replace(/\/$/, '');
    if (unit === undefined) throw new Error(`unit table row without a unit: ${unitCell}`);
    if (units.has(unit)) throw new Error(`unit ${unit} has two rows`);
    units.set(unit, {
      unit,
      mayImport: names(mayCell).map((n) => n.replace(/^src\//, '').replace(/\/$/, '')),
      packages: names(pkgCell),
    });
  }
  const exceptions = tableRows(markdown, ['From', 'To', 'Why']).map(([from = '', to = '', why = '']) => {
    const [f] = names(from);
    const [t] = names(to);
    if (f === undefined || t === undefined || why.length < 10)
      throw new Error(
        `exception row needs a file or folder on each side and a reason: | ${from} | ${to} | ${why} |`,
      );
    return { from: f.replace(/^src\//, ''), to: t.replace(/^src\//, ''), why };
  });
  return { units, exceptions };
}

// ---- reading the imports ----

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every import of one file's text: static, re-export, `import x = require`, and `import('…')` with a literal. */
export function importsOf(text: string): { spec: string; typeOnly: boolean; line: number }[] {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: { spec: string; typeOnly: boolean; line: number }[] = [];
  const add = (lit: TS.Node, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(lit)) return;
    out.push({ spec: lit.text, typeOnly, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1 });
  };
  const visit = (node: TS.Node) => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node.importClause?.isTypeOnly === true);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) add(node.moduleSpecifier, node.isTypeOnly);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, node.isTypeOnly);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    )
      add(node.arguments[0], false);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node.argument.literal, true);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Imports by file text: the planted-import test checks copies of src/ that differ in one file. */
const parsed = new Map<string, ReturnType<typeof importsOf>>();

/** The files of a src/ tree (relative, forward slashes) and all their imports. */
export function readTree(srcDir: string): { files: string[]; imports: Import[] } {
  const files: string[] = [];
  const imports: Import[] = [];
  for (const abs of walk(srcDir)) {
    const from = relative(srcDir, abs).split('\\').join('/');
    files.push(from);
    const text = readFileSync(abs, 'utf8');
    let found = parsed.get(text);
    if (found === undefined) {
      found = importsOf(text);
      parsed.set(text, found);
    }
    for (const { spec, typeOnly, line } of found) {
      if (spec.startsWith('.')) {
        const to = relative(srcDir, normalize(join(dirname(abs), spec)))
          .split('\\')
          .join('/');
        imports.push({ from, spec, to, pkg: undefined, typeOnly, line });
      } else imports.push({ from, spec, to: undefined, pkg: packageOf(spec), typeOnly, line });
    }
  }
  return { files, imports };
}

// ---- the check ----

/** Does a table name (a file, or a folder with its trailing slash) cover this path? */
function covers(name: string, path: string): boolean {
  return name.endsWith('/') ? path.startsWith(name) : path === name;
}

/** The exception that allows this import between files, if any. */
export function exceptionFor(rules: Rules, from: string, to: string): Exception | undefined {
  return rules.exceptions.find((e) => covers(e.from, from) && covers(e.to, to));
}

function where(i: Import): string {
  return `src/${i.from}:${i.line} imports '${i.spec}'`;
}

/** Each import the tables do not allow, as one line naming the importing file and the import. */
export function directionViolations(rules: Rules, files: string[], imports: Import[]): string[] {
  const out: string[] = [];
  for (const unit of new Set(files.map(unitOf))) {
    if (!rules.units.has(unit))
      out.push(
        `src/${unit}${unit.endsWith('.ts') ? '' : '/'} has no row in the unit table of docs/architecture.md`,
      );
  }
  for (const i of imports) {
    const rule = rules.units.get(unitOf(i.from));
    if (rule === undefined) continue;
    if (i.pkg !== undefined) {
      const ok = i.pkg.startsWith('node:') ? rule.packages.includes('node:') : rule.packages.includes(i.pkg);
      if (!ok)
        out.push(
          `${where(i)}: package ${i.pkg} is not among the packages of ${rule.unit} (${rule.packages.join(', ') || 'none'})`,
        );
      continue;
    }
    const to = i.to as string;
    if (to.startsWith('..')) {
      out.push(`${where(i)}: a file outside src/`);
      continue;
    }
    const target = unitOf(to);
    if (target === rule.unit) continue;
    if (rule.mayImport.includes(target) || rule.mayImport.includes(to)) continue;
    if (exceptionFor(rules, i.from, to) !== undefined) continue;
    const partial = rule.mayImport.filter((n) => unitOf(n) === target);
    out.push(
      partial.length > 0
        ? `${where(i)}: ${rule.unit} may reach ${target} only through ${partial.join(', ')}`
        : `${where(i)}: ${rule.unit} may not import ${target}`,
    );
  }
  return out;
}

/**
 * The import cycles between files, each as one line `a.ts → b.ts → a.ts` naming its imports. Type-only
 * imports count: a cycle of types is still two files a reader cannot understand one without the
 * other. An import named in the exceptions table is left out of the graph.
 */
export function cycles(rules: Rules, imports: Import[]): string[] {
  const next = new Map<string, string[]>();
  for (const i of imports) {
    if (i.to === undefined || i.from === i.to || exceptionFor(rules, i.from, i.to) !== undefined) continue;
    const list = next.get(i.from) ?? [];
    if (!list.includes(i.to)) list.push(i.to);
    next.set(i.from, list);
  }
  // Tarjan's strongly connected components; each component of two or more files holds a cycle.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) components.push(c);
    }
  };
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) connect(v);
  // One shortest cycle through the first file of each component, found by breadth-first search.
  return components.map((c) => {
    const inside = new Set(c);
    const start = [...c].sort()[0] as string;
    const prev = new Map<string, string>();
    const queue = [start];
    let end: string | undefined;
    while (queue.length > 0 && end === undefined) {
      const v = queue.shift() as string;
      for (const w of next.get(v) ?? []) {
        if (!inside.has(w)) continue;
        if (w === start) {
          end = v;
          break;
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    const path = [start];
    for (let v = end as string; v !== start; v = prev.get(v) as string) path.splice(1, 0, v);
    path.push(start);
    const rest = c.filter((f) => !path.includes(f)).sort();
    const knot = rest.length > 0 ? ` (the same knot holds ${rest.map((f) => `src/${f}`).join(', ')})` : '';
    return `import cycle: ${path.map((p) => `src/${p}`).join(' → ')}${knot}`;
  });
}

/** Unit arrows of the table that form a cycle (the table itself must flow one way). */
export function tableCycles(rules: Rules): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const path: string[] = [];
  const visit = (u: string) => {
    if (path.includes(u)) {
      out.push(`unit table cycle: ${[...path.slice(path.indexOf(u)), u].join(' → ')}`);
      return;
    }
    if (seen.has(u)) return;
    seen.add(u);
    path.push(u);
    for (const n of rules.units.get(u)?.mayImport ?? []) visit(unitOf(n));
    path.pop();
  };
  for (const u of [...rules.units.keys()].sort()) visit(u);
  return out;
}

/** Everything wrong with a src/ tree under these rules: direction, packages and cycles. */
export function checkTree(srcDir: string, rules: Rules): string[] {
  const { files, imports } = readTree(srcDir);
  return [...directionViolations(rules, files, imports), ...cycles(rules, imports)];
}
