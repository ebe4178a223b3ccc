// The dead-man switch's countdown on a fake clock (exact deadlines, re-arming, disarming, stale
// timers), and across a restart on the real server: a deadline that falls due while the server is
// down fires once at start, and never again.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CommandResult } from '../../src/exchange/types.ts';
import type { CommandInput } from '../../src/runtime/exchange-port.ts';
import { DeadmanSwitch } from '../../src/stream/deadman.ts';
import { Api, start } from '../helpers/server.ts';
import { world } from './helpers.ts';

class FakeClock {
  t = 1_000_000;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private n = 0;
  set = (fn: () => void, ms: number) => {
    const id = ++this.n;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  };
  clear = (id: unknown) => {
    this.timers = this.timers.filter((x) => x.id !== id);
  };
  async advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (next === undefined || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
      await new Promise((r) => setImmediate(r));
    }
    this.t = end;
  }
}

describe('dead-man switch', () => {
  test('fake clock: fires once at the deadline, re-arming postpones, 0 disarms', async () => {
    const clock = new FakeClock();
    const sent: CommandInput[] = [];
    const fires: number[] = [];
    let seq = 0;
    const d = new DeadmanSwitch({
      submit: async (cmd) => {
        sent.push(cmd);
        seq++;
        return { ok: true, events: [] } as CommandResult;
      },
      appliedSeq: () => seq,
      now: () => clock.t,
      setTimer: clock.set,
      clearTimer: clock.clear,
      onFire: (_r, late) => fires.push(late),
    });
    const a = await d.heartbeat('acct-1', 1000);
    assert.equal(a.armed, true);
    assert.equal(a.deadline, new Date(clock.t + 1000).toISOString());
    await clock.advance(999);
    assert.equal(sent.length, 0);
    // Re-arm at 999 ms: the old deadline must not fire.
    await d.heartbeat('acct-1', 1000);
    await clock.advance(999);
    assert.equal(sent.length, 0);
    await clock.advance(1);
    assert.deepEqual(sent, [{ type: 'CancelOrders', accountId: 'acct-1', scope: 'all' }]);
    assert.deepEqual(fires, [0]);
    await clock.advance(10_000);
    assert.equal(sent.length, 1, 'fires once');
    const next = await d.heartbeat('acct-1', 0);
    assert.equal(next.armed, false);
    assert.equal(next.fired?.reason, 'timeout');
    assert.equal(next.fired?.journalSeq, 1);
    // Disarmed: nothing fires.
    await d.heartbeat('acct-2', 5000);
    await d.heartbeat('acct-2', 0);
    await clock.advance(60_000);
    assert.equal(sent.length, 1);
  });

  test('restart: a countdown that fell due while down fires once at start, not twice', async () => {
    const w = await world();
    let srv = w.srv;
    try {
      const t = await w.trader('bot');
      const m = w.markets[0]!;
      for (let i = 0; i < 3; i++) {
        const r = await t.api.call('POST', '/nbx/v2/emm/orders/place', {
          outcomeId: m.outcomeIds[0],
          price: 0.2,
          qty: 10,
          currency: 'CASH',
          tif: 'GTC',
        });
        assert.equal(r.status, 201);
      }
      const armed = await t.api.call('POST', '/nbx/v2/emm/heartbeat', { timeoutMs: 1000 });
      assert.equal(armed.body.armed, true);
      await srv.close();
      await new Promise((r) => setTimeout(r, 1200));
      srv = await start(w.place);
      // Fired during start, before the listener opened.
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(srv.runtime.reader().openOrders(t.accountId).length, 0);
      // The bot comes back and rests a new order without arming: a later restart must not cancel it.
      const again = new Api(srv, t.token);
      const hb = await again.call('POST', '/nbx/v2/emm/heartbeat', { timeoutMs: 0 });
      assert.equal(hb.status, 200);
      const o = await again.call('POST', '/nbx/v2/emm/orders/place', {
        outcomeId: m.outcomeIds[0],
        price: 0.2,
        qty: 10,
        currency: 'CASH',
        tif: 'GTC',
      });
      assert.equal(o.status, 201);
      await srv.close();
      srv = await start(w.place);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(srv.runtime.reader().openOrders(t.accountId).length, 1, 'fired twice');
    } finally {
      await srv.close();
      await w.place.destroy();
    }
  });
});
