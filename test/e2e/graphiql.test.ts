/// <reference lib="dom" />
// GraphiQL in a real browser with every request off this server refused, as on a machine without
// internet access (src/http/graphiql.ts): the editor renders, runs the query it opens with, and
// shows the answer; no request leaves for another host and the page throws nothing.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RunningServer } from '../../src/main.ts';
import { type ServerPlace, serverPlace, start } from '../helpers/server.ts';
import { type Browser, browserMissing, launch, shot } from './browser.ts';

const missing = browserMissing();
let place: ServerPlace;
let srv: RunningServer;
let browser: Browser;

before(async () => {
  if (missing) return;
  place = await serverPlace('pglite', { TICKBOOK_DEMO: 'true', DEMO_LIVE: 'false', AUTO_GO_LIVE: 'false' });
  srv = await start(place);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await srv?.close();
  await place?.destroy();
});

test('GraphiQL renders and answers with no internet access', { skip: missing }, async () => {
  const { page, ctx } = browser;
  const origin = new URL(srv.url).origin;
  const elsewhere: string[] = [];
  await ctx.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${srv.url}/graphiql`);
  await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
  await page.click('.graphiql-execute-button');
  await page.waitForFunction(
    () => (document.querySelector('.result-window')?.textContent ?? '').includes('"description"'),
    undefined,
    { timeout: 30_000 },
  );
  await shot(page, 'graphiql');
  const result = (await page.textContent('.result-window')) ?? '';
  assert.match(result, /"event"/);
  assert.doesNotMatch(result, /"errors"/);
  assert.deepEqual(elsewhere, [], 'no request to another host');
  assert.deepEqual(errors, []);
});
