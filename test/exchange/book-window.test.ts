// Books keep each side's levels in a window that moves and grows with the orders (state.ts `Book`,
// resting-orders.ts `widen`). These tests drive prices across the whole tick table so windows are
// created, re-centred and grown on both sides, and check after every command that the book reads
// agree with the account lists (which do not go through the windows), that money is conserved, and
// that a restored copy (whose windows are laid out afresh) answers and evolves identically.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import { TICKS } from '../../src/exchange/ticks.ts';
import type { Command, Currency, OrderRecord } from '../../src/exchange/types.ts';
import { assertInvariants, bid, ok, setup, T0 } from './fixtures.ts';

const ACC = ['alice', 'bob', 'carol', 'dave'];
const OUTCOMES = ['M1-a', 'M1-b', 'M2-a', 'M2-b'];

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Resting orders of one outcome and currency from the account lists, in book order. */
function fromAccounts(x: Exchange, outcomeId: string, currency: Currency): OrderRecord[] {
  const all = ACC.flatMap((a) => x.openOrders(a, currency)).filter((o) => o.outcomeId === outcomeId);
  // price descending, then acceptance (the records' createdAt is the command's ts, unique here)
  return all.sort((p, q) => q.price - p.price || p.createdAt - q.createdAt);
}

function assertBooksAgree(x: Exchange): void {
  for (const cur of ['CASH', 'COIN'] as Currency[]) {
    for (const o of OUTCOMES) {
      const want = fromAccounts(x, o, cur);
      assert.deepEqual(
        x.restingOrders(o, cur).map((r) => r.id),
        want.map((r) => r.id),
        `${o} ${cur} resting orders`,
      );
      const best = x.bestBid(o, cur);
      if (want.length === 0) assert.equal(best, null);
      else {
        const p = want[0]!.price;
        const qty = want.filter((r) => r.price === p).reduce((s, r) => s + r.qty, 0);
        assert.deepEqual(best, { price: p, qty });
      }
    }
    for (const m of ['M1', 'M2']) {
      const levels = (os: OrderRecord[], toOne: boolean) => {
        const byPrice = new Map<number, number>();
        for (const r of os) byPrice.set(r.price, (byPrice.get(r.price) ?? 0) + r.qty);
        return [...byPrice].map(([price, qty]) => ({ price: toOne ? 1000 - price : price, qty }));
      };
      assert.deepEqual(x.bookLevels(m, cur), {
        bids: levels(fromAccounts(x, `${m}-a`, cur), false),
        asks: levels(fromAccounts(x, `${m}-b`, cur), true),
      });
    }
  }
}

/** A random walk of a fair price over the whole table: bids either side of it, some crossing, some
 * far away, cancels of earlier orders, FOK and IOC now and then. */
function stream(seed: number, n: number): Command[] {
  const r = mulberry32(seed);
  const out: Command[] = [];
  const ids: string[] = [];
  let fair = 500;
  for (let i = 0; i < n; i++) {
    fair = Math.max(10, Math.min(990, fair + Math.round((r() - 0.5) * 80)));
    if (ids.length > 0 && r() < 0.2) {
      const id = ids[Math.floor(r() * ids.length)]!;
      const acct = id.split(':')[0]!;
      out.push({ type: 'CancelOrder', ts: T0 + 1_000 + i, accountId: acct, orderId: id });
      continue;
    }
    const side = r() < 0.5 ? 0 : 1;
    const m = r() < 0.5 ? 'M1' : 'M2';
    const f = side === 0 ? fair : 1000 - fair;
    // mostly just below this side's fair price; sometimes across it (crosses) or anywhere
    const target =
      r() < 0.1 ? 1 + Math.floor(r() * 998) : f - 1 - Math.floor(r() * 12) + (r() < 0.15 ? 15 : 0);
    // nearest tick at or below the target
    let ti = TICKS.length - 1;
    while (ti > 0 && TICKS[ti]! > target) ti--;
    const acct = ACC[Math.floor(r() * ACC.length)]!;
    const id = `${acct}:${i}`;
    ids.push(id);
    const u = r();
    out.push({
      ...bid(acct, `${m}-${side === 0 ? 'a' : 'b'}`, TICKS[ti]!, 1 + Math.floor(r() * 50), {
        orderId: id,
        currency: r() < 0.7 ? 'CASH' : 'COIN',
        tif: u < 0.05 ? 'FOK' : u < 0.1 ? 'IOC' : 'GTC',
      }),
      ts: T0 + 1_000 + i,
    });
  }
  return out;
}

describe('book windows', () => {
  test('reads agree with the account lists while windows move across the tick table', () => {
    const x = setup('OPEN_PREGAME', ACC);
    let fills = 0;
    for (const c of stream(7, 3_000)) {
      const res = x.apply(c);
      if (res.ok) fills += res.events.filter((e) => e.kind === 'OrderFilled').length;
      assertBooksAgree(x);
    }
    assertInvariants(x, ACC);
    assert.ok(fills > 200, `the stream should cross often (fills: ${fills})`);
    assert.ok(x.restingCount > 100);
  });

  test('a restored copy lays its windows out afresh and evolves identically', () => {
    const x = setup('OPEN_PREGAME', ACC);
    const cmds = stream(11, 4_000);
    for (const c of cmds.slice(0, 2_000)) x.apply(c);
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.hash(), x.hash());
    assertBooksAgree(y);
    for (const c of cmds.slice(2_000)) {
      assert.deepEqual(y.apply(c), x.apply(c));
    }
    assert.equal(y.hash(), x.hash());
    assertBooksAgree(y);
    assertInvariants(y, ACC);
  });

  test('orders at both ends of the table, matched and cancelled', () => {
    const x = setup();
    // far apart on one side: the window grows to the whole table
    ok(x.apply(bid('alice', 'M1-a', 1, 10, { orderId: 'low' })));
    ok(x.apply(bid('alice', 'M1-a', 999, 10, { orderId: 'high' })));
    ok(x.apply(bid('alice', 'M1-a', 500, 10, { orderId: 'mid' })));
    assert.deepEqual(
      x.restingOrders('M1-a', 'CASH').map((o) => o.id),
      ['high', 'mid', 'low'],
    );
    // a bid on B at 1 crosses only the 999 bid on A; FOK for more than that is refused
    const tooBig = x.apply(bid('bob', 'M1-b', 1, 11, { tif: 'FOK' }));
    assert.equal(tooBig.ok ? 'accepted' : tooBig.code, 'FOK_NOT_FILLED');
    assert.deepEqual(x.bestBid('M1-a', 'CASH'), { price: 999, qty: 10 });
    ok(x.apply(bid('bob', 'M1-b', 1, 10, { tif: 'FOK' })));
    assert.deepEqual(x.bestBid('M1-a', 'CASH'), { price: 500, qty: 10 });
    ok(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'alice', orderId: 'mid' }));
    assert.deepEqual(x.bestBid('M1-a', 'CASH'), { price: 1, qty: 10 });
    // the lowest level is still found after the level above it empties
    ok(x.apply(bid('bob', 'M1-b', 999, 4)));
    assert.deepEqual(x.bestBid('M1-a', 'CASH'), { price: 1, qty: 6 });
    ok(x.apply({ type: 'CancelOrder', ts: T0, accountId: 'alice', orderId: 'low' }));
    assert.equal(x.bestBid('M1-a', 'CASH'), null);
    assert.deepEqual(x.bookLevels('M1', 'CASH'), { bids: [], asks: [] });
    assertInvariants(x, ['alice', 'bob']);
  });
});
