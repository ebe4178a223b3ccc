// Market-maker protection (docs/exchange.md "Market-maker protection"): configs and resets are
// commands; fills of protected orders within the interval accumulate per account, event and
// currency; a breach cancels the account's protected orders on the event and freezes new ones in
// the very command that breached; replay and snapshot/restore keep the frozen state.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, DomainEvent, MmpConfig } from '../../src/exchange/types.ts';
import { assertInvariants, bid, ok, rejected, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol'];
const CFG: MmpConfig = { intervalMs: 1_000, qtyLimit: 100, netLimit: 0, freezeMs: 5_000 };
const setMmp = (
  over: Partial<MmpConfig> = {},
  eventId: string | null = 'E1',
  accountId = 'alice',
): Command => ({
  type: 'SetMmp',
  ts: T0,
  accountId,
  eventId,
  currency: 'CASH',
  config: { ...CFG, ...over },
});
const cancels = (evs: DomainEvent[]) =>
  evs.flatMap((e) => (e.kind === 'OrderCanceled' ? [[e.order.id, e.reason]] : []));

/** alice quotes protected on M1-a, M1-b and M2-a and one unprotected order; bob is the taker. */
function quoted(over: Partial<MmpConfig> = {}, eventId: string | null = 'E1') {
  const x = setup();
  ok(x.apply(setMmp(over, eventId)));
  ok(x.apply(bid('alice', 'M1-a', 400, 60, { orderId: 'p1', mmp: true, ts: T0 + 1 })));
  ok(x.apply(bid('alice', 'M1-b', 400, 60, { orderId: 'p2', mmp: true, ts: T0 + 1 })));
  ok(x.apply(bid('alice', 'M2-a', 400, 60, { orderId: 'p3', mmp: true, ts: T0 + 1 })));
  ok(x.apply(bid('alice', 'M2-a', 300, 60, { orderId: 'plain', ts: T0 + 1 })));
  return x;
}

describe('configuration', () => {
  test('SetMmp and ResetMmp rejections change nothing', () => {
    const x = setup();
    const h = x.hash();
    rejected(x.apply(setMmp({}, 'E1', 'nobody')), 'ACCOUNT_NOT_FOUND');
    rejected(x.apply(setMmp({}, 'E9')), 'EVENT_NOT_FOUND');
    rejected(x.apply({ ...setMmp(), currency: 'EUR' } as unknown as Command), 'INVALID_CURRENCY');
    for (const bad of [
      { intervalMs: 0 },
      { intervalMs: 86_400_001 },
      { qtyLimit: 0, netLimit: 0 },
      { qtyLimit: -1 },
      { netLimit: 1.5 },
      { freezeMs: -1 },
      { freezeMs: '5' as never },
    ]) {
      rejected(x.apply(setMmp(bad)), 'VALIDATION_FAILED');
    }
    rejected(x.apply({ ...setMmp(), config: null } as never), 'VALIDATION_FAILED');
    rejected(x.apply({ type: 'ResetMmp', ts: T0, accountId: 'nobody', eventId: null }), 'ACCOUNT_NOT_FOUND');
    rejected(x.apply({ type: 'ResetMmp', ts: T0, accountId: 'alice', eventId: 'E9' }), 'EVENT_NOT_FOUND');
    assert.equal(x.hash(), h);
    assert.deepEqual(x.mmp('alice'), { configs: [], frozen: [] });
    assert.equal(x.mmp('nobody'), undefined);
  });

  test('a protected order needs a config and a boolean; the default config covers every event', () => {
    const x = setup();
    const h = x.hash();
    rejected(x.apply(bid('alice', 'M1-a', 400, 10, { mmp: true })), 'MMP_NOT_CONFIGURED');
    rejected(x.apply(bid('alice', 'M1-a', 400, 10, { mmp: 'yes' as never })), 'VALIDATION_FAILED');
    assert.equal(x.hash(), h);
    ok(x.apply(setMmp({}, null)));
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { mmp: true })));
    rejected(x.apply(bid('alice', 'M1-a', 400, 10, { mmp: true, currency: 'COIN' })), 'MMP_NOT_CONFIGURED');
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { mmp: false })));
    assert.deepEqual(x.mmp('alice'), { configs: [{ eventId: null, currency: 'CASH', ...CFG }], frozen: [] });
  });
});

describe('breach', () => {
  test('the quantity limit: the breaching command cancels protected orders and freezes', () => {
    const x = quoted();
    // 60 of p1 — under the limit
    const a = ok(x.apply(bid('bob', 'M1-b', 600, 60, { ts: T0 + 10 })));
    assert.deepEqual(cancels(a), []);
    assert.equal(x.order('p3')!.qty, 60);
    // 40 more of p2 (within 1 s): 100 reached in this command
    const b = ok(x.apply(bid('bob', 'M1-a', 600, 40, { ts: T0 + 20 })));
    assert.deepEqual(cancels(b), [
      ['p2', 'MMP'],
      ['p3', 'MMP'],
    ]);
    const trig = b.find((e) => e.kind === 'MmpTriggered');
    assert.deepEqual(trig, {
      kind: 'MmpTriggered',
      accountId: 'alice',
      eventId: 'E1',
      currency: 'CASH',
      qty: 100,
      net: 20,
      frozenUntil: T0 + 20 + 5_000,
      canceled: 2,
      ts: T0 + 20,
    });
    assert.equal(x.order('plain')!.qty, 60, 'unprotected orders stay');
    assert.deepEqual(x.mmp('alice')!.frozen, [{ eventId: 'E1', until: T0 + 5_020 }]);
    // frozen: new protected orders refused (nothing changes), unprotected ones accepted
    const h = x.hash();
    rejected(x.apply(bid('alice', 'M2-b', 300, 10, { mmp: true, ts: T0 + 5_019 })), 'MMP_FROZEN');
    assert.equal(x.hash(), h);
    ok(x.apply(bid('alice', 'M2-b', 300, 10, { ts: T0 + 5_019 })));
    // the freeze ends by time alone
    ok(x.apply(bid('alice', 'M2-b', 300, 10, { mmp: true, ts: T0 + 5_020 })));
    assertInvariants(x, ACC);
  });

  test('fills older than the interval drop out of the window', () => {
    const x = quoted();
    ok(x.apply(bid('bob', 'M1-b', 600, 60, { ts: T0 + 10 })));
    const evs = ok(x.apply(bid('bob', 'M1-a', 600, 40, { ts: T0 + 1_010 })));
    assert.deepEqual(cancels(evs), []);
    assert.equal(x.mmp('alice')!.frozen.length, 0);
  });

  test('the net limit counts outcome 0 against outcome 1', () => {
    const x = quoted({ qtyLimit: 0, netLimit: 50 });
    ok(x.apply(bid('bob', 'M1-b', 600, 40, { ts: T0 + 10 }))); // alice +40 on outcome 0
    ok(x.apply(bid('bob', 'M1-a', 600, 40, { ts: T0 + 11 }))); // −40 on outcome 1: net 0
    assert.equal(x.mmp('alice')!.frozen.length, 0);
    const evs = ok(x.apply(bid('bob', 'M2-b', 600, 50, { ts: T0 + 12 }))); // +50 on M2 outcome 0
    assert.ok(evs.some((e) => e.kind === 'MmpTriggered' && e.net === 50));
    assert.deepEqual(
      cancels(evs)
        .map(([id]) => id)
        .sort(),
      ['p1', 'p2', 'p3'],
    );
    assertInvariants(x, ACC);
  });

  test('a protected taker counts its own fills; its just-rested remainder is cancelled too', () => {
    const x = setup();
    ok(x.apply(setMmp({ qtyLimit: 30 }, 'E1', 'bob')));
    ok(x.apply(bid('alice', 'M1-a', 600, 30, { ts: T0 + 1 })));
    const evs = ok(x.apply(bid('bob', 'M1-b', 400, 50, { orderId: 'tk', mmp: true, ts: T0 + 2 })));
    assert.deepEqual(cancels(evs), [['tk', 'MMP']]);
    assert.equal(x.order('tk'), undefined);
    assertInvariants(x, ACC);
  });

  test('until reset: ResetMmp lifts the freeze, the config stays', () => {
    const x = quoted({ freezeMs: 0, qtyLimit: 60 });
    const evs = ok(x.apply(bid('bob', 'M1-b', 600, 100, { ts: T0 + 10 })));
    assert.ok(evs.some((e) => e.kind === 'MmpTriggered' && e.frozenUntil === null));
    rejected(x.apply(bid('alice', 'M1-a', 400, 10, { mmp: true, ts: T0 + 999_999_999 })), 'MMP_FROZEN');
    const r = ok(x.apply({ type: 'ResetMmp', ts: T0 + 20, accountId: 'alice', eventId: null }));
    assert.deepEqual(r, [{ kind: 'MmpReset', accountId: 'alice', eventId: null, ts: T0 + 20 }]);
    assert.deepEqual(x.mmp('alice')!.frozen, []);
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { mmp: true, ts: T0 + 21 })));
    assert.equal(x.mmp('alice')!.configs.length, 1);
  });
});

describe('durability', () => {
  test('replay and snapshot/restore keep the frozen state and the windows', () => {
    const log: Command[] = [];
    const x = new Exchange();
    const y = setup();
    // record the whole history by applying to x everything applied to y from here on
    x.restore(y.snapshot());
    const apply = (c: Command) => {
      log.push(structuredClone(c));
      ok(y.apply(c));
    };
    apply(setMmp({ freezeMs: 0, qtyLimit: 60 }));
    apply(setMmp({ qtyLimit: 60, intervalMs: 86_400_000 }, null, 'bob'));
    apply(bid('alice', 'M1-a', 400, 60, { orderId: 'p1', mmp: true, ts: T0 + 1 }));
    apply(bid('alice', 'M1-b', 400, 60, { orderId: 'p2', mmp: true, ts: T0 + 1 }));
    apply(bid('bob', 'M2-a', 400, 60, { orderId: 'b1', mmp: true, ts: T0 + 1 }));
    apply(bid('carol', 'M2-b', 600, 10, { ts: T0 + 2 })); // bob's window holds a fill
    apply(bid('bob', 'M1-b', 600, 100, { ts: T0 + 3 })); // takes p1's 60: alice breaches
    for (const c of log) ok(x.apply(c));
    assert.equal(x.hash(), y.hash(), 'replay');
    const z = new Exchange();
    z.restore(y.snapshot());
    assert.equal(z.hash(), y.hash(), 'restore');
    assert.deepEqual(z.mmp('alice'), y.mmp('alice'));
    rejected(z.apply(bid('alice', 'M1-a', 400, 10, { mmp: true, ts: T0 + 4 })), 'MMP_FROZEN');
    // bob's window survived the restore: 10 before it + 50 now reach his limit of 60 in both copies
    for (const e of [y, z]) {
      const evs = ok(e.apply(bid('carol', 'M2-b', 600, 50, { orderId: 'c-last', ts: T0 + 5 })));
      assert.ok(evs.some((v) => v.kind === 'MmpTriggered' && v.accountId === 'bob' && v.qty === 60));
    }
    assert.equal(z.hash(), y.hash());
    ok(z.apply({ type: 'ResetMmp', ts: T0 + 6, accountId: 'alice', eventId: 'E1' }));
    ok(z.apply(bid('alice', 'M1-a', 400, 10, { mmp: true, ts: T0 + 7 })));
    assertInvariants(z, ACC);
  });

  test('a state without MMP snapshots to the bytes it had before MMP existed', () => {
    // no MMP state: no section; the fixed-stream test pins the digest of such states
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 10)));
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.hash(), x.hash());
  });
});
