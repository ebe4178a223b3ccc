// Shared by the command modules: how a command is rejected, and the small type guards its
// validation uses. A rejected command changes nothing (docs/exchange.md); every handler validates
// completely before it mutates.

import { type RejectionCode, RejectionCodes } from './rejections.ts';
import type { CommandResult } from './types.ts';

export function reject(code: RejectionCode, message?: string, details?: unknown): CommandResult {
  const r: CommandResult = { ok: false, code, message: message ?? RejectionCodes[code] };
  if (details !== undefined) r.details = details;
  return r;
}

export const isSafeNonNeg = (n: unknown): n is number =>
  typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
export const isSafePos = (n: unknown): n is number =>
  typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
export const isStr = (s: unknown): s is string => typeof s === 'string' && s.length > 0;
