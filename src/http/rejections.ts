// Engine rejections → wire errors (docs/http.md "Validation and errors"). The engine rejects with its own codes
// (src/exchange/rejections.ts); each maps to the registry entry of the same name, whose HTTP status
// the envelope carries. A new engine code fails to compile here until it has a wire error.

import type { ErrorCode } from '../errors.ts';
import type { RejectionCode } from '../exchange/rejections.ts';

export const REJECTION_ERRORS: Record<RejectionCode, ErrorCode> = {
  ACCOUNT_NOT_FOUND: 'ACCOUNT_NOT_FOUND',
  ALREADY_EXISTS: 'ALREADY_EXISTS',
  ALREADY_SETTLED: 'ALREADY_SETTLED',
  AMEND_NO_CHANGE: 'AMEND_NO_CHANGE',
  DUPLICATE_CLIENT_ORDER_ID: 'DUPLICATE_CLIENT_ORDER_ID',
  EVENT_NOT_FOUND: 'EVENT_NOT_FOUND',
  EVENT_NOT_TRADABLE: 'EVENT_NOT_TRADABLE',
  FOK_NOT_FILLED: 'FOK_NOT_FILLED',
  INSUFFICIENT_FUNDS: 'INSUFFICIENT_FUNDS',
  INVALID_AMOUNT: 'INVALID_AMOUNT',
  INVALID_CURRENCY: 'INVALID_CURRENCY',
  INVALID_PRICE: 'INVALID_PRICE',
  INVALID_QTY: 'INVALID_QTY',
  INVALID_TIF: 'INVALID_TIF',
  INVALID_TRANSITION: 'INVALID_TRANSITION',
  LEAGUE_NOT_FOUND: 'LEAGUE_NOT_FOUND',
  LOCK_NOT_FOUND: 'LOCK_NOT_FOUND',
  MARKET_NOT_FOUND: 'MARKET_NOT_FOUND',
  MARKET_NOT_OPEN: 'MARKET_NOT_OPEN',
  ORDER_NOT_FOUND: 'ORDER_NOT_FOUND',
  OUTCOME_NOT_FOUND: 'OUTCOME_NOT_FOUND',
  POST_ONLY_WOULD_TAKE: 'POST_ONLY_WOULD_TAKE',
  TEAM_NOT_FOUND: 'TEAM_NOT_FOUND',
  TRADING_LOCKED: 'TRADING_LOCKED',
  VALIDATION_FAILED: 'VALIDATION_FAILED',
};
