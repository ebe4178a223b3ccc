#!/usr/bin/env node
// Counts repeated blocks of code in a source tree, so that "fewer repeated blocks" is a number
// anyone can reproduce. A block is WINDOW consecutive code lines of one .ts file, each line trimmed,
// with blank lines, comment-only lines, lines of bare punctuation (`}`, `});`, `]`) and import
// statements (lists of names, not code) left out. A
// block is repeated when the same WINDOW lines, character for character, occur at another place of
// the tree (the same file or another). Reported: the distinct repeated blocks, and the code lines
// that lie inside at least one of them.
//
// Usage: node scripts/repeated-blocks.mjs [dir=src] [--window 6] [--list]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const args = process.argv.slice(2);
const wi = args.indexOf('--window');
const WINDOW = wi === -1 ? 6 : Number(args[wi + 1]);
const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--window') ?? 'src';

function walk(d) {
  return readdirSync(d)
    .sort()
    .flatMap((name) => {
      const p = join(d, name);
      return statSync(p).isDirectory() ? walk(p) : name.endsWith('.ts') ? [p] : [];
    });
}

/** The code lines of a file: trimmed, with their line numbers. */
function codeLines(text) {
  const out = [];
  let inBlockComment = false;
  let inImport = false;
  text.split('\n').forEach((raw, i) => {
    let line = raw.trim();
    if (
      inImport ||
      /^import[\s{*]/.test(line) ||
      /^export (type )?\{[^}]*$/.test(line) ||
      /^export .* from '/.test(line)
    ) {
      // an import (or re-export) runs until its module specifier
      inImport = !/(from )?'[^']+';$/.test(line);
      return;
    }
    if (inBlockComment) {
      const end = line.indexOf('*/');
      if (end === -1) return;
      inBlockComment = false;
      line = line.slice(end + 2).trim();
    }
    if (line.startsWith('/*') && !line.includes('*/')) {
      inBlockComment = true;
      return;
    }
    if (line === '' || line.startsWith('//') || (line.startsWith('/*') && line.endsWith('*/'))) return;
    if (/^[\s{}()[\];,]*$/.test(line)) return;
    out.push({ line, n: i + 1 });
  });
  return out;
}

const seen = new Map(); // block text → [{file, index}]
const files = new Map();
for (const abs of walk(dir)) {
  const file = relative(dir, abs);
  const lines = codeLines(readFileSync(abs, 'utf8'));
  files.set(file, lines);
  for (let i = 0; i + WINDOW <= lines.length; i++) {
    const key = lines
      .slice(i, i + WINDOW)
      .map((l) => l.line)
      .join('\n');
    const at = seen.get(key) ?? [];
    at.push({ file, index: i });
    seen.set(key, at);
  }
}
let blocks = 0;
const covered = new Set();
const list = args.includes('--list');
for (const at of seen.values()) {
  if (at.length < 2) continue;
  blocks++;
  if (list) console.log(at.map(({ file, index }) => `${file}:${files.get(file)[index].n}`).join('  '));
  for (const { file, index } of at) for (let k = 0; k < WINDOW; k++) covered.add(`${file}:${index + k}`);
}
let total = 0;
for (const lines of files.values()) total += lines.length;
console.log(
  JSON.stringify({
    dir,
    window: WINDOW,
    files: files.size,
    codeLines: total,
    repeatedBlocks: blocks,
    linesInRepeats: covered.size,
  }),
);
