// The page's book from stream ticks (ui/src/book-delta.ts): ordered ticks change the book with no
// request, a missing tick or a resync asks for the book again, and ticks that arrive while it is
// being read are applied on top of the answer exactly once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MarketWire } from '../../ui/src/api.ts';
import { BookSync, isTick, LiveBook, type TickFrame } from '../../ui/src/book-delta.ts';

const A = 'out-a';
const B = 'out-b';

function market(
  seq: number,
  bids: { id: string; price: number; qty: number; outcome: string }[] = [],
): MarketWire {
  return {
    id: 'm1',
    type: 'MONEY',
    description: 'Home v Away',
    status: 'OPEN',
    eventId: 'e1',
    strike: null,
    volume: 0,
    outcomeIds: [A, B],
    outcomes: [
      { id: A, description: 'Home', type: 'HOME', status: 'OPEN', index: 0, last: null },
      { id: B, description: 'Away', type: 'AWAY', status: 'OPEN', index: 1, last: null },
    ],
    book: {
      bids: [],
      asks: [],
      outcomeLadders: [A, B].map((o) => ({
        outcomeId: o,
        bids: bids
          .filter((b) => b.outcome === o)
          .map((b) => ({ id: b.id, price: b.price, qty: b.qty, created_at: '2026-01-01T00:00:00.000Z' })),
      })),
      seq,
      asOf: '2026-01-01T00:00:00.000Z',
    },
  };
}

function rest(
  id: string,
  outcomeId: string,
  price: number,
  qty: number,
  seq: number,
  extra: Partial<TickFrame> = {},
): TickFrame {
  return {
    type: 'PLACE',
    order: {
      id,
      price,
      qty,
      outcomeId,
      marketId: 'm1',
      status: 'RESTING',
      created_at: '2026-01-01T00:00:01.000Z',
      currency: 'CASH',
    },
    fills: [],
    market: { id: 'm1', volume: 0 },
    seq,
    part: 1,
    parts: 1,
    ...extra,
  };
}

describe('LiveBook', () => {
  it('applies ordered ticks: levels aggregate, the other outcome mirrors as asks', () => {
    const b = new LiveBook(market(10), 'CASH');
    assert.equal(b.apply(rest('o1', A, 0.6, 100, 11)), 'applied');
    assert.equal(b.apply(rest('o2', A, 0.6, 50, 12)), 'applied');
    assert.equal(b.apply(rest('o3', B, 0.3, 70, 13)), 'applied');
    const v = b.view();
    assert.equal(v.book.seq, 13);
    assert.deepEqual(v.book.bids, [{ price: 0.6, qty: 150 }]);
    assert.deepEqual(v.book.asks, [{ price: 0.7, qty: 70 }]);
  });

  it('a fill shrinks the maker, sets last prices and volume; a cancel removes the order', () => {
    const b = new LiveBook(market(5, [{ id: 'mk', price: 0.55, qty: 100, outcome: A }]), 'CASH');
    const take: TickFrame = {
      ...rest('tk', B, 0.45, 40, 6),
      order: { ...rest('tk', B, 0.45, 40, 6).order, status: 'FILLED', qty: 0 },
      fills: [
        { id: 'f1', orderId: 'mk', price: 0.55, qty: 40, isTaker: false, outcomeId: A },
        { id: 'f2', orderId: 'tk', price: 0.45, qty: 40, isTaker: true, outcomeId: B },
      ],
      market: { id: 'm1', volume: 40 },
    };
    assert.equal(b.apply(take), 'applied');
    let v = b.view();
    assert.deepEqual(v.book.bids, [{ price: 0.55, qty: 60 }]);
    assert.equal(v.volume, 40);
    assert.deepEqual(
      v.outcomes.map((o) => o.last),
      [0.55, 0.45],
    );
    const cancel: TickFrame = { ...rest('mk', A, 0.55, 60, 7), type: 'CANCEL' };
    assert.equal(b.apply(cancel), 'applied');
    v = b.view();
    assert.deepEqual(v.book.bids, []);
  });

  it('reports duplicates and gaps, and waits for every part of a command', () => {
    const b = new LiveBook(market(10), 'CASH');
    assert.equal(b.apply(rest('old', A, 0.5, 1, 10)), 'duplicate');
    assert.equal(b.apply(rest('skip', A, 0.5, 1, 12)), 'gap');
    assert.equal(b.apply(rest('p1', A, 0.5, 1, 11, { part: 1, parts: 2 })), 'applied');
    assert.equal(b.complete, false);
    assert.equal(b.apply(rest('p1', A, 0.5, 1, 11, { part: 1, parts: 2 })), 'duplicate');
    assert.equal(b.apply(rest('p2', A, 0.4, 1, 11, { part: 2, parts: 2 })), 'applied');
    assert.equal(b.complete, true);
    assert.equal(b.seq, 11);
  });

  it('ignores another currency', () => {
    const b = new LiveBook(market(1), 'CASH');
    const coin = rest('c', A, 0.5, 1, 2);
    coin.order.currency = 'COIN';
    assert.equal(b.apply(coin), 'duplicate');
    assert.equal(b.seq, 1);
  });
});

describe('BookSync', () => {
  it('an amended order replaces its row: less at the same price in place, a new price at the back', () => {
    const s = new BookSync('CASH');
    s.load(
      market(1, [
        { id: 'o1', price: 0.5, qty: 10, outcome: A },
        { id: 'o2', price: 0.5, qty: 10, outcome: A },
      ]),
    );
    s.tick(rest('o1', A, 0.5, 4, 2));
    const ids = () => s.view('m1')?.book.outcomeLadders[0]?.bids.map((b) => `${b.id}:${b.price}:${b.qty}`);
    assert.deepEqual(ids(), ['o1:0.5:4', 'o2:0.5:10']);
    s.tick(rest('o1', A, 0.5, 8, 3));
    assert.deepEqual(ids(), ['o2:0.5:10', 'o1:0.5:8']);
    s.tick(rest('o2', A, 0.6, 10, 4));
    assert.deepEqual(ids(), ['o2:0.6:10', 'o1:0.5:8']);
    s.tick({ ...rest('o1', A, 0.5, 8, 5), type: 'CANCEL' });
    assert.deepEqual(ids(), ['o2:0.6:10']);
  });

  it('ordered frames: the book changes and no request is asked for', () => {
    const s = new BookSync('CASH');
    s.load(market(1));
    for (let seq = 2; seq < 50; seq++) {
      const step = s.tick(rest(`o${seq}`, A, 0.5, 10, seq));
      assert.deepEqual(step, { changed: true, refetch: [] });
    }
    assert.equal(s.view('m1')?.book.seq, 49);
  });

  it('a gap asks for the book once; ticks during the read are applied on top exactly once', () => {
    const s = new BookSync('CASH');
    s.load(market(1));
    assert.deepEqual(s.tick(rest('o3', A, 0.5, 10, 3)), { changed: false, refetch: ['m1'] });
    // More ticks while the book is being read: buffered, no second request.
    assert.deepEqual(s.tick(rest('o4', A, 0.5, 10, 4)), { changed: false, refetch: [] });
    assert.equal(s.isLive('m1'), false);
    // The answer is at seq 3 (it contains o2 and o3); o3's tick is a duplicate, o4 applies.
    const fetched = market(3, [
      { id: 'o2', price: 0.5, qty: 10, outcome: A },
      { id: 'o3', price: 0.5, qty: 10, outcome: A },
    ]);
    assert.equal(s.load(fetched), false);
    const v = s.view('m1');
    assert.equal(v?.book.seq, 4);
    assert.deepEqual(v?.book.bids, [{ price: 0.5, qty: 30 }]);
  });

  it('an answer older than the waiting ticks asks again and keeps them', () => {
    const s = new BookSync('CASH');
    s.load(market(1));
    s.tick(rest('o5', A, 0.5, 10, 5));
    assert.equal(s.load(market(2)), true);
    assert.equal(s.isLive('m1'), false);
    assert.equal(s.load(market(4)), false);
    assert.equal(s.view('m1')?.book.seq, 5);
  });

  it('a resync asks for every book of the channel', () => {
    const s = new BookSync('CASH');
    s.load(market(1));
    assert.deepEqual(s.resync(['m1']), { changed: false, refetch: ['m1'] });
    assert.equal(s.isLive('m1'), false);
    assert.deepEqual(s.tick(rest('o2', A, 0.5, 10, 2)), { changed: false, refetch: [] });
    s.load(market(1));
    assert.equal(s.view('m1')?.book.seq, 2);
  });

  it('isTick accepts only frames with what applying needs', () => {
    assert.equal(isTick(rest('x', A, 0.5, 1, 1)), true);
    assert.equal(isTick({ type: 'PLACE', seq: 1 }), false);
    assert.equal(isTick({ type: 'OPEN', market: { id: 'm1' } }), false);
    assert.equal(isTick(null), false);
  });
});
