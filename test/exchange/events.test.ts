// A command's events are collected in one buffer the engine reuses (state.ts EventBuffer) and
// copied out when it is accepted; BookChanged and WalletChanged are built once per book or wallet
// and shared (change-tracking.ts). These tests hold what a consumer relies on: a result's events
// are its own and never change after it is returned, and the shared events cannot be changed.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { DomainEvent } from '../../src/exchange/types.ts';
import { bid, ok, rejected, setup, T0 } from './fixtures.ts';

const kinds = (evs: readonly DomainEvent[]) => evs.map((e) => e.kind);

describe('the events of a result', () => {
  test('each result keeps its own events, unchanged by the commands after it', () => {
    const x = setup();
    const first = ok(x.apply(bid('alice', 'M1-a', 450, 10, { orderId: 'a1' })));
    const firstCopy = structuredClone(first);
    const second = ok(x.apply(bid('bob', 'M1-b', 550, 4, { orderId: 'b1' }))); // crosses a1
    const secondCopy = structuredClone(second);
    assert.notEqual(first, second);
    assert.deepEqual(kinds(second).slice(0, 3), ['OrderPlaced', 'OrderFilled', 'OrderFilled']);
    // a rejection, a re-queue that crosses (it rewrites its own events while it runs), a cancel
    rejected(x.apply(bid('carol', 'M1-a', 460, 1, { orderId: 'a1' })), 'ALREADY_EXISTS');
    ok(x.apply(bid('carol', 'M1-b', 500, 3, { orderId: 'c1' })));
    const amend = ok(
      x.apply({ type: 'AmendOrder', ts: T0 + 10, accountId: 'alice', orderId: 'a1', price: 500 }),
    );
    assert.equal(amend[0]!.kind, 'OrderAmended');
    assert.ok(
      amend.some((e) => e.kind === 'OrderFilled'),
      'the re-queue crossed c1',
    );
    ok(x.apply({ type: 'CancelOrder', ts: T0 + 11, accountId: 'alice', orderId: 'a1' }));
    assert.deepEqual(first, firstCopy);
    assert.deepEqual(second, secondCopy);
  });

  test('a result with more events than any before it has them all', () => {
    const x = setup();
    for (let i = 0; i < 40; i++) ok(x.apply(bid('alice', 'M1-a', 450, 1, { orderId: `r${i}` })));
    const evs = ok(x.apply(bid('bob', 'M1-b', 550, 40, { orderId: 'sweep' })));
    assert.equal(evs.filter((e) => e.kind === 'OrderFilled').length, 80);
    assert.equal(evs[0]!.kind, 'OrderPlaced');
    const small = ok(x.apply(bid('carol', 'M2-a', 450, 1, { orderId: 'small' })));
    assert.deepEqual(kinds(small), ['OrderPlaced', 'BookChanged', 'WalletChanged']);
    assert.equal(evs.filter((e) => e.kind === 'OrderFilled').length, 80);
  });

  test('BookChanged and WalletChanged are shared by every result that touches them, and frozen', () => {
    const x = setup();
    const a = ok(x.apply(bid('alice', 'M1-a', 450, 1)));
    const b = ok(x.apply(bid('alice', 'M1-a', 440, 1)));
    const book = (evs: DomainEvent[]) => evs.find((e) => e.kind === 'BookChanged')!;
    const wallet = (evs: DomainEvent[]) => evs.find((e) => e.kind === 'WalletChanged')!;
    assert.equal(book(a), book(b));
    assert.equal(wallet(a), wallet(b));
    assert.deepEqual(book(a), { kind: 'BookChanged', marketId: 'M1', currency: 'CASH' });
    assert.deepEqual(wallet(a), { kind: 'WalletChanged', accountId: 'alice', currency: 'CASH' });
    assert.throws(() => {
      (book(a) as { marketId: string }).marketId = 'M2';
    }, TypeError);
    // another book, another wallet: other objects
    const c = ok(x.apply(bid('bob', 'M2-a', 450, 1, { currency: 'COIN' })));
    assert.notEqual(book(c), book(a));
    assert.deepEqual(book(c), { kind: 'BookChanged', marketId: 'M2', currency: 'COIN' });
    assert.deepEqual(wallet(c), { kind: 'WalletChanged', accountId: 'bob', currency: 'COIN' });
  });

  test('replay mode: every accepted result is the one frozen result without events', () => {
    const x = setup();
    const quiet = new Exchange({ events: false });
    quiet.restore(x.snapshot());
    const r1 = quiet.apply(bid('alice', 'M1-a', 450, 1));
    const r2 = quiet.apply(bid('bob', 'M1-b', 550, 1));
    assert.equal(r1, r2);
    assert.deepEqual(r1, { ok: true, events: [] });
    assert.ok(Object.isFrozen(r1));
    // switched on between two commands, the next result has its events
    quiet.setEvents(true);
    assert.deepEqual(kinds(ok(quiet.apply(bid('carol', 'M1-a', 450, 1)))), [
      'OrderPlaced',
      'BookChanged',
      'WalletChanged',
    ]);
  });
});
