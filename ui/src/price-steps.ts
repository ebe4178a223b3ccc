// The order ticket's price: typed or stepped, always one of the exchange's ticks
// (`GET /nbx/v2/emm/ticks`, ascending). Pure functions, unit-tested beside the book deltas.

/** The tick nearest to `p` (ties go up); undefined without ticks or for a non-number. */
export function snap(p: number, ticks: readonly number[]): number | undefined {
  if (!Number.isFinite(p) || ticks.length === 0) return undefined;
  let lo = 0;
  let hi = ticks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ticks[mid]! < p) lo = mid + 1;
    else hi = mid;
  }
  const above = ticks[lo]!;
  const below = lo > 0 ? ticks[lo - 1]! : above;
  // Compared in millionths so a typed halfway price is a tie, not a float's rounding error.
  return Math.round((p - below) * 1e6) < Math.round((above - p) * 1e6) ? below : above;
}

/** `n` ticks up (n > 0) or down from the tick nearest `p`, held inside the table. */
export function step(p: number, ticks: readonly number[], n: number): number | undefined {
  const at = snap(Number.isFinite(p) ? p : 0.5, ticks);
  if (at === undefined) return undefined;
  const i = ticks.indexOf(at) + n;
  return ticks[Math.max(0, Math.min(ticks.length - 1, i))];
}
