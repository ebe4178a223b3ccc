// A consumer that stops reading: the server's per-connection buffer stays within its bound, the
// client gets resync_required naming the book and the seq to resume from, the subscription is
// dropped (never frames in the middle), /metrics counts it, and a resume from that seq is gap-free.

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { CommandInput } from '../../src/runtime/exchange-port.ts';
import { BookReplica } from '../../src/stream/book-replica.ts';
import { Client, isEvent, type World, world } from './helpers.ts';

const BOUND = 16_384;

describe('slow consumer', () => {
  let w: World;
  before(async () => {
    w = await world({ STREAM_MAX_BUFFER_BYTES: String(BOUND) }, 1);
  });
  after(async () => {
    await w.close();
  });

  test('gets resync_required with bounded server memory, then resumes without a gap', {
    timeout: 300_000,
  }, async () => {
    const rt = w.srv.runtime;
    const reader = await w.trader('reader', ['read:tape']);
    const m = w.markets[0]!;
    const acct = rt.newId();
    await rt.submitMany([
      { type: 'CreateAccount', accountId: acct },
      { type: 'Deposit', accountId: acct, currency: 'CASH', amount: 1e13 },
    ]);
    const slow = await Client.open(w.wsUrl, { token: reader.token });
    slow.send({ event: 'subscribe', data: m.id });
    const snap = await slow.next(isEvent('book'));
    const replica = new BookReplica(snap.data);
    // Stop reading: the kernel buffers fill, then the server's userland buffer.
    (slow.ws as unknown as { _socket: Socket })._socket.pause();
    const conn = [...w.srv.stream!.hub.connections].find(
      (c) => c.books.size === 1 && !c.channels.has('tape'),
    );
    assert.ok(conn);
    let maxBuffered = 0;
    let sent = 0;
    while (conn.books.size > 0 && sent < 200_000) {
      const cmds: CommandInput[] = [];
      for (let i = 0; i < 500; i++) {
        const id = rt.newId();
        cmds.push({
          type: 'PlaceOrder',
          orderId: id,
          accountId: acct,
          outcomeId: m.outcomeIds[0],
          currency: 'CASH',
          price: 100,
          qty: 1,
          tif: 'GTC',
        });
        cmds.push({ type: 'CancelOrder', accountId: acct, orderId: id });
      }
      await rt.submitMany(cmds);
      sent += cmds.length;
      maxBuffered = Math.max(maxBuffered, conn.socket.bufferedAmount);
    }
    assert.equal(conn.books.size, 0, 'the subscription was dropped');
    // Bounded: the buffer never held more than the bound plus one frame and the resync notice.
    assert.ok(maxBuffered <= BOUND + 2048, `buffered ${maxBuffered}`);
    (slow.ws as unknown as { _socket: Socket })._socket.resume();
    const resync = await slow.next(isEvent('resync_required'), 20_000);
    assert.equal(resync.data.channel, m.id);
    assert.equal(resync.data.currency, 'CASH');
    // Every tick before the notice is whole and in order; the notice names the last seq delivered.
    for (const f of slow.frames) {
      if (f.type === undefined) continue;
      assert.equal(replica.apply(f), 'applied');
    }
    assert.equal(replica.seq, resync.data.fromSeq);
    assert.ok(replica.complete);
    // Resume from the named seq: gap-free up to the REST book.
    const again = await Client.open(w.wsUrl, { token: reader.token });
    again.send({ event: 'subscribe', data: m.id, fromSeq: resync.data.fromSeq });
    const rest = await reader.api.call('GET', `/nbx/v2/emm/book/${m.id}?currency=CASH`);
    again.ws.on('message', () => {});
    const deadline = Date.now() + 20_000;
    let i = 0;
    while (replica.seq < rest.body.seq && Date.now() < deadline) {
      for (; i < again.frames.length; i++) {
        const f = again.frames[i];
        if (f.type !== undefined) assert.equal(replica.apply(f), 'applied');
        assert.notEqual(f.event, 'book', 'resume within retention must not reset');
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const { asOf: _a, ...restBook } = rest.body;
    assert.equal(JSON.stringify(replica.toWire()), JSON.stringify(restBook));
    const metrics = await reader.api.call('GET', '/metrics');
    assert.match(String(metrics.body), /tickbook_stream_resync_required_total\{channel="book"\} [1-9]/);
    slow.close();
    again.close();
  });
});
