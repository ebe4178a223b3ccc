// The trading panel kept current from the private stream (ui/src/account-live.ts): orders and fills
// applied from `place`/`fill`/`cancel` frames with no read; the balance and positions read again at
// most once per slow period after frames; everything read again when frames were lost (the stream
// came up again, `resync_required` on private); frames arriving during a read kept on top of it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AccountReads,
  type AccountState,
  AccountWatch,
  applyAccountFrame,
  FILLS_SHOWN,
  readAccountFrame,
} from '../../ui/src/account-live.ts';
import type { FillWire, OrderWire, PositionWire } from '../../ui/src/api.ts';
import type { PrivateFrame, PrivateStream } from '../../ui/src/parlay-live.ts';

const at = '2026-11-26T12:00:00.000Z';
const order = (id: string, qty: number, over: Partial<OrderWire> = {}): OrderWire => ({
  id,
  outcomeId: 'o-1',
  marketId: 'm-1',
  price: 0.45,
  qty,
  originalQty: 100,
  filledQty: 100 - qty,
  currency: 'CASH',
  tif: 'GTC',
  status: 'RESTING',
  created_at: at,
  ...over,
});
const fill = (id: string, orderId: string, qty: number, isTaker: boolean): FillWire => ({
  id,
  orderId,
  outcomeId: 'o-1',
  marketId: 'm-1',
  price: 0.45,
  qty,
  isTaker,
  isWash: false,
  createdAt: at,
});
const placeFrame = (o: OrderWire) => ({ event: 'place', data: o, journalSeq: 7 });
const fillFrame = (f: FillWire) => ({ event: 'fill', data: f, journalSeq: 8 });
const cancelFrame = (o: OrderWire) => ({
  event: 'cancel',
  data: { ...o, status: 'CANCELLED', timestamp: at },
  journalSeq: 9,
});
const empty = (): AccountState => ({ orders: [], positions: [], fills: [], marks: new Map() });
const parse = (f: unknown) => {
  const p = readAccountFrame(f);
  assert.ok(p, JSON.stringify(f));
  return p;
};

describe('applyAccountFrame', () => {
  it('reads the three order frames and nothing else', () => {
    assert.equal(parse(placeFrame(order('a', 10))).kind, 'order');
    assert.equal(parse(fillFrame(fill('f', 'a', 1, true))).kind, 'fill');
    assert.deepEqual(parse(cancelFrame(order('a', 10))), { kind: 'cancel', orderId: 'a' });
    assert.equal(readAccountFrame({ event: 'mmp', data: { state: 'RESET' } }), undefined);
    assert.equal(readAccountFrame({ event: 'place', data: { id: 'x' } }), undefined);
    assert.equal(readAccountFrame(placeFrame(order('c', 5, { currency: 'COIN' }))), undefined);
    const coinFill = { ...fill('g', 'c', 1, true), currency: 'COIN' };
    assert.equal(readAccountFrame({ event: 'fill', data: coinFill, journalSeq: 8 }), undefined);
  });

  it('a resting placement is listed first; an amendment replaces it in place; a cancel removes it', () => {
    let s = applyAccountFrame(empty(), parse(placeFrame(order('a', 10))));
    s = applyAccountFrame(s, parse(placeFrame(order('b', 20))));
    assert.deepEqual(
      s.orders.map((o) => o.id),
      ['b', 'a'],
    );
    s = applyAccountFrame(s, parse(placeFrame(order('a', 10, { price: 0.5 }))));
    assert.deepEqual(
      s.orders.map((o) => [o.id, o.price]),
      [
        ['b', 0.45],
        ['a', 0.5],
      ],
    );
    s = applyAccountFrame(s, parse(cancelFrame(order('b', 20))));
    assert.deepEqual(
      s.orders.map((o) => o.id),
      ['a'],
    );
    // A placement that did not rest (filled at once, or an IOC) is not an open order.
    s = applyAccountFrame(s, parse(placeFrame(order('c', 0, { status: 'FILLED' }))));
    assert.deepEqual(
      s.orders.map((o) => o.id),
      ['a'],
    );
  });

  it("a maker's fill lowers its order's open qty (gone at 0); a taker's is in its place frame already", () => {
    let s = applyAccountFrame(empty(), parse(placeFrame(order('a', 10))));
    s = applyAccountFrame(s, parse(fillFrame(fill('f1', 'a', 4, false))));
    assert.equal(s.orders[0]!.qty, 6);
    // The same fill again (a frame kept during a read and applied on its answer) changes nothing.
    assert.equal(applyAccountFrame(s, parse(fillFrame(fill('f1', 'a', 4, false)))), s);
    s = applyAccountFrame(s, parse(placeFrame(order('t', 3))));
    s = applyAccountFrame(s, parse(fillFrame(fill('f2', 't', 7, true))));
    assert.equal(s.orders.find((o) => o.id === 't')!.qty, 3);
    s = applyAccountFrame(s, parse(fillFrame(fill('f3', 'a', 6, false))));
    assert.deepEqual(
      s.orders.map((o) => o.id),
      ['t'],
    );
    assert.deepEqual(
      s.fills.map((f) => f.id),
      ['f3', 'f2', 'f1'],
    );
  });

  it(`keeps the newest ${FILLS_SHOWN} fills`, () => {
    let s = empty();
    for (let i = 0; i < FILLS_SHOWN + 5; i++)
      s = applyAccountFrame(s, parse(fillFrame(fill(`f${i}`, 'x', 1, true))));
    assert.equal(s.fills.length, FILLS_SHOWN);
    assert.equal(s.fills[0]!.id, `f${FILLS_SHOWN + 4}`);
  });
});

/** A private stream the test drives by hand. */
class FakeStream implements PrivateStream {
  frame: (f: PrivateFrame) => void = () => {};
  state: (up: boolean) => void = () => {};
  listen(onFrame: (f: PrivateFrame) => void, onState: (up: boolean) => void): () => void {
    this.frame = onFrame;
    this.state = onState;
    onState(false);
    return () => {};
  }
}

/** REST reads that count themselves and answer what `server` holds now. */
function fakeReads(server: { balance: number; orders: OrderWire[]; positions: PositionWire[] }) {
  const n = { balance: 0, orders: 0, positions: 0, fills: 0, marks: 0 };
  const reads: AccountReads = {
    balance: async () => {
      n.balance++;
      return server.balance;
    },
    orders: async () => {
      n.orders++;
      return server.orders;
    },
    positions: async () => {
      n.positions++;
      return server.positions;
    },
    fills: async () => {
      n.fills++;
      return [];
    },
    marks: async () => {
      n.marks++;
      return new Map([['o-1', 0.4]]);
    },
  };
  return { reads, n, total: () => n.balance + n.orders + n.positions + n.fills + n.marks };
}

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

describe('AccountWatch', () => {
  it('ordered frames make no request; a reconnect and a resync reload everything', async () => {
    const server = { balance: 1000, orders: [order('a', 10)], positions: [] as PositionWire[] };
    const { reads, n, total } = fakeReads(server);
    const stream = new FakeStream();
    let shown: AccountState | undefined;
    const w = new AccountWatch(
      stream,
      reads,
      (s) => (shown = s),
      (e) => assert.fail(String(e)),
      {
        pollMs: 60_000,
        slowMs: 60_000,
        marksMs: 60_000,
      },
    );
    stream.state(true); // the socket opened after the first read began: one more full read
    await tick();
    assert.deepEqual(n, { balance: 2, orders: 2, positions: 2, fills: 2, marks: 2 });
    const loaded = total();

    stream.frame(parse(placeFrame(order('b', 5))));
    stream.frame(parse(fillFrame(fill('f1', 'a', 4, false))));
    stream.frame(parse(cancelFrame(order('b', 5))));
    await tick();
    assert.equal(total(), loaded, 'frames: no request (the slow read waits its period)');
    assert.deepEqual(
      shown!.orders.map((o) => [o.id, o.qty]),
      [['a', 6]],
    );
    assert.deepEqual(
      shown!.fills.map((f) => f.id),
      ['f1'],
    );

    // Frames were lost while the socket was down: one full read when it is back.
    server.orders = [order('a', 2)];
    stream.state(false);
    stream.state(true);
    await tick();
    assert.equal(n.orders, 3);
    assert.equal(shown!.orders[0]!.qty, 2);

    stream.frame({ kind: 'resync' });
    await tick();
    assert.equal(n.orders, 4);
    assert.equal(n.balance, 4);
    w.stop();
  });

  it('the balance and positions are read again after frames, at most once per slow period', async () => {
    const server = { balance: 1000, orders: [] as OrderWire[], positions: [] as PositionWire[] };
    const { reads, n } = fakeReads(server);
    const stream = new FakeStream();
    let shown: AccountState | undefined;
    const w = new AccountWatch(
      stream,
      reads,
      (s) => (shown = s),
      (e) => assert.fail(String(e)),
      {
        pollMs: 60_000,
        slowMs: 300,
        marksMs: 60_000,
      },
    );
    try {
      stream.state(true);
      await tick(20);
      assert.equal(n.balance, 2, 'the load, and the one after the socket opened');
      server.balance = 955;
      server.positions = [{ outcomeId: 'o-1', marketId: 'm-1', size: 100, cost: 45 }];
      for (let i = 0; i < 10; i++) stream.frame(parse(fillFrame(fill(`f${i}`, 'x', 10, true))));
      await tick(20);
      assert.equal(n.balance, 2, 'not yet: the last read was less than one period ago');
      await tick(400);
      assert.equal(n.balance, 3, 'ten frames, one read');
      assert.equal(n.orders, 2, 'orders are not read again: the frames carry them');
      assert.equal(shown!.balance, 955);
      assert.equal(shown!.positions.length, 1);
      assert.equal(shown!.fills.length, 10, 'the frames’ fills are kept across the slow read');
      // The trader's own order from the page: the balance is read at once, not a period later.
      server.balance = 900;
      w.acted();
      await tick(20);
      assert.equal(n.balance, 4);
      assert.equal(shown!.balance, 900);
      assert.equal(n.orders, 2, 'an own action with the stream up reads no orders');
    } finally {
      w.stop();
    }
  });

  it('a frame that arrives during the first read is applied on top of its answer', async () => {
    const server = { balance: 1000, orders: [order('a', 10)], positions: [] as PositionWire[] };
    const { reads } = fakeReads(server);
    const stream = new FakeStream();
    let shown: AccountState | undefined;
    const w = new AccountWatch(
      stream,
      reads,
      (s) => (shown = s),
      () => {},
      { pollMs: 60_000, slowMs: 60_000, marksMs: 60_000 },
    );
    stream.frame(parse(cancelFrame(order('a', 10))));
    await tick();
    assert.deepEqual(shown!.orders, []);
    w.stop();
  });
});
