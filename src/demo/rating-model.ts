// The demo's rating model. A game is summarised by two normal
// variables, the home margin M (home score − away score) and the total T, with
//   μ_M = homeAdvantage + rating(home) − rating(away)     sd σ_M = league marginSd
//   μ_T = totalMean + pace(home) + pace(away)              sd σ_T = league totalSd
// Team ratings and paces are seeded normal draws per (seed, team id), so the same seed always
// yields the same strengths and any team — demo or imported — gets one. Fair prices of the game's
// markets are normal tail probabilities (the same half-line view the parlay pricer uses,
// docs/pricing.md), and the simulated final score is drawn from the same distribution, so prices and results
// agree. For golf the "score" is strokes and a lower score wins: M is then away − home strokes.

import { randNormal, rngFor } from '../catalog/rng.ts';
import type { Rng } from '../catalog/types.ts';
import { normCdf as normalCdf } from '../pricing/normal.ts';

export interface LeagueModel {
  /** Expected home margin from playing at home, points/goals/runs. */
  homeAdvantage: number;
  marginSd: number;
  totalMean: number;
  totalSd: number;
  /** Spread of team strengths (sd of rating) and of their scoring tendencies (sd of pace). */
  ratingSd: number;
  paceSd: number;
  /** Wall-clock length of a game, minutes (start to final whistle, breaks included). */
  durationMin: number;
  /** A level score: 'push' voids MONEY (draws, NFL ties, golf halves); 'extra' plays on until one side leads. */
  ties: 'push' | 'extra';
  /** Distance between the three strikes listed for SPREAD and for TOTAL. */
  spreadStep: number;
  totalStep: number;
  /** Golf: fewer strokes is better, scores are strokes. */
  lowerIsBetter?: boolean;
  /** Lowest credible single-side score (strokes for golf), for clamping simulated scores. */
  minScore: number;
}

/**
 * Per-league values, from typical closing-line figures: NFL margin sd ≈ 13.5 points and totals
 * ≈ 44 ± 10; NBA 12.5 / 228 ± 18; MLB 4.2 runs / 8.8 ± 4.3; NHL 2.4 goals / 6.1 ± 2.3; soccer
 * 1.7 goals / 2.8–3.0 ± 1.7; UFC bouts measured in significant strikes landed; PGA 18-hole
 * head-to-head in strokes (each golfer ≈ 71 ± 2.9). Documented in docs/catalog.md.
 */
export const LEAGUE_MODELS: Record<string, LeagueModel> = {
  NFL: m(1.5, 13.5, 44.5, 10, 5, 2.5, 195, 'push', 3, 3),
  NBA: m(2.5, 12.5, 228, 18, 5, 4, 145, 'extra', 2, 4),
  MLB: m(0.25, 4.2, 8.8, 4.3, 0.7, 0.6, 170, 'extra', 1, 1),
  NHL: m(0.25, 2.4, 6.1, 2.3, 0.45, 0.3, 155, 'extra', 1, 1),
  NCAAF: m(2.5, 16, 53, 13, 10, 4, 210, 'extra', 3, 3),
  NCAAB: m(3, 11, 143, 14, 6, 4, 125, 'extra', 2, 4),
  MLS: m(0.4, 1.7, 3.0, 1.7, 0.35, 0.25, 115, 'push', 1, 1),
  EPL: m(0.3, 1.7, 2.8, 1.65, 0.55, 0.25, 115, 'push', 1, 1),
  UFC: m(0, 30, 100, 40, 15, 10, 40, 'extra', 10, 10),
  PGA: { ...m(0, 4, 142, 4, 1, 0.8, 285, 'push', 1, 1), lowerIsBetter: true, minScore: 60 },
};

/** Used for leagues the demo does not know (imported ones). */
export const DEFAULT_MODEL: LeagueModel = m(1, 10, 50, 10, 4, 2, 180, 'extra', 2, 2);

function m(
  homeAdvantage: number,
  marginSd: number,
  totalMean: number,
  totalSd: number,
  ratingSd: number,
  paceSd: number,
  durationMin: number,
  ties: 'push' | 'extra',
  spreadStep: number,
  totalStep: number,
): LeagueModel {
  return {
    homeAdvantage,
    marginSd,
    totalMean,
    totalSd,
    ratingSd,
    paceSd,
    durationMin,
    ties,
    spreadStep,
    totalStep,
    minScore: 0,
  };
}

export function leagueModel(league: string): LeagueModel {
  return LEAGUE_MODELS[league] ?? DEFAULT_MODEL;
}

export interface TeamRating {
  rating: number;
  pace: number;
}

/** Seeded strength of a team: standard normals scaled by the league's spreads. */
export function teamRating(seed: string, league: string, teamId: string): TeamRating {
  const k = `${seed}|${league}|${teamId}`;
  let r = ratingCache.get(k);
  if (!r) {
    const model = leagueModel(league);
    const rng = rngFor(seed, 'rating', teamId);
    r = Object.freeze({ rating: randNormal(rng) * model.ratingSd, pace: randNormal(rng) * model.paceSd });
    if (ratingCache.size > 50_000) ratingCache.clear(); // bounded: a few seeds × a few hundred teams
    ratingCache.set(k, r);
  }
  return r;
}

/** Ratings are pure functions of their key; the cache only saves the SHA-256 per lookup. */
const ratingCache = new Map<string, TeamRating>();

/** The two means and standard deviations that describe one game. */
export interface GameLine {
  muMargin: number;
  muTotal: number;
  sdMargin: number;
  sdTotal: number;
}

export function gameLine(seed: string, league: string, homeTeamId: string, awayTeamId: string): GameLine {
  const model = leagueModel(league);
  const h = teamRating(seed, league, homeTeamId);
  const a = teamRating(seed, league, awayTeamId);
  return {
    muMargin: model.homeAdvantage + h.rating - a.rating,
    muTotal: Math.max(model.totalMean * 0.5, model.totalMean + h.pace + a.pace),
    sdMargin: model.marginSd,
    sdTotal: model.totalSd,
  };
}

/** P(home wins) — MONEY outcome 0. Ties (push) have probability zero in the continuous model. */
export function pMoney(line: GameLine): number {
  return normalCdf(line.muMargin / line.sdMargin);
}

/** P(M + strike > 0) — SPREAD outcome 0 (home covers). `strike` is from the home side (-2.5: home gives 2.5). */
export function pSpread(line: GameLine, strike: number): number {
  return normalCdf((line.muMargin + strike) / line.sdMargin);
}

/** P(T > strike) — TOTAL outcome 0 (over). */
export function pTotal(line: GameLine, strike: number): number {
  return normalCdf((line.muTotal - strike) / line.sdTotal);
}

/** The half-point strike nearest to x (…, -0.5, 0.5, 1.5, …): no push possible. */
export function halfPoint(x: number): number {
  return Math.floor(x) + 0.5;
}

/** The three SPREAD strikes (home side) around the fair line −μ_M, and the three TOTAL strikes around μ_T. */
export function strikesFor(league: string, line: GameLine): { spreads: number[]; totals: number[] } {
  const model = leagueModel(league);
  const s = halfPoint(-line.muMargin);
  const t = Math.max(model.totalStep + 0.5, halfPoint(line.muTotal));
  return {
    spreads: [s - model.spreadStep, s, s + model.spreadStep],
    totals: [t - model.totalStep, t, t + model.totalStep],
  };
}

export interface FinalScore {
  homeScore: number;
  awayScore: number;
}

/**
 * A final score drawn from N(μ_M, σ_M) × N(μ_T, σ_T): the two sides are (T ± M)/2 rounded to
 * whole points and clamped at the league's minimum. Level scores in leagues without draws go to
 * "extra time": one more point to a side chosen with the model's win probability.
 */
export function simulateScore(league: string, line: GameLine, rng: Rng): FinalScore {
  const margin = line.muMargin + randNormal(rng) * line.sdMargin;
  const total = Math.max(0, line.muTotal + randNormal(rng) * line.sdTotal);
  return scoreFromMarginTotal(league, margin, total, rng, pMoney(line));
}

/** Turns a continuous (margin, total) into a plausible integer score for the league. */
export function scoreFromMarginTotal(
  league: string,
  margin: number,
  total: number,
  rng: Rng,
  pHome: number,
): FinalScore {
  const model = leagueModel(league);
  // plus = (T + M)/2 is the side the margin favours: the home team, or for golf (M = away − home
  // strokes) the away golfer's stroke count.
  let plus = Math.max(model.minScore, Math.round((total + margin) / 2));
  let minus = Math.max(model.minScore, Math.round((total - margin) / 2));
  if (plus === minus && model.ties === 'extra') {
    if (rng() < pHome) plus += 1;
    else minus += 1;
  }
  return model.lowerIsBetter ? { homeScore: minus, awayScore: plus } : { homeScore: plus, awayScore: minus };
}

/** Home margin as the markets read it (golf: away − home strokes). */
export function marginOf(league: string, s: FinalScore): number {
  return leagueModel(league).lowerIsBetter ? s.awayScore - s.homeScore : s.homeScore - s.awayScore;
}
