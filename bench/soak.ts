// Long-running memory of the living demo (docs/stream.md "Retention"). Runs the built server (like
// the other HTTP benches, bench/lib/app-children.ts) with the living demo and its market maker, and
// a steady mixed load from this process: REST reads, orders placed and cancelled by a trader, and
// /tape subscribers (tape plus a few books each, one of them reconnecting every 30 s and resuming
// from a minute back). Every 10 s it prints the server's RSS, heap, retained frames and bytes against
// the budget, the book and account logs kept, the event-loop lag (max over the interval, from
// /metrics), the slowest /healthz answer seen by a probe polling it four times a second, the time
// spent in major GCs and the seq of the newest state snapshot (to place a pause next to both).
// Fails (exit 1) when RSS grows more than --max-growth between minute --warm and the end (each
// taken as the median of the minute before it).
//
// With --reads 0 --orders 0 --subscribers 0 it watches the idle demo; --checkout runs another
// checkout's built server (for an A/B of the same measurement).
//
//   node --import tsx bench/soak.ts [--minutes 40] [--warm 10] [--reads 20] [--orders 10]
//     [--subscribers 20] [--max-growth 0.10] [--checkout <dir>]

import { WebSocket } from 'ws';
import { fetchToken, httpCall } from '../test/helpers/child-server.ts';
import { BENCH_ADMIN, benchAppEnv, spawnServer } from './lib/app-children.ts';
import { arg, numArg } from './lib/args.ts';

const MINUTES = numArg('minutes', 40);
const WARM = numArg('warm', 10);
const READS = numArg('reads', 20);
const ORDERS = numArg('orders', 10);
const SUBSCRIBERS = numArg('subscribers', 20);
const MAX_GROWTH = numArg('max-growth', 0.1);
const SAMPLE_MS = 10_000;

const dirs: string[] = [];
const srv = await spawnServer({ ...benchAppEnv(dirs), DEMO_LIVE: 'true' }, arg('checkout'));
const url = srv.url;
const admin = await fetchToken(url, BENCH_ADMIN.id, BENCH_ADMIN.secret);

async function client(name: string, scopes?: string[]): Promise<{ token: string; accountId: string | null }> {
  const c = await httpCall(url, 'POST', '/admin/v1/clients', admin, { name, ...(scopes ? { scopes } : {}) });
  if (c.status !== 201) throw new Error(`create client: ${c.status} ${JSON.stringify(c.body)}`);
  return { token: await fetchToken(url, c.body.clientId, c.body.clientSecret), accountId: c.body.accountId };
}

const reader = await client('soak reader', ['read:tape']);
const trader = await client('soak trader');
const dep = await httpCall(url, 'POST', `/admin/v1/accounts/${trader.accountId}/deposits`, admin, {
  currency: 'CASH',
  amount: 1_000_000_000,
});
if (dep.status !== 200 && dep.status !== 201) throw new Error(`deposit: ${dep.status}`);

interface OpenMarket {
  id: string;
  outcomeIds: [string, string];
}
async function openMarkets(): Promise<OpenMarket[]> {
  const r = await httpCall(url, 'GET', '/nbx/v2/emm/markets/open?currency=CASH', reader.token);
  if (r.status !== 200) throw new Error(`markets/open: ${r.status}`);
  return r.body as OpenMarket[];
}
let markets = await openMarkets();
if (markets.length === 0) throw new Error('the demo has no open market');
const pick = <T>(xs: T[], i: number): T => xs[i % xs.length]!;

// ---------------------------------------------------------------- load

const stopAt = Date.now() + MINUTES * 60_000;
const running = () => Date.now() < stopAt;
let requests = 0;
let errors = 0;

async function every(perSec: number, fn: (i: number) => Promise<void>): Promise<void> {
  if (!(perSec > 0)) return;
  const period = 1000 / perSec;
  let next = Date.now();
  for (let i = 0; running(); i++) {
    next += period;
    await fn(i).catch(() => {
      errors++;
    });
    const wait = next - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

const reads = every(READS, async (i) => {
  const m = pick(markets, i);
  const paths = [
    `/nbx/v2/emm/book/${m.id}?currency=CASH`,
    '/nbx/v2/emm/events?type=Game&limit=100',
    `/nbx/v2/emm/markets/${m.id}?currency=CASH`,
  ];
  const r = await httpCall(url, 'GET', pick(paths, i), reader.token);
  requests++;
  if (r.status >= 500) errors++;
});

const orders = every(ORDERS, async (i) => {
  if (i % 300 === 0) markets = (await openMarkets().catch(() => markets)) || markets;
  const m = pick(markets, i * 7);
  const r = await httpCall(url, 'POST', '/nbx/v2/emm/orders/place', trader.token, {
    outcomeId: m.outcomeIds[i & 1],
    price: 0.02 + (i % 5) / 100,
    qty: 10,
    currency: 'CASH',
    tif: 'GTC',
  });
  requests++;
  if (r.status >= 500) errors++;
  if (r.status === 201 && typeof r.body.id === 'string') {
    const c = await httpCall(url, 'DELETE', `/nbx/v2/emm/orders/${r.body.id}`, trader.token);
    requests++;
    if (c.status >= 500) errors++;
  }
});

// Subscribers: tape plus three books each; the stream's own seqs are tracked to resume from.
const wsUrl = `${url.replace('http', 'ws')}/tape`;
let framesIn = 0;
let resyncs = 0;
const tapeSeq: number[] = [];
function subscriber(k: number, fromSeq?: number): WebSocket {
  const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${reader.token}` } });
  ws.on('message', (d) => {
    framesIn++;
    const s = d.toString();
    if (s.startsWith('{"event":"resync_required"')) resyncs++;
    const j = s.indexOf('"journalSeq":');
    if (s.startsWith('{"type"') && j > 0) tapeSeq[k] = Number.parseInt(s.slice(j + 13), 10);
  });
  ws.on('error', () => {});
  ws.once('open', () => {
    ws.send(JSON.stringify({ event: 'subscribe', data: 'tape', ...(fromSeq ? { fromSeq } : {}) }));
    for (let b = 0; b < 3; b++)
      ws.send(JSON.stringify({ event: 'subscribe', data: pick(markets, k * 3 + b).id }));
  });
  return ws;
}
const sockets = Array.from({ length: SUBSCRIBERS }, (_, k) => subscriber(k));
// One subscriber reconnects every 30 s and resumes the tape from about a minute back.
const history: number[] = [];
const resumer = setInterval(() => {
  if (SUBSCRIBERS === 0) return;
  const k = history.length % SUBSCRIBERS;
  history.push(tapeSeq[k] ?? 0);
  const from = history.length > 2 ? history[history.length - 3] : undefined;
  sockets[k]!.terminate();
  sockets[k] = subscriber(k, from);
}, 30_000);

// ---------------------------------------------------------------- probe and samples

let healthMax = 0;
const probe = every(4, async () => {
  const t = performance.now();
  const r = await fetch(`${url}/healthz`);
  await r.arrayBuffer();
  healthMax = Math.max(healthMax, performance.now() - t);
});

function metric(text: string, name: string, labels = ''): number {
  const m = new RegExp(`^${name}${labels.replace(/[{}]/g, '\\$&')} ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

interface Sample {
  t: number;
  rss: number;
}
const samples: Sample[] = [];
const t0 = Date.now();
const MiB = (b: number) => (b / 1_048_576).toFixed(1);
console.log(
  `Soak: living demo, ${READS} reads/s, ${ORDERS} orders/s (each placed and cancelled), ${SUBSCRIBERS} /tape subscribers, ${MINUTES} min; server pid ${srv.proc.pid}\n`,
);
console.log(
  '| min | RSS MiB | heap used MiB | retained frames | retained MiB / budget | book logs | account logs | loop lag max ms | /healthz max ms | major GC ms | snapshot seq | requests | errors | frames in | resyncs |',
);
console.log('|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
let gcSeen = 0;
while (running()) {
  await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, stopAt - Date.now() + 50)));
  const text = await (await fetch(`${url}/metrics`)).text();
  const rss = metric(text, 'tickbook_process_resident_memory_bytes');
  const heap = metric(text, 'tickbook_nodejs_heap_size_used_bytes');
  const lag = metric(text, 'tickbook_nodejs_eventloop_lag_max_seconds');
  const frames =
    metric(text, 'tickbook_stream_retained_frames', '{log="books"}') +
    metric(text, 'tickbook_stream_retained_frames', '{log="tape"}') +
    metric(text, 'tickbook_stream_retained_frames', '{log="lifecycle"}') +
    metric(text, 'tickbook_stream_retained_frames', '{log="private"}');
  const bytes = metric(text, 'tickbook_stream_retained_bytes');
  const budget = metric(text, 'tickbook_stream_retention_budget_bytes');
  const bookLogs = metric(text, 'tickbook_stream_retained_logs', '{kind="book"}');
  const accountLogs = metric(text, 'tickbook_stream_retained_logs', '{kind="private"}');
  const gc = metric(text, 'tickbook_nodejs_gc_duration_seconds_sum', '{kind="major"}');
  const snapshotSeq = metric(text, 'tickbook_snapshot_seq');
  const t = (Date.now() - t0) / 60_000;
  samples.push({ t, rss });
  console.log(
    `| ${t.toFixed(1)} | ${MiB(rss)} | ${MiB(heap)} | ${frames.toLocaleString('en-US')} | ${MiB(bytes)} / ${MiB(budget)} | ${bookLogs} | ${accountLogs} | ${(lag * 1000).toFixed(0)} | ${healthMax.toFixed(0)} | ${((gc - gcSeen) * 1000).toFixed(0)} | ${snapshotSeq} | ${requests} | ${errors} | ${framesIn} | ${resyncs} |`,
  );
  healthMax = 0;
  gcSeen = gc;
}
clearInterval(resumer);
for (const ws of sockets) ws.terminate();
await Promise.all([reads, orders, probe]);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
const around = (min: number) =>
  median(samples.filter((s) => s.t > min - 1 && s.t <= min + 0.05).map((s) => s.rss));
const end = samples.at(-1)?.t ?? 0;
const rssWarm = around(WARM);
const rssEnd = around(end);
const growth = (rssEnd - rssWarm) / rssWarm;
console.log(
  `\nRSS at minute ${WARM}: ${MiB(rssWarm)} MiB; at minute ${end.toFixed(1)}: ${MiB(rssEnd)} MiB; growth ${(growth * 100).toFixed(1)} % (limit ${(MAX_GROWTH * 100).toFixed(0)} %)`,
);
srv.proc.kill('SIGTERM');
await new Promise((r) => srv.proc.once('exit', r));
const { rmSync } = await import('node:fs');
for (const d of dirs) rmSync(d, { recursive: true, force: true });
if (!(growth <= MAX_GROWTH)) {
  console.log('FAIL: RSS grew more than the limit');
  process.exit(1);
}
console.log('PASS');
