// Plain words for the server's stable codes: order rejections (src/errors.ts, README "Money,
// orders, positions") and parlay declines (src/pricing/declines.ts). Unknown codes fall back to
// the server's own message, so a new code is never hidden.

const MEANINGS: Record<string, string> = {
  // order entry and cancels
  INVALID_PRICE: 'The price is not one of the valid ticks. Pick a price from the list.',
  INVALID_QTY: 'The quantity must be a whole number of cents of payout, greater than zero.',
  INVALID_TIF: 'Time in force must be GTC, GTT, IOC, FOK or PO.',
  INVALID_CURRENCY: 'The currency must be CASH or COIN.',
  OUTCOME_NOT_FOUND: 'That outcome does not exist (any more).',
  MARKET_NOT_OPEN: 'This market is not open: it is closed or already settled.',
  EVENT_NOT_TRADABLE: 'The event is not open for trading right now (not started, suspended or finished).',
  TRADING_LOCKED: 'Trading is locked by the operator for this event or the whole exchange.',
  INSUFFICIENT_FUNDS:
    'Your balance does not cover the cost (price × quantity). Ask the operator for a deposit.',
  POST_ONLY_WOULD_TAKE: 'A post-only order may only rest; this price would trade at once. Lower the price.',
  FOK_NOT_FILLED:
    'Fill-or-kill: not enough was offered at this price to fill the whole quantity, so nothing traded.',
  ORDER_NOT_FOUND: 'The order is not open any more (filled, cancelled, or not yours).',
  DUPLICATE_CLIENT_ORDER_ID: 'This client order id was already used for a different order.',
  VALIDATION_FAILED: 'The request was not valid.',
  // tokens and access
  invalid_client: 'Unknown client id or wrong secret.',
  access_denied: 'This client is disabled.',
  invalid_scope: 'This client may not use that scope.',
  UNAUTHORIZED: 'Sign in again: the token is missing or expired.',
  FORBIDDEN: 'This client lacks the scope for that action.',
  RATE_LIMITED: 'Too many requests. Wait a few seconds.',
  // parlay declines
  CANNOT_PRICE_PARLAY: 'This combination cannot be priced.',
  TOO_FEW_LEGS: 'A parlay needs at least two legs. Add another outcome.',
  TOO_MANY_LEGS: 'Too many legs for one parlay. Remove some.',
  INVALID_OUTCOME_ID: 'One leg is not a valid outcome id.',
  DUPLICATE_OUTCOME: 'The same outcome is in the slip twice.',
  SAME_MARKET: 'Both sides of one market cannot win together. Keep one of them.',
  UNSUPPORTED_COMBINATION: 'The same-game model does not price this market type together with the others.',
  CONFLICTING_LEGS:
    'These legs cannot all win at once (for example a big favourite to cover and the underdog to win).',
  // parlay bets
  PARLAY_PRICE_MOVED:
    'The price moved: every live quote is now above the price you saw. Ask for a new price.',
  PARLAY_NO_QUOTE: 'No live quote covers this stake right now. Ask for a new price, or lower the stake.',
  PARLAY_REQUEST_CLOSED: 'This request is closed (expired, filled or cancelled). Ask for a new price.',
  PARLAY_OPEN_REQUEST_LIMIT: 'You have too many open parlay requests. Wait for some to expire.',
  PARLAY_INVALID_LEGS: 'These legs cannot make a parlay (too many, or a market is not open).',
  INVALID_AMOUNT: 'The stake is outside the allowed range.',
  BOOST_NOT_FOUND: 'That boost is not available (any more).',
  NO_LIQUIDITY: 'Nobody offers this outcome right now, so there is no price to build on.',
};

export function meaning(code: string | undefined, fallback?: string): string {
  if (code && MEANINGS[code]) return MEANINGS[code]!;
  return fallback ?? 'The server refused the request.';
}
