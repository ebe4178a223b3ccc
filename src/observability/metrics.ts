// Prometheus metrics (prom-client). One registry per app instance, so that tests building several
// apps in one process never collide on metric names.

import client from 'prom-client';
import { RequestMetrics } from './request-metrics.ts';

export class Metrics {
  readonly registry = new client.Registry();
  /** tickbook_http_requests_total and tickbook_http_request_duration_seconds (request-metrics.ts). */
  readonly requests = new RequestMetrics();
  readonly tokensIssued = new client.Counter({
    name: 'tickbook_tokens_issued_total',
    help: 'Access tokens issued, by endpoint',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });
  readonly authFailures = new client.Counter({
    name: 'tickbook_auth_failures_total',
    help: 'Failed client authentications and rejected bearer tokens, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  /**
   * Counted for every command (every order): a plain number per (type, outcome) cell, added to the
   * prom-client counter when /metrics is scraped (its `collect`), since prom-client's `inc` hashes
   * and validates the labels and allocates on each call. The exposition is the same.
   */
  private readonly commandCells = new Map<string, { type: string; outcome: string; n: number }>();
  readonly commands = new client.Counter({
    name: 'tickbook_commands_total',
    help: 'Exchange commands by type and outcome',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
    collect: () => {
      for (const c of this.commandCells.values()) {
        if (c.n === 0) continue;
        this.commands.inc({ type: c.type, outcome: c.outcome }, c.n);
        c.n = 0;
      }
    },
  });

  /** The cell of one (type, outcome) of tickbook_commands_total: callers keep it and add to `n`. */
  commandCell(type: string, outcome: 'accepted' | 'rejected'): { n: number } {
    const key = `${type} ${outcome}`;
    let c = this.commandCells.get(key);
    if (c === undefined) {
      c = { type, outcome, n: 0 };
      this.commandCells.set(key, c);
    }
    return c;
  }

  /** Everything, in the Prometheus text format (what GET /metrics serves). */
  async exposition(): Promise<string> {
    const rest = await this.registry.metrics();
    return `${this.requests.exposition()}${rest.endsWith('\n') || rest === '' ? rest : `${rest}\n`}`;
  }

  constructor(collectDefaults = true) {
    if (collectDefaults) client.collectDefaultMetrics({ register: this.registry, prefix: 'tickbook_' });
  }
}
