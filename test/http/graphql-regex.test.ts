// The linear-time regular expressions of /v1/graphql's `_regex`, `_iregex` and `_similar` filters
// (src/http/graphql/regex.ts, on RE2): what they match against JavaScript's RegExp on the same
// patterns, SIMILAR TO's translation, the patterns they refuse, the time a pathological pattern
// takes, and the per-request step budget.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  linearRegex,
  MAX_PATTERN_LENGTH,
  newRegexState,
  REGEX_STEPS_PER_REQUEST,
  regexMatch,
  similarToRegex,
} from '../../src/http/graphql/regex.ts';

const plenty = () => ({ steps: 1e9 });
const search = (p: string, text: string, caseless = false) =>
  linearRegex(p, { anchored: false, caseless }).test(text, plenty());
const similar = (p: string, text: string) =>
  linearRegex(similarToRegex(p), { anchored: true, caseless: false }).test(text, plenty());

describe('linear regular expressions', () => {
  test('match as JavaScript RegExp does on the common syntax', () => {
    const patterns = [
      '^ab+c$',
      'b+',
      '^[A-Z]\\d{2,3}$',
      'cat|dog',
      '[^a-c]',
      'a.c',
      '(?:ab){2}',
      'x?y*z+',
      '[[:digit:]]+',
      '^$',
      '\\w+\\s\\W',
    ];
    const texts = [
      'abbbc',
      'ac',
      'X123',
      'X1234',
      'hotdog',
      'abc',
      'a\nc',
      'xabab',
      'zz',
      '',
      'abc1',
      'hi !',
    ];
    for (const p of patterns) {
      const js = new RegExp(p.replace('[[:digit:]]', '[0-9]'), 's');
      for (const t of texts) assert.equal(search(p, t), js.test(t), `${p} on ${JSON.stringify(t)}`);
    }
    assert.equal(search('^hello', 'HELLO world', true), true);
    assert.equal(search('^hello', 'HELLO world'), false);
  });

  test('SIMILAR TO: whole text, % and _, regex operators, literal dots', () => {
    assert.equal(similar('%(b|d)%', 'abc'), true);
    assert.equal(similar('a_c', 'abc'), true);
    assert.equal(similar('a.c', 'abc'), false);
    assert.equal(similar('a.c', 'a.c'), true);
    assert.equal(similar('(a|b)*', 'abba'), true);
    assert.equal(similar('abc', 'xabc'), false);
    assert.equal(similar('100\\%', '100%'), true);
    assert.equal(similar('[_%]x', '_x'), true);
  });

  test('patterns that cannot run in linear time, or are not patterns, are refused', () => {
    for (const [bad, why] of [
      ['(a', /unmatched \(/],
      ['a)', /unmatched \)/],
      ['(a)\\1', /backreference/],
      ['(?=a)', /lookaround/],
      ['(?!a)', /lookaround/],
      ['(?<=a)b', /lookaround/],
      ['(?<!a)b', /lookaround/],
      ['*a', /without an operand/],
      ['[z-a]', /out of order/],
      ['a{300}', /over 255/],
      ['[[:nope:]]', /character class/],
      ['(a{200}){200}', /too large/],
    ] as const) {
      assert.throws(() => linearRegex(bad, { anchored: false, caseless: false }), why, bad);
    }
  });

  test('a pattern that backtracks exponentially in RegExp runs in linear time', () => {
    const re = linearRegex('^(a+)+$', { anchored: false, caseless: false });
    const t0 = performance.now();
    assert.equal(re.test(`${'a'.repeat(20_000)}b`, plenty()), false);
    assert.equal(re.test('a'.repeat(20_000), plenty()), true);
    assert.ok(performance.now() - t0 < 5_000);
  });

  test('^(a+)+$ against 100,000 a and a b answers within 200 ms on the request path', () => {
    // RegExp would take exponential time here; the request's own budget is enough for it.
    const text = `${'a'.repeat(100_000)}b`;
    const state = newRegexState();
    const t0 = performance.now();
    assert.equal(regexMatch(state, '_regex', text, '^(a+)+$'), false);
    const ms = performance.now() - t0;
    assert.ok(ms < 200, `took ${ms.toFixed(1)} ms`);
    assert.equal(regexMatch(state, '_regex', 'a'.repeat(100_000), '^(a+)+$'), true);
  });

  test('a pattern over the length limit is refused; each new pattern pays for its compile', () => {
    assert.throws(
      () => regexMatch(newRegexState(), '_regex', 'x', 'a'.repeat(MAX_PATTERN_LENGTH + 1)),
      /longer than 1000 characters/,
    );
    const state = newRegexState();
    assert.equal(regexMatch(state, '_regex', 'xay', 'a'.repeat(10)), false);
    const afterCompile = state.budget.steps;
    assert.ok(afterCompile <= REGEX_STEPS_PER_REQUEST - 10 * 1_000);
    // The same pattern again is not compiled again: only the match is charged.
    regexMatch(state, '_regex', 'xay', 'a'.repeat(10));
    assert.ok(state.budget.steps > afterCompile - 100);
    // Distinct long patterns exhaust the budget on compiling alone.
    assert.throws(() => {
      for (let k = 0; k < 10; k++)
        regexMatch(state, '_regex', 'x', `${k}${'a'.repeat(MAX_PATTERN_LENGTH - 1)}`);
    }, /work one request may do/);
  });

  test('every step is charged to the budget; an exhausted budget is an error', () => {
    const budget = { steps: 1_000 };
    const re = linearRegex('(.*)*x', { anchored: false, caseless: false });
    assert.throws(() => re.test('y'.repeat(10_000), budget), /work one request may do/);
    const small = { steps: 1_000 };
    assert.equal(linearRegex('b', { anchored: false, caseless: false }).test('ab', small), true);
    assert.ok(small.steps < 1_000 && small.steps > 990);
  });
});
