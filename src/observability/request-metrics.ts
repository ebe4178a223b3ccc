// Per-request HTTP metrics, kept as plain numbers and written in the Prometheus text format
// (https://prometheus.io/docs/instrumenting/exposition_formats/) when /metrics is scraped.
//
// Why not prom-client's Counter/Histogram here: their `labels(...)` children still rebuild the
// label hash string, validate the labels and allocate a label/value pair on every inc()/observe(),
// which made the metrics hook the largest app-side cost of a small cached GET
// (docs/bench-read-path.md). Every request lands here, so the per-request work is a few number
// increments on a state object found once per route; the label strings are built at scrape time.
// The other metrics (tokens, auth failures, commands, process defaults) stay on prom-client: they
// are not per request.

/** Upper bounds (seconds) of tickbook_http_request_duration_seconds. */
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One (route, method): request counts by status and a latency histogram. */
export class RouteStats {
  /** Count per status code (index = status − 100; 100..599). */
  private readonly byStatus = new Float64Array(500);
  /** Non-cumulative bucket counts; the last slot is +Inf. */
  private readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  private sum = 0;
  private count = 0;

  constructor(
    readonly route: string,
    readonly method: string,
  ) {}

  /** Records one response: `status` as sent, `ms` from request start to response end. */
  observe(status: number, ms: number): void {
    const s = status - 100;
    if (s >= 0 && s < 500) this.byStatus[s]!++;
    const sec = ms / 1000;
    let b = 0;
    while (b < DURATION_BUCKETS.length && sec > DURATION_BUCKETS[b]!) b++;
    this.buckets[b]!++;
    this.sum += sec;
    this.count++;
  }

  /** Appends this route's counter samples to `out`. */
  writeCounter(out: string[]): void {
    const labels = `route="${esc(this.route)}",method="${esc(this.method)}"`;
    for (let s = 0; s < 500; s++) {
      const n = this.byStatus[s]!;
      if (n > 0) out.push(`tickbook_http_requests_total{${labels},status="${s + 100}"} ${n}`);
    }
  }

  /** Appends this route's histogram samples (cumulative buckets, sum, count) to `out`. */
  writeHistogram(out: string[]): void {
    if (this.count === 0) return;
    const labels = `route="${esc(this.route)}",method="${esc(this.method)}"`;
    let cum = 0;
    for (let b = 0; b < DURATION_BUCKETS.length; b++) {
      cum += this.buckets[b]!;
      out.push(`tickbook_http_request_duration_seconds_bucket{le="${DURATION_BUCKETS[b]}",${labels}} ${cum}`);
    }
    out.push(`tickbook_http_request_duration_seconds_bucket{le="+Inf",${labels}} ${this.count}`);
    out.push(`tickbook_http_request_duration_seconds_sum{${labels}} ${this.sum}`);
    out.push(`tickbook_http_request_duration_seconds_count{${labels}} ${this.count}`);
  }
}

/** Label values are escaped as the exposition format requires: backslash, quote, newline. */
function esc(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** Bound on distinct (route, method) pairs: routes are fixed at start-up, methods are a few. */
const MAX_ROUTES = 10_000;

export class RequestMetrics {
  private readonly stats = new Map<string, RouteStats>();

  /** The stats object of (route, method); callers keep it (per route) instead of looking it up per request. */
  route(route: string, method: string): RouteStats {
    const key = `${method} ${route}`;
    let s = this.stats.get(key);
    if (s === undefined) {
      s = new RouteStats(route, method);
      // Past the bound (never with fixed routes) the stats still count, just unexported.
      if (this.stats.size < MAX_ROUTES) this.stats.set(key, s);
    }
    return s;
  }

  /** Both families in the Prometheus text format, ending with a newline. */
  exposition(): string {
    const out: string[] = [
      '# HELP tickbook_http_requests_total HTTP requests by route, method and status',
      '# TYPE tickbook_http_requests_total counter',
    ];
    for (const s of this.stats.values()) s.writeCounter(out);
    out.push(
      '# HELP tickbook_http_request_duration_seconds HTTP request latency by route',
      '# TYPE tickbook_http_request_duration_seconds histogram',
    );
    for (const s of this.stats.values()) s.writeHistogram(out);
    return `${out.join('\n')}\n`;
  }
}
