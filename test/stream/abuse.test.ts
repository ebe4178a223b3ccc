// The stream under attack (docs/stream.md "Replays and budgets"), against a real server on
// 127.0.0.1: stale resumes over the public viewer credential while a probe polls /healthz, and a
// reader that stops reading in the middle of a replay, is told to resync, and resumes without
// losing a frame. Bounded: a few thousand commands, a few MB of tape, seconds of run time.

import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { CommandInput } from '../../src/runtime/exchange-port.ts';
import { Client, type Frame, isEvent, type World, world } from './helpers.ts';

/**
 * Loaded two-core CI machines stall for reasons of their own: the bound is this, or three times the
 * p99 measured just before the attack if that is higher. The base code held /healthz for seconds.
 */
const HEALTH_P99_MS = 300;

describe('stream abuse', () => {
  let w: World;
  let acct: string;
  before(async () => {
    w = await world({ STREAM_MAX_BUFFER_BYTES: '16384' }, 1);
    acct = w.srv.runtime.newId();
    await w.srv.runtime.submitMany([
      { type: 'CreateAccount', accountId: acct },
      { type: 'Deposit', accountId: acct, currency: 'CASH', amount: 1e13 },
    ]);
  });
  after(async () => {
    await w.close();
  });

  /** `n` commands, each one book tick (and one tape frame): place then cancel. */
  async function churn(n: number): Promise<void> {
    const rt = w.srv.runtime;
    const m = w.markets[0]!;
    for (let done = 0; done < n; ) {
      const cmds: CommandInput[] = [];
      for (let i = 0; i < 500 && done < n; i += 2, done += 2) {
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
    }
  }

  /** Polls /healthz every 10 ms until stopped; answers the latencies. */
  function probe(): { stop(): Promise<number[]> } {
    const lat: number[] = [];
    let on = true;
    const loop = (async () => {
      while (on) {
        const t = performance.now();
        const r = await fetch(`${w.srv.url}/healthz`);
        await r.arrayBuffer();
        lat.push(performance.now() - t);
        await new Promise((res) => setTimeout(res, 10));
      }
    })();
    return {
      async stop() {
        on = false;
        await loop;
        return lat.sort((a, b) => a - b);
      },
    };
  }
  const p99 = (xs: number[]) => xs[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;

  async function viewerToken(): Promise<string> {
    const cfg = await fetch(`${w.srv.url}/ui/config.json`).then((r) => r.json());
    assert.ok(cfg.viewer, 'the server publishes the viewer credential');
    return w.admin.tokenFor(cfg.viewer.clientId, cfg.viewer.clientSecret);
  }

  test('40 stale resumes over the viewer credential: resets or paced replays, /healthz stays fast', {
    timeout: 120_000,
  }, async () => {
    const start = w.srv.runtime.sequencer.committedSeq;
    await churn(8000);
    const token = await viewerToken();
    const conns = await Promise.all([0, 1, 2, 3].map(() => Client.open(w.wsUrl, { token })));
    let bytes = 0;
    for (const c of conns) c.ws.on('message', (d: Buffer) => (bytes += d.length));

    // The same machine without the attack, just before it: a loaded CI host (or the suite's other
    // file running beside this one) slows /healthz by itself; the attack may not add much to that.
    const q = probe();
    await new Promise((r) => setTimeout(r, 1500));
    const quiet = await q.stop();
    const bound = Math.max(HEALTH_P99_MS, 3 * p99(quiet));
    // Minutes-old resumes: the whole retained tape is beyond a viewer's replay allowance.
    const p = probe();
    for (let i = 0; i < 10; i++)
      for (const c of conns) c.send({ event: 'subscribe', data: 'tape', fromSeq: start });
    for (const c of conns) {
      await c.next(
        (f: Frame) => f.event === 'subscribed' && c.frames.filter(isEvent('subscribed')).length === 10,
      );
      assert.ok(c.frames.filter(isEvent('subscribed')).every((f: Frame) => f.data.reset === true));
    }
    assert.equal(conns.flatMap((c) => c.frames).filter((f: Frame) => f.type !== undefined).length, 0);

    // Recent resumes within the allowance: replayed, paced by the viewer budgets.
    const head = w.srv.runtime.sequencer.committedSeq;
    const from = head - 1200;
    const t0 = performance.now();
    bytes = 0;
    for (let i = 0; i < 10; i++)
      for (const c of conns) c.send({ event: 'subscribe', data: 'tape', fromSeq: from });
    const deadline = Date.now() + 60_000;
    const got = (c: Client) => c.frames.filter((f: Frame) => f.type !== undefined && f.journalSeq > from);
    while (conns.some((c) => got(c).at(-1)?.journalSeq !== head) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      // The public budget over all viewer connections: 1 MiB/s after a 1 MiB burst (plus a chunk
      // per connection that may overdraw it).
      const s = (performance.now() - t0) / 1000;
      assert.ok(bytes <= 1_048_576 * (1 + s) + 4 * 65_536 + 65_536, `${bytes} B in ${s.toFixed(2)} s`);
    }
    const lat = await p.stop();
    for (const c of conns) {
      // Each resubscribe restarted the replay; the last one ran to the head without a gap.
      const last = c.frames.findLastIndex(isEvent('subscribed'));
      const seqs = c.frames
        .slice(last)
        .filter((f: Frame) => f.type !== undefined)
        .map((f: Frame) => f.journalSeq);
      assert.equal(seqs.length, 1200);
      assert.deepEqual(
        seqs,
        Array.from({ length: 1200 }, (_, i) => from + 1 + i),
      );
      c.close();
    }
    assert.ok(lat.length > 20);
    assert.ok(
      p99(lat) <= bound,
      `/healthz p99 ${p99(lat).toFixed(1)} ms (${lat.length} probes), quiet p99 ${p99(quiet).toFixed(1)} ms`,
    );
  });

  test('a reader that stops mid-replay gets resync_required at its last frame and resumes without loss', {
    timeout: 120_000,
  }, async () => {
    const hub = w.srv.stream!.hub;
    (hub.opts as { replayStallMs: number }).replayStallMs = 300;
    const reader = await w.trader('mid-replay reader', ['read:tape']);
    const from = w.srv.runtime.sequencer.committedSeq;
    await churn(12_000);
    const head = w.srv.runtime.sequencer.committedSeq;
    const c = await Client.open(w.wsUrl, { token: reader.token });
    const sock = (c.ws as unknown as { _socket: Socket })._socket;
    c.send({ event: 'subscribe', data: 'tape', fromSeq: from });
    await c.next(isEvent('subscribed'));
    // Stop reading once the replay is under way: the server's buffer fills, the replay waits, then
    // gives way.
    await c.next((f: Frame) => f.type !== undefined);
    sock.pause();
    const until = Date.now() + 30_000;
    while (hub.replaysInFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(hub.replaysInFlight, 0, 'the stalled replay gave way');
    sock.resume();
    const resync = await c.next(isEvent('resync_required'), 20_000);
    const before = c.frames.filter((f: Frame) => f.type !== undefined).map((f: Frame) => f.journalSeq);
    assert.ok(before.length > 0 && before.length < head - from, `${before.length} ticks before the resync`);
    assert.equal(resync.data.channel, 'tape');
    assert.equal(resync.data.fromSeq, before.at(-1), 'the resync names the last tick received');
    // Resume where it says.
    const mark = c.frames.length;
    c.send({ event: 'subscribe', data: 'tape', fromSeq: resync.data.fromSeq });
    const ack = await c.next(isEvent('subscribed'), 5000, mark);
    assert.notEqual(ack.data.reset, true);
    const end = Date.now() + 30_000;
    const ticks = () => c.frames.filter((f: Frame) => f.type !== undefined).map((f: Frame) => f.journalSeq);
    while (ticks().at(-1) !== head && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      ticks(),
      Array.from({ length: head - from }, (_, i) => from + 1 + i),
      'every tick once, in order',
    );
    c.close();
  });
});
