import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import { ExchangeState } from '../../src/exchange/state.ts';
import type { Command } from '../../src/exchange/types.ts';
import { bid, ok, setup, T0 } from './fixtures.ts';

function busy(): Exchange {
  const x = setup();
  // explicit ids and times: busy() must be the same command list every time it is called
  ok(x.apply(bid('alice', 'M1-a', 600, 100, { orderId: 'b1', ts: T0 + 1, clientOrderId: 'k1', flags: 'f' })));
  ok(x.apply(bid('bob', 'M1-b', 450, 150, { orderId: 'b2', ts: T0 + 1 })));
  ok(x.apply(bid('carol', 'M2-a', 300, 10, { orderId: 'b3', tif: 'GTT', ttl: 50, ts: T0 + 1 })));
  ok(x.apply(bid('carol', 'M2-a', 300, 10, { orderId: 'b4', tif: 'GTT', ttl: 20, ts: T0 + 1 })));
  ok(x.apply(bid('alice', 'M2-b', 400, 7, { orderId: 'b5', ts: T0 + 1, currency: 'COIN' })));
  ok(
    x.apply({
      type: 'SetLock',
      ts: T0,
      lock: { id: 'L', eventId: 'E1', reason: 'r', createdAt: T0, expiresAt: T0 + 30 },
    }),
  );
  ok(x.apply({ type: 'SetFeeCoefficient', ts: T0, coefficient: 0.05 }));
  return x;
}

describe('snapshot / restore / hash', () => {
  test('restore reproduces the hash and every read', () => {
    const x = busy();
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.hash(), x.hash());
    assert.equal(y.lastSeq, x.lastSeq);
    assert.equal(y.catalogVersion, x.catalogVersion);
    assert.equal(y.feeCoefficient, 0.05);
    assert.deepEqual(y.bookLevels('M1', 'CASH'), x.bookLevels('M1', 'CASH'));
    assert.deepEqual(y.restingOrders('M2-a', 'CASH'), x.restingOrders('M2-a', 'CASH'));
    assert.deepEqual(y.openOrders('alice'), x.openOrders('alice'));
    assert.deepEqual(y.positions('bob'), x.positions('bob'));
    assert.deepEqual(y.wallet('carol', 'CASH'), x.wallet('carol', 'CASH'));
    assert.deepEqual(y.locks(), x.locks());
    assert.deepEqual(y.totals(), x.totals());
    assert.equal(y.orderIdForClientOrderId('alice', 'k1'), x.orderIdForClientOrderId('alice', 'k1'));
    assert.equal(y.bookSeq('M1', 'CASH'), x.bookSeq('M1', 'CASH'));
    assert.equal(y.nextExpiry(), x.nextExpiry());
    assert.deepEqual(y.eventsSorted(), x.eventsSorted());
  });

  test('a restored state evolves exactly like the original (same events, same hashes)', () => {
    const x = busy();
    const y = new Exchange();
    y.restore(x.snapshot());
    const cmds: Command[] = [
      { type: 'Expire', ts: T0 + 25 },
      bid('carol', 'M1-a', 550, 80),
      bid('alice', 'M2-b', 700, 10),
      { type: 'CancelOrders', ts: T0 + 40, accountId: 'bob', scope: 'all' },
      { type: 'Expire', ts: T0 + 100 },
      { type: 'SetEventStatus', ts: T0 + 200, eventId: 'E1', status: 'OPEN_INGAME' },
      bid('bob', 'M1-a', 500, 30),
      bid('alice', 'M1-b', 500, 30),
      { type: 'SetEventStatus', ts: T0 + 300, eventId: 'E1', status: 'FINAL' },
      { type: 'SettleMarket', ts: T0 + 300, marketId: 'M1', result: 'M1-b' },
    ];
    for (const c of cmds) {
      assert.deepEqual(y.apply(c), x.apply(c));
      assert.equal(y.hash(), x.hash());
    }
  });

  test('the hash covers the whole state and is stable across instances', () => {
    const x = busy();
    const h = x.hash();
    assert.match(h, /^[0-9a-f]{64}$/);
    assert.equal(busy().hash(), h, 'same commands, same hash');
    ok(x.apply({ type: 'Deposit', ts: T0, accountId: 'alice', currency: 'COIN', amount: 1 }));
    assert.notEqual(x.hash(), h);
    const z = busy();
    ok(z.apply({ type: 'SetGameScore', ts: T0, gameId: 'G1', homeScore: 0, awayScore: 0 }));
    assert.notEqual(z.hash(), h);
  });

  test('queue order survives restore even after handles were recycled', () => {
    const x = setup();
    for (let i = 0; i < 20; i++)
      ok(x.apply(bid(i % 2 ? 'alice' : 'bob', 'M1-a', 400, 1 + i, { orderId: `q${i}` })));
    for (let i = 0; i < 20; i += 3)
      ok(x.apply({ type: 'CancelOrder', ts: T0, accountId: i % 2 ? 'alice' : 'bob', orderId: `q${i}` }));
    for (let i = 20; i < 26; i++) ok(x.apply(bid('carol', 'M1-a', 400, 1, { orderId: `q${i}` })));
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.deepEqual(
      y.restingOrders('M1-a', 'CASH').map((o) => o.id),
      x.restingOrders('M1-a', 'CASH').map((o) => o.id),
    );
    const take = bid('carol', 'M1-b', 600, 100);
    assert.deepEqual(y.apply(take), x.apply(take));
  });

  test('bad bytes are refused and leave the state untouched', () => {
    const x = busy();
    const h = x.hash();
    assert.throws(() => x.restore(new Uint8Array([1, 2, 3])));
    const snap = busy().snapshot();
    assert.throws(() => x.restore(snap.subarray(0, snap.length - 5)));
    assert.equal(x.hash(), h);
  });

  test('100k resting orders round-trip', () => {
    const x = setup();
    ok(x.apply({ type: 'Deposit', ts: T0, accountId: 'alice', currency: 'CASH', amount: 1e12 }));
    for (let i = 0; i < 100_000; i++) {
      const c = bid('alice', i % 2 ? 'M1-a' : 'M2-b', 100 + 5 * (i % 70), 1 + (i % 9), {
        orderId: `bulk-${i}`,
      });
      if (!x.apply(c).ok) assert.fail('bulk order rejected');
    }
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.restingCount, 100_000);
    assert.equal(y.hash(), x.hash());
  });

  // A field of the state that the snapshot leaves out is lost at every restart, yet restore still
  // reproduces the hash (the hash is the snapshot's) and no pinned value moves. So every field of
  // ExchangeState must be touched by snapshot.ts or a snapshot section (`*-snapshot.ts`, written
  // only when it has state, docs/exchange.md "Snapshot, restore, hash"), or be named below as
  // rebuilt by restore or scratch of one command.
  test('every field of the state is in the snapshot, or rebuilt, or scratch', () => {
    const notSnapshot: Record<string, string> = {
      sortedEvents: 'a cache of the event listing, rebuilt on first read',
      expiries: 'rebuilt from the resting orders (rebuildExpiries)',
      gttLive: 'rebuilt from the resting orders (rebuildExpiries)',
      emitEvents: 'the mode of the instance, not state',
      recordHandles: 'the mode of the instance, not state',
      stamp: 'per-command scratch',
      ev: 'per-command scratch',
      seq: 'per-command scratch',
      bookChanged: 'built on first use (change-tracking.ts)',
      walletChanged: 'built on first use (change-tracking.ts)',
      touchedBooks: 'per-command scratch',
      touchedWallets: 'per-command scratch',
      touchedPos: 'per-command scratch',
      touchedPosAcct: 'per-command scratch',
      nBooks: 'per-command scratch',
      nWallets: 'per-command scratch',
      nPos: 'per-command scratch',
      fMaker: 'per-command scratch of the matching loop',
      fQty: 'per-command scratch of the matching loop',
      fLevel: 'per-command scratch of the matching loop',
      fFee: 'per-command scratch of the matching loop',
      fWash: 'per-command scratch of the matching loop',
    };
    const dir = new URL('../../src/exchange/', import.meta.url);
    const text = readdirSync(dir)
      .filter((f) => f === 'snapshot.ts' || f.endsWith('-snapshot.ts'))
      .map((f) => readFileSync(new URL(f, dir), 'utf8'))
      .join('\n');
    const fields = Object.keys(new ExchangeState(true, false));
    assert.ok(fields.length > 30, 'the fields were found');
    const missing = fields.filter((f) => !(f in notSnapshot) && !new RegExp(`\\.${f}\\b`).test(text));
    assert.deepEqual(
      missing,
      [],
      'fields of ExchangeState neither in the snapshot nor named as rebuilt or scratch',
    );
    for (const f of Object.keys(notSnapshot))
      assert.ok(fields.includes(f), `${f} is no longer a field: remove it`);
  });
});
