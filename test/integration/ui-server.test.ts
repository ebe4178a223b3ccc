// The UI as `npm start` wires it (src/main.ts, docs/ui.md): the published viewer client takes a
// token through the ordinary grant and that token reads market data but cannot trade; every start
// gives it a new secret; UI=false removes /ui and / and disables the viewer client.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { VIEWER_CLIENT_ID } from '../../src/http/ui-viewer.ts';
import { httpCall } from '../helpers/child-server.ts';
import { serverPlace, start } from '../helpers/server.ts';

test('viewer client: read-only token, new secret per start, disabled by UI=false', async () => {
  const place = await serverPlace('pglite');
  after(() => place.destroy());

  let srv = await start(place);
  const config = async () => (await httpCall(srv.url, 'GET', '/ui/config.json', null)).body;
  const first = (await config()).viewer;
  assert.equal(first.clientId, VIEWER_CLIENT_ID);
  const tok = await httpCall(srv.url, 'POST', '/nbx/v1/auth/emm-token', null, {
    grant_type: 'client_credentials',
    client_id: first.clientId,
    client_secret: first.clientSecret,
  });
  assert.equal(tok.status, 200);
  assert.equal(tok.body.scope, 'read:tape');
  const token = tok.body.access_token as string;
  assert.equal((await httpCall(srv.url, 'GET', '/nbx/v2/emm/event-metadata/leagues', token)).status, 200);
  const trade = await httpCall(srv.url, 'GET', '/nbx/v2/emm/account/balance', token);
  assert.equal(trade.status, 403);
  const root = await fetch(`${srv.url}/`, { redirect: 'manual' });
  assert.equal(root.status, 302);
  await srv.close();

  // A restart: a new secret; the old one stops working.
  srv = await start(place);
  const second = (await config()).viewer;
  assert.notEqual(second.clientSecret, first.clientSecret);
  const old = await httpCall(srv.url, 'POST', '/nbx/v1/auth/emm-token', null, {
    grant_type: 'client_credentials',
    client_id: first.clientId,
    client_secret: first.clientSecret,
  });
  assert.equal(old.status, 401);
  await srv.close();

  // UI=false: no page, no redirect, and the viewer client is disabled.
  srv = await start(place, { UI: 'false' });
  assert.equal((await fetch(`${srv.url}/ui/`)).status, 404);
  assert.equal((await fetch(`${srv.url}/`, { redirect: 'manual' })).status, 404);
  assert.equal((await fetch(`${srv.url}/ui/config.json`)).status, 404);
  const off = await httpCall(srv.url, 'POST', '/nbx/v1/auth/emm-token', null, {
    grant_type: 'client_credentials',
    client_id: second.clientId,
    client_secret: second.clientSecret,
  });
  assert.ok(off.status === 401 || off.status === 403, `disabled viewer: ${off.status}`);
  await srv.close();
});
