// The /tape edge's own rules (docs/stream.md "Close codes", "Connecting"): the message limit counts
// messages as they arrived, so a stall of the server's own does not close an honest client, while
// a flood is closed with 4029 and a reason; upgrades ws would refuse in plain text (bad key or
// version) are refused in the error envelope.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { MessageBucket, StallClock } from '../../src/http/routes/tape-rate.ts';
import { Client, isEvent, type World, world } from './helpers.ts';

/** Holds the event loop for `ms` (a server busy with something else). */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

describe('tape message limit', () => {
  test('messages read in a burst after a stall are counted at the rate they could have arrived', async () => {
    const clock = new StallClock(10);
    clock.start();
    try {
      await new Promise((r) => setTimeout(r, 50));
      const bucket = new MessageBucket(20, clock);
      stall(2000);
      // 2 s at 20 a second plus the burst of 20: an honest client's 50 messages all pass.
      for (let i = 0; i < 50; i++) assert.ok(bucket.take(), `message ${i + 1}`);
      // Without a stall, the burst is the bound.
      const fresh = new MessageBucket(20, clock);
      for (let i = 0; i < 20; i++) assert.ok(fresh.take());
      assert.equal(fresh.take(), false);
    } finally {
      clock.stop();
    }
  });
});

describe('tape edge', () => {
  let w: World;
  before(async () => {
    w = await world({}, 1);
  });
  after(async () => {
    await w.close();
  });

  test('a flood closes with 4029 and a reason; the server stays fine', async () => {
    const reader = await w.trader('flood', ['read:tape']);
    const f = await Client.open(w.wsUrl, { token: reader.token });
    for (let i = 0; i < 150; i++) f.send({ event: 'subscribe', data: w.markets[0]!.id });
    const closed = await f.waitClose();
    assert.equal(closed.code, 4029);
    assert.match(closed.reason, /rate limit: at most 100 messages per second/);
    const g = await Client.open(w.wsUrl, { token: reader.token });
    g.send({ event: 'subscribe', data: 'tape' });
    await g.next(isEvent('subscribed'));
    g.close();
  });

  /** A raw upgrade request with the given headers; answers status, headers and JSON body. */
  function upgrade(headers: Record<string, string>) {
    const u = new URL(w.srv.url);
    return new Promise<{ status: number; headers: Record<string, unknown>; body: Record<string, unknown> }>(
      (resolve, reject) => {
        const req = request({
          host: u.hostname,
          port: u.port,
          path: '/tape',
          headers: { connection: 'Upgrade', upgrade: 'websocket', ...headers },
        });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (d: Buffer) => {
            text += d.toString();
          });
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
          );
        });
        req.on('upgrade', () => reject(new Error('upgraded')));
        req.on('error', reject);
        req.end();
      },
    );
  }

  test('a bad Sec-WebSocket-Key or version is refused in the error envelope', async () => {
    const reader = await w.trader('upgrader', ['read:tape']);
    const auth = { authorization: `Bearer ${reader.token}` };
    const badKey = await upgrade({ ...auth, 'sec-websocket-version': '13', 'sec-websocket-key': 'short' });
    assert.equal(badKey.status, 400);
    assert.equal(badKey.body.code, 'VALIDATION_FAILED');
    assert.equal(badKey.body.statusCode, 400);
    assert.match(String(badKey.body.message), /Sec-WebSocket-Key/);
    const badVersion = await upgrade({
      ...auth,
      'sec-websocket-version': '12',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    });
    assert.equal(badVersion.status, 400);
    assert.equal(badVersion.body.code, 'VALIDATION_FAILED');
    assert.equal(badVersion.headers['sec-websocket-version'], '13, 8');
    // Checked before the token: a missing one is still 401 once the handshake is well formed.
    const noToken = await upgrade({
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    });
    assert.equal(noToken.status, 401);
    assert.equal(noToken.body.code, 'UNAUTHORIZED');
  });
});
