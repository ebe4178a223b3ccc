// How a market settles from a final score (docs/lifecycle.md). Outcome 0 is
// home/over/yes. SPREAD: home covers when margin + strike > 0, a push when it is exactly 0 (only
// possible with integer strikes). TOTAL: over when total > strike, push on equality. MONEY: the
// home side wins when its margin is positive; a level score voids the market (PUSH), which is the
// "draw no bet" reading of a two-way moneyline for leagues with draws.

import type { Id, MarketType } from '../exchange/types.ts';
import { type FinalScore, marginOf } from './rating-model.ts';

export function marketResult(
  league: string,
  market: { type: MarketType; strike: number | null; outcomeIds: readonly [Id, Id] | readonly Id[] },
  score: FinalScore,
): Id | 'PUSH' {
  const margin = marginOf(league, score);
  const total = score.homeScore + score.awayScore;
  let x: number;
  switch (market.type) {
    case 'MONEY':
      x = margin;
      break;
    case 'SPREAD':
      x = margin + (market.strike ?? 0);
      break;
    case 'TOTAL':
      x = total - (market.strike ?? 0);
      break;
    default:
      // The demo has no score-based reading of other market types: void rather than guess.
      return 'PUSH';
  }
  if (x > 0) return market.outcomeIds[0]!;
  if (x < 0) return market.outcomeIds[1]!;
  return 'PUSH';
}
