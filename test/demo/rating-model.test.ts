import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { teamId } from '../../src/catalog/leagues.ts';
import { rngFor } from '../../src/catalog/rng.ts';
import {
  gameLine,
  halfPoint,
  LEAGUE_MODELS,
  marginOf,
  pMoney,
  pSpread,
  pTotal,
  simulateScore,
  strikesFor,
  teamRating,
} from '../../src/demo/rating-model.ts';
import { marketResult } from '../../src/demo/settle.ts';
import { uuidFor } from '../../src/ids.ts';
import { normCdf as normalCdf } from '../../src/pricing/normal.ts';

describe('normal CDF', () => {
  test('matches known values to 1e-7', () => {
    const cases: [number, number][] = [
      [0, 0.5],
      [1, 0.8413447460685429],
      [-1, 0.15865525393145707],
      [1.959963984540054, 0.975],
      [-2.5, 0.006209665325776132],
      [3, 0.9986501019683699],
    ];
    for (const [x, p] of cases) assert.ok(Math.abs(normalCdf(x) - p) < 1e-7, `Φ(${x})`);
  });
  test('is monotone', () => {
    let prev = 0;
    for (let x = -8; x <= 8; x += 0.001) {
      const v = normalCdf(x);
      assert.ok(v >= prev);
      prev = v;
    }
  });
});

describe('rating model', () => {
  const bills = teamId('NFL', 'BUF');
  const chiefs = teamId('NFL', 'KC');

  test('ratings are seeded: same seed same rating, other seed other rating', () => {
    assert.deepEqual(teamRating('s1', 'NFL', bills), teamRating('s1', 'NFL', bills));
    assert.notDeepEqual(teamRating('s1', 'NFL', bills), teamRating('s2', 'NFL', bills));
  });

  test('home advantage: a team is favoured at home against itself-like opposition', () => {
    const home = gameLine('s', 'NFL', bills, chiefs);
    const away = gameLine('s', 'NFL', chiefs, bills);
    assert.ok(Math.abs(home.muMargin + away.muMargin - 2 * LEAGUE_MODELS.NFL!.homeAdvantage) < 1e-9);
    assert.equal(home.muTotal, away.muTotal);
  });

  test('prices: SPREAD rises with strike, TOTAL falls, MONEY = SPREAD at 0', () => {
    const line = { muMargin: 3, muTotal: 47, sdMargin: 13.5, sdTotal: 10 };
    assert.ok(Math.abs(pMoney(line) - pSpread(line, 0)) < 1e-12);
    assert.ok(pSpread(line, -3.5) < 0.5 && pSpread(line, -2.5) > 0.5);
    assert.ok(Math.abs(pTotal(line, 47) - 0.5) < 1e-7);
    assert.ok(pTotal(line, 40.5) > pTotal(line, 47.5));
  });

  test('strikes are half points around the fair line', () => {
    assert.equal(halfPoint(2.9), 2.5);
    assert.equal(halfPoint(-2.1), -2.5);
    const line = { muMargin: 6.2, muTotal: 44.1, sdMargin: 13.5, sdTotal: 10 };
    assert.deepEqual(strikesFor('NFL', line), { spreads: [-9.5, -6.5, -3.5], totals: [41.5, 44.5, 47.5] });
  });

  test('simulated scores follow the model (mean margin and total, win rate)', () => {
    for (const league of Object.keys(LEAGUE_MODELS)) {
      const line = {
        muMargin: LEAGUE_MODELS[league]!.marginSd * 0.3,
        muTotal: LEAGUE_MODELS[league]!.totalMean,
        sdMargin: LEAGUE_MODELS[league]!.marginSd,
        sdTotal: LEAGUE_MODELS[league]!.totalSd,
      };
      const rng = rngFor('sim', league);
      const n = 4000;
      let sumM = 0;
      let sumT = 0;
      let wins = 0;
      let decided = 0;
      for (let i = 0; i < n; i++) {
        const s = simulateScore(league, line, rng);
        assert.ok(
          Number.isInteger(s.homeScore) &&
            Number.isInteger(s.awayScore) &&
            s.homeScore >= 0 &&
            s.awayScore >= 0,
        );
        const m = marginOf(league, s);
        sumM += m;
        sumT += s.homeScore + s.awayScore;
        if (m !== 0) decided++;
        if (m > 0) wins++;
        if (LEAGUE_MODELS[league]!.ties === 'extra') assert.notEqual(m, 0, `${league}: no draws`);
      }
      const sdErr = (LEAGUE_MODELS[league]!.marginSd / Math.sqrt(n)) * 5 + 0.3;
      // Clamping at zero lifts the mean total of low-scoring sports a little; allow for it.
      assert.ok(
        Math.abs(sumM / n - line.muMargin) < sdErr,
        `${league} margin ${sumM / n} vs ${line.muMargin}`,
      );
      assert.ok(
        Math.abs(sumT / n - line.muTotal) < (line.sdTotal / Math.sqrt(n)) * 5 + 0.35,
        `${league} total ${sumT / n}`,
      );
      assert.ok(
        Math.abs(wins / decided - pMoney(line)) < 0.06,
        `${league} win rate ${wins / decided} vs ${pMoney(line)}`,
      );
    }
  });

  test('settlement from a score: SPREAD, TOTAL, MONEY, pushes on integer strikes and draws', () => {
    const o: [string, string] = [uuidFor('o', 0), uuidFor('o', 1)];
    const s = { homeScore: 27, awayScore: 24 };
    assert.equal(marketResult('NFL', { type: 'MONEY', strike: null, outcomeIds: o }, s), o[0]);
    assert.equal(marketResult('NFL', { type: 'SPREAD', strike: -2.5, outcomeIds: o }, s), o[0]);
    assert.equal(marketResult('NFL', { type: 'SPREAD', strike: -3.5, outcomeIds: o }, s), o[1]);
    assert.equal(marketResult('NFL', { type: 'SPREAD', strike: -3, outcomeIds: o }, s), 'PUSH');
    assert.equal(marketResult('NFL', { type: 'TOTAL', strike: 50.5, outcomeIds: o }, s), o[0]);
    assert.equal(marketResult('NFL', { type: 'TOTAL', strike: 51, outcomeIds: o }, s), 'PUSH');
    assert.equal(marketResult('NFL', { type: 'TOTAL', strike: 51.5, outcomeIds: o }, s), o[1]);
    assert.equal(
      marketResult('EPL', { type: 'MONEY', strike: null, outcomeIds: o }, { homeScore: 1, awayScore: 1 }),
      'PUSH',
    );
    // golf: fewer strokes wins
    assert.equal(
      marketResult('PGA', { type: 'MONEY', strike: null, outcomeIds: o }, { homeScore: 68, awayScore: 71 }),
      o[0],
    );
    assert.equal(
      marketResult('PGA', { type: 'SPREAD', strike: -2.5, outcomeIds: o }, { homeScore: 68, awayScore: 71 }),
      o[0],
    );
    assert.equal(
      marketResult('PGA', { type: 'SPREAD', strike: -3.5, outcomeIds: o }, { homeScore: 68, awayScore: 71 }),
      o[1],
    );
  });
});
