// Shared by the demo's tests against the real exchange (unit: test/demo/demo-exchange.test.ts;
// the multi-day run: test/integration/living-demo-days.test.ts).

import assert from 'node:assert/strict';
import type { CommandInput } from '../../src/catalog/types.ts';
import type { Exchange } from '../../src/exchange/exchange.ts';
import { type Command, CURRENCIES, TRADABLE_EVENT_STATUSES } from '../../src/exchange/types.ts';

export const NOW = Date.UTC(2026, 10, 21, 19, 47, 13);
export const HOUR = 3_600_000;

export function applyAll(x: Exchange, cmds: CommandInput[], ts: number): void {
  for (const c of cmds) {
    const r = x.apply({ ...c, ts } as Command);
    if (!r.ok) assert.fail(`${c.type} rejected: ${r.code} ${r.message} ${JSON.stringify(c).slice(0, 300)}`);
  }
}

/** Every open market of a tradable event has bids and asks in both currencies, never crossed. */
export function assertBooks(x: Exchange, minLevels: number): number {
  let checked = 0;
  for (const e of x.eventsSorted()) {
    for (const id of e.marketIds) {
      const m = x.market(id)!;
      for (const cur of CURRENCIES) {
        const { bids, asks } = x.bookLevels(id, cur);
        if (bids.length > 0 && asks.length > 0)
          assert.ok(bids[0]!.price < asks[0]!.price, `crossed book ${id} ${cur}`);
        if (minLevels > 0 && m.status === 'OPEN' && TRADABLE_EVENT_STATUSES.includes(e.status)) {
          assert.ok(
            bids.length >= minLevels && asks.length >= minLevels,
            `${e.description} ${m.description} ${cur} not two-sided`,
          );
          checked++;
        }
      }
    }
  }
  return checked;
}
