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
  readonly commands = new client.Counter({
    name: 'tickbook_commands_total',
    help: 'Exchange commands by type and outcome',
    labelNames: ['type', 'outcome'] as const,
    registers: [this.registry],
  });

  /** Everything, in the Prometheus text format (what GET /metrics serves). */
  async exposition(): Promise<string> {
    const rest = await this.registry.metrics();
    return `${this.requests.exposition()}${rest.endsWith('\n') || rest === '' ? rest : `${rest}\n`}`;
  }

  constructor(collectDefaults = true) {
    if (collectDefaults) client.collectDefaultMetrics({ register: this.registry, prefix: 'tickbook_' });
  }
}
