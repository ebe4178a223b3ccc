// Prometheus metrics (prom-client). One registry per app instance, so that tests building several
// apps in one process never collide on metric names.

import client from 'prom-client';

export class Metrics {
  readonly registry = new client.Registry();
  readonly httpRequests = new client.Counter({
    name: 'tickbook_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new client.Histogram({
    name: 'tickbook_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
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

  constructor(collectDefaults = true) {
    if (collectDefaults) client.collectDefaultMetrics({ register: this.registry, prefix: 'tickbook_' });
  }
}
