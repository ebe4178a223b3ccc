// A histogram without labels observed with a few number increments, for values recorded on every
// order (the command commit latency). prom-client's Histogram allocates per observe (a label
// object, its hash, a closure) and validates labels each time; this one keeps counts in a typed
// array and builds prom-client's metric object only when /metrics is scraped, so the registry
// writes the same families, lines and values as a prom-client Histogram would
// (https://prometheus.io/docs/instrumenting/exposition_formats/).

import type { Registry } from 'prom-client';

/** One line's value as prom-client's Histogram.get() gives it (getMetricsAsJSON shows the same). */
interface Sample {
  value: number;
  metricName: string;
  exemplar: null | undefined;
  labels: Record<string, string | number>;
}

export class PlainHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** Non-cumulative counts per bucket; the last slot is +Inf. */
  private counts: Float64Array;
  private sum = 0;
  private count = 0;
  /** Whether the series exists: as prom-client's, from the start, and after a reset from the next value. */
  private series = true;

  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: readonly number[],
    registry: Registry,
  ) {
    this.counts = new Float64Array(buckets.length + 1);
    // The registry reads a metric through get() (and reset()); it needs nothing else of it.
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** One value (seconds): the first bucket whose upper bound is at least `v`, as prom-client. */
  observe(v: number): void {
    const u = this.buckets;
    let b = 0;
    while (b < u.length && v > u[b]!) b++;
    this.counts[b]!++;
    this.sum += v;
    this.count++;
    this.series = true;
  }

  /** The metric as prom-client's registry formats it: cumulative buckets, +Inf, sum, count. */
  async get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: string }> {
    const bucket = `${this.name}_bucket`;
    const values: Sample[] = [];
    if (!this.series)
      return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
    let cum = 0;
    for (let b = 0; b < this.buckets.length; b++) {
      cum += this.counts[b]!;
      values.push({ value: cum, metricName: bucket, exemplar: null, labels: { le: this.buckets[b]! } });
    }
    values.push({ value: this.count, metricName: bucket, exemplar: null, labels: { le: '+Inf' } });
    values.push({ value: this.sum, metricName: `${this.name}_sum`, exemplar: undefined, labels: {} });
    values.push({ value: this.count, metricName: `${this.name}_count`, exemplar: undefined, labels: {} });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.counts = new Float64Array(this.buckets.length + 1);
    this.sum = 0;
    this.count = 0;
    this.series = false;
  }
}
