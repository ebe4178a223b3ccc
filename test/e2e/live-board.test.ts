/// <reference lib="dom" />
// The board against the living demo (docs/ui.md "The board"): the real server on the embedded store
// with the demo slate playing (its games in play keep their score and clock moving, its market maker
// moves the lines), Debian's Chromium through playwright-core, at 1440×900 and at 375×812. Live games
// come first, with their score and clock in the league's words, and a price on the board changes
// within 30 s with nobody trading. axe-core finds no serious violation at either width.
// Screenshots: .tmp/e2e/.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { RunningServer } from '../../src/main.ts';
import { type ServerPlace, serverPlace, start } from '../helpers/server.ts';
import { axe, type Browser, browserMissing, launch, serious, shot } from './browser.ts';

const missing = browserMissing();

/** Every price on the board, in order: a change anywhere changes this. */
const prices = (page: Page) =>
  page.locator('table.board .px').evaluateAll((els) => els.map((e) => e.textContent ?? '').join('|'));

describe('browser UI: the live board', { skip: missing }, () => {
  let place: ServerPlace;
  let srv: RunningServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    place = await serverPlace('pglite', { TICKBOOK_DEMO: 'true', DEMO_LIVE: 'true', UI: 'true' });
    srv = await start(place);
    browser = await launch({ width: 1440, height: 900 });
    page = browser.page;
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  after(async () => {
    await browser?.close();
    await srv?.close();
    await place?.destroy();
  });

  for (const [width, height] of [
    [1440, 900],
    [375, 812],
  ] as const) {
    test(`${width}×${height}: live games first with score and clock, prices moving within 30 s`, async () => {
      await page.setViewportSize({ width, height });
      await page.goto(`${srv.url}/ui/`);
      const rows = page.locator('table.board tbody tr');
      // Generous: on a loaded machine the first page of games can take a while.
      await page.locator('table.board tbody tr.live').first().waitFor({ timeout: 120_000 });
      assert.equal(await rows.first().getAttribute('class'), 'live', 'live games come first');
      const score = page.locator('table.board tbody tr.live .score').first();
      await score.waitFor({ timeout: 30_000 });
      // Each side's score beside its name.
      assert.match((await score.innerText()).trim(), /^\d+$/);
      assert.equal(
        await page.locator('table.board tbody tr.live:has(.score)').first().locator('.score').count(),
        2,
      );
      const clock = page.locator('table.board tbody tr.live .clock').first();
      await clock.waitFor({ timeout: 30_000 });
      assert.match(await clock.innerText(), /^(Q\d|P\d|\d(st|nd|rd|th) half|Inning|Hole|Round|Period)/);
      await page.locator('table.board .px[data-price]').first().waitFor({ timeout: 30_000 });
      const before = await prices(page);
      await page.waitForFunction(
        (b) =>
          Array.from(document.querySelectorAll('table.board .px'))
            .map((e) => e.textContent ?? '')
            .join('|') !== b,
        before,
        { timeout: 30_000, polling: 250 },
      );
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `board wider than the window by ${overflow}px`);
      await shot(page, `board-live-${width}`);
      const v = serious(await axe(page));
      assert.deepEqual(v, [], JSON.stringify(v, null, 2));
    });
  }

  test('no script error', () => {
    assert.deepEqual(pageErrors, []);
  });
});

if (missing) test.skip(`browser UI: the live board: ${missing}`, () => {});
