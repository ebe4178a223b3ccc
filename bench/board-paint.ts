// The board's first paint on a busy server (docs/ui.md "The board"): how long after navigation the
// home page shows its first game row and its first price, for the UI as built now (ui/dist) against
// a baseline build of an earlier commit, in the same run, rounds interleaved (the order alternates),
// each load in a fresh browser context (no cache, no token). The server is the real one (embedded
// store, demo slate, living demo on); CPU burners keep the machine busy and autocannon keeps the
// server busy (`connections` clients reading one event's markets with books) the whole time.
//
//   npm run bench:board-paint -- [baselineRef=ba4c126] [rounds=6] [burners=2] [connections=10]
//
// The baseline is built once from `git archive <ref> ui` into .tmp/board-paint-<ref>/ (git-ignored)
// and served to the page by request interception, so both variants talk to the same server.
// Prints each round, the medians, the per-round ratios and the request waterfall of the last load
// of each variant (what the page waited for).

import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../test/e2e/browser.ts';
import { httpCall } from '../test/helpers/child-server.ts';
import { serverPlace, start } from '../test/helpers/server.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const [baseRef = 'ba4c126', roundsArg = '6', burnersArg = '2', connArg = '10'] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const BURNERS = Number(burnersArg);

function baselineDist(ref: string): string {
  const dir = join(root, '.tmp', `board-paint-${ref}`);
  const dist = join(dir, 'ui', 'dist');
  if (!existsSync(join(dist, 'index.html'))) {
    execSync(`mkdir -p ${dir} && git archive ${ref} ui | tar -x -C ${dir}`, { cwd: root });
    execSync('npx vite build --config ui/vite.config.ts --logLevel error', { cwd: dir, stdio: 'inherit' });
  }
  return dist;
}

/** Installed before the page's scripts: when the first row and the first price appear. */
const PROBE = `(() => {
  window.__paint = {};
  new MutationObserver(() => {
    const p = window.__paint;
    if (p.row === undefined && document.querySelector('table.board tbody tr')) p.row = performance.now();
    if (p.price === undefined && document.querySelector('table.board .px[data-price]')) p.price = performance.now();
  }).observe(document, { subtree: true, childList: true, attributes: true });
})();`;

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
};

interface Load {
  row: number;
  price: number;
  waterfall: string[];
}

async function main(): Promise<void> {
  const baseDist = baselineDist(baseRef);
  if (!existsSync(join(root, 'ui', 'dist', 'index.html'))) throw new Error('run `npm run build:ui` first');
  const place = await serverPlace('pglite', { TICKBOOK_DEMO: 'true', DEMO_LIVE: 'true', UI: 'true' });
  const srv = await start(place);
  const burners: ChildProcess[] = [];
  for (let i = 0; i < BURNERS; i++)
    burners.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  if (Number(connArg) > 0) {
    const cfg = (await (await fetch(`${srv.url}/ui/config.json`)).json()) as {
      viewer: { clientId: string; clientSecret: string };
    };
    const tok = await httpCall(srv.url, 'POST', '/nbx/v1/auth/emm-token', null, {
      grant_type: 'client_credentials',
      client_id: cfg.viewer.clientId,
      client_secret: cfg.viewer.clientSecret,
    });
    const token = tok.body.access_token as string;
    const events = await httpCall(srv.url, 'GET', '/nbx/v2/emm/events?status=OPEN_PREGAME&limit=1', token);
    const url = `${srv.url}/nbx/v2/emm/events/getMarketsByEvent/${events.body[0].id}?currency=CASH`;
    burners.push(
      spawn(
        join(root, 'node_modules', '.bin', 'autocannon'),
        ['-c', connArg, '-d', '100000', '-H', `authorization=Bearer ${token}`, url],
        { stdio: 'ignore' },
      ),
    );
  }
  // The burners must not outlive the bench, whatever ends it.
  process.on('exit', () => {
    for (const b of burners) b.kill();
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(1));
  const load = async (variant: 'now' | 'baseline'): Promise<Load> => {
    // A fresh profile each time: nothing cached, no token.
    const b = await launch({ width: 1440, height: 900 });
    const ctx = b.ctx;
    if (variant === 'baseline') {
      await ctx.route(/\/ui\/($|assets\/)/, (route) => {
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
    await page.addInitScript(PROBE);
    await page.goto(`${srv.url}/ui/`, { waitUntil: 'commit', timeout: 180_000 });
    // A function, not a string: the page's CSP refuses eval.
    await page.waitForFunction(
      () => (window as unknown as { __paint: { price?: number } }).__paint.price !== undefined,
      undefined,
      {
        timeout: 180_000,
        polling: 100,
      },
    );
    const paint = (await page.evaluate('window.__paint')) as { row: number; price: number };
    const waterfall = (await page.evaluate(`performance.getEntriesByType('resource')
      .filter((e) => e.startTime <= window.__paint.price)
      .map((e) => Math.round(e.startTime) + '–' + Math.round(e.responseEnd) + ' ms ' +
        e.name.replace(location.origin, '').slice(0, 90))`)) as string[];
    await b.close();
    return { ...paint, waterfall };
  };

  // One warm-up load each (the server's caches and the JIT), not counted.
  await load('now');
  await load('baseline');
  const rows: { round: number; variant: string; row: number; price: number }[] = [];
  const last: Partial<Record<string, Load>> = {};
  for (let r = 1; r <= ROUNDS; r++) {
    const order: ('now' | 'baseline')[] = r % 2 === 1 ? ['baseline', 'now'] : ['now', 'baseline'];
    for (const v of order) {
      const l = await load(v);
      if (v === order[0]) process.stdout.write('.');
      last[v] = l;
      rows.push({ round: r, variant: v, row: l.row, price: l.price });
      console.log(
        `round ${r} ${v.padEnd(8)} first row ${l.row.toFixed(0)} ms, first price ${l.price.toFixed(0)} ms`,
      );
    }
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const of = (v: string, k: 'row' | 'price') => rows.filter((x) => x.variant === v).map((x) => x[k]);
  console.log(
    `\n${BURNERS} CPU burners, ${connArg} autocannon connections, living demo on, load average ${execSync('cat /proc/loadavg').toString().trim()}`,
  );
  console.log(
    '| round | baseline first row ms | now first row ms | ratio | baseline first price ms | now first price ms | ratio |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  for (let r = 1; r <= ROUNDS; r++) {
    const b = rows.find((x) => x.round === r && x.variant === 'baseline')!;
    const n = rows.find((x) => x.round === r && x.variant === 'now')!;
    console.log(
      `| ${r} | ${b.row.toFixed(0)} | ${n.row.toFixed(0)} | ${(n.row / b.row).toFixed(2)} | ${b.price.toFixed(0)} | ${n.price.toFixed(0)} | ${(n.price / b.price).toFixed(2)} |`,
    );
  }
  const [br, nr, bp, np] = [
    of('baseline', 'row'),
    of('now', 'row'),
    of('baseline', 'price'),
    of('now', 'price'),
  ].map(median) as [number, number, number, number];
  console.log(
    `| median | ${br.toFixed(0)} | ${nr.toFixed(0)} | ${(nr / br).toFixed(2)} | ${bp.toFixed(0)} | ${np.toFixed(0)} | ${(np / bp).toFixed(2)} |`,
  );
  for (const v of ['baseline', 'now']) {
    console.log(`\nrequests of the last ${v} load until its first price:`);
    for (const w of last[v]?.waterfall ?? []) console.log(`  ${w}`);
  }
  for (const b of burners) b.kill();
  await srv.close();
  await place.destroy();
}

try {
  await main();
} catch (e) {
  console.error(e);
  process.exit(1);
}
