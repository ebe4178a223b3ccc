import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { IdIndex } from '../../src/exchange/id-index.ts';

test('IdIndex behaves like a Map under random inserts and deletes (growth, backward-shift deletion)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 3000 })), { maxLength: 4000 }),
      (ops) => {
        const keys: string[] = [];
        const idx = new IdIndex(keys);
        const ref = new Map<string, number>();
        for (const [add, k] of ops) {
          const id = `id-${k}`;
          if (add && !ref.has(id)) {
            const h = keys.length;
            keys.push(id);
            // As the engine does: hash once at insert, remove by (hash, handle).
            idx.setHashed(IdIndex.hashOf(id), h);
            ref.set(id, h);
          } else if (!add) {
            // lookups use a distinct string object with the same content, like JSON input; the
            // handle to remove comes from the reference model (-1 when absent, matching no slot)
            const probe = ` ${id}`.slice(1);
            const h = ref.get(probe) ?? -1;
            assert.equal(idx.get(probe), h);
            assert.equal(idx.deleteHashed(IdIndex.hashOf(probe), h), ref.delete(probe));
            assert.equal(idx.get(probe), -1);
          }
        }
        assert.equal(idx.size, ref.size);
        for (const [id, h] of ref) assert.equal(idx.get(id), h);
        assert.equal(idx.get('absent'), -1);
      },
    ),
    { numRuns: 40, seed: 7 },
  );
});
