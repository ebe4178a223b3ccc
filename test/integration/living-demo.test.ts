// The living demo through the real runtime: the demo slate is seeded through the
// sequencer into the embedded store, then simulated hours pass on a controlled clock with the
// scheduler and the living demo stepping as their timers would. Afterwards: books never crossed,
// money conserved (wallets + reserves + collateral + fees = deposits − withdrawals), every FINAL
// game's markets SETTLED, open events still listed, and a restart recovers the same state hash.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { DemoDriver, seedDemo } from '../../src/demo/driver.ts';
import { CURRENCIES } from '../../src/exchange/types.ts';
import { ExchangeRuntime } from '../../src/runtime/exchange-runtime.ts';
import { PgliteStore } from '../../src/store/pglite-store.ts';
import { serverPlace } from '../helpers/server.ts';

const quiet = { info() {}, warn() {}, error() {} };
const MINUTE = 60_000;

test('living demo: simulated hours keep books uncrossed, money conserved, finished games settled', async () => {
  // A private copy of the migrated template at <dir>/pg; only its DATA_DIR is used below.
  const place = await serverPlace('pglite');
  after(() => place.destroy());
  const dir = place.env.DATA_DIR!;

  let now = Date.UTC(2026, 10, 21, 17, 0, 0);
  const clock = () => now;
  const config = loadConfig({ DATA_DIR: dir, TICKBOOK_DEMO: 'true', DEMO_LIVE: 'true', LOG_LEVEL: 'silent' });
  let store = await PgliteStore.open(join(dir, 'pg'));
  const rt = await ExchangeRuntime.open({ config, store, log: quiet, clock });
  const demo = new DemoDriver({ exchange: rt, clock, seed: config.demoSeed, live: true, log: quiet });
  await seedDemo(rt, { seed: config.demoSeed, now: clock(), log: quiet });
  // What the timers would do, driven by hand on the controlled clock.
  demo.enableLive();

  const ex = rt.exchange;
  let finishedBefore = 0;
  for (const e of ex.eventsSorted()) if (e.status === 'FINAL') finishedBefore++;

  // Eight simulated hours in 10-minute steps.
  for (let step = 0; step < 48; step++) {
    now += 10 * MINUTE;
    await rt.tick();
    await demo.step();
    // Invariants after every step.
    for (const cur of CURRENCIES)
      assert.equal(ex.totals()[cur].imbalance, 0, `money not conserved at step ${step}`);
  }
  await rt.sequencer.flush();

  let finished = 0;
  let open = 0;
  for (const e of ex.eventsSorted()) {
    if (e.status === 'FINAL') {
      finished++;
      for (const id of e.marketIds)
        assert.equal(ex.market(id)?.status, 'SETTLED', `market of FINAL event ${e.id}`);
    }
    if (e.status === 'OPEN_PREGAME') open++;
    for (const id of e.marketIds) {
      const m = ex.market(id)!;
      for (const cur of CURRENCIES) {
        const b0 = ex.bestBid(m.outcomeIds[0], cur);
        const b1 = ex.bestBid(m.outcomeIds[1], cur);
        if (b0 && b1) assert.ok(b0.price + b1.price < 1000, `crossed book ${m.id} ${cur}`);
      }
    }
  }
  assert.ok(finished > finishedBefore, `games should have finished (${finishedBefore} → ${finished})`);
  assert.ok(open >= 100, `open events remain (${open})`);

  const hash = ex.hash();
  const seq = ex.lastSeq;
  await rt.close();
  store = await PgliteStore.open(join(dir, 'pg'));
  const again = await ExchangeRuntime.open({ config, store, log: quiet, clock });
  assert.equal(again.exchange.lastSeq, seq);
  assert.equal(again.exchange.hash(), hash);
  await again.close();
  await store.close();
});
