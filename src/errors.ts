// One registry of API error codes (docs/http.md "Validation and errors"; after fastify's lib/errors.js and jose's
// util/errors.ts): code and tests switch on `code`, never on message text. The wire envelope is
// `{ statusCode, error, message, code, details? }`, the shape Fastify and the production API use.
// OAuth endpoints use RFC 6749 §5.2 bodies instead; see src/auth/oauth-errors.ts.

import { STATUS_CODES } from 'node:http';
import type { FromSchema } from 'json-schema-to-ts';

export const ErrorCodes = {
  // generic HTTP
  VALIDATION_FAILED: { status: 400, message: 'Request validation failed' },
  MALFORMED_JSON: { status: 400, message: 'Body is not valid JSON' },
  MALFORMED_REQUEST: { status: 400, message: 'Malformed HTTP request' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request header fields too large' },
  REQUEST_TIMEOUT: { status: 408, message: 'Request timeout' },
  BODY_TOO_LARGE: { status: 413, message: 'Request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  ROUTE_NOT_FOUND: { status: 404, message: 'Route not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  UNAUTHORIZED: { status: 401, message: 'Authentication required' },
  INVALID_TOKEN: { status: 401, message: 'Invalid access token' },
  INSUFFICIENT_SCOPE: { status: 403, message: 'Insufficient scope' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service unavailable' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  // catalog
  EVENT_NOT_FOUND: { status: 404, message: 'Event not found' },
  MARKET_NOT_FOUND: { status: 404, message: 'Market not found' },
  LEAGUE_NOT_FOUND: { status: 404, message: 'League not found' },
  TEAM_NOT_FOUND: { status: 404, message: 'Team not found' },
  INVALID_ID: { status: 400, message: 'Malformed identifier' },
  ALREADY_EXISTS: { status: 409, message: 'Already exists' },
  INVALID_TRANSITION: { status: 409, message: 'Status transition not allowed' },
  // accounts and clients
  CLIENT_NOT_FOUND: { status: 404, message: 'Client not found' },
  ACCOUNT_NOT_FOUND: { status: 404, message: 'Account not found' },
  INVALID_AMOUNT: { status: 400, message: 'Invalid amount' },
  AMOUNT_OUT_OF_RANGE: { status: 400, message: 'Amount beyond what the exchange holds exactly' },
  INVALID_CURRENCY: { status: 400, message: 'Invalid currency' },
  // trading
  INVALID_PRICE: { status: 400, message: 'Price is not on the tick table' },
  INVALID_QTY: { status: 400, message: 'Quantity must be a positive integer' },
  INVALID_TIF: { status: 400, message: 'Invalid time in force' },
  OUTCOME_NOT_FOUND: { status: 404, message: 'Outcome not found' },
  MARKET_NOT_OPEN: { status: 409, message: 'Market is not open' },
  EVENT_NOT_TRADABLE: { status: 409, message: 'Event is not open for trading' },
  TRADING_LOCKED: { status: 409, message: 'Trading is locked' },
  INSUFFICIENT_FUNDS: { status: 409, message: 'Insufficient funds' },
  POST_ONLY_WOULD_TAKE: { status: 409, message: 'Post-only order would take liquidity' },
  FOK_NOT_FILLED: { status: 409, message: 'Fill-or-kill order could not be filled' },
  MMP_FROZEN: { status: 409, message: 'Market-maker protection froze protected orders on this event' },
  MMP_NOT_CONFIGURED: {
    status: 409,
    message: 'No market-maker protection configured for this account, event and currency',
  },
  ORDER_NOT_FOUND: { status: 404, message: 'Order not found' },
  AMEND_NO_CHANGE: { status: 400, message: 'The amend changes neither price nor quantity' },
  DUPLICATE_CLIENT_ORDER_ID: { status: 409, message: 'clientOrderId reused with different parameters' },
  ALREADY_SETTLED: { status: 409, message: 'Market already settled' },
  LOCK_NOT_FOUND: { status: 404, message: 'Lock not found' },
  // parlay (docs/pricing.md): every decline is 400 "Cannot price parlay" with this code's envelope and
  // `code` set to the reason; the reasons (TOO_FEW_LEGS, NO_LIQUIDITY, …) are registered in
  // src/pricing/declines.ts.
  CANNOT_PRICE_PARLAY: { status: 400, message: 'Cannot price parlay' },
  // tradeable parlays (docs/parlays.md)
  PARLAY_INVALID_LEGS: { status: 400, message: 'Invalid parlay legs' },
  PARLAY_NO_QUOTE: { status: 409, message: 'No live quote can fill this wager' },
  PARLAY_PRICE_MOVED: { status: 409, message: 'The best live quote is above maxPrice' },
  PARLAY_REQUEST_CLOSED: { status: 409, message: 'Parlay request is no longer open' },
  PARLAY_REQUEST_NOT_FOUND: { status: 404, message: 'Parlay request not found' },
  PARLAY_OPEN_REQUEST_LIMIT: { status: 409, message: 'Too many open parlay requests' },
  // parlay boosts (docs/parlays.md "Boosts")
  BOOST_CLAIM_LIMIT: { status: 409, message: 'Boost claim limit reached' },
  BOOST_EXPIRED: { status: 409, message: 'Boost is no longer valid' },
  BOOST_FUNDS_INSUFFICIENT: { status: 409, message: 'The boost’s funding account cannot pay the boost' },
  BOOST_LEAGUE_INELIGIBLE: { status: 400, message: 'A leg’s league is not eligible for the boost' },
  BOOST_MAX_STAKE: { status: 400, message: 'Stake above the boost’s maximum' },
  BOOST_MIN_LEGS: { status: 400, message: 'Too few legs for the boost' },
  BOOST_NOT_CLAIMED: { status: 409, message: 'Boost not claimed (or every claim used)' },
  BOOST_NOT_FOUND: { status: 404, message: 'Boost not found' },
  BOOST_NOT_STARTED: { status: 409, message: 'Boost is not valid yet' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ErrorCodes;

/** An error the API reports to the caller as the one error envelope (docs/http.md "Validation and errors"). */
export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? ErrorCodes[code].message);
    this.name = 'ApiError';
    this.statusCode = ErrorCodes[code].status;
  }
}

/**
 * The one error envelope, declared once as the schema the routes answer with (and the OpenAPI
 * document shows, src/http/schemas/common.ts); its type is derived from it. `details` is any JSON.
 */
export const errorEnvelope = {
  type: 'object',
  description: 'Error envelope (docs/http.md "Validation and errors")',
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    message: { type: 'string' },
    code: { type: 'string', description: 'Stable machine code (src/errors.ts)' },
    details: {},
  },
  required: ['statusCode', 'error', 'message', 'code'],
  additionalProperties: false,
} as const;

export type ErrorEnvelope = FromSchema<typeof errorEnvelope>;

/** The wire body for an error. `error` is the HTTP reason phrase, as Fastify writes it. */
export function envelope(
  statusCode: number,
  code: string,
  message: string,
  details?: unknown,
): ErrorEnvelope {
  const body: ErrorEnvelope = { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message, code };
  if (details !== undefined) body.details = details;
  return body;
}
