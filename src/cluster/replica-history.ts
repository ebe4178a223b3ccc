// History (closed orders, fills) as a replica reads it: from the SQL tables the leader's projector
// writes after its commits (docs/journal.md "Projector"), so a read first waits, bounded, until
// the projection has reached the seq the replica reflects — an order read at x-tickbook-min-seq N
// is found even when it is no longer live (filled or cancelled). Past the bound it answers with
// what is there.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { ExchangeHistory } from '../runtime/exchange-port.ts';
import { SqlHistory } from '../runtime/history.ts';
import type { Store } from '../store/types.ts';

/** Longest wait of a history read for the leader's projection (then it answers what is there). */
const HISTORY_BARRIER_MS = 2_000;

export function replicaHistory(
  store: Store,
  state: () => ExchangeReader,
  seq: () => number,
): ExchangeHistory {
  const barrier = async (): Promise<void> => {
    const target = seq();
    const deadline = Date.now() + HISTORY_BARRIER_MS;
    for (;;) {
      const r = await store.query<{ seq: number | string }>(
        "SELECT seq FROM projection_watermark WHERE name = 'history'",
      );
      if (Number(r.rows[0]?.seq ?? 0) >= target || Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return new SqlHistory(store, state, barrier);
}
