// Helpers shared by the exchange route plugins: the options every plugin takes, engine rejections
// → the one error envelope (docs/http.md "Validation and errors"), schema failures → the stable codes the issues name (INVALID_ID,
// INVALID_PRICE…) and the caller's account.

import type { FastifyRequest } from 'fastify';
import type { AuthService } from '../../auth/service.ts';
import type { Config } from '../../config.ts';
import { ApiError, type ErrorCode, ErrorCodes } from '../../errors.ts';
import { isRejectionCode } from '../../exchange/rejections.ts';
import type { CommandResult, DomainEvent, Id, Rejection } from '../../exchange/types.ts';
import type { ExchangePort } from '../../runtime/exchange-port.ts';
import { REJECTION_ERRORS } from '../rejections.ts';

export interface ExchangeRouteOptions {
  port: ExchangePort;
  /** The server's configuration (the parlay routes' limits and pricing); defaults when absent. */
  config?: Config;
  /** Clock for `asOf` and lock creation times; tests pin it. Defaults to Date.now. */
  now?: () => number;
  /** Token checks of the order-entry socket (`/trade`, src/http/routes/trade.ts); none: no socket. */
  auth?: Pick<AuthService, 'verifyCached' | 'verifyAccessToken'>;
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ErrorCodes, code);
}

/** An engine rejection as the API error carrying the same code (unknown codes: 409 conflict-ish 400). */
export function rejectionError(r: Rejection): ApiError {
  if (isRejectionCode(r.code)) return new ApiError(REJECTION_ERRORS[r.code], r.message, r.details);
  if (isErrorCode(r.code)) return new ApiError(r.code, r.message, r.details);
  return new ApiError('VALIDATION_FAILED', r.message, [
    {
      code: r.code,
      ...(r.details ? { details: r.details } : {}),
    },
  ]);
}

/** The events of an accepted command, or throws the rejection as an ApiError. */
export function acceptedEvents(result: CommandResult): DomainEvent[] {
  if (!result.ok) throw rejectionError(result);
  return result.events;
}

interface AjvError {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * Validation errors carry `details` as an array of `{path, message}` (docs/http.md), whichever
 * code they answer with.
 *
 * For routes declared with `attachValidation`: when the request failed its schema, throws the
 * stable code mapped for the offending field (e.g. `params/eventId` → INVALID_ID, `body/price` →
 * INVALID_PRICE) or else the validation error itself (→ VALIDATION_FAILED with details). A missing
 * required field is always VALIDATION_FAILED: the field is not malformed, it is absent.
 */
export function throwValidation(request: FastifyRequest, codes: Record<string, ErrorCode>): void {
  const err = request.validationError as
    | (Error & { validation?: AjvError[]; validationContext?: string })
    | undefined;
  if (!err) return;
  const first = err.validation?.[0];
  if (first && first.keyword !== 'required') {
    const key = `${err.validationContext ?? ''}${first.instancePath ?? ''}`;
    const code = codes[key];
    if (code) {
      throw new ApiError(code, undefined, [{ path: key, message: first.message ?? 'invalid' }]);
    }
  }
  throw err;
}

/** Same mapping for one item of a batch, validated by hand; returns the error instead of throwing. */
export function itemValidationError(
  errors: AjvError[] | null | undefined,
  codes: Record<string, ErrorCode>,
): ApiError {
  const first = errors?.[0];
  const path = `${first?.instancePath ?? ''}${first?.params?.missingProperty ? `/${String(first.params.missingProperty)}` : ''}${first?.params?.additionalProperty ? `/${String(first.params.additionalProperty)}` : ''}`;
  if (first && first.keyword !== 'required') {
    const code = codes[`body${first.instancePath ?? ''}`];
    if (code) return new ApiError(code, undefined, [{ path, message: first.message ?? 'invalid' }]);
  }
  return new ApiError('VALIDATION_FAILED', `${path} ${first?.message ?? 'invalid'}`.trim(), [
    { path, message: first?.message ?? 'invalid' },
  ]);
}

/** The account of the authenticated caller; a client without one cannot trade or hold funds. */
export function callerAccount(request: FastifyRequest): Id {
  const id = request.principal?.accountId;
  if (!id) throw new ApiError('ACCOUNT_NOT_FOUND', 'This client acts for no account');
  return id;
}

/** `{code, message}` of an item that failed inside a batch. */
export function itemError(err: ApiError): { error: { code: string; message: string; details?: unknown } } {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.details !== undefined ? { details: err.details } : {}),
    },
  };
}
