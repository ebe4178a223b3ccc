// The gauges and histograms an operator watches (docs/operations.md, "Metrics"): how far the journal
// has gone, how long a command waits for its durable commit, how many books and resting orders the
// engine holds, how long snapshots take. Event-loop delay comes from prom-client's default metrics
// (tickbook_nodejs_eventloop_lag_*), which read perf_hooks.monitorEventLoopDelay.
// Gauges are computed when /metrics is scraped, so the hot path pays nothing for them.

import client, { type Registry } from 'prom-client';
import { CURRENCIES } from '../exchange/types.ts';
import { PlainHistogram } from '../observability/plain-histogram.ts';
import type { ExchangeRuntime } from './exchange-runtime.ts';

/** Buckets (seconds) for a group commit: sub-millisecond to a slow fsync under load. */
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const SNAPSHOT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface BookCounts {
  /** Books (market × currency) holding at least one resting order. */
  books: number;
  /** Resting orders by currency. */
  resting: Record<string, number>;
}

/** Counts books and resting orders by walking the catalog (each scrape; O(markets)). */
export function countBooks(runtime: Pick<ExchangeRuntime, 'reader'>): BookCounts {
  const reader = runtime.reader();
  const resting: Record<string, number> = Object.fromEntries(CURRENCIES.map((c) => [c, 0]));
  let books = 0;
  for (const ev of reader.eventsSorted()) {
    for (const marketId of ev.marketIds) {
      const m = reader.market(marketId);
      if (m === undefined || m.status === 'SETTLED') continue;
      for (const cur of CURRENCIES) {
        let n = 0;
        for (const o of m.outcomeIds) n += reader.restingOrders(o, cur).length;
        if (n > 0) books++;
        resting[cur] = (resting[cur] ?? 0) + n;
      }
    }
  }
  return { books, resting };
}

/** Registers the operator metrics on `registry` and hooks them to the runtime. */
export function attachOperatorMetrics(registry: Registry, runtime: ExchangeRuntime): void {
  const seq = runtime.sequencer;
  new client.Gauge({
    name: 'tickbook_journal_seq',
    help: 'Highest journal sequence number, by state: committed (durable) or applied (in memory)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      this.set({ state: 'committed' }, seq.committedSeq);
      this.set({ state: 'applied' }, seq.appliedSeq);
    },
  });
  // Observed for every order: a plain histogram (plain-histogram.ts), the same exposition.
  const commit = new PlainHistogram(
    'tickbook_command_commit_seconds',
    'Time from submitting a command (or a batch) to its durable result: queue wait plus group commit',
    COMMIT_BUCKETS,
    registry,
  );
  runtime.meter.onCommitLatency = (seconds) => commit.observe(seconds);

  // One walk of the books serves both gauges of a scrape.
  let cached: { at: number; counts: BookCounts } | undefined;
  const counts = () => {
    const now = Date.now();
    if (cached === undefined || now - cached.at > 500) cached = { at: now, counts: countBooks(runtime) };
    return cached.counts;
  };
  new client.Gauge({
    name: 'tickbook_books',
    help: 'Order books (market × currency) holding at least one resting order',
    registers: [registry],
    collect() {
      this.set(counts().books);
    },
  });
  new client.Gauge({
    name: 'tickbook_resting_orders',
    help: 'Resting orders in the engine, by currency',
    labelNames: ['currency'] as const,
    registers: [registry],
    collect() {
      for (const [currency, n] of Object.entries(counts().resting)) this.set({ currency }, n);
    },
  });

  const snapshot = new client.Histogram({
    name: 'tickbook_snapshot_serialize_seconds',
    help: 'Time to serialize a state snapshot: on the snapshot thread, or in line (commands held) while it is down (docs/journal.md)',
    buckets: SNAPSHOT_BUCKETS,
    registers: [registry],
  });
  const snapshotBytes = new client.Gauge({
    name: 'tickbook_snapshot_bytes',
    help: 'Size of the newest stored snapshot',
    registers: [registry],
  });
  const snapshotHeld = new client.Histogram({
    name: 'tickbook_snapshot_held_seconds',
    help: 'Time new commands were held for a state snapshot: 0 on the snapshot thread (docs/journal.md)',
    buckets: SNAPSHOT_BUCKETS,
    registers: [registry],
  });
  const snapshotSeq = new client.Gauge({
    name: 'tickbook_snapshot_seq',
    help: 'Journal seq of the newest stored snapshot',
    registers: [registry],
  });
  seq.on('snapshot', (s: { seq: number; bytes: number; ms: number; heldMs: number }) => {
    snapshot.observe(s.ms / 1000);
    snapshotHeld.observe(s.heldMs / 1000);
    snapshotBytes.set(s.bytes);
    snapshotSeq.set(s.seq);
  });
}
