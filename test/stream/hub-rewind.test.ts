// The hub when the state feeding it is rebuilt from the store (docs/cluster.md "Streams"): at the
// released seq the frames of commands that never became durable are dropped and subscriptions go
// on without a gap; elsewhere every connection is closed with 1012 and retention starts over, so a
// resume cannot skip the commands that produced no frames. A command fed twice is sent once.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Command } from '../../src/exchange/types.ts';
import { commandFrames } from '../../src/stream/frames.ts';
import { STREAM_RESET_CLOSE, StreamHub } from '../../src/stream/hub.ts';
import { bid, market, ok, setup, T0 } from '../exchange/fixtures.ts';
import { FakeSocket } from '../helpers/fake-socket.ts';

const MID = '0190a000-0000-7000-8000-000000000001';

function world() {
  const x = setup();
  ok(x.apply({ type: 'AddMarkets', ts: T0, eventId: 'E1', markets: [market(MID)] } as Command));
  const hub = new StreamHub({ reader: () => x, startSeq: x.lastSeq, now: () => T0 });
  const apply = (c: Command) => {
    const r = x.apply(c);
    if (!r.ok) throw new Error(r.code);
    const frames = commandFrames(x, c, r.events, x.lastSeq);
    hub.applied(frames);
    return { seq: x.lastSeq, frames };
  };
  const principal = { accountId: null, scopes: new Set(['read:tape'] as const) };
  return { x, hub, apply, principal };
}

describe('stream hub rewind', () => {
  test('a command fed twice (a feed re-wired at promotion) is sent once', () => {
    const { hub, apply, principal } = world();
    const s = new FakeSocket();
    hub.connect(s, principal).message(JSON.stringify({ event: 'subscribe', data: 'tape' }));
    const a = apply(bid('alice', `${MID}-a`, 400, 10));
    hub.applied(a.frames);
    hub.committed(a.seq);
    hub.applied(a.frames);
    hub.committed(a.seq);
    assert.equal(s.frames('PLACE', 'CANCEL').length, 1);
  });

  test('continuous: uncommitted frames are dropped, the subscription goes on without a gap', () => {
    // Two machines fed the same commands: the leader's memory and the state rebuilt from the store.
    const mem = setup();
    const rebuilt = setup();
    const add = { type: 'AddMarkets', ts: T0, eventId: 'E1', markets: [market(MID)] } as Command;
    ok(mem.apply(add));
    ok(rebuilt.apply(add));
    let cur = mem;
    const hub = new StreamHub({ reader: () => cur, startSeq: mem.lastSeq, now: () => T0 });
    const feed = (x: typeof mem, c: Command) => {
      const r = x.apply(c);
      if (!r.ok) throw new Error(r.code);
      hub.applied(commandFrames(x, c, r.events, x.lastSeq));
      return x.lastSeq;
    };
    const principal = { accountId: null, scopes: new Set(['read:tape'] as const) };
    const s = new FakeSocket();
    hub.connect(s, principal).message(JSON.stringify({ event: 'subscribe', data: MID }));
    const a = bid('alice', `${MID}-a`, 400, 10);
    hub.committed(feed(mem, a));
    ok(rebuilt.apply(a));
    // Applied in memory, then its commit failed: it never happened.
    feed(mem, bid('alice', `${MID}-a`, 410, 10));
    // A subscriber arriving now gets its snapshot held (the book has an uncommitted change).
    const late = new FakeSocket();
    hub.connect(late, principal).message(JSON.stringify({ event: 'subscribe', data: MID }));
    assert.equal(late.json().filter((f) => f.event === 'book').length, 0);
    hub.rewind(rebuilt.lastSeq, true);
    cur = rebuilt;
    // The held snapshot showed the dropped order: that subscriber is told to resubscribe.
    assert.equal(late.json().find((f) => f.event === 'resync_required')?.data.channel, MID);
    // The next durable command reuses the dropped one's seqs; the first subscriber sees no gap.
    hub.committed(feed(rebuilt, bid('alice', `${MID}-a`, 420, 10)));
    assert.equal(s.closed, undefined);
    const t = s.frames('PLACE', 'CANCEL');
    assert.deepEqual(
      t.map((f) => [f.seq, f.order.price]),
      [
        [1, 0.4],
        [2, 0.42],
      ],
    );
  });

  test('discontinuous: every connection closes with 1012 and resumes see a reset', () => {
    const { hub, apply, principal } = world();
    const s = new FakeSocket();
    hub.connect(s, principal).message(JSON.stringify({ event: 'subscribe', data: 'tape' }));
    const a = apply(bid('alice', `${MID}-a`, 400, 10));
    hub.committed(a.seq);
    // Rebuilt further on: the commands in between produced no frames here.
    hub.rewind(a.seq + 5, false);
    assert.equal(s.closed, STREAM_RESET_CLOSE);
    assert.equal(hub.connections.size, 0);
    const s2 = new FakeSocket();
    hub
      .connect(s2, principal)
      .message(JSON.stringify({ event: 'subscribe', data: 'tape', fromSeq: a.seq - 1 }));
    const ack = s2.json().find((f) => f.event === 'subscribed');
    assert.equal(ack.data.reset, true, 'the window before the rebuild is gone');
    const s3 = new FakeSocket();
    hub
      .connect(s3, principal)
      .message(JSON.stringify({ event: 'subscribe', data: 'tape', fromSeq: a.seq + 5 }));
    assert.equal(s3.json().find((f) => f.event === 'subscribed').data.reset, undefined);
  });
});
