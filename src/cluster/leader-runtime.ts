// How a process that took the leadership starts writing (docs/cluster.md "Failover and fencing"):
// a sequencer on the state it followed (no second recovery) whose every journal append makes
// the fencing check, and the state feed moved from the apply loop to that runtime.

import type { Config } from '../config.ts';
import type { Exchange } from '../exchange/exchange.ts';
import type { RecoveryResult } from '../journal/recover.ts';
import type { Log } from '../observability/log.ts';
import type { Metrics } from '../observability/metrics.ts';
import { ExchangeRuntime } from '../runtime/exchange-runtime.ts';
import type { Store } from '../store/types.ts';
import { fencedAppend } from './leader-row.ts';
import type { StateFeed } from './state-feed.ts';

export interface LeaderRuntimeDeps {
  config: Config;
  store: Store;
  log: Log;
  metrics?: Metrics;
  clock: () => number;
}

/**
 * Opens the sequencer on the followed state at `epoch`. Nothing may be pending after the epoch
 * bump: a previous leader's commits are in the journal (and were followed) or fenced out for good.
 */
export function openLeaderRuntime(
  deps: LeaderRuntimeDeps,
  followed: { machine: Exchange; lastTs: number; snapshotSeq: number },
  channel: string,
  epoch: number,
): Promise<ExchangeRuntime> {
  const rec: RecoveryResult<Exchange> = {
    machine: followed.machine,
    lastSeq: followed.machine.lastSeq,
    lastTs: followed.lastTs,
    snapshotSeq: followed.snapshotSeq,
    skippedSnapshots: [],
    replayed: 0,
    snapshotLoadMs: 0,
    replayMs: 0,
  };
  return ExchangeRuntime.open(
    {
      config: deps.config,
      store: deps.store,
      log: deps.log,
      metrics: deps.metrics,
      clock: deps.clock,
      // Fencing and the doorbell (leader-row.ts).
      appendGuard: fencedAppend(channel, epoch),
    },
    rec,
  );
}

/**
 * The feed continues from the followed state with the runtime's applies and commits; returns the
 * detach. The runtime's own recovery (when it did not take the followed state) ends at the same
 * seq, since nothing commits after the epoch bump; any other seq would be a gap, reported as such.
 */
export function feedFromRuntime(rt: ExchangeRuntime, feed: StateFeed): () => void {
  const offApplied = rt.onApplied((cmd, events, seq) => feed.apply(cmd, events, seq));
  const offCommitted = rt.sequencer.onCommitted((b) => feed.commit(b.lastSeq));
  // The state it opened on (before any command of its own, the fee-coefficient change below).
  if (rt.recovery.lastSeq !== feed.committedSeq) feed.rewind(rt.recovery.lastSeq, false);
  // Opening may have journaled a fee-coefficient change before the feed was attached; it sends
  // no frames, so only its seq has to be reported durable.
  feed.commit(rt.sequencer.committedSeq);
  return () => {
    offApplied();
    offCommitted();
  };
}
