// The tick table (docs/exchange.md "Money"): the only valid prices, as integer ticks (thousandths of
// probability). 0.001 steps from 0.001 to 0.050, 0.005 steps from 0.055 to 0.945, 0.001 steps from
// 0.950 to 0.999: 279 prices. Served as data by `GET /nbx/v2/emm/ticks`; nothing else hard-codes it.

import type { Tick } from './types.ts';

/** Payout of one contract in ticks: a bid on A at p crosses a bid on B at q when p + q >= ONE. */
export const ONE: Tick = 1000;

function buildTicks(): Tick[] {
  const out: Tick[] = [];
  for (let t = 1; t <= 50; t++) out.push(t);
  for (let t = 55; t <= 945; t += 5) out.push(t);
  for (let t = 950; t <= 999; t++) out.push(t);
  return out;
}

/** Every valid tick, ascending. */
export const TICKS: readonly Tick[] = Object.freeze(buildTicks());
export const TICK_COUNT = TICKS.length; // 279

/**
 * Tick → its index in TICKS, or -1. Books index their price levels by this dense index (279 levels per
 * side instead of 1000), which keeps an empty book at a few kilobytes.
 */
export const TICK_INDEX: Int16Array = (() => {
  const a = new Int16Array(ONE + 1).fill(-1);
  TICKS.forEach((t, i) => {
    a[t] = i;
  });
  return a;
})();

/** True when `t` is an integer tick on the table. */
export function isTick(t: unknown): t is Tick {
  return typeof t === 'number' && Number.isInteger(t) && t > 0 && t < ONE && TICK_INDEX[t]! >= 0;
}
