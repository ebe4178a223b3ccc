import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CLOCK_STEP_S, gameClock, scoreAndClock } from '../../src/demo/game-clock.ts';

describe('the demo game clock', () => {
  test('periods and time left follow the progress', () => {
    assert.deepEqual(gameClock('NFL', 0), { period: 1, timeRemaining: '15:00' });
    assert.deepEqual(gameClock('NFL', 0.125), { period: 1, timeRemaining: '7:30' });
    assert.deepEqual(gameClock('NFL', 0.25), { period: 2, timeRemaining: '15:00' });
    assert.deepEqual(gameClock('NFL', 1), { period: 4, timeRemaining: '0:00' });
    assert.deepEqual(gameClock('NHL', 0.5), { period: 2, timeRemaining: '10:00' });
    assert.deepEqual(gameClock('NBA', 0.99), { period: 4, timeRemaining: '0:30' });
    // innings and holes have no clock
    assert.deepEqual(gameClock('MLB', 0.5), { period: 5 });
    assert.deepEqual(gameClock('PGA', 1), { period: 18 });
    // an unknown league: four quarters of fifteen minutes
    assert.deepEqual(gameClock('XFL', 0.75), { period: 4, timeRemaining: '15:00' });
  });

  test('the clock moves in whole steps and never runs backwards', () => {
    let last = Number.POSITIVE_INFINITY;
    let lastPeriod = 1;
    for (let i = 0; i <= 1000; i++) {
      const c = gameClock('EPL', i / 1000);
      const [m, s] = c.timeRemaining!.split(':').map(Number) as [number, number];
      const left = m * 60 + s;
      assert.equal(left % CLOCK_STEP_S, 0);
      if (c.period === lastPeriod) assert.ok(left <= last, `${i}: ${c.timeRemaining}`);
      else assert.equal(c.period, lastPeriod + 1);
      last = left;
      lastPeriod = c.period;
    }
  });

  test('a command only when score or clock changed', () => {
    const game = { id: 'g', homeScore: 7, awayScore: 3, period: 2, timeRemaining: '12:00' };
    const at = 0.25 + (3 * 60) / (4 * 15 * 60); // 12:00 left in the second quarter
    assert.equal(scoreAndClock('NFL', game, { homeScore: 7, awayScore: 3 }, at), null);
    assert.deepEqual(scoreAndClock('NFL', game, { homeScore: 10, awayScore: 3 }, at), {
      type: 'SetGameScore',
      gameId: 'g',
      homeScore: 10,
      awayScore: 3,
      period: 2,
      timeRemaining: '12:00',
    });
    assert.equal(
      scoreAndClock('NFL', game, { homeScore: 7, awayScore: 3 }, at + 0.01)?.timeRemaining,
      '11:30',
    );
    // a game the catalog has no clock for gets one
    const bare = { id: 'g', homeScore: null, awayScore: null };
    assert.deepEqual(scoreAndClock('MLB', bare, { homeScore: 0, awayScore: 0 }, 0), {
      type: 'SetGameScore',
      gameId: 'g',
      homeScore: 0,
      awayScore: 0,
      period: 1,
    });
  });
});
