// Handles (docs/exchange.md "Handles", docs/journal.md "Command records"): an engine that records
// handles writes `ah`/`oh` into the commands it resolves; a journal of such commands replays to the
// same state and results, and so does the same journal without them (records written before
// handles). A handle that does not name the command's own id is ignored: the id decides.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';
import { rng } from '../helpers/prng.ts';
import { bid, market, ok, setup, T0 } from './fixtures.ts';

const ACCOUNTS = Array.from({ length: 12 }, (_, i) => `acct-${i}`);
const OUTCOMES = ['M1-a', 'M1-b', 'M2-a', 'M2-b', 'M3-a', 'M3-b'];

/** A catalog, funded accounts, then placements (UUID ids and a few others), cancels and money. */
function workload(n: number): Command[] {
  const r = rng(11);
  const ts = T0;
  const out: Command[] = [
    { type: 'CreateLeague', ts, code: 'NFL', name: 'NFL' },
    {
      type: 'CreateEvent',
      ts,
      event: {
        id: 'E1',
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'e',
        league: 'NFL',
        scheduledStart: ts,
      },
      game: null,
      markets: [market('M1'), market('M2'), market('M3')],
    },
  ];
  for (const a of ACCOUNTS) {
    out.push({ type: 'CreateAccount', ts, accountId: a });
    out.push({ type: 'Deposit', ts, accountId: a, currency: 'CASH', amount: 1e10 });
  }
  const placed: [string, string][] = [];
  for (let i = 0; i < n; i++) {
    const t = ts + 1 + i;
    const x = r();
    const a = ACCOUNTS[Math.floor(r() * ACCOUNTS.length)]!;
    if (x < 0.15 && placed.length > 0) {
      const [id, owner] = placed[Math.floor(r() * placed.length)]!;
      out.push({ type: 'CancelOrder', ts: t, accountId: owner, orderId: id });
    } else if (x < 0.17) {
      out.push({ type: 'CancelOrders', ts: t, accountId: a, scope: 'market', scopeId: 'M2' });
    } else if (x < 0.19) {
      out.push({ type: 'Withdraw', ts: t, accountId: a, currency: 'CASH', amount: 1000 });
    } else {
      const id = i % 10 === 0 ? `order-${i}` : `0190f000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;
      placed.push([id, a]);
      out.push({
        type: 'PlaceOrder',
        ts: t,
        orderId: id,
        accountId: a,
        outcomeId: OUTCOMES[Math.floor(r() * OUTCOMES.length)]!,
        currency: 'CASH',
        price: 480 + 5 * Math.floor(r() * 9),
        qty: 1 + Math.floor(r() * 500),
        tif: r() < 0.1 ? 'IOC' : 'GTC',
      });
    }
  }
  return out;
}

test('a journal with recorded handles, and the same without them, replays to the same state and results', () => {
  const live = new Exchange({ recordHandles: true });
  const journal: string[] = [];
  const results: string[] = [];
  for (const c of workload(4000)) {
    const own = structuredClone(c); // the sequencer applies (and journals) its own copy
    const r = live.apply(own);
    if (!r.ok) continue;
    journal.push(JSON.stringify(own));
    results.push(JSON.stringify(r.events));
  }
  const records = journal.map((j) => JSON.parse(j) as Command & { ah?: unknown; oh?: unknown });
  const places = records.filter((c) => c.type === 'PlaceOrder');
  assert.ok(places.length > 3000);
  for (const c of records) {
    if (c.type === 'PlaceOrder') {
      assert.equal(c.ah, ACCOUNTS.indexOf(c.accountId), 'account handle = creation order');
      assert.equal(typeof c.oh, 'number');
      assert.equal(c.oh, OUTCOMES.indexOf(c.outcomeId), 'outcome handle = market × 2 + index');
    } else if (c.type === 'CancelOrder' || c.type === 'CancelOrders' || c.type === 'Withdraw') {
      assert.equal(c.ah, ACCOUNTS.indexOf(c.accountId));
    } else if (c.type === 'Deposit') assert.equal(c.ah, ACCOUNTS.indexOf(c.accountId));
  }
  const stripped = journal.map((j) => {
    const { ah: _a, oh: _o, ...rest } = JSON.parse(j) as Command & { ah?: number; oh?: number };
    return rest as Command;
  });
  assert.ok(stripped.every((c) => !('ah' in c)));
  for (const [name, cmds] of [
    ['with handles', records],
    ['without handles', stripped],
  ] as const) {
    const replay = new Exchange();
    const replayed: string[] = [];
    for (const c of cmds) replayed.push(JSON.stringify(ok(replay.apply(c))));
    assert.deepEqual(replayed, results, `${name}: same results`);
    assert.equal(replay.hash(), live.hash(), `${name}: same state`);
    const quiet = new Exchange({ events: false });
    for (const c of cmds) assert.equal(quiet.apply(c).ok, true);
    assert.equal(quiet.hash(), live.hash(), `${name}: replay mode, same state`);
  }
});

test('a handle that does not name the command’s own id is ignored: the id decides', () => {
  const x = setup('OPEN_PREGAME', ['alice', 'bob']); // alice = 0, bob = 1; M1-a = 0, M1-b = 1, M2-a = 2
  for (const ah of [1, 99, -1, 0.5, '1' as unknown as number, 2 ** 40]) {
    const c = bid('alice', 'M1-a', 400, 10, { ah, oh: 3 });
    ok(x.apply(c));
    const o = x.order(c.orderId);
    assert.equal(o?.accountId, 'alice', `ah ${ah}`);
    assert.equal(o?.outcomeId, 'M1-a', `ah ${ah}`);
  }
  assert.equal(x.openOrders('bob').length, 0);
  const before = x.wallet('alice', 'CASH')!.available;
  ok(x.apply({ type: 'Deposit', ts: T0 + 10, accountId: 'alice', ah: 1, currency: 'CASH', amount: 5 }));
  assert.equal(x.wallet('alice', 'CASH')!.available, before + 5);
  // a matching handle is used as it is; an unknown id with a valid handle is still unknown
  const good = bid('bob', 'M2-a', 400, 10, { ah: 1, oh: 2 });
  ok(x.apply(good));
  assert.equal(x.order(good.orderId)?.outcomeId, 'M2-a');
  const r = x.apply(bid('nobody', 'M1-a', 400, 10, { ah: 0 }));
  assert.equal(r.ok ? 'ok' : r.code, 'ACCOUNT_NOT_FOUND');
});

test('an engine that does not record handles leaves the command as it was', () => {
  const x = setup('OPEN_PREGAME', ['alice']);
  const c = bid('alice', 'M1-a', 400, 10);
  const copy = structuredClone(c);
  ok(x.apply(c));
  assert.deepEqual(c, copy);
});
