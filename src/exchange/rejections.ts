// The engine's own rejection codes and their default messages. A rejected command changes nothing
// and carries one of these codes; the engine knows nothing of HTTP. The edge maps each code to its
// wire error (src/http/rejections.ts), which keeps the same code string, so the wire is unchanged.
// See docs/architecture.md "Layers".

export const RejectionCodes = {
  // parlay boosts (docs/parlays.md "Boosts")
  BOOST_CLAIM_LIMIT: 'Boost claim limit reached',
  BOOST_EXPIRED: 'Boost is no longer valid',
  BOOST_FUNDS_INSUFFICIENT: 'The boost’s funding account cannot pay the boost',
  BOOST_LEAGUE_INELIGIBLE: 'A leg’s league is not eligible for the boost',
  BOOST_MAX_STAKE: 'Stake above the boost’s maximum',
  BOOST_MIN_LEGS: 'Too few legs for the boost',
  BOOST_NOT_CLAIMED: 'Boost not claimed (or every claim used)',
  BOOST_NOT_FOUND: 'Boost not found',
  BOOST_NOT_STARTED: 'Boost is not valid yet',
  ACCOUNT_NOT_FOUND: 'Account not found',
  ALREADY_EXISTS: 'Already exists',
  ALREADY_SETTLED: 'Market already settled',
  AMOUNT_OUT_OF_RANGE: 'Amount beyond what the exchange holds exactly',
  AMEND_NO_CHANGE: 'The amend changes neither price nor quantity',
  DUPLICATE_CLIENT_ORDER_ID: 'clientOrderId reused with different parameters',
  EVENT_NOT_FOUND: 'Event not found',
  EVENT_NOT_TRADABLE: 'Event is not open for trading',
  FOK_NOT_FILLED: 'Fill-or-kill order could not be filled',
  INSUFFICIENT_FUNDS: 'Insufficient funds',
  INVALID_AMOUNT: 'Invalid amount',
  INVALID_CURRENCY: 'Invalid currency',
  INVALID_PRICE: 'Price is not on the tick table',
  INVALID_QTY: 'Quantity must be a positive integer',
  INVALID_TIF: 'Invalid time in force',
  INVALID_TRANSITION: 'Status transition not allowed',
  LEAGUE_NOT_FOUND: 'League not found',
  LOCK_NOT_FOUND: 'Lock not found',
  MARKET_NOT_FOUND: 'Market not found',
  MARKET_NOT_OPEN: 'Market is not open',
  MMP_FROZEN: 'Market-maker protection froze protected orders on this event',
  MMP_NOT_CONFIGURED: 'No market-maker protection configured for this account, event and currency',
  ORDER_NOT_FOUND: 'Order not found',
  OUTCOME_NOT_FOUND: 'Outcome not found',
  PARLAY_INVALID_LEGS: 'Invalid parlay legs',
  PARLAY_NO_QUOTE: 'No live quote can fill this wager',
  PARLAY_PRICE_MOVED: 'The best live quote is above maxPrice',
  PARLAY_REQUEST_CLOSED: 'Parlay request is no longer open',
  PARLAY_REQUEST_NOT_FOUND: 'Parlay request not found',
  POST_ONLY_WOULD_TAKE: 'Post-only order would take liquidity',
  TEAM_NOT_FOUND: 'Team not found',
  TRADING_LOCKED: 'Trading is locked',
  VALIDATION_FAILED: 'Request validation failed',
} as const;

export type RejectionCode = keyof typeof RejectionCodes;

export function isRejectionCode(code: string): code is RejectionCode {
  return Object.hasOwn(RejectionCodes, code);
}
