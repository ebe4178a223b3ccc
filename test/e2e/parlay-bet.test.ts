/// <reference lib="dom" />
// A parlay bet end to end in the browser (docs/ui.md "Parlay bets"): the real server on the embedded
// store with the demo slate (its market maker is the house that quotes), Debian's Chromium through
// playwright-core, at 1440×900 and 375×812. Sign in as the UI does, build a two-leg parlay from two
// events, request quotes, see the house quote arrive from the private stream with the countdown (no
// REST read of the request), accept, and find the parlay in "My parlays" with its legs TBD, brought
// by the stream's parlayFill (no REST read of the list); a 409 (price moved) is explained with a way to ask again, which cancels the old request. Boosts are absent on this
// server, so nothing of them shows. axe-core finds no serious violation. Screenshots: .tmp/e2e/.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { RunningServer } from '../../src/main.ts';
import { openUiSession, type UiSession } from '../helpers/ui-session.ts';
import { axe, browserMissing, serious, shot } from './browser.ts';

const missing = browserMissing();

describe('browser UI: parlay bets', { skip: missing }, () => {
  let session: UiSession;
  let srv: RunningServer;
  let page: Page;

  before(async () => {
    session = await openUiSession('e2e parlay');
    ({ srv, page } = session);
  });

  after(() => session?.close());

  test('sign in, build a two-leg parlay, place it, see it in My parlays', async () => {
    // Each request with the browser's own start time (not when the test hears of it, which a loaded
    // machine delays and bunches).
    const requests: string[] = [];
    page.on('requestfinished', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/nbx/v1/parlay') || u.pathname.startsWith('/nbx/v1/boosts'))
        requests.push(`${r.method()} ${u.pathname}${u.search} ${r.timing().startTime}`);
    });
    await page.goto(`${srv.url}/ui/#/events`);
    await session.signIn();
    // Signed in: "My parlays" is there (empty), and the boosts section says none are on offer (an
    // operator has created none on this server).
    await page.locator('[data-testid=my-parlays]').waitFor();
    await page.locator('[data-testid=boosts]').getByText('No boosts on offer.').waitFor();

    await session.addFirstOutcomeOfEvent(0);
    await session.addFirstOutcomeOfEvent(1);
    const bet = page.locator('[data-testid=parlay-bet]');
    await bet.waitFor({ timeout: 5000 });
    await page.fill('input[name=parlay_stake]', '2.50');
    await bet.getByRole('button', { name: 'Request quotes' }).click();
    const shown = page.locator('[data-testid=parlay-request]');
    await shown.waitFor({ timeout: 5000 });
    assert.match(await shown.innerText(), /Price\s+0\.\d{3}/);
    assert.match(await page.locator('[data-testid=bet-countdown]').innerText(), /^\d+\.\d s$/);
    // The trader's own stream is up, so the quotes come from its private channel.
    assert.equal(await page.locator('[data-testid=quote-source]').getAttribute('data-live'), 'true');
    // The house quotes within its scheduler pass; the slip hears it as a parlayQuote frame.
    await page.locator('[data-testid=parlay-quotes] li').first().waitFor({ timeout: 10_000 });
    const requestReads = () => requests.filter((r) => /^GET \/nbx\/v1\/parlay\/request\//.test(r));
    assert.deepEqual(requestReads(), [], 'the quote arrived with no REST read of the request');
    await shot(page, 'parlay-bet-quoted');
    const v1 = serious(await axe(page));
    assert.deepEqual(v1, [], JSON.stringify(v1, null, 2));

    const accept = bet.getByRole('button', { name: /^Accept: stake 2\.50 at 0\.\d{3}/ });
    await accept.click();
    const placed = page.locator('[data-testid=parlay-placed]');
    await placed.waitFor({ timeout: 10_000 });
    assert.match(await placed.innerText(), /Placed: stake 2\.50 at 0\.\d{3}/);

    const listReads = () => requests.filter((r) => r.startsWith('GET /nbx/v1/parlays')).length;
    const listReadsBefore = listReads();
    const mine = page.locator('[data-testid=my-parlay]');
    await mine.first().waitFor({ timeout: 10_000 });
    // "My parlays" took it from the stream's parlayFill, not from a read of the list.
    assert.equal(listReads(), listReadsBefore, JSON.stringify(requests));
    assert.equal(await mine.count(), 1);
    const text = await mine.first().innerText();
    assert.match(text, /OPEN/);
    assert.match(text, /as taker/);
    assert.match(text, /stake\s+2\.50/);
    assert.equal(await mine.first().locator('.leg-status').count(), 2);
    for (const s of await mine.first().locator('.leg-status').allInnerTexts()) assert.equal(s, 'TBD');
    await shot(page, 'parlay-bet-placed');
    const v2 = serious(await axe(page));
    assert.deepEqual(v2, [], JSON.stringify(v2, null, 2));

    assert.deepEqual(requestReads(), [], 'no REST read of the request at all');
    await page.setViewportSize({ width: 375, height: 812 });
    await page.locator('[data-testid=my-parlays]').scrollIntoViewIfNeeded();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page wider than the phone by ${overflow}px`);
    await shot(page, 'parlay-bet-placed-phone');
    const v3 = serious(await axe(page));
    assert.deepEqual(v3, [], JSON.stringify(v3, null, 2));
    await page.setViewportSize({ width: 1440, height: 900 });
    assert.ok(requests.some((r) => r.startsWith('POST /nbx/v1/parlay/request ')));
    assert.ok(requests.some((r) => r.startsWith('GET /nbx/v1/boosts ')));
  });

  test('a price that moved is explained, with a way to ask again', async () => {
    const bet = page.locator('[data-testid=parlay-bet]');
    await bet.getByRole('button', { name: /Request (new )?quotes/ }).click();
    await page.locator('[data-testid=parlay-quotes] li').first().waitFor({ timeout: 10_000 });
    // The server refuses the wager as a moved price (what a faster maker's new quote would cause).
    await page.route('**/wager', (r) =>
      r.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({
          statusCode: 409,
          error: 'Conflict',
          code: 'PARLAY_PRICE_MOVED',
          message: 'Every live quote is above maxPrice',
        }),
      }),
    );
    await bet.getByRole('button', { name: /^Accept/ }).click();
    const err = page.locator('[data-testid=parlay-bet-error]');
    await err.waitFor({ timeout: 5000 });
    assert.match(await err.innerText(), /The price moved/);
    assert.match(await err.innerText(), /PARLAY_PRICE_MOVED/);
    await page.unroute('**/wager');
    await shot(page, 'parlay-bet-moved');
    const v = serious(await axe(page));
    assert.deepEqual(v, [], JSON.stringify(v, null, 2));
    const deletes: string[] = [];
    page.on('request', (r) => r.method() === 'DELETE' && deletes.push(new URL(r.url()).pathname));
    await err.getByRole('button', { name: 'Request a new price' }).click();
    await err.waitFor({ state: 'detached', timeout: 5000 });
    await page.locator('[data-testid=parlay-quotes] li').first().waitFor({ timeout: 10_000 });
    // The request the refused wager was on is cancelled, not left open to its deadline.
    assert.equal(deletes.length, 1, JSON.stringify(deletes));
    assert.match(deletes[0]!, /^\/nbx\/v1\/parlay\/request\/[0-9a-f-]{36}$/);
    assert.deepEqual(session.pageErrors, []);
    assert.deepEqual(session.cspViolations, []);
  });
});
