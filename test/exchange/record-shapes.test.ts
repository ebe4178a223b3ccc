// Order records and fills hold their times as tagged fields pointing at one number per command
// time (records.ts TAGGED_TIME_SHAPES, state.ts `now`; docs/bench-engine.md "Shared times"). That
// works only while the two objects records.ts builds at load list the keys of the records the engine
// builds, in the same order: these tests hold it for every literal that builds them (a placement's
// OrderPlaced, a fill of each side, an amend's and a cancel's record from the pool), and that the
// times are the command's whichever way the record was built.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TAGGED_TIME_SHAPES } from '../../src/exchange/records.ts';
import type { DomainEvent, Fill, OrderRecord } from '../../src/exchange/types.ts';
import { bid, ok, setup, T0 } from './fixtures.ts';

const [ORDER_SHAPE, FILL_SHAPE] = TAGGED_TIME_SHAPES as [object, object];

function orders(evs: DomainEvent[]): OrderRecord[] {
  const out: OrderRecord[] = [];
  for (const e of evs)
    if (e.kind === 'OrderPlaced' || e.kind === 'OrderAmended' || e.kind === 'OrderCanceled')
      out.push(e.order);
  return out;
}

function fills(evs: DomainEvent[]): Fill[] {
  const out: Fill[] = [];
  for (const e of evs) if (e.kind === 'OrderFilled') out.push(e.fill);
  return out;
}

describe('record shapes', () => {
  test('every order record and fill has the keys of its shape, in order, and the command time', () => {
    const x = setup();
    const placeTs = T0 + 500;
    const placed = ok(x.apply({ ...bid('alice', 'M1-a', 450, 10, { orderId: 'a1' }), ts: placeTs }));
    const crossTs = T0 + 600;
    const crossed = ok(x.apply({ ...bid('bob', 'M1-b', 550, 4, { orderId: 'b1' }), ts: crossTs }));
    const amendTs = T0 + 700;
    const amended = ok(
      x.apply({ type: 'AmendOrder', ts: amendTs, accountId: 'alice', orderId: 'a1', qty: 3 }),
    );
    const moveTs = T0 + 800;
    const moved = ok(
      x.apply({ type: 'AmendOrder', ts: moveTs, accountId: 'alice', orderId: 'a1', price: 440 }),
    );
    const cancelTs = T0 + 900;
    const canceled = ok(x.apply({ type: 'CancelOrder', ts: cancelTs, accountId: 'alice', orderId: 'a1' }));

    const cases: [DomainEvent[], number, number][] = [
      [placed, placeTs, placeTs],
      [crossed, crossTs, crossTs],
      [amended, placeTs, amendTs],
      [moved, placeTs, moveTs],
      [canceled, placeTs, cancelTs],
    ];
    for (const [evs, createdAt, updatedAt] of cases) {
      const recs = orders(evs);
      assert.ok(recs.length > 0);
      for (const r of recs) {
        assert.deepEqual(Object.keys(r), Object.keys(ORDER_SHAPE));
        if (r.id === 'a1') {
          assert.equal(r.createdAt, createdAt);
          assert.equal(r.updatedAt, updatedAt);
        } else {
          assert.equal(r.createdAt, crossTs); // b1, filled in full by its placement
          assert.equal(r.updatedAt, crossTs);
        }
      }
    }
    const fs = fills(crossed);
    assert.deepEqual(
      fs.map((f) => f.isTaker),
      [false, true],
    );
    for (const f of fs) {
      assert.deepEqual(Object.keys(f), Object.keys(FILL_SHAPE));
      assert.equal(f.ts, crossTs);
    }
  });

  test('an open-order query between commands reads the pool times', () => {
    const x = setup();
    ok(x.apply({ ...bid('alice', 'M1-a', 450, 10, { orderId: 'q1' }), ts: T0 + 5 }));
    ok(x.apply({ ...bid('bob', 'M1-a', 440, 10, { orderId: 'q2' }), ts: T0 + 6 }));
    const rec = x.order('q1');
    assert.ok(rec !== undefined);
    assert.deepEqual(Object.keys(rec), Object.keys(ORDER_SHAPE));
    assert.equal(rec.createdAt, T0 + 5);
    assert.equal(rec.updatedAt, T0 + 5);
  });
});
