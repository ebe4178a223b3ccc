import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isUuid, uuidFor, uuidv7 } from '../../src/ids.ts';

describe('uuidv7 (RFC 9562 §5.7)', () => {
  it('has the UUID text form, version 7 and the RFC variant', () => {
    for (let i = 0; i < 1000; i++) {
      const id = uuidv7(1_800_000_000_000 + i);
      assert.ok(isUuid(id), id);
      assert.equal(id.length, 36);
      assert.equal(id[14], '7');
      assert.ok('89ab'.includes(id[19]!), id);
    }
  });

  it('carries the millisecond timestamp in its first 48 bits', () => {
    const ms = 1_800_000_123_456;
    const id = uuidv7(ms);
    assert.equal(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16), ms);
  });

  it('sorts in creation order, within one millisecond too, and never repeats', () => {
    const ids: string[] = [];
    const t = Date.now() + 10_000_000; // ahead of every id minted so far in this process
    for (let i = 0; i < 5000; i++) ids.push(uuidv7(t + Math.floor(i / 1000)));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
  });
});

describe('isUuid: the one definition of a well-formed id (docs/http.md "Identifiers")', () => {
  it('takes the RFC 9562 text form in either case, any version and variant', () => {
    for (const id of [
      uuidv7(),
      uuidFor('a', 1),
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '0190F000-0000-7000-8000-000000000001',
      '0190a000-0000-0000-c000-000000000001',
    ])
      assert.ok(isUuid(id), id);
  });
  it('refuses every other form', () => {
    for (const id of [
      '',
      'not-a-uuid',
      'urn:uuid:00000000-0000-4000-8000-000000000000',
      '{00000000-0000-4000-8000-000000000000}',
      '00000000000040008000000000000000',
      '00000000-0000-4000-8000-00000000000g',
      '00000000-0000-4000-8000-0000000000000',
      ' 00000000-0000-4000-8000-000000000000',
      42,
      null,
    ])
      assert.ok(!isUuid(id), String(id));
  });
});
