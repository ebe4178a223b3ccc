// Regular expressions of /v1/graphql's `_regex`, `_iregex`, `_nregex`, `_niregex`, `_similar` and
// `_nsimilar` (docs/graphql.md "Scalars and filters"), run in time linear in the text. The pattern
// comes from any anonymous client, and JavaScript's RegExp backtracks: `(a+)+$` against a line of
// `a`s takes exponential time and would stall every request of the process. So a pattern is
// parsed here and run as a Thompson automaton, simulated one character at a time over the set of
// live states (a Pike VM without captures): at most text length × program size steps, whatever
// the pattern, and every step is charged to the request's budget (`RegexBudget`), so one request
// filtering many rows with a wide pattern stops with an error instead of holding the process. The syntax is the common part of POSIX extended regular expressions and
// PostgreSQL's: `.`, `[...]` with ranges, negation and `[:class:]`, `\d \w \s` and their negations,
// `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` (lazy forms match the same strings), `|`, `( )`, `(?: )`,
// `^`, `$`, with PostgreSQL's defaults: `.` and a negated bracket match a newline, `^` and `$` only
// at the ends of the text. Backreferences and lookaround cannot run in linear time and are refused.

import { GraphQLError } from 'graphql';

/** Most instructions a compiled pattern may have (counted repeats copy their body). */
const MAX_PROGRAM = 2_000;

/** What one request may still spend on regular-expression steps (live states × characters). */
export interface RegexBudget {
  steps: number;
}

/** Steps of regular-expression matching one request may take: about a tenth of a second of CPU. */
export const REGEX_STEPS_PER_REQUEST = 1_000_000;
/** PostgreSQL's largest repeat count (RE_DUP_MAX). */
const MAX_REPEAT = 255;

type CharTest = (c: string) => boolean;

type Node =
  | { k: 'char'; test: CharTest }
  | { k: 'cat'; parts: Node[] }
  | { k: 'alt'; options: Node[] }
  | { k: 'repeat'; body: Node; min: number; max: number } // max Infinity: unbounded
  | { k: 'bol' }
  | { k: 'eol' };

const EMPTY: Node = { k: 'cat', parts: [] };

function fail(message: string): never {
  throw new GraphQLError(`invalid regular expression: ${message}`);
}

const CLASSES: Record<string, CharTest> = {
  alpha: (c) => /\p{L}/u.test(c),
  digit: (c) => c >= '0' && c <= '9',
  alnum: (c) => /[\p{L}\p{N}]/u.test(c),
  upper: (c) => /\p{Lu}/u.test(c),
  lower: (c) => /\p{Ll}/u.test(c),
  space: (c) => /\s/u.test(c),
  punct: (c) => /\p{P}/u.test(c),
  xdigit: (c) => /[0-9a-fA-F]/.test(c),
  word: (c) => /[\p{L}\p{N}_]/u.test(c),
};

/** `\d \w \s` and their upper-case negations; undefined for any other escape. */
function shorthand(e: string): CharTest | undefined {
  const base = { d: CLASSES.digit!, w: CLASSES.word!, s: CLASSES.space! }[e.toLowerCase()];
  if (base === undefined) return undefined;
  return e === e.toLowerCase() ? base : (c) => !base(c);
}

class Parser {
  private i = 0;
  constructor(private readonly src: string[]) {}

  parse(): Node {
    const n = this.alternation();
    if (this.i < this.src.length) fail(`unmatched ) at ${this.i}`);
    return n;
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  private alternation(): Node {
    const options = [this.concatenation()];
    while (this.peek() === '|') {
      this.i++;
      options.push(this.concatenation());
    }
    return options.length === 1 ? options[0]! : { k: 'alt', options };
  }

  private concatenation(): Node {
    const parts: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      parts.push(this.quantified(this.atom()));
    }
    return parts.length === 1 ? parts[0]! : { k: 'cat', parts };
  }

  private quantified(atom: Node): Node {
    let node = atom;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === '*') [min, max] = [0, Infinity];
      else if (c === '+') [min, max] = [1, Infinity];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{' && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.i, this.i + 12).join(''))) {
        const text = this.src.slice(this.i).join('');
        const m = /^\{(\d+)(,(\d*))?\}/.exec(text)!;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT))
          fail(`repeat count over ${MAX_REPEAT}`);
        if (max < min) fail('repeat bounds out of order');
        this.i += m[0].length - 1;
      } else return node;
      this.i++;
      if (this.peek() === '?') this.i++; // lazy: the same set of matching strings
      if (node.k === 'bol' || node.k === 'eol') fail('quantifier after an anchor');
      node = { k: 'repeat', body: node, min, max };
    }
  }

  private atom(): Node {
    const c = this.src[this.i++]!;
    switch (c) {
      case '.':
        return { k: 'char', test: () => true };
      case '^':
        return { k: 'bol' };
      case '$':
        return { k: 'eol' };
      case '[':
        return { k: 'char', test: this.bracket() };
      case '(': {
        if (this.peek() === '?') {
          if (this.src[this.i + 1] !== ':') fail('lookaround and inline options are not supported');
          this.i += 2;
        }
        const inner = this.alternation();
        if (this.src[this.i++] !== ')') fail('unmatched (');
        return inner;
      }
      case '*':
      case '+':
      case '?':
        return fail(`quantifier ${c} without an operand`);
      case '\\': {
        const e = this.src[this.i++];
        if (e === undefined) fail('trailing backslash');
        if (/[1-9]/.test(e)) fail('backreferences are not supported');
        const sh = shorthand(e);
        if (sh) return { k: 'char', test: sh };
        const lit = { n: '\n', t: '\t', r: '\r' }[e] ?? e;
        return { k: 'char', test: (x) => x === lit };
      }
      default:
        return { k: 'char', test: (x) => x === c };
    }
  }

  /** `[...]` after the `[`: members, ranges, `[:class:]`, a leading `^` negates, a leading `]` is literal. */
  private bracket(): CharTest {
    const tests: CharTest[] = [];
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.i++;
    }
    let first = true;
    for (;;) {
      const c = this.src[this.i++];
      if (c === undefined) fail('unmatched [');
      if (c === ']' && !first) break;
      first = false;
      if (c === '[' && this.peek() === ':') {
        const rest = this.src.slice(this.i).join('');
        const m = /^:([a-z]+):\]/.exec(rest);
        const cls = m ? CLASSES[m[1]!] : undefined;
        if (!m || !cls) fail('unknown character class');
        tests.push(cls);
        this.i += m[0].length;
        continue;
      }
      let lo = c;
      if (c === '\\') {
        const e = this.src[this.i++];
        if (e === undefined) fail('unmatched [');
        const sh = shorthand(e);
        if (sh) {
          tests.push(sh);
          continue;
        }
        lo = e;
      }
      if (this.peek() === '-' && this.src[this.i + 1] !== undefined && this.src[this.i + 1] !== ']') {
        this.i++;
        let hi = this.src[this.i++]!;
        if (hi === '\\') hi = this.src[this.i++] ?? fail('unmatched [');
        if (hi < lo) fail('range out of order');
        tests.push((x) => x >= lo && x <= hi);
      } else tests.push((x) => x === lo);
    }
    return negate ? (x) => !tests.some((t) => t(x)) : (x) => tests.some((t) => t(x));
  }
}

// ---------------------------------------------------------------- the automaton

type Instr =
  | { op: 'char'; test: CharTest }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'bol' }
  | { op: 'eol' }
  | { op: 'match' };

function compile(node: Node, prog: Instr[]): void {
  if (prog.length > MAX_PROGRAM) fail('pattern too large');
  switch (node.k) {
    case 'char':
      prog.push({ op: 'char', test: node.test });
      return;
    case 'bol':
    case 'eol':
      prog.push({ op: node.k });
      return;
    case 'cat':
      for (const p of node.parts) compile(p, prog);
      return;
    case 'alt': {
      const jumps: { op: 'jmp'; x: number }[] = [];
      for (let k = 0; k < node.options.length - 1; k++) {
        const split = { op: 'split' as const, x: prog.length + 1, y: 0 };
        prog.push(split);
        compile(node.options[k]!, prog);
        const j = { op: 'jmp' as const, x: 0 };
        jumps.push(j);
        prog.push(j);
        split.y = prog.length;
      }
      compile(node.options.at(-1)!, prog);
      for (const j of jumps) j.x = prog.length;
      return;
    }
    case 'repeat': {
      for (let k = 0; k < node.min; k++) compile(node.body, prog);
      if (node.max === Infinity) {
        // L: split body, out; body; jmp L
        const at = prog.length;
        const split = { op: 'split' as const, x: at + 1, y: 0 };
        prog.push(split);
        compile(node.body, prog);
        prog.push({ op: 'jmp', x: at });
        split.y = prog.length;
      } else {
        const splits: { op: 'split'; x: number; y: number }[] = [];
        for (let k = node.min; k < node.max; k++) {
          const split = { op: 'split' as const, x: prog.length + 1, y: 0 };
          splits.push(split);
          prog.push(split);
          compile(node.body, prog);
        }
        for (const s of splits) s.y = prog.length;
      }
      return;
    }
  }
}

function overBudget(): never {
  throw new GraphQLError('Regular-expression filters exceed the work one request may do; narrow the query');
}

/** A compiled pattern: `test(text)` runs in text length × program size steps, charged to `budget`. */
export interface LinearRegex {
  test(text: string, budget: RegexBudget): boolean;
}

/**
 * Compiles `pattern`; `anchored` matches the whole text (SIMILAR TO), otherwise a match anywhere
 * (PostgreSQL's `~`). `caseless` compares characters without case (`~*`).
 */
export function linearRegex(pattern: string, opts: { anchored: boolean; caseless: boolean }): LinearRegex {
  const tree = new Parser(Array.from(pattern)).parse();
  const prog: Instr[] = [];
  compile(tree ?? EMPTY, prog);
  if (prog.length > MAX_PROGRAM) fail('pattern too large');
  prog.push({ op: 'match' });
  const n = prog.length;
  return {
    test(text: string, budget: RegexBudget): boolean {
      const chars = Array.from(text);
      let current: number[] = [];
      let next: number[] = [];
      const seen = new Uint32Array(n); // generation marks: a state joins a list once per step
      let generation = 0;
      // Follows jumps, splits and anchors from `pc` at position `pos`; true when Match is reached.
      // Every state visited is a step of the budget.
      const add = (list: number[], start: number, pos: number): boolean => {
        const stack = [start];
        while (stack.length > 0) {
          const pc = stack.pop()!;
          if (seen[pc] === generation) continue;
          seen[pc] = generation;
          if (--budget.steps < 0) overBudget();
          const ins = prog[pc]!;
          switch (ins.op) {
            case 'jmp':
              stack.push(ins.x);
              break;
            case 'split':
              stack.push(ins.y, ins.x);
              break;
            case 'bol':
              if (pos === 0) stack.push(pc + 1);
              break;
            case 'eol':
              if (pos === chars.length) stack.push(pc + 1);
              break;
            case 'match':
              if (!opts.anchored || pos === chars.length) return true;
              break;
            default:
              list.push(pc);
          }
        }
        return false;
      };
      generation++;
      if (add(current, 0, 0)) return true;
      for (let pos = 0; pos < chars.length; pos++) {
        budget.steps -= current.length;
        if (budget.steps < 0) overBudget();
        const c = chars[pos]!;
        const lower = opts.caseless ? c.toLowerCase() : c;
        const upper = opts.caseless ? c.toUpperCase() : c;
        generation++;
        next.length = 0;
        for (const pc of current) {
          const ins = prog[pc] as { op: 'char'; test: CharTest };
          if (ins.test(c) || (opts.caseless && (ins.test(lower) || ins.test(upper)))) {
            if (add(next, pc + 1, pos + 1)) return true;
          }
        }
        // Unanchored: a match may also start at the next position.
        if (!opts.anchored && add(next, 0, pos + 1)) return true;
        [current, next] = [next, current];
        if (current.length === 0 && opts.anchored) return false;
      }
      return false;
    },
  };
}

/**
 * SQL `SIMILAR TO`'s pattern as this module's syntax: `%` any run, `_` any one character, `\`
 * escapes; `| * + ? { } ( ) [ ]` are regular-expression operators, while `.`, `^` and `$` stand for
 * themselves. The match is over the whole text (`anchored`).
 */
export function similarToRegex(pattern: string): string {
  let out = '';
  let inBracket = false;
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      const e = chars[++i];
      if (e === undefined) fail('SIMILAR TO pattern must not end with escape character');
      out += /[A-Za-z0-9]/.test(e) ? e : `\\${e}`;
    } else if (inBracket) {
      if (c === ']') inBracket = false;
      out += c;
    } else if (c === '[') {
      inBracket = true;
      out += c;
      if (chars[i + 1] === '^') out += chars[++i];
      if (chars[i + 1] === ']') out += chars[++i];
    } else if (c === '%') out += '.*';
    else if (c === '_') out += '.';
    else if (c === '.' || c === '^' || c === '$') out += `\\${c}`;
    else out += c;
  }
  return out;
}

/** The regular expressions of one request: its step budget and each pattern compiled once. */
export interface RegexState {
  budget: RegexBudget;
  compiled: Map<string, LinearRegex>;
}

export function newRegexState(): RegexState {
  return { budget: { steps: REGEX_STEPS_PER_REQUEST }, compiled: new Map() };
}

/**
 * Whether `text` matches `pattern` under a filter operator: `_regex`/`_nregex` (PostgreSQL `~`),
 * `_iregex`/`_niregex` (`~*`), `_similar`/`_nsimilar` (SIMILAR TO); the negated forms are the
 * caller's to invert.
 */
export function regexMatch(state: RegexState, op: string, text: string, pattern: string): boolean {
  const similar = op.endsWith('similar');
  const caseless = op.endsWith('iregex');
  const key = `${similar ? 's' : caseless ? 'i' : 'r'}\u0000${pattern}`;
  let re = state.compiled.get(key);
  if (re === undefined) {
    re = linearRegex(similar ? similarToRegex(pattern) : pattern, { anchored: similar, caseless });
    state.compiled.set(key, re);
  }
  return re.test(text, state.budget);
}
