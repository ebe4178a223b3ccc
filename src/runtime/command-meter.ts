// What the runtime counts of every command it submits: the commands_total counter cells and the
// commit latency (operator-metrics.ts sets where it goes), once the command is durable or rejected.
// A Settle of its own (CountedSettle) carries them from the group commit's callback to the
// caller's, so a placement answered from that callback (Sequencer.submitTo) is counted there too.

import type { CommandResult } from '../exchange/types.ts';
import type { Settle } from '../journal/sequencer.ts';
import type { Metrics } from '../observability/metrics.ts';

export class CommandMeter {
  /** Set by attachOperatorMetrics (operator-metrics.ts): seconds from submit to durable result. */
  onCommitLatency: ((seconds: number) => void) | undefined;
  /** Counter cells, resolved once per (type, outcome): this runs for every order. */
  private readonly counters = new Map<string, { n: number }>();

  constructor(private readonly metrics: Metrics | undefined) {}

  /** A command of `type` submitted at `t0` (performance.now()) has its result. */
  done(type: string, ok: boolean, t0: number): void {
    this.onCommitLatency?.((performance.now() - t0) / 1000);
    this.count(type, ok);
  }

  count(type: string, ok: boolean): void {
    const m = this.metrics;
    if (m === undefined) return;
    const key = ok ? type : `${type}!`;
    let c = this.counters.get(key);
    if (c === undefined) {
      c = m.commandCell(type, ok ? 'accepted' : 'rejected');
      this.counters.set(key, c);
    }
    c.n++;
  }
}

/**
 * A command's Settle with the meter in front. It keeps the type, not the command: the sequencer
 * journals its own copy (stamped with ts), and holding this one too until the commit kept both
 * alive through scavenges.
 */
export class CountedSettle implements Settle<CommandResult> {
  private readonly t0 = performance.now();

  constructor(
    private readonly meter: CommandMeter,
    private readonly type: string,
    private readonly to: Settle<CommandResult>,
  ) {}

  resolve(r: CommandResult): void {
    this.meter.done(this.type, r.ok, this.t0);
    this.to.resolve(r);
  }

  reject(err: unknown): void {
    this.to.reject(err);
  }
}
