// MassQuote with `idBase` (docs/exchange.md "Mass quotes", docs/decisions.md): one id per command,
// a level's own id derived from it only when the level rests a new order; the other levels keep
// their orders' ids. Derived ids are a function of the command alone (replay reaches the same
// state), a clash with an existing order refuses the set and changes nothing, and the per-level
// form of older journals still applies as before.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, DomainEvent } from '../../src/exchange/types.ts';
import { assertInvariants, bid, ok, rejected, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol'];
const BASE = '018f0000-0000-7000-8000-0000000000a0';
/** BASE with its last byte XOR `slot` (side × 10 + the level's index in its outcome's list). */
const derived = (slot: number) => `${BASE.slice(0, -2)}${(0xa0 ^ slot).toString(16).padStart(2, '0')}`;

type Lv = [price: number, qty: number];
function quote(
  sides: Record<string, Lv[]>,
  idBase: string = BASE,
  ts = T0 + 600,
  accountId = 'carol',
): Command {
  return {
    type: 'MassQuote',
    ts,
    accountId,
    marketId: 'M1',
    currency: 'CASH',
    idBase,
    quotes: Object.entries(sides).map(([outcomeId, levels]) => ({
      outcomeId,
      levels: levels.map(([price, qty]) => ({ price, qty })),
    })),
  };
}
const resting = (x: Exchange, outcomeId: string) =>
  x.restingOrders(outcomeId, 'CASH').map((o) => `${o.id}:${o.price}:${o.qty}`);
const placedIds = (evs: DomainEvent[]) => evs.flatMap((e) => (e.kind === 'OrderPlaced' ? [e.order.id] : []));

describe('MassQuote with idBase', () => {
  test('new levels rest under ids derived from the base and their slot; kept levels keep their ids', () => {
    const x = setup();
    const first = ok(
      x.apply(
        quote({
          'M1-a': [
            [400, 10],
            [390, 20],
          ],
          'M1-b': [[550, 5]],
        }),
      ),
    );
    // slot 0 is the base itself; the second outcome's levels start at slot 10
    assert.deepEqual(placedIds(first), [BASE, derived(1), derived(10)]);
    assert.deepEqual(resting(x, 'M1-a'), [`${BASE}:400:10`, `${derived(1)}:390:20`]);
    const set = first.find((e) => e.kind === 'QuotesReplaced') as Extract<
      DomainEvent,
      { kind: 'QuotesReplaced' }
    >;
    assert.deepEqual(
      set.orders.map((o) => o.id),
      [BASE, derived(1), derived(10)],
    );
    // Another command, another base: 400 shrinks, 390 grows (re-queue), 380 is new at slot 2, and
    // the other outcome's 550 is kept; only the new level takes an id of the second base.
    const base2 = '018f0000-0000-7001-8000-00000000003c';
    const evs = ok(
      x.apply(
        quote(
          {
            'M1-a': [
              [400, 5],
              [390, 30],
              [380, 1],
            ],
            'M1-b': [[550, 5]],
          },
          base2,
        ),
      ),
    );
    assert.deepEqual(placedIds(evs), [`${base2.slice(0, -2)}${(0x3c ^ 2).toString(16)}`]);
    assert.deepEqual(resting(x, 'M1-a'), [
      `${BASE}:400:5`,
      `${derived(1)}:390:30`,
      `${base2.slice(0, -2)}3e:380:1`,
    ]);
    assert.deepEqual(resting(x, 'M1-b'), [`${derived(10)}:550:5`]);
    assertInvariants(x, ACC);
  });

  test('the same base again names no new order when every level rests already', () => {
    const x = setup();
    ok(x.apply(quote({ 'M1-a': [[400, 10]] })));
    // A repeated command (the same base): the level is kept, so no id is needed and none clashes.
    const evs = ok(x.apply(quote({ 'M1-a': [[400, 10]] })));
    assert.deepEqual(placedIds(evs), []);
    assert.deepEqual(resting(x, 'M1-a'), [`${BASE}:400:10`]);
  });

  test('a derived id that names an existing order refuses the whole set and changes nothing', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 300, 10, { orderId: derived(1) })));
    ok(x.apply(quote({ 'M1-a': [[400, 10]] })));
    const h = x.hash();
    rejected(
      x.apply(
        quote({
          'M1-a': [
            [400, 20],
            [390, 5],
          ],
        }),
      ),
      'ALREADY_EXISTS',
    );
    assert.equal(x.hash(), h);
    // the refusal left the engine's scratch clean: the next set applies as if it never happened
    ok(x.apply(quote({ 'M1-a': [[400, 20]] }, '018f0000-0000-7002-8000-000000000000')));
    assert.deepEqual(resting(x, 'M1-a'), [`${BASE}:400:20`, `${derived(1)}:300:10`]);
    assertInvariants(x, ACC);
  });

  test('bad input: a base without hex digits at its end, or a level id beside a base', () => {
    const x = setup();
    const h = x.hash();
    for (const base of ['', 'x', 'order-ZZ', '018f0000-0000-7000-8000-0000000000A0']) {
      rejected(x.apply(quote({ 'M1-a': [[400, 1]] }, base)), 'VALIDATION_FAILED');
    }
    const both = quote({ 'M1-a': [[400, 1]] }) as Extract<Command, { type: 'MassQuote' }>;
    both.quotes[0]!.levels[0]!.orderId = 'own';
    rejected(x.apply(both), 'VALIDATION_FAILED');
    assert.equal(x.hash(), h);
  });

  test('replay (without events) and a restored snapshot reach the same state', () => {
    const x = setup();
    const y = setup();
    y.setEvents(false);
    const cmds: Command[] = [
      quote({
        'M1-a': [
          [400, 10],
          [390, 10],
        ],
        'M1-b': [[550, 5]],
      }),
      bid('alice', 'M1-b', 600, 5, { orderId: 'T' }),
      quote(
        {
          'M1-a': [
            [400, 20],
            [380, 3],
          ],
        },
        '018f0000-0000-7003-8000-0000000000ff',
        T0 + 700,
      ),
      // the per-level form of older journals, beside it
      {
        type: 'MassQuote',
        ts: T0 + 800,
        accountId: 'bob',
        marketId: 'M1',
        currency: 'CASH',
        quotes: [{ outcomeId: 'M1-a', levels: [{ price: 350, qty: 4, orderId: 'old-form' }] }],
      },
    ];
    for (const c of cmds) {
      const r1 = x.apply(structuredClone(c));
      const r2 = y.apply(structuredClone(c));
      assert.equal(r1.ok, true);
      assert.equal(r2.ok, true);
    }
    assert.equal(y.hash(), x.hash());
    assert.equal(x.order('old-form')?.qty, 4);
    const z = new Exchange();
    z.restore(x.snapshot());
    assert.equal(z.hash(), x.hash());
    assert.deepEqual(resting(z, 'M1-a'), resting(x, 'M1-a'));
    assertInvariants(x, ACC);
  });
});
