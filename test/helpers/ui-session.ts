/// <reference lib="dom" />
// A browser session on the real server for the UI tests (test/e2e/ui.test.ts and
// parlay-bet.test.ts; docs/ui.md "Tests"): the embedded store with a still demo slate (the books move
// only by what the test does, the demo's market maker quotes parlays), the UI served, a client the
// operator created through the admin API with 1,000 CASH, and Debian's Chromium with the page's
// Content-Security-Policy reports and uncaught errors collected for the tests to assert empty.

import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { RunningServer } from '../../src/main.ts';
import { type Browser, launch } from '../e2e/browser.ts';
import { httpCall } from './child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace, start } from './server.ts';

export interface UiSession {
  srv: RunningServer;
  page: Page;
  client: { clientId: string; clientSecret: string; accountId: string };
  /** Console messages about the Content Security Policy, in order. */
  cspViolations: string[];
  /** Uncaught errors of the page, in order. */
  pageErrors: string[];
  /** Signs the client in on the page shown now and waits for its balance, 1,000.00. */
  signIn(): Promise<void>;
  /** Opens the n-th event of the events page and adds its first market's first outcome to the parlay. */
  addFirstOutcomeOfEvent(n: number): Promise<void>;
  /** A fresh bearer token of the session's client, for REST calls beside the page. */
  clientToken(): Promise<string>;
  /** Closes the browser, stops the server, removes its data. */
  close(): Promise<void>;
}

/** Starts the server and the browser; `clientName` names the operator-created client. */
export async function openUiSession(clientName: string): Promise<UiSession> {
  let place: ServerPlace | undefined;
  let srv: RunningServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await srv?.close();
    await place?.destroy();
  };
  try {
    place = await serverPlace('pglite', {
      TICKBOOK_DEMO: 'true',
      // A still slate: the books move only by what the test does.
      DEMO_LIVE: 'false',
      AUTO_GO_LIVE: 'false',
      UI: 'true',
    });
    srv = await start(place);
    const url = srv.url;
    const admin = await httpCall(url, 'POST', '/nbx/v1/auth/emm-token', null, {
      grant_type: 'client_credentials',
      client_id: ADMIN_ID,
      client_secret: ADMIN_SECRET,
    });
    const token = admin.body.access_token as string;
    const created = await httpCall(url, 'POST', '/admin/v1/clients', token, { name: clientName });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const client = created.body as UiSession['client'];
    const dep = await httpCall(url, 'POST', `/admin/v1/accounts/${client.accountId}/deposits`, token, {
      currency: 'CASH',
      amount: 1000,
    });
    assert.ok(dep.status < 300, JSON.stringify(dep.body));
    browser = await launch({ width: 1440, height: 900 });
    const page = browser.page;
    const cspViolations: string[] = [];
    const pageErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    return {
      srv,
      page,
      client,
      cspViolations,
      pageErrors,
      async signIn() {
        await page.fill('input[name=client_id]', client.clientId);
        await page.fill('input[name=client_secret]', client.clientSecret);
        await page.click('button[type=submit]:has-text("Sign in")');
        await page.waitForFunction(
          () => document.querySelector('[data-testid=balance]')?.textContent === '1,000.00',
        );
      },
      async addFirstOutcomeOfEvent(n) {
        const firstMarket = () => page.locator('article.market').first();
        await page.goto(`${url}/ui/#/events`);
        await page.locator('table.events tbody a').nth(n).click();
        await firstMarket().waitFor();
        await firstMarket()
          .locator('.outcome')
          .first()
          .getByRole('button', { name: /Parlay/ })
          .click();
      },
      async clientToken() {
        const tok = await httpCall(url, 'POST', '/nbx/v1/auth/emm-token', null, {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
        });
        return tok.body.access_token as string;
      },
      close,
    };
  } catch (err) {
    // A half-made session must not keep a server or a browser alive past the failed set-up.
    await close();
    throw err;
  }
}
