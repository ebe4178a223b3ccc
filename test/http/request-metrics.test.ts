import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import { DURATION_BUCKETS, RequestMetrics } from '../../src/observability/request-metrics.ts';
import { nullStore } from './harness.ts';

/** The value of one exposition sample line, or undefined. */
function sample(text: string, line: string): number | undefined {
  const hit = text.split('\n').find((l) => l.startsWith(`${line} `));
  return hit === undefined ? undefined : Number(hit.slice(line.length + 1));
}

describe('request metrics (Prometheus text format)', () => {
  it('counts per status and keeps cumulative buckets, sum and count', () => {
    const m = new RequestMetrics();
    const s = m.route('/x/:id', 'GET');
    s.observe(200, 0.2); // 0.0002 s: first bucket
    s.observe(200, 3); // 0.003 s: le=0.005
    s.observe(404, 4000); // 4 s: only +Inf
    const text = m.exposition();
    const lbl = 'route="/x/:id",method="GET"';
    assert.equal(sample(text, `tickbook_http_requests_total{${lbl},status="200"}`), 2);
    assert.equal(sample(text, `tickbook_http_requests_total{${lbl},status="404"}`), 1);
    assert.equal(sample(text, `tickbook_http_request_duration_seconds_bucket{le="0.0005",${lbl}}`), 1);
    assert.equal(sample(text, `tickbook_http_request_duration_seconds_bucket{le="0.0025",${lbl}}`), 1);
    assert.equal(sample(text, `tickbook_http_request_duration_seconds_bucket{le="0.005",${lbl}}`), 2);
    assert.equal(sample(text, `tickbook_http_request_duration_seconds_bucket{le="2.5",${lbl}}`), 2);
    assert.equal(sample(text, `tickbook_http_request_duration_seconds_bucket{le="+Inf",${lbl}}`), 3);
    assert.equal(sample(text, `tickbook_http_request_duration_seconds_count{${lbl}}`), 3);
    assert.ok(Math.abs(sample(text, `tickbook_http_request_duration_seconds_sum{${lbl}}`)! - 4.0032) < 1e-9);
    // every bucket bound is present once, in order, for the route
    const les = text
      .split('\n')
      .filter((l) => l.startsWith('tickbook_http_request_duration_seconds_bucket'))
      .map((l) => /le="([^"]+)"/.exec(l)![1]);
    assert.deepEqual(les, [...DURATION_BUCKETS.map(String), '+Inf']);
    assert.match(text, /^# TYPE tickbook_http_requests_total counter$/m);
    assert.match(text, /^# TYPE tickbook_http_request_duration_seconds histogram$/m);
  });

  it('escapes label values', () => {
    const m = new RequestMetrics();
    m.route('/a"b\\c\nd', 'GET').observe(200, 1);
    assert.ok(m.exposition().includes('route="/a\\"b\\\\c\\nd"'));
  });

  it('counts the real app: routes by their pattern, 404s as unmatched, all on GET /metrics', async () => {
    const metrics = new Metrics(false);
    const app = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      store: nullStore,
      metrics,
      features: async (instance) => {
        instance.get('/things/:id', async (request, reply) => {
          const { id } = request.params as { id: string };
          if (id === 'missing') return reply.code(404).send({ error: 'no' });
          return { id };
        });
      },
    });
    try {
      for (const id of ['a', 'b', 'missing']) await app.inject({ method: 'GET', url: `/things/${id}` });
      await app.inject({ method: 'HEAD', url: '/things/a' });
      await app.inject({ method: 'GET', url: '/nowhere' });
      await app.inject({ method: 'DELETE', url: '/things/a' }); // 405 from the not-found handler
      const res = await app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      const text = res.body;
      const lbl = 'route="/things/:id",method="GET"';
      assert.equal(sample(text, `tickbook_http_requests_total{${lbl},status="200"}`), 2);
      assert.equal(sample(text, `tickbook_http_requests_total{${lbl},status="404"}`), 1);
      assert.equal(sample(text, `tickbook_http_request_duration_seconds_count{${lbl}}`), 3);
      assert.equal(
        sample(text, 'tickbook_http_requests_total{route="/things/:id",method="HEAD",status="200"}'),
        1,
      );
      assert.equal(
        sample(text, 'tickbook_http_requests_total{route="unmatched",method="GET",status="404"}'),
        1,
      );
      assert.equal(
        sample(text, 'tickbook_http_requests_total{route="unmatched",method="DELETE",status="405"}'),
        1,
      );
      // prom-client's families follow in the same body
      assert.match(text, /^# TYPE tickbook_tokens_issued_total counter$/m);
    } finally {
      await app.close();
    }
  });
});
