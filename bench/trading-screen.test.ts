/// <reference lib="dom" />
// `npm run bench:trading-screen` (not in `npm test`: how soon the first live games appear depends on
// the demo's clock and the machine's load, too much for a CI gate).
// The trading screen against the living demo (docs/ui.md "The board"): live games with scores and
// prices that move by themselves; a live event page that follows the stream with few REST requests;
// and the time from a book frame's arrival to the page showing it, measured inside the page while
// the test places and cancels orders at 50 a second. Figures go to the test's diagnostics and to
// BENCHMARKS.md ("Trading screen").

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { RunningServer } from '../src/main.ts';
import { type Browser, browserMissing, launch, shot } from '../test/e2e/browser.ts';
import { httpCall } from '../test/helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace, start } from '../test/helpers/server.ts';
import { FRAME_PROBE, quantile } from './lib/frame-probe.ts';

const missing = browserMissing();

describe('trading screen on the living demo', { skip: missing }, () => {
  let place: ServerPlace;
  let srv: RunningServer;
  let browser: Browser;
  let page: Page;
  let token: string;

  before(async () => {
    place = await serverPlace('pglite', { TICKBOOK_DEMO: 'true', DEMO_LIVE: 'true', UI: 'true' });
    srv = await start(place);
    const admin = await httpCall(srv.url, 'POST', '/nbx/v1/auth/emm-token', null, {
      grant_type: 'client_credentials',
      client_id: ADMIN_ID,
      client_secret: ADMIN_SECRET,
    });
    const adminToken = admin.body.access_token as string;
    const c = await httpCall(srv.url, 'POST', '/admin/v1/clients', adminToken, { name: 'live e2e' });
    await httpCall(srv.url, 'POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, adminToken, {
      currency: 'CASH',
      amount: 100_000,
    });
    const t = await httpCall(srv.url, 'POST', '/nbx/v1/auth/emm-token', null, {
      grant_type: 'client_credentials',
      client_id: c.body.clientId,
      client_secret: c.body.clientSecret,
    });
    token = t.body.access_token as string;
    browser = await launch({ width: 1440, height: 900 });
    page = browser.page;
    await page.addInitScript(FRAME_PROBE);
  });

  after(async () => {
    await browser?.close();
    await srv?.close();
    await place?.destroy();
  });

  test('the board shows live games first with scores, and prices that move within 30 s', async () => {
    await page.goto(`${srv.url}/ui/`);
    const live = page.locator('table.board tbody tr.live');
    // Generous: on a loaded CI machine the first page of games can take a while.
    await live.first().waitFor({ timeout: 120_000 });
    // Live rows come first.
    assert.equal(await page.locator('table.board tbody tr').first().getAttribute('class'), 'live');
    await page.locator('table.board tbody tr.live .score').first().waitFor({ timeout: 30_000 });
    // The game clock the living demo sets, in the league's words (Q2 12:05, P3 4:10, Inning 7…).
    const clock = page.locator('table.board tbody tr.live .clock').first();
    await clock.waitFor({ timeout: 30_000 });
    assert.match(await clock.innerText(), /^(Q\d|P\d|\d(st|nd|rd|th) half|Inning|Hole|Round|Period)/);
    const prices = () =>
      page.locator('table.board .px').evaluateAll((els) => els.map((e) => e.textContent ?? '').join('|'));
    const before = await prices();
    await page.waitForFunction(
      (b) =>
        Array.from(document.querySelectorAll('table.board .px'))
          .map((e) => e.textContent ?? '')
          .join('|') !== b,
      before,
      { timeout: 30_000, polling: 250 },
    );
    await shot(page, 'board-live');
  });

  test('a live event page: book frames reach the page within 50 ms (p95) at 50 orders a second', async (t) => {
    await page.locator('table.board tbody tr.live .teams').first().click({ timeout: 60_000 });
    await page.locator('article.market').first().waitFor({ timeout: 60_000 });
    await page.locator('.conn.c-stream').waitFor({ timeout: 30_000 });
    const eventId = page.url().split('/').at(-1)!;
    const markets = (
      await httpCall(srv.url, 'GET', `/nbx/v2/emm/events/getMarketsByEvent/${eventId}?currency=CASH`, token)
    ).body as {
      id: string;
      status: string;
      outcomes: { id: string }[];
      book: { bids: { price: number }[] };
    }[];
    const m = markets.find((x) => x.status === 'OPEN' && x.book.bids.length > 0)!;
    assert.ok(m, 'an open market with bids on the live event');
    // A low bid far from the touch, placed and cancelled: every command is a book frame.
    const low = 0.05;
    // 25 place-and-cancel pairs a second, started on a clock rather than one after another, so a
    // slow answer does not lower the rate (50 book frames a second on this market).
    const pair = async () => {
      const p = await httpCall(srv.url, 'POST', '/nbx/v2/emm/orders/place', token, {
        outcomeId: m.outcomes[0]!.id,
        price: low,
        qty: 10,
        currency: 'CASH',
        tif: 'GTC',
      });
      assert.equal(p.status, 201, JSON.stringify(p.body));
      await httpCall(srv.url, 'DELETE', `/nbx/v2/emm/orders/${p.body.id}`, token);
    };
    const t0 = Date.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; Date.now() - t0 < 10_000; i++) {
      pending.push(pair());
      const next = t0 + (i + 1) * 40;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    await Promise.all(pending);
    const sent = pending.length * 2;
    const rate = sent / ((Date.now() - t0) / 1000);
    await page.waitForTimeout(500);
    const lat = (await page.evaluate('window.__latency')) as number[];
    lat.sort((a, b) => a - b);
    const q = (f: number) => quantile(lat, f);
    const line = `RESULT book frame → DOM: p50 ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, max ${lat.at(-1)!.toFixed(1)} ms over ${lat.length} frames at ${rate.toFixed(0)} commands/s (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`;
    t.diagnostic(line);
    console.log(line);
    assert.ok(lat.length >= 100, `samples: ${lat.length}`);
    // The target is 50 ms; CI shares two cores between the server, the browser and this loop.
    assert.ok(q(0.95) <= 100, `p95 ${q(0.95).toFixed(1)} ms`);
  });

  test('a live event page open for 60 s makes at most 60 REST requests', async (t) => {
    const requests: string[] = [];
    const onRequest = (r: { url(): string; resourceType(): string }) => {
      const u = new URL(r.url());
      if (u.origin === srv.url && r.resourceType() !== 'websocket' && !u.pathname.startsWith('/ui/'))
        requests.push(u.pathname);
    };
    page.on('request', onRequest);
    await page.reload();
    await page.locator('article.market').first().waitFor({ timeout: 60_000 });
    await page.waitForTimeout(60_000);
    page.off('request', onRequest);
    const books = requests.filter((p) => /getMarketsByEvent|\/emm\/book\//.test(p)).length;
    const line = `RESULT live event page open 60 s: ${requests.length} REST requests (book reads ${books})`;
    t.diagnostic(line);
    console.log(line);
    assert.ok(requests.length <= 60, `requests: ${requests.length}: ${requests.join(' ')}`);
    await shot(page, 'event-live');
  });
});

if (missing) test.skip(`trading screen on the living demo: ${missing}`, () => {});
