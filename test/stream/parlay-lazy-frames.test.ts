// Parlay frames are serialized when first read (src/stream/parlay-frames.ts, lazy-frames.ts): the
// makers' `parlayRequests` channel and the taker's `parlayQuote` are built only for a subscriber or
// a resume, and built late they still show the request as the command left it, since the event
// holds a copy. Their retention charge (the estimate) stays near the text they become.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Command } from '../../src/exchange/types.ts';
import { commandFrames } from '../../src/stream/frames.ts';
import { LazyFrames } from '../../src/stream/lazy-frames.ts';
import { ok, parlayRequest, setup, T0 } from '../exchange/fixtures.ts';

const quote: Command = {
  type: 'ParlayQuote',
  ts: T0 + 20,
  quoteId: 'house:R1',
  requestId: 'R1',
  accountId: 'bob',
  price: 250_000,
  maxQty: 100_000,
  expiresAt: T0 + 20_000,
};
const wager: Command = {
  type: 'ParlayWager',
  ts: T0 + 30,
  requestId: 'R1',
  accountId: 'alice',
  stake: 250_000,
  maxPrice: 300_000,
  clientOrderId: 'w1',
};

describe('lazy parlay frames', () => {
  test('a request, its quote and its end: unbuilt until read, then as the command left them', () => {
    const x = setup();
    const made = commandFrames(x, parlayRequest(), ok(x.apply(parlayRequest())), x.lastSeq);
    const quoted = commandFrames(x, quote, ok(x.apply(quote)), x.lastSeq);
    const ended = commandFrames(x, wager, ok(x.apply(wager)), x.lastSeq);

    const req = made.channels.get('parlayRequests');
    assert.ok(req instanceof LazyFrames);
    assert.equal(req.isBuilt, false, 'nobody read it');
    assert.equal(req.count, 1);
    const endReq = ended.channels.get('parlayRequests');
    assert.ok(endReq instanceof LazyFrames && !endReq.isBuilt);
    const priv = quoted.channels.get('private');
    assert.ok(priv instanceof Map);
    const toAlice = priv.get('alice');
    assert.ok(toAlice instanceof LazyFrames && !toAlice.isBuilt);

    // Built after the wager filled the request: still the request as made, and the quote as made.
    const [first] = req.frames.map((f) => JSON.parse(f));
    assert.equal(first.event, 'parlayRequest');
    assert.equal(first.data.id, 'R1');
    assert.equal(first.data.status, 'Unfilled');
    assert.equal(first.data.refPrice, 0.22);
    assert.equal(first.journalSeq, made.journalSeq);
    const [end] = endReq.frames.map((f) => JSON.parse(f));
    assert.equal(end.data.status, 'Filled');
    const [q] = toAlice.frames.map((f) => JSON.parse(f));
    assert.equal(q.event, 'parlayQuote');
    assert.deepEqual(
      { id: q.data.id, requestId: q.data.requestId, price: q.data.price, maxQty: q.data.maxQty },
      { id: 'house:R1', requestId: 'R1', price: 0.25, maxQty: 100_000 },
    );
    assert.equal(q.journalSeq, quoted.journalSeq);
  });

  test('the retention estimate is within a factor of two of the text, for uuid ids', () => {
    const u = (n: number) => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;
    const x = setup();
    const cmd = parlayRequest({ requestId: u(1), accountId: 'alice' });
    const frames = commandFrames(x, cmd, ok(x.apply(cmd)), x.lastSeq).channels.get('parlayRequests');
    assert.ok(frames instanceof LazyFrames);
    const estimate = frames.estimate;
    const text = frames.frames.reduce((n, f) => n + f.length, 0);
    assert.ok(estimate > text / 2 && estimate < text * 2, `estimate ${estimate}, text ${text}`);
  });
});
