// The hub on the real engine, without sockets or a journal: frames wait for their commit, a
// snapshot of a book with uncommitted changes is held until the commit of its seq, and the
// send-buffer bound drops the subscription with resync_required instead of frames.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Command } from '../../src/exchange/types.ts';
import { commandFrames } from '../../src/stream/frames.ts';
import { StreamHub } from '../../src/stream/hub.ts';
import { bid, market, ok, setup, T0 } from '../exchange/fixtures.ts';
import { FakeSocket } from '../helpers/fake-socket.ts';

const MID = '0190a000-0000-7000-8000-000000000001';

function world() {
  const x = setup();
  ok(x.apply({ type: 'AddMarkets', ts: T0, eventId: 'E1', markets: [market(MID)] } as Command));
  const hub = new StreamHub({ reader: () => x, startSeq: x.lastSeq, now: () => T0 });
  const apply = (c: Command) => {
    const r = x.apply(c);
    if (r.ok) hub.applied(commandFrames(x, c, r.events, x.lastSeq));
    return x.lastSeq;
  };
  const principal = { accountId: null, scopes: new Set(['read:tape'] as const) };
  return { x, hub, apply, principal };
}

describe('stream hub', () => {
  test('ticks leave only at commit; a snapshot of uncommitted state is held until its commit', () => {
    const { x, hub, apply, principal } = world();
    const s = new FakeSocket();
    const c = hub.connect(s, principal);
    c.message(JSON.stringify({ event: 'subscribe', data: MID }));
    const snap0 = s.json().find((f) => f.event === 'book');
    assert.equal(snap0.data.seq, 0);
    const j1 = apply(bid('alice', `${MID}-a`, 400, 10));
    assert.equal(s.json().filter((f) => f.type).length, 0, 'nothing before the commit');
    hub.committed(j1);
    const t1 = s.json().find((f) => f.type === 'PLACE');
    assert.equal(t1.seq, 1);
    assert.equal(t1.journalSeq, j1);
    // A second client subscribes while seq 2 is applied but not durable.
    const j2 = apply(bid('alice', `${MID}-a`, 450, 10));
    const s2 = new FakeSocket();
    const c2 = hub.connect(s2, principal);
    c2.message(JSON.stringify({ event: 'subscribe', data: MID }));
    assert.equal(s2.json().filter((f) => f.event === 'book').length, 0, 'held');
    assert.equal(x.bookSeq(MID, 'CASH'), 2);
    hub.committed(j2);
    const held = s2.json().find((f) => f.event === 'book');
    assert.equal(held.data.seq, 2);
    assert.equal(s2.json().filter((f) => f.type).length, 0, 'the snapshot covers seq 2');
    assert.equal(s.json().filter((f) => f.type === 'PLACE').length, 2);
  });

  test('a full send buffer drops the subscription with resync_required naming the last whole seq', () => {
    const { hub, apply, principal } = world();
    const s = new FakeSocket();
    const c = hub.connect(s, principal);
    c.message(JSON.stringify({ event: 'subscribe', data: MID }));
    hub.committed(apply(bid('alice', `${MID}-a`, 400, 10)));
    s.bufferedAmount = hub.opts.maxBufferBytes;
    hub.committed(apply(bid('alice', `${MID}-a`, 405, 10)));
    const r = s.json().find((f) => f.event === 'resync_required');
    assert.deepEqual(r.data, { channel: MID, currency: 'CASH', fromSeq: 1 });
    assert.equal(c.books.size, 0);
    s.bufferedAmount = 0;
    hub.committed(apply(bid('alice', `${MID}-a`, 410, 10)));
    assert.equal(s.json().filter((f) => f.type).length, 1, 'nothing after the drop');
    c.message(JSON.stringify({ event: 'subscribe', data: MID, fromSeq: 1 }));
    assert.deepEqual(
      s
        .json()
        .filter((f) => f.type)
        .map((f) => f.seq),
      [1, 2, 3],
    );
  });
});
