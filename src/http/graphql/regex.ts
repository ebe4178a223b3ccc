// Regular expressions of /v1/graphql's `_regex`, `_iregex`, `_nregex`, `_niregex`, `_similar` and
// `_nsimilar` (docs/graphql.md "Scalars and filters"). The pattern comes from any anonymous client,
// and JavaScript's RegExp backtracks: `(a+)+$` against a line of `a`s takes exponential time and
// would stall every request of the process. So patterns run on re2js, a port of RE2, whose
// automata take time linear in the text: at most program size × text length steps, whatever the
// pattern. Linear is not free, so this module bounds what RE2 is given (pattern length, program
// size) and charges every compile and every match to the request's budget (`RegexBudget`) before
// it runs. RE2's syntax covers what PostgreSQL's `~` takes in practice (brackets and
// `[:class:]`, `\d \w \s`, counted repeats, `(?: )`, lazy forms); it is run with PostgreSQL's
// defaults: `.` matches a newline, `^` and `$` only at the ends of the text. Backreferences and
// lookaround cannot run in linear time: RE2 refuses them, and so do the errors here, by name.

import { GraphQLError } from 'graphql';
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

/** Longest pattern accepted, in characters: filters are short; compile time grows with length. */
export const MAX_PATTERN_LENGTH = 1_000;
/** Most instructions a compiled pattern may have (counted repeats copy their operand). */
const MAX_PROGRAM = 5_000;
/** PostgreSQL's largest repeat count (RE_DUP_MAX); RE2 would take up to 1,000. */
const MAX_REPEAT = 255;

/** What one request may still spend on regular expressions, in steps (instructions × characters). */
export interface RegexBudget {
  steps: number;
}

/**
 * Steps one request may spend. A step is one program instruction over one character, the most
 * RE2's slowest path (its NFA, once the DFA's cache gives up) does per character: tens of
 * nanoseconds at worst, so the budget is a few tenths of a second of CPU at worst, and far less on
 * the DFA that most patterns stay on. A short pattern over 40-character texts gets about 20,000
 * rows (docs/graphql.md has the measurements).
 */
export const REGEX_STEPS_PER_REQUEST = 4_000_000;
/** Steps charged per pattern character for compiling it: RE2 takes tens of µs a character, as many steps do. */
const COMPILE_STEPS_PER_CHAR = 1_000;

function fail(message: string): never {
  throw new GraphQLError(`invalid regular expression: ${message}`);
}

function overBudget(): never {
  throw new GraphQLError('Regular-expression filters exceed the work one request may do; narrow the query');
}

/** The index of the `]` closing the bracket expression opened at `open` (POSIX: a leading `]` is a member). */
function bracketEnd(chars: string[], open: number): number {
  let i = open + 1;
  if (chars[i] === '^') i++;
  if (chars[i] === ']') i++;
  for (; i < chars.length && chars[i] !== ']'; i++) {
    if (chars[i] === '\\') i++;
    else if (chars[i] === '[' && chars[i + 1] === ':') {
      const close = chars.indexOf(']', i + 2);
      if (close > 0) i = close;
    }
  }
  return i;
}

/**
 * Refuses, before RE2 compiles it, a pattern whose program would be too large or whose repeat
 * counts PostgreSQL refuses. RE2 expands `x{n}` into n copies of x while compiling, so a short
 * pattern can be huge (1,000 characters of `a{250}` are 40,000 instructions, most of a second to
 * compile); this
 * pass estimates the expanded size from the pattern's text (groups, operands and counts only),
 * leaving every question of syntax to RE2.
 */
function checkExpansion(pattern: string): void {
  const chars = Array.from(pattern);
  const outer: number[] = []; // size so far of each enclosing group
  let size = 0; // of the group being read
  let last = 0; // of its last operand, which a repeat copies
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const count = c === '{' ? /^\{(\d+)(?:,(\d*))?\}/.exec(chars.slice(i, i + 12).join('')) : null;
    if (c === '(') {
      outer.push(size);
      size = 0;
      last = 0;
    } else if (c === ')') {
      last = size;
      size = (outer.pop() ?? 0) + size;
    } else if (count) {
      const min = Number(count[1]);
      const max = count[2] === undefined ? min : count[2] === '' ? min + 1 : Number(count[2]);
      if (Math.max(min, max) > MAX_REPEAT) fail(`repeat count over ${MAX_REPEAT}`);
      size += last * (Math.max(min, max) - 1);
      last *= Math.max(min, max);
      i += count[0].length - 1;
    } else {
      if (c === '\\') i++;
      else if (c === '[') i = bracketEnd(chars, i);
      size++;
      last = c === '|' ? 0 : 1;
    }
    if (size > MAX_PROGRAM) fail('pattern too large');
  }
}

/** RE2's syntax errors as this endpoint's messages: why a pattern is refused, in PostgreSQL's terms. */
function refusal(e: RE2JSSyntaxException): string {
  const at = e.getPattern() ?? '';
  switch (e.getDescription()) {
    case 'missing closing )':
      return 'unmatched (';
    case 'unexpected )':
      return 'unmatched )';
    case 'invalid escape sequence':
      if (/^\\[1-9]/.test(at)) return 'backreferences are not supported (they cannot run in linear time)';
      break;
    case 'invalid or unsupported Perl syntax':
    case 'invalid named capture':
      if (/^\(\?<?[=!]/.test(at)) return 'lookaround is not supported (it cannot run in linear time)';
      break;
    case 'missing argument to repetition operator':
      return `quantifier ${at} without an operand`;
    case 'invalid character class range':
      return at.startsWith('[:') ? `unknown character class ${at}` : `range ${at} out of order or invalid`;
  }
  return `${e.getDescription()}${at ? `: ${at}` : ''}`;
}

/** A compiled pattern: `test(text)` charges program size × (text length + 1) steps to `budget`. */
export interface LinearRegex {
  test(text: string, budget: RegexBudget): boolean;
}

/**
 * Compiles `pattern` (its length is the caller's to bound, as `regexMatch` does); `anchored`
 * matches the whole text (SIMILAR TO), otherwise a match anywhere (PostgreSQL's `~`). `caseless`
 * compares characters without case (`~*`).
 */
export function linearRegex(pattern: string, opts: { anchored: boolean; caseless: boolean }): LinearRegex {
  checkExpansion(pattern);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, RE2JS.DOTALL | (opts.caseless ? RE2JS.CASE_INSENSITIVE : 0));
  } catch (e) {
    if (e instanceof RE2JSSyntaxException) fail(refusal(e));
    // RE2's other refusals (a program it will not build) are the pattern's fault too, never a 5xx.
    if (e instanceof RE2JSException) fail(e.message);
    throw e;
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM) fail('pattern too large');
  return {
    test(text: string, budget: RegexBudget): boolean {
      budget.steps -= size * (text.length + 1);
      if (budget.steps < 0) overBudget();
      return opts.anchored ? re.testExact(text) : re.test(text);
    },
  };
}

/**
 * SQL `SIMILAR TO`'s pattern as RE2's syntax: `%` any run, `_` any one character, `\` escapes;
 * `| * + ? { } ( ) [ ]` are regular-expression operators, while `.`, `^` and `$` stand for
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
      out += RE2JS.quote(e);
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
 * caller's to invert. A pattern's first use pays for its compile.
 */
export function regexMatch(state: RegexState, op: string, text: string, pattern: string): boolean {
  const similar = op.endsWith('similar');
  const caseless = op.endsWith('iregex');
  const key = `${similar ? 's' : caseless ? 'i' : 'r'}\u0000${pattern}`;
  let re = state.compiled.get(key);
  if (re === undefined) {
    // The client's own text is measured: SIMILAR TO's translation may be longer.
    if (pattern.length > MAX_PATTERN_LENGTH) fail(`pattern longer than ${MAX_PATTERN_LENGTH} characters`);
    state.budget.steps -= pattern.length * COMPILE_STEPS_PER_CHAR;
    if (state.budget.steps < 0) overBudget();
    re = linearRegex(similar ? similarToRegex(pattern) : pattern, { anchored: similar, caseless });
    state.compiled.set(key, re);
  }
  return re.test(text, state.budget);
}
