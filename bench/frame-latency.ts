// Book frame → DOM on one event page at 50 book frames a second (docs/ui.md "Live data",
// BENCHMARKS.md "Trading screen"): the UI as built now (ui/dist) against a baseline build of an
// earlier commit, in the same run, rounds interleaved (the order alternates), each round a fresh
// browser profile on the same server and the same market.
//
//   npm run bench:frame-latency -- [baselineRef=main] [rounds=4] [seconds=10] [pairsPerSecond=25] [still|live]
//
// The server is the real one (embedded store, demo slate). `still` (the default): the living demo
// off, so the only frames are the bench's own, on the first pre-game event. `live`: the living demo
// on and a game in play (waited for, up to two minutes), whose other markets the demo's market maker
// moves meanwhile, as on a real live page. Each round opens the event's page, waits for the stream, then
// places and cancels a small bid far from the touch on its first open market, `pairsPerSecond` pairs
// a second started on a clock (two book frames each), for `seconds`. The latency of each frame is
// taken inside the page (bench/lib/frame-probe.ts). The baseline is built once from
// `git archive <ref> ui` into .tmp/frame-latency-<ref>/ (git-ignored) and served to the page by
// request interception. Prints each round, then p50/p95 per variant with the per-round ratios.

import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../test/e2e/browser.ts';
import { httpCall } from '../test/helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, serverPlace, start } from '../test/helpers/server.ts';
import { FRAME_PROBE, median, quantile } from './lib/frame-probe.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const [baseRef = 'main', roundsArg = '4', secondsArg = '10', pairsArg = '25', modeArg = 'still'] =
  process.argv.slice(2);
const LIVE = modeArg === 'live';
const ROUNDS = Number(roundsArg);
const SECONDS = Number(secondsArg);
const PAIRS = Number(pairsArg);

function baselineDist(ref: string): string {
  const sha = execSync(`git rev-parse --short ${ref}`, { cwd: root }).toString().trim();
  const dir = join(root, '.tmp', `frame-latency-${sha}`);
  const dist = join(dir, 'ui', 'dist');
  if (!existsSync(join(dist, 'index.html'))) {
    execSync(`mkdir -p ${dir} && git archive ${sha} ui | tar -x -C ${dir}`, { cwd: root });
    execSync('npx vite build --config ui/vite.config.ts --logLevel error', { cwd: dir, stdio: 'inherit' });
  }
  return dist;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
};

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

interface Round {
  round: number;
  variant: 'baseline' | 'now';
  samples: number;
  framesPerSecond: number;
  p50: number;
  p95: number;
  max: number;
  /** The page's main-thread time (ms) over the round, per frame shown. */
  busyPerFrame: number;
  /** To the animation frame that paints it (bench/lib/frame-probe.ts). */
  paint50: number;
  paint95: number;
  load: string;
}

async function main(): Promise<void> {
  const baseDist = baselineDist(baseRef);
  if (!existsSync(join(root, 'ui', 'dist', 'index.html'))) throw new Error('run `npm run build:ui` first');
  const place = await serverPlace(
    'pglite',
    LIVE
      ? { TICKBOOK_DEMO: 'true', DEMO_LIVE: 'true', UI: 'true' }
      : { TICKBOOK_DEMO: 'true', DEMO_LIVE: 'false', AUTO_GO_LIVE: 'false', UI: 'true' },
  );
  const srv = await start(place);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(1));
  const admin = await httpCall(srv.url, 'POST', '/nbx/v1/auth/emm-token', null, {
    grant_type: 'client_credentials',
    client_id: ADMIN_ID,
    client_secret: ADMIN_SECRET,
  });
  const adminToken = admin.body.access_token as string;
  const c = await httpCall(srv.url, 'POST', '/admin/v1/clients', adminToken, { name: 'frame latency' });
  await httpCall(srv.url, 'POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, adminToken, {
    currency: 'CASH',
    amount: 1_000_000,
  });
  const t = await httpCall(srv.url, 'POST', '/nbx/v1/auth/emm-token', null, {
    grant_type: 'client_credentials',
    client_id: c.body.clientId,
    client_secret: c.body.clientSecret,
  });
  const token = t.body.access_token as string;
  type MarketRow = { id: string; status: string; outcomes: { id: string }[]; book: { bids: unknown[] } };
  let candidates: { id: string }[] = [];
  for (let waited = 0; LIVE && candidates.length === 0 && waited < 120; waited += 5) {
    candidates = (await httpCall(srv.url, 'GET', '/nbx/v2/emm/events?status=OPEN_INGAME&limit=10', token))
      .body;
    if (candidates.length === 0) await new Promise((r) => setTimeout(r, 5000));
  }
  if (LIVE && candidates.length === 0) throw new Error('no game in play after two minutes');
  if (!LIVE)
    candidates = (await httpCall(srv.url, 'GET', '/nbx/v2/emm/events?status=OPEN_PREGAME&limit=30', token))
      .body;
  // The heaviest page of them: the most markets (cards) to render.
  let eventId = '';
  let markets: MarketRow[] = [];
  for (const e of candidates) {
    const ms = (
      await httpCall(srv.url, 'GET', `/nbx/v2/emm/events/getMarketsByEvent/${e.id}?currency=CASH`, token)
    ).body as MarketRow[];
    if (ms.length > markets.length) [eventId, markets] = [e.id, ms];
  }
  const m = markets.find((x) => x.status === 'OPEN' && x.book.bids.length > 0);
  if (!m) throw new Error('no open market with bids on the event');
  console.log(
    `event ${eventId}: ${markets.length} markets on the page; ticking ${m.id} (card ${markets.indexOf(m) + 1}, ${markets.indexOf(m) === 0 ? 'the charted one' : 'not charted'})`,
  );

  const pair = async () => {
    const p = await httpCall(srv.url, 'POST', '/nbx/v2/emm/orders/place', token, {
      outcomeId: m.outcomes[0]!.id,
      price: 0.05,
      qty: 10,
      currency: 'CASH',
      tif: 'GTC',
    });
    if (p.status !== 201) throw new Error(`place: ${p.status} ${JSON.stringify(p.body)}`);
    await httpCall(srv.url, 'DELETE', `/nbx/v2/emm/orders/${p.body.id}`, token);
  };

  const round = async (variant: 'baseline' | 'now', n: number): Promise<Round> => {
    // A page answered by interception counts as a public one to Chromium's local-network checks,
    // which then refuse its WebSocket to 127.0.0.1: off for both variants alike.
    const b = await launch({ width: 1440, height: 900 }, ['--disable-features=LocalNetworkAccessChecks']);
    try {
      if (variant === 'baseline') {
        await b.ctx.route(/\/ui\/($|assets\/)/, (route) => {
          const path = new URL(route.request().url()).pathname.replace(/^\/ui\/?/, '') || 'index.html';
          const file = join(baseDist, path);
          if (!existsSync(file)) return route.fulfill({ status: 404 });
          return route.fulfill({
            status: 200,
            contentType: CONTENT_TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream',
            body: readFileSync(file),
          });
        });
      }
      const page = b.page;
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
      await page.addInitScript(FRAME_PROBE);
      await page.goto(`${srv.url}/ui/#/event/${eventId}`);
      await page.locator(`article[data-market="${m.id}"]`).waitFor({ timeout: 60_000 });
      await page
        .locator('.conn.c-stream')
        .waitFor({ timeout: 60_000 })
        .catch(async (e: unknown) => {
          const conn = await page
            .locator('.conn')
            .innerText()
            .catch(() => '?');
          throw new Error(`${variant}: no stream after 60 s (${conn}); ${problems.join('; ')}`, { cause: e });
        });
      await page.waitForTimeout(1000); // the snapshots in, the charts drawn
      // The page's main-thread time over the round (Chrome's own counters), per frame shown.
      const cdp = await b.ctx.newCDPSession(page);
      await cdp.send('Performance.enable');
      const busy = async () => {
        const { metrics } = (await cdp.send('Performance.getMetrics')) as {
          metrics: { name: string; value: number }[];
        };
        return (metrics.find((x) => x.name === 'TaskDuration')?.value ?? 0) * 1000;
      };
      const busy0 = await busy();
      const t0 = Date.now();
      const pending: Promise<void>[] = [];
      for (let i = 0; Date.now() - t0 < SECONDS * 1000; i++) {
        pending.push(pair());
        const next = t0 + ((i + 1) * 1000) / PAIRS;
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
      }
      await Promise.all(pending);
      const elapsed = (Date.now() - t0) / 1000;
      await page.waitForTimeout(500);
      const busyMs = (await busy()) - busy0;
      const lat = ((await page.evaluate('window.__latency')) as number[]).sort((a, b2) => a - b2);
      const paint = ((await page.evaluate('window.__paint')) as number[]).sort((a, b2) => a - b2);
      return {
        round: n,
        variant,
        samples: lat.length,
        framesPerSecond: lat.length / elapsed,
        p50: quantile(lat, 0.5),
        p95: quantile(lat, 0.95),
        max: lat.at(-1) ?? Number.NaN,
        busyPerFrame: busyMs / Math.max(1, lat.length),
        paint50: quantile(paint, 0.5),
        paint95: quantile(paint, 0.95),
        load: loadavg(),
      };
    } finally {
      await b.close();
    }
  };

  // One warm-up round each (the server's caches, the JIT), not counted.
  await round('now', 0);
  await round('baseline', 0);
  const rows: Round[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const order: ('now' | 'baseline')[] = r % 2 === 1 ? ['baseline', 'now'] : ['now', 'baseline'];
    for (const v of order) {
      const x = await round(v, r);
      rows.push(x);
      console.log(
        `round ${r} ${v.padEnd(8)} ${x.samples} frames (${x.framesPerSecond.toFixed(1)}/s): p50 ${x.p50.toFixed(1)} ms, p95 ${x.p95.toFixed(1)} ms, max ${x.max.toFixed(1)} ms; to paint p50 ${x.paint50.toFixed(1)}, p95 ${x.paint95.toFixed(1)} ms; main thread ${x.busyPerFrame.toFixed(2)} ms/frame; load ${x.load}`,
      );
    }
  }
  const get = (r: number, v: string) => rows.find((x) => x.round === r && x.variant === v)!;
  console.log(
    `\nbaseline ${baseRef}; ${PAIRS} place+cancel pairs a second for ${SECONDS} s a round; living demo ${LIVE ? 'on, a game in play' : 'off'}`,
  );
  console.log(
    '| round | frames/s base | frames/s now | p50 base ms | p50 now ms | p95 base ms | p95 now ms | p95 ratio now/base | to paint p50 base | now | to paint p95 base | now | ratio | main thread ms/frame base | now | ratio |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (let r = 1; r <= ROUNDS; r++) {
    const b = get(r, 'baseline');
    const n = get(r, 'now');
    console.log(
      `| ${r} | ${b.framesPerSecond.toFixed(1)} | ${n.framesPerSecond.toFixed(1)} | ${b.p50.toFixed(1)} | ${n.p50.toFixed(1)} | ${b.p95.toFixed(1)} | ${n.p95.toFixed(1)} | ${(n.p95 / b.p95).toFixed(2)} | ${b.paint50.toFixed(1)} | ${n.paint50.toFixed(1)} | ${b.paint95.toFixed(1)} | ${n.paint95.toFixed(1)} | ${(n.paint95 / b.paint95).toFixed(2)} | ${b.busyPerFrame.toFixed(2)} | ${n.busyPerFrame.toFixed(2)} | ${(n.busyPerFrame / b.busyPerFrame).toFixed(2)} |`,
    );
  }
  const col = (v: string, k: 'p50' | 'p95' | 'framesPerSecond' | 'busyPerFrame' | 'paint50' | 'paint95') =>
    median(rows.filter((x) => x.variant === v).map((x) => x[k]));
  const busyRatios = Array.from(
    { length: ROUNDS },
    (_, i) => get(i + 1, 'now').busyPerFrame / get(i + 1, 'baseline').busyPerFrame,
  );
  const paintRatios = Array.from(
    { length: ROUNDS },
    (_, i) => get(i + 1, 'now').paint95 / get(i + 1, 'baseline').paint95,
  );
  const ratios = Array.from({ length: ROUNDS }, (_, i) => get(i + 1, 'now').p95 / get(i + 1, 'baseline').p95);
  console.log(
    `| median | ${col('baseline', 'framesPerSecond').toFixed(1)} | ${col('now', 'framesPerSecond').toFixed(1)} | ${col('baseline', 'p50').toFixed(1)} | ${col('now', 'p50').toFixed(1)} | ${col('baseline', 'p95').toFixed(1)} | ${col('now', 'p95').toFixed(1)} | ${median(ratios).toFixed(2)} | ${col('baseline', 'paint50').toFixed(1)} | ${col('now', 'paint50').toFixed(1)} | ${col('baseline', 'paint95').toFixed(1)} | ${col('now', 'paint95').toFixed(1)} | ${median(paintRatios).toFixed(2)} | ${col('baseline', 'busyPerFrame').toFixed(2)} | ${col('now', 'busyPerFrame').toFixed(2)} | ${median(busyRatios).toFixed(2)} |`,
  );
  console.log(
    `\nRESULT book frame → DOM: now p50 ${col('now', 'p50').toFixed(1)} ms, p95 ${col('now', 'p95').toFixed(1)} ms; baseline p50 ${col('baseline', 'p50').toFixed(1)} ms, p95 ${col('baseline', 'p95').toFixed(1)} ms\nRESULT book frame → the frame that paints it: now p50 ${col('now', 'paint50').toFixed(1)} ms, p95 ${col('now', 'paint95').toFixed(1)} ms; baseline p50 ${col('baseline', 'paint50').toFixed(1)} ms, p95 ${col('baseline', 'paint95').toFixed(1)} ms\nRESULT page main thread per frame: now ${col('now', 'busyPerFrame').toFixed(2)} ms, baseline ${col('baseline', 'busyPerFrame').toFixed(2)} ms (medians of ${ROUNDS} rounds at ${col('now', 'framesPerSecond').toFixed(0)} frames/s; load average at the end ${loadavg()})`,
  );
  await srv.close();
  await place.destroy();
}

try {
  await main();
} catch (e) {
  console.error(e);
  process.exit(1);
}
