// A commit's frames leave a connection in one write: the hub's connection corks its socket on the
// first frame of a release and uncorks it at the end of the task (src/stream/connection.ts `hold`),
// and writes out early past CORK_FLUSH_BYTES so the buffer bound never counts held frames as a
// reader falling behind.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Command } from '../../src/exchange/types.ts';
import { CORK_FLUSH_BYTES } from '../../src/stream/connection.ts';
import { commandFrames } from '../../src/stream/frames.ts';
import { StreamHub } from '../../src/stream/hub.ts';
import { bid, market, ok, setup, T0 } from '../exchange/fixtures.ts';
import { FakeSocket } from '../helpers/fake-socket.ts';

const MID = '0190a000-0000-7000-8000-000000000001';

/** A socket that counts its writes the way a TCP socket does: one per uncorked send, one per uncork. */
class CorkSocket extends FakeSocket {
  depth = 0;
  writes = 0;
  held: string[] = [];
  /** Frames of each write, in order. */
  batches: string[][] = [];
  override send(frame: string) {
    super.send(frame);
    if (this.depth > 0) {
      this.held.push(frame);
      this.bufferedAmount += frame.length;
    } else this.batches.push([frame]);
  }
  cork() {
    this.depth++;
  }
  uncork() {
    assert.ok(this.depth > 0, 'uncork without a cork');
    if (--this.depth > 0 || this.held.length === 0) return;
    this.batches.push(this.held);
    this.held = [];
    this.bufferedAmount = 0;
  }
}

function world() {
  const x = setup();
  ok(x.apply({ type: 'AddMarkets', ts: T0, eventId: 'E1', markets: [market(MID)] } as Command));
  const hub = new StreamHub({ reader: () => x, startSeq: x.lastSeq, now: () => T0 });
  const apply = (c: Command) => {
    const r = x.apply(c);
    if (r.ok) hub.applied(commandFrames(x, c, r.events, x.lastSeq));
    return x.lastSeq;
  };
  const s = new CorkSocket();
  const c = hub.connect(s, { accountId: null, scopes: new Set(['read:tape'] as const) });
  c.message(JSON.stringify({ event: 'subscribe', data: MID }));
  s.batches = []; // the subscribe's own answer
  return { hub, apply, s };
}

const ticks = (batch: string[]) => batch.map((f) => JSON.parse(f)).filter((f) => f.type === 'PLACE');

describe('corked release', () => {
  test('the frames of a group commit leave in one write, uncorked before the next task', async () => {
    const { hub, apply, s } = world();
    let last = 0;
    for (let i = 0; i < 5; i++) last = apply(bid('alice', `${MID}-a`, 400 + 10 * i, 10));
    hub.committed(last);
    assert.equal(s.depth, 1, 'corked while the release runs');
    assert.equal(s.batches.length, 0, 'nothing written yet');
    await Promise.resolve();
    assert.equal(s.depth, 0, 'uncorked by the end of the task');
    assert.equal(s.batches.length, 1, 'one write');
    assert.deepEqual(
      ticks(s.batches[0]!).map((f) => f.seq),
      [1, 2, 3, 4, 5],
      'every frame of the commit, in order',
    );
    // the next commit corks again, on its own
    const j = apply(bid('alice', `${MID}-a`, 410, 10));
    hub.committed(j);
    await Promise.resolve();
    assert.equal(s.batches.length, 2);
    assert.deepEqual(
      ticks(s.batches[1]!).map((f) => f.seq),
      [6],
    );
    assert.equal(s.depth, 0);
  });

  test('past CORK_FLUSH_BYTES a release is written out at once, never dropped for the bound', async () => {
    const { hub, apply, s } = world();
    let last = 0;
    let n = 0;
    for (let bytes = 0; bytes <= 2 * CORK_FLUSH_BYTES; n++) {
      last = apply(bid('alice', `${MID}-a`, 100 + 10 * (n % 80), 1));
      bytes += 150; // a PLACE tick is over 150 bytes: well over two flushes' worth
    }
    hub.committed(last);
    assert.ok(s.batches.length >= 2, `written out while releasing (${s.batches.length} writes)`);
    assert.equal(s.depth, 1, 'and corked again for the rest');
    await Promise.resolve();
    assert.equal(s.depth, 0);
    const all = s.batches.flatMap(ticks);
    assert.equal(all.length, n, 'every tick sent: no resync for held bytes');
    assert.deepEqual(
      all.map((f) => f.seq),
      all.map((_, i) => i + 1),
    );
    assert.ok(s.json().every((f) => f.event !== 'resync_required'));
  });

  test('a socket without cork is sent to frame by frame, as before', () => {
    const { hub, apply } = world();
    const plain = new FakeSocket();
    const c = hub.connect(plain, { accountId: null, scopes: new Set(['read:tape'] as const) });
    c.message(JSON.stringify({ event: 'subscribe', data: MID }));
    const j = apply(bid('alice', `${MID}-a`, 400, 10));
    hub.committed(j);
    assert.equal(plain.json().filter((f) => f.type === 'PLACE').length, 1, 'sent at once');
  });
});
