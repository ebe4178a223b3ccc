// The demo against the real exchange state machine: the whole slate and its liquidity apply with
// no rejection and leave every tradable book two-sided and uncrossed; the living demo then runs
// for simulated days with every command accepted, games finishing and settling, and the slate
// never running dry.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rngFor } from '../../src/catalog/rng.ts';
import type { CommandInput } from '../../src/catalog/types.ts';
import { createLiveState, liveStep } from '../../src/demo/live.ts';
import { demoAccounts, quoteSlate } from '../../src/demo/market-maker.ts';
import { leagueModel } from '../../src/demo/rating-model.ts';
import { buildDemoSlate } from '../../src/demo/slate.ts';
import { Exchange } from '../../src/exchange/exchange.ts';
import { type Command, CURRENCIES, TRADABLE_EVENT_STATUSES } from '../../src/exchange/types.ts';

const NOW = Date.UTC(2026, 10, 21, 19, 47, 13);
const HOUR = 3_600_000;

function applyAll(x: Exchange, cmds: CommandInput[], ts: number): void {
  for (const c of cmds) {
    const r = x.apply({ ...c, ts } as Command);
    if (!r.ok) assert.fail(`${c.type} rejected: ${r.code} ${r.message} ${JSON.stringify(c).slice(0, 300)}`);
  }
}

/** Every open market of a tradable event has bids and asks in both currencies, never crossed. */
function assertBooks(x: Exchange, minLevels: number): number {
  let checked = 0;
  for (const e of x.eventsSorted()) {
    for (const id of e.marketIds) {
      const m = x.market(id)!;
      for (const cur of CURRENCIES) {
        const { bids, asks } = x.bookLevels(id, cur);
        if (bids.length > 0 && asks.length > 0)
          assert.ok(bids[0]!.price < asks[0]!.price, `crossed book ${id} ${cur}`);
        if (minLevels > 0 && m.status === 'OPEN' && TRADABLE_EVENT_STATUSES.includes(e.status)) {
          assert.ok(
            bids.length >= minLevels && asks.length >= minLevels,
            `${e.description} ${m.description} ${cur} not two-sided`,
          );
          checked++;
        }
      }
    }
  }
  return checked;
}

describe('demo on the real exchange', () => {
  test('the whole slate and its liquidity apply cleanly; every tradable book is two-sided and not crossed', () => {
    const seed = 'exchange-test';
    const x = new Exchange();
    const slate = buildDemoSlate({ seed, now: NOW });
    applyAll(x, slate.commands, NOW);
    applyAll(x, quoteSlate(slate, seed), NOW);
    const checked = assertBooks(x, 3);
    assert.ok(checked > 2 * 2000, `only ${checked} books checked`);
    // the statuses the slate promised are the exchange's
    for (const g of slate.games) assert.equal(x.event(g.eventId)!.status, g.status);
    for (const g of slate.games.filter((g) => g.status === 'FINAL')) {
      assert.deepEqual(
        [x.game(g.gameId!)!.homeScore, x.game(g.gameId!)!.awayScore],
        [g.score!.homeScore, g.score!.awayScore],
      );
      for (const m of g.markets) assert.equal(x.market(m.marketId)!.status, 'SETTLED');
    }
    const mm = demoAccounts(seed).marketMaker;
    assert.ok(x.wallet(mm, 'CASH')!.reserved > 0 && x.wallet(mm, 'COIN')!.reserved > 0);
  });

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

  test('liveStep is deterministic for the same exchange, state, time and random stream', () => {
    const seed = 'det';
    const leagues = ['EPL', 'NBA'];
    const run = () => {
      const x = new Exchange();
      const slate = buildDemoSlate({ seed, now: NOW, leagues });
      applyAll(x, slate.commands, NOW);
      applyAll(x, quoteSlate(slate, seed), NOW);
      const state = createLiveState({ seed, now: NOW, config: { leagues, minUpcoming: 50 } });
      const rng = rngFor('same');
      const all: CommandInput[] = [];
      for (let i = 1; i <= 30; i++) {
        const cmds = liveStep(x, state, NOW + i * 10 * 60_000, rng);
        applyAll(x, cmds, NOW + i * 10 * 60_000);
        all.push(...cmds);
      }
      return { all, hash: x.hash() };
    };
    const a = run();
    const b = run();
    assert.deepEqual(a.all, b.all);
    assert.equal(a.hash, b.hash);
  });
});
