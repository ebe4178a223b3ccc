// One line for a failed call, shown in the trading panel: the plain-words meaning of the server's
// code (codes.ts) with the code and the server's own message, so nothing the server said is hidden.
import { ApiError } from './api.ts';
import { meaning } from './codes.ts';

export function problem(e: unknown): string {
  if (e instanceof ApiError) return `${meaning(e.code, e.message)} (${e.code}: ${e.message})`;
  return e instanceof Error ? e.message : String(e);
}
