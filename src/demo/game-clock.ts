// The living demo's game clock: the period and the time left in it, read off a running game's
// progress τ ∈ [0, 1] (src/demo/live-lines.ts `progress`), and the `SetGameScore` that puts score
// and clock into the catalog when either changed (docs/catalog.md "Living demo").
//
// A simplification on purpose: τ runs evenly over the league's whole duration, breaks included,
// so the clock runs a little slower than a real one and never stops between periods. The clock
// moves in steps of CLOCK_STEP_S seconds of play, so a game writes one command about every half
// minute of wall time, not one per demo step.

import type { Game, Id } from '../exchange/types.ts';

/** A league's periods: how many, and the length of one in seconds (null: no clock, as innings or holes). */
interface Periods {
  count: number;
  seconds: number | null;
}

const PERIODS: Record<string, Periods> = {
  NFL: { count: 4, seconds: 15 * 60 },
  NCAAF: { count: 4, seconds: 15 * 60 },
  NBA: { count: 4, seconds: 12 * 60 },
  NCAAB: { count: 2, seconds: 20 * 60 },
  NHL: { count: 3, seconds: 20 * 60 },
  MLS: { count: 2, seconds: 45 * 60 },
  EPL: { count: 2, seconds: 45 * 60 },
  UFC: { count: 3, seconds: 5 * 60 },
  MLB: { count: 9, seconds: null },
  PGA: { count: 18, seconds: null },
};

/** Leagues the demo does not know (imported ones): four periods of fifteen minutes. */
const DEFAULT_PERIODS: Periods = { count: 4, seconds: 15 * 60 };

/** Seconds of play between two readings of the clock. */
export const CLOCK_STEP_S = 10;

export interface GameClock {
  period: number;
  /** `m:ss` left in the period; absent for leagues without a clock (innings, holes). */
  timeRemaining?: string;
}

/** The clock at progress `tau` (clamped to [0, 1]); at τ = 1 the last period shows 0:00. */
export function gameClock(league: string, tau: number): GameClock {
  const p = PERIODS[league] ?? DEFAULT_PERIODS;
  const t = Math.min(1, Math.max(0, tau)) * p.count;
  const period = Math.min(p.count, Math.floor(t) + 1);
  if (p.seconds === null) return { period };
  // Seconds left in the period, rounded up to the clock's step (a period starts at its full length).
  const left = Math.max(0, period - t) * p.seconds;
  const shown = Math.min(p.seconds, Math.ceil(left / CLOCK_STEP_S - 1e-9) * CLOCK_STEP_S);
  const ss = String(shown % 60).padStart(2, '0');
  return { period, timeRemaining: `${Math.floor(shown / 60)}:${ss}` };
}

/**
 * The command that brings the catalog's score and clock of a running game up to date, or null
 * when both are as the catalog has them.
 */
export function scoreAndClock(
  league: string,
  game: Pick<Game, 'id' | 'homeScore' | 'awayScore' | 'period' | 'timeRemaining'>,
  score: { homeScore: number; awayScore: number },
  tau: number,
): {
  type: 'SetGameScore';
  gameId: Id;
  homeScore: number;
  awayScore: number;
  period: number;
  timeRemaining?: string;
} | null {
  const clock = gameClock(league, tau);
  if (
    score.homeScore === game.homeScore &&
    score.awayScore === game.awayScore &&
    clock.period === game.period &&
    clock.timeRemaining === game.timeRemaining
  ) {
    return null;
  }
  return { type: 'SetGameScore', gameId: game.id, ...score, ...clock };
}
