// The idempotency window (docs/exchange.md "Idempotency window", src/exchange/client-order-ids.ts):
// a clientOrderId is kept while its order is open and at least one window after its placement; the
// first ExpireClientOrderIds starts a generation; once a window has passed, the due ones sweep the
// older generation in chunks (open orders' keys kept, the rest dropped with their placed terms),
// then age the current one. The same through snapshot and restore (mid-sweep too) and on replay without events.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';
import { assertInvariants, bid, ok, rejected, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol'];
const HOUR = 3_600_000;
const expireKeys = (ts: number, max = 1_000, windowMs = HOUR): Command => ({
  type: 'ExpireClientOrderIds',
  ts,
  windowMs,
  max,
});
const cancel = (accountId: string, orderId: string): Command => ({
  type: 'CancelOrder',
  ts: T0 + 100,
  accountId,
  orderId,
});
/** Applies the ageing until nothing is due at `ts`; returns how many commands were accepted. */
function ageAll(x: Exchange, ts: number, max = 1_000): number {
  let n = 0;
  while (x.clientOrderIdsDue(ts, HOUR)) {
    ok(x.apply(expireKeys(ts, max)));
    n++;
    assert.ok(n < 10_000, 'the ageing ends');
  }
  return n;
}
const restored = (x: Exchange): Exchange => {
  const y = new Exchange();
  y.restore(x.snapshot());
  assert.equal(y.hash(), x.hash());
  return y;
};

describe('idempotency window', () => {
  test('bad input is refused and changes nothing', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'A', clientOrderId: 'k' })));
    const before = x.hash();
    rejected(x.apply(expireKeys(T0, 0)), 'VALIDATION_FAILED');
    rejected(x.apply(expireKeys(T0, 100_001)), 'VALIDATION_FAILED');
    rejected(x.apply(expireKeys(T0, 1.5)), 'VALIDATION_FAILED');
    rejected(x.apply(expireKeys(T0, 10, 0)), 'VALIDATION_FAILED');
    rejected(x.apply(expireKeys(T0, 10, -HOUR)), 'VALIDATION_FAILED');
    assert.equal(x.hash(), before);
  });

  test('nothing is due before any key, then once to start, then only after the window', () => {
    const x = setup();
    assert.equal(x.clientOrderIdsDue(T0, HOUR), false, 'no key anywhere');
    const plain = x.hash();
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'A', clientOrderId: 'k' })));
    assert.equal(x.clientOrderIdsDue(T0, HOUR), true, 'a key: the first generation may start');
    ok(x.apply(expireKeys(T0 + 10)));
    assert.equal(x.clientOrderIdsDue(T0 + 10 + HOUR - 1, HOUR), false);
    rejected(x.apply(expireKeys(T0 + 10 + HOUR - 1)), 'VALIDATION_FAILED');
    assert.equal(x.clientOrderIdsDue(T0 + 10 + HOUR, HOUR), true);
    assert.notEqual(plain, x.hash());
  });

  test('a closed order’s key lives at least a window after placement, then is free again', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A', clientOrderId: 'k1' })));
    ok(x.apply(expireKeys(T0 + 1_000))); // generation 1 starts
    ok(x.apply(bid('alice', 'M1-a', 410, 100, { orderId: 'B', clientOrderId: 'k2' })));
    ok(x.apply({ type: 'AmendOrder', ts: T0 + 2_000, accountId: 'alice', orderId: 'B', qty: 50 }));
    assert.deepEqual(x.placedTerms('alice', 'k2'), { price: 410, qty: 100 });
    ok(x.apply(cancel('alice', 'A')));
    ok(x.apply(cancel('alice', 'B')));
    // the first ageing moves both keys to the older generation: still answered, still duplicates
    assert.equal(ageAll(x, T0 + 1_000 + HOUR), 1);
    assert.equal(x.orderIdForClientOrderId('alice', 'k1'), 'A');
    assert.equal(x.orderIdForClientOrderId('alice', 'k2'), 'B');
    rejected(x.apply(bid('alice', 'M1-a', 400, 100, { clientOrderId: 'k1' })), 'DUPLICATE_CLIENT_ORDER_ID');
    const y = restored(x);
    // the next ageing is due a window later: the older generation is swept, the keys are gone
    assert.equal(ageAll(x, T0 + 1_000 + 2 * HOUR), 2, 'one rotation, one sweep');
    assert.equal(x.orderIdForClientOrderId('alice', 'k1'), undefined);
    assert.equal(x.orderIdForClientOrderId('alice', 'k2'), undefined);
    assert.equal(x.placedTerms('alice', 'k2'), undefined, 'the placed terms go with the key');
    ok(x.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A2', clientOrderId: 'k1' })));
    assert.equal(x.orderIdForClientOrderId('alice', 'k1'), 'A2');
    // the restored copy, aged the same way, reaches the same state
    ageAll(y, T0 + 1_000 + 2 * HOUR);
    ok(y.apply(bid('alice', 'M1-a', 400, 100, { orderId: 'A2', clientOrderId: 'k1' })));
    assertInvariants(x, ACC);
  });

  test('an open order keeps its key for as long as it is open', () => {
    const x = setup();
    ok(x.apply(bid('bob', 'M1-a', 300, 10, { orderId: 'O', clientOrderId: 'open' })));
    ok(x.apply(expireKeys(T0)));
    for (let k = 1; k <= 4; k++) ageAll(x, T0 + k * HOUR);
    assert.equal(x.orderIdForClientOrderId('bob', 'open'), 'O');
    rejected(x.apply(bid('bob', 'M1-a', 300, 10, { clientOrderId: 'open' })), 'DUPLICATE_CLIENT_ORDER_ID');
    ok(x.apply(cancel('bob', 'O')));
    assert.equal(x.orderIdForClientOrderId('bob', 'open'), 'O', 'closed: kept until the next ageing');
    ageAll(x, T0 + 5 * HOUR); // placed more than a window ago: the sweep drops it
    assert.equal(x.orderIdForClientOrderId('bob', 'open'), undefined);
  });

  test('an amend of an older key maps it in the current generation', () => {
    const x = setup();
    ok(x.apply(bid('carol', 'M1-a', 300, 50, { orderId: 'C', clientOrderId: 'c' })));
    ok(x.apply(expireKeys(T0)));
    ageAll(x, T0 + HOUR); // 'c' is older now
    ok(x.apply({ type: 'AmendOrder', ts: T0 + HOUR + 1, accountId: 'carol', orderId: 'C', price: 310 }));
    ok(x.apply(cancel('carol', 'C')));
    ageAll(x, T0 + 2 * HOUR); // re-mapped after the first ageing: one ageing is not enough
    assert.equal(x.orderIdForClientOrderId('carol', 'c'), 'C');
    ageAll(x, T0 + 3 * HOUR);
    assert.equal(x.orderIdForClientOrderId('carol', 'c'), undefined);
  });

  test('the sweep runs in chunks of max; a snapshot mid-sweep restores to the same hash', () => {
    const x = setup();
    for (let i = 0; i < 25; i++) {
      const acct = ACC[i % 3]!;
      ok(x.apply(bid(acct, 'M1-a', 300, 10, { orderId: `K${i}`, clientOrderId: `key${i}` })));
      if (i % 5 !== 0) ok(x.apply(cancel(acct, `K${i}`)));
    }
    ok(x.apply(expireKeys(T0)));
    ageAll(x, T0 + HOUR); // all 25 keys are older now
    ok(x.apply(expireKeys(T0 + 2 * HOUR, 7))); // the first 7 of them swept
    const mid = restored(x);
    assert.equal(x.clientOrderIdsDue(T0 + 2 * HOUR, HOUR), true, 'the sweep has more to do');
    let sweeps = 0;
    while (x.clientOrderIdsDue(T0 + 2 * HOUR, HOUR)) {
      ok(x.apply(expireKeys(T0 + 2 * HOUR, 7)));
      ok(mid.apply(expireKeys(T0 + 2 * HOUR, 7)));
      sweeps++;
    }
    assert.equal(sweeps, 4, '25 keys, 7 a command: 3 more sweeps, then the generation ages');
    assert.equal(mid.hash(), x.hash());
    for (let i = 0; i < 25; i++) {
      const kept = x.orderIdForClientOrderId(ACC[i % 3]!, `key${i}`);
      assert.equal(kept, i % 5 === 0 ? `K${i}` : undefined, `key${i}`);
    }
    assertInvariants(x, ACC);
  });

  test('replay without events reaches the same state', () => {
    const cmds: Command[] = [
      bid('alice', 'M1-a', 300, 10, { orderId: 'R1', clientOrderId: 'r1' }),
      cancel('alice', 'R1'),
      bid('bob', 'M1-a', 310, 10, { orderId: 'R2', clientOrderId: 'r2' }),
      expireKeys(T0),
      expireKeys(T0 + HOUR),
      expireKeys(T0 + 2 * HOUR),
      expireKeys(T0 + 2 * HOUR),
    ];
    const live = setup();
    for (const c of cmds) ok(live.apply(c));
    const replay = setup();
    replay.setEvents(false);
    for (const c of cmds) ok(replay.apply(c));
    assert.equal(replay.hash(), live.hash());
    assert.equal(live.orderIdForClientOrderId('alice', 'r1'), undefined);
    assert.equal(live.orderIdForClientOrderId('bob', 'r2'), 'R2');
  });
});
