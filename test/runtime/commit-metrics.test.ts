// The metrics recorded for every command without prom-client's per-call work (docs/operations.md,
// "Metrics"): the commit-latency histogram (src/observability/plain-histogram.ts) writes what a
// prom-client Histogram with the same buckets writes for the same values, and the commands counter
// (Metrics.commandCell) shows each cell's count when scraped, added once, never twice.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import client from 'prom-client';
import { Metrics } from '../../src/observability/metrics.ts';
import { PlainHistogram } from '../../src/observability/plain-histogram.ts';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

describe('per-command metrics', () => {
  test('the plain histogram writes what prom-client writes, bounds and +Inf included', async () => {
    const a = new client.Registry();
    const b = new client.Registry();
    const help = 'Time from submitting a command to its durable result';
    const theirs = new client.Histogram({ name: 'h_seconds', help, buckets: BUCKETS, registers: [a] });
    const ours = new PlainHistogram('h_seconds', help, BUCKETS, b);
    assert.equal(await b.metrics(), await a.metrics(), 'no observation: every bucket at 0');
    const values = [0, 0.0005, 0.00051, 0.001, 0.0123, 0.1, 1, 2.5, 2.6, 1e6, 0.3333];
    for (const v of values) {
      theirs.observe(v);
      ours.observe(v);
    }
    const text = await b.metrics();
    assert.equal(text, await a.metrics());
    assert.match(text, /h_seconds_bucket\{le="0.0005"\} 2\n/, 'a value on a bound counts in that bucket');
    assert.match(text, /h_seconds_bucket\{le="\+Inf"\} 11\n/);
    assert.deepEqual(await b.getMetricsAsJSON(), await a.getMetricsAsJSON());
    a.resetMetrics();
    b.resetMetrics();
    assert.equal(await b.metrics(), await a.metrics(), 'reset');
  });

  test('the commands counter shows the cells counted since, on every scrape', async () => {
    const m = new Metrics(false);
    const placed = m.commandCell('PlaceOrder', 'accepted');
    const refused = m.commandCell('PlaceOrder', 'rejected');
    assert.equal(m.commandCell('PlaceOrder', 'accepted'), placed, 'one cell per (type, outcome)');
    placed.n += 3;
    refused.n++;
    const count = (text: string, outcome: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`tickbook_commands_total{type="PlaceOrder",outcome="${outcome}"}`))
          ?.split(' ')[1],
      );
    const first = await m.exposition();
    assert.equal(count(first, 'accepted'), 3);
    assert.equal(count(first, 'rejected'), 1);
    placed.n++;
    const second = await m.exposition();
    assert.equal(count(second, 'accepted'), 4, 'added once: a second scrape adds only what came since');
    assert.equal(count(second, 'rejected'), 1);
  });
});
