// The lines and scores of the living demo's games (src/demo/live.ts drives them): pre-game moves,
// the in-play line from the walk, and the score so far. Pure functions of their arguments and the
// random stream, so a step stays deterministic.

import { randNormal } from '../catalog/rng.ts';
import type { Rng } from '../catalog/types.ts';
import type { EventRecord, Id } from '../exchange/types.ts';
import { type GameLine, leagueModel } from './rating-model.ts';
import { HOUR } from './slate.ts';

/** In-play memory of one running game. */
export interface LiveGameState {
  /** Current expected final home margin and total (the random walk). */
  m: number;
  t: number;
  /** Instant the walk was last advanced to. */
  at: number;
  /** Time spent DELAYED so far (pushes the end back). */
  delayedMs: number;
  /** While DELAYED: when the delay began and when play resumes. */
  pausedAt: number | null;
  resumeAt: number | null;
}

/** A pre-game line's shift from the model's: expected margin and total. */
export interface PregameShift {
  m: number;
  t: number;
}

export function progress(e: EventRecord, g: LiveGameState, durationMs: number, at: number): number {
  return Math.min(1, Math.max(0, (at - e.scheduledStart - g.delayedMs) / durationMs));
}

/**
 * The pre-game line with its moves so far. A move happens with the configured rate; it pulls the
 * shift a tenth of the way back to the model's line (so lines wander, never drift away) and adds a
 * normal step of `moves.sd` standard deviations. Deterministic for a given rng.
 */
export function pregameLine(
  base: GameLine,
  shifts: Record<Id, PregameShift>,
  moves: { perHour: number; sd: number },
  eventId: Id,
  stepMs: number,
  rng: Rng,
): GameLine {
  let shift = shifts[eventId];
  if (moves.perHour > 0 && rng() < (moves.perHour * stepMs) / HOUR) {
    shift ??= { m: 0, t: 0 };
    shift.m = 0.9 * shift.m + moves.sd * base.sdMargin * randNormal(rng);
    shift.t = 0.9 * shift.t + moves.sd * base.sdTotal * randNormal(rng);
    shifts[eventId] = shift;
  }
  if (shift === undefined) return base;
  return { ...base, muMargin: base.muMargin + shift.m, muTotal: Math.max(0, base.muTotal + shift.t) };
}

/**
 * The score so far of a running game: the walk's expected final margin and total, scaled to the
 * share of the game played, in whole points; never below what is already on the board, so a
 * score only goes up. The final score (drawn at the end) is at least this.
 */
export function runningScore(
  league: string,
  g: LiveGameState,
  tau: number,
  game: { homeScore: number | null; awayScore: number | null },
): { homeScore: number; awayScore: number } {
  const plus = Math.max(0, Math.round(((g.t + g.m) / 2) * tau));
  const minus = Math.max(0, Math.round(((g.t - g.m) / 2) * tau));
  const [home, away] = leagueModel(league).lowerIsBetter ? [minus, plus] : [plus, minus];
  return { homeScore: Math.max(home, game.homeScore ?? 0), awayScore: Math.max(away, game.awayScore ?? 0) };
}

/** The in-play line: means from the walk, standard deviations shrunk to the time remaining. */
export function liveLine(base: GameLine, g: LiveGameState, tau: number): GameLine {
  const r = Math.sqrt(Math.max(1 - tau, 0.02));
  return { muMargin: g.m, muTotal: g.t, sdMargin: base.sdMargin * r, sdTotal: base.sdTotal * r };
}
