import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { IdIndex } from '../../src/exchange/id-index.ts';
import { I_HASH, I_TIF, IW, OrderPool } from '../../src/exchange/order-pool.ts';

/** Canonical UUIDs (kept as four words) and other strings (kept as strings), mixed. */
const idOf = (k: number): string =>
  k % 3 === 0
    ? `id-${k}`
    : `0190f000-${(k % 65536).toString(16).padStart(4, '0')}-7000-8000-${k.toString(16).padStart(12, '0')}`;

test('IdIndex behaves like a Map under random inserts and deletes (growth, backward-shift deletion)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3000 })), { maxLength: 4000 }),
      (ops) => {
        const pool = new OrderPool(16);
        const idx = new IdIndex(pool);
        const ref = new Map<string, number>();
        for (const [add, k] of ops) {
          const id = idOf(k);
          if (add && !ref.has(id)) {
            // As the engine does: parse once (lookup misses), then store the key at the new handle.
            const hash = idx.key(id);
            assert.equal(idx.findKey(hash), -1);
            const h = pool.alloc();
            pool.i32[h * IW + I_TIF] = 0;
            idx.insertKey(hash, h);
            ref.set(id, h);
          } else if (!add) {
            // lookups use a distinct string object with the same content, like JSON input; the
            // handle to remove comes from the reference model (-1 when absent, matching no slot)
            const probe = ` ${id}`.slice(1);
            const h = ref.get(probe) ?? -1;
            assert.equal(idx.get(probe), h);
            if (h >= 0) assert.equal(idx.idOf(h), id);
            const hash = h >= 0 ? pool.i32[h * IW + I_HASH]! : 0;
            assert.equal(idx.deleteHashed(hash, h), ref.delete(probe));
            if (h >= 0) pool.release(h);
            assert.equal(idx.get(probe), -1);
          }
        }
        assert.equal(idx.size, ref.size);
        for (const [id, h] of ref) {
          assert.equal(idx.get(id), h);
          assert.equal(idx.idOf(h), id);
        }
        assert.equal(idx.get('absent'), -1);
      },
    ),
    { numRuns: 40, seed: 7 },
  );
});

test('only canonical lower-case UUIDs are kept as words; every id formats back to itself', () => {
  const pool = new OrderPool(16);
  const idx = new IdIndex(pool);
  const ids = [
    '0190f000-0000-7000-8000-000000000001',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '00000000-0000-0000-0000-000000000000',
    '0190F000-0000-7000-8000-000000000001', // upper case: a different id, kept as a string
    '0190f000-0000-7000-8000-00000000000g',
    '0190f000-0000-7000-8000_000000000001',
    '0190f000-0000-7000-8000-0000000000011',
    'é190f000-0000-7000-8000-000000000001',
    '',
    'o1',
  ];
  for (const id of ids) {
    const hash = idx.key(id);
    assert.equal(idx.findKey(hash), -1, id);
    const h = pool.alloc();
    pool.i32[h * IW + I_TIF] = 0;
    idx.insertKey(hash, h);
  }
  for (let h = 0; h < ids.length; h++) {
    assert.equal(idx.idOf(h), ids[h]);
    assert.equal(idx.get(ids[h]!), h);
  }
  assert.equal(pool.strIds.size, ids.length - 3);
});
