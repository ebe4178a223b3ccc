// The living demo on the real exchange state machine for three simulated days: every command
// accepted, games finishing and settling, books uncrossed, the slate never running dry. A
// simulation of a few hundred steps over the whole demo, so it runs in the full suite, not in
// `npm run test:unit`; test/integration/living-demo.test.ts runs the demo through the runtime.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rngFor } from '../../src/catalog/rng.ts';
import { createLiveState, liveStep } from '../../src/demo/live.ts';
import { quoteSlate } from '../../src/demo/market-maker.ts';
import { leagueModel } from '../../src/demo/rating-model.ts';
import { buildDemoSlate } from '../../src/demo/slate.ts';
import { Exchange } from '../../src/exchange/exchange.ts';
import { applyAll, assertBooks, HOUR, NOW } from '../demo/demo-exchange-helpers.ts';

test('the living demo runs for three simulated days: games finish and settle, books stay uncrossed, events remain', () => {
  const seed = 'live-test';
  const leagues = ['NBA', 'EPL', 'PGA', 'UFC'];
  const x = new Exchange();
  const slate = buildDemoSlate({ seed, now: NOW, leagues });
  applyAll(x, slate.commands, NOW);
  applyAll(x, quoteSlate(slate, seed), NOW);
  const minUpcoming = 120;
  const state = createLiveState({ seed, now: NOW, config: { leagues, minUpcoming, tradesPerStep: 4 } });
  const rng = rngFor(seed, 'live-rng');
  const seen = {
    OPEN_INGAME: 0,
    DELAYED: 0,
    FINAL: 0,
    CLOSED_PREGAME: 0,
    created: 0,
    trades: 0,
    requotes: 0,
  };
  let t = NOW;
  const STEP = 20 * 60_000;
  for (let i = 0; i < 3 * 24 * 3; i++) {
    t += STEP;
    const cmds = liveStep(x, state, t, rng);
    for (const c of cmds) {
      if (c.type === 'SetEventStatus' && c.status in seen) seen[c.status as keyof typeof seen]++;
      if (c.type === 'CreateEvent') seen.created++;
      if (c.type === 'PlaceOrder' && c.tif === 'IOC') seen.trades++;
      if (c.type === 'CancelOrders') seen.requotes++;
    }
    applyAll(x, cmds, t);
    if (i % 20 === 0) assertBooks(x, 0);
  }
  // At the end every tradable book is two-sided again: new games were quoted when listed, live
  // ones re-quoted after the kickoff drain (a trade of the last step may have taken one level).
  assert.ok(assertBooks(x, 1) > 0);
  for (const k of Object.keys(seen) as (keyof typeof seen)[])
    assert.ok(seen[k] > 0, `no ${k} during the run`);

  // Every game that must be over is FINAL with every market SETTLED.
  let finals = 0;
  for (const e of x.eventsSorted()) {
    if (e.type !== 'Game') continue;
    const over = e.scheduledStart + leagueModel(e.league).durationMin * 60_000 + 3 * HOUR < t;
    if (!over) continue;
    assert.ok(e.status === 'FINAL' || e.status === 'CANCELED', `${e.description} still ${e.status}`);
    if (e.status === 'CANCELED') continue;
    finals++;
    const g = x.game(e.gameId!)!;
    assert.ok(g.homeScore !== null && g.awayScore !== null);
    for (const id of e.marketIds)
      assert.equal(x.market(id)!.status, 'SETTLED', `${e.description} market not settled`);
  }
  assert.ok(finals > 40, `only ${finals} finished games`);

  // Trades happened: the demo trader holds positions or has been paid out; volume appears.
  const traded = x
    .eventsSorted()
    .some((e) => e.marketIds.some((id) => x.market(id)!.volume.CASH > 0 || x.market(id)!.volume.COIN > 0));
  assert.ok(traded, 'no volume anywhere');

  // The slate never runs dry.
  const upcoming = x
    .eventsSorted()
    .filter(
      (e) =>
        e.status !== 'FINAL' &&
        e.status !== 'CANCELED' &&
        e.scheduledStart >= t &&
        e.scheduledStart <= t + 14 * 24 * HOUR,
    );
  assert.ok(upcoming.length >= minUpcoming, `only ${upcoming.length} upcoming`);
  assert.ok(upcoming.some((e) => e.status === 'OPEN_PREGAME'));
});
