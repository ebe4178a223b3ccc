// Why a parlay cannot be priced (docs/pricing.md "Declines"). Every decline goes on the wire as HTTP 400
// "Cannot price parlay" (the production API's message) with one of these codes as `code` and one
// detail per offending leg, so clients switch on codes and never on message text. The registry
// lives here rather than in src/errors.ts because these are reasons *inside* the single API error
// CANNOT_PRICE_PARLAY, not errors of their own.

export const PARLAY_DECLINES = {
  // request level
  TOO_FEW_LEGS: 'A parlay needs at least 2 legs',
  TOO_MANY_LEGS: 'Too many legs',
  // per leg, in the order they are checked
  INVALID_OUTCOME_ID: 'Outcome id is not a UUID',
  OUTCOME_NOT_FOUND: 'Outcome not found',
  MARKET_NOT_OPEN: 'Market is not open',
  EVENT_NOT_TRADABLE: 'Event is not open for trading',
  DUPLICATE_OUTCOME: 'Outcome appears more than once',
  SAME_MARKET: 'Both outcomes of one market',
  UNSUPPORTED_COMBINATION: 'The same-game model does not cover this market',
  CONFLICTING_LEGS: 'These legs cannot all win',
  NO_LIQUIDITY: 'No offer to buy this outcome',
} as const;

export type ParlayDeclineCode = keyof typeof PARLAY_DECLINES;

/** One reason, naming the leg (null for request-level reasons). */
export interface DeclineDetail {
  outcomeId: string | null;
  code: ParlayDeclineCode;
  message: string;
}

export function declineDetail(
  outcomeId: string | null,
  code: ParlayDeclineCode,
  message?: string,
): DeclineDetail {
  return { outcomeId, code, message: message ?? PARLAY_DECLINES[code] };
}
