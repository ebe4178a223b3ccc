// The demo against the real exchange state machine: the whole slate and its liquidity apply with
// no rejection and leave every tradable book two-sided and uncrossed, and a living-demo step is
// deterministic. The multi-day run of the living demo is in
// test/integration/living-demo-days.test.ts (a simulation, not a unit: it runs in `npm test`).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rngFor } from '../../src/catalog/rng.ts';
import type { CommandInput } from '../../src/catalog/types.ts';
import { createLiveState, liveStep } from '../../src/demo/live.ts';
import { demoAccounts, quoteSlate } from '../../src/demo/market-maker.ts';
import { buildDemoSlate } from '../../src/demo/slate.ts';
import { Exchange } from '../../src/exchange/exchange.ts';
import { applyAll, assertBooks, HOUR, NOW } from './demo-exchange-helpers.ts';

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

  test('pre-game lines move now and then, a few ticks, and stay two-sided and uncrossed', () => {
    const seed = 'pregame';
    const leagues = ['NBA', 'NHL'];
    const x = new Exchange();
    const slate = buildDemoSlate({ seed, now: NOW, leagues });
    applyAll(x, slate.commands, NOW);
    applyAll(x, quoteSlate(slate, seed), NOW);
    const state = createLiveState({ seed, now: NOW, config: { leagues, minUpcoming: 20, tradesPerStep: 0 } });
    const pregame = () =>
      x
        .eventsSorted()
        .filter((e) => e.status === 'OPEN_PREGAME' && e.scheduledStart > NOW + 2 * HOUR)
        .flatMap((e) => e.marketIds);
    const best = () => new Map(pregame().map((id) => [id, x.bookLevels(id, 'CASH').bids[0]?.price]));
    const before = best();
    const rng = rngFor('pregame-moves');
    // One minute of one-second steps, as the server runs them.
    for (let i = 1; i <= 60; i++) {
      const at = NOW + i * 1000;
      applyAll(x, liveStep(x, state, at, rng), at);
    }
    const after = best();
    const moved = [...before].filter(([id, p]) => after.get(id) !== p);
    // About one move per game per ten minutes: some of these books moved within the minute, most not.
    assert.ok(moved.length > 0, 'no pre-game book moved in a minute');
    assert.ok(moved.length < before.size / 2, `${moved.length} of ${before.size} moved`);
    for (const [id, p] of moved) {
      const q = after.get(id);
      assert.ok(
        p !== undefined && q !== undefined && Math.abs(q - p) <= 100,
        `${id}: ${p} → ${q} (thousandths)`,
      );
    }
    assertBooks(x, 3);
  });

  test('running games show a score that only goes up, and the final score keeps it', () => {
    const seed = 'scores';
    const leagues = ['NBA'];
    const x = new Exchange();
    const slate = buildDemoSlate({ seed, now: NOW, leagues });
    applyAll(x, slate.commands, NOW);
    applyAll(x, quoteSlate(slate, seed), NOW);
    const state = createLiveState({ seed, now: NOW, config: { leagues, minUpcoming: 20, tradesPerStep: 0 } });
    const rng = rngFor('scores');
    const seen = new Map<string, [number, number]>();
    let liveWithScore = 0;
    for (let i = 1; i <= 60; i++) {
      const at = NOW + i * 5 * 60_000;
      applyAll(x, liveStep(x, state, at, rng), at);
      for (const e of x.eventsSorted()) {
        if (!e.gameId || (e.status !== 'OPEN_INGAME' && e.status !== 'FINAL')) continue;
        const g = x.game(e.gameId)!;
        if (g.homeScore === null || g.awayScore === null) continue;
        if (e.status === 'OPEN_INGAME') liveWithScore++;
        const before = seen.get(g.id);
        if (before) {
          assert.ok(
            g.homeScore >= before[0] && g.awayScore >= before[1],
            `${e.description}: ${before} → ${g.homeScore}-${g.awayScore}`,
          );
        }
        seen.set(g.id, [g.homeScore, g.awayScore]);
      }
    }
    assert.ok(liveWithScore > 0, 'no live game showed a score');
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
