// One issuer per store (docs/cluster.md "One issuer per store"): two processes on one PostgreSQL
// schema, on different ports and without PUBLIC_BASE_URL (so each one's default differs), accept
// each other's tokens, because the first records its address as the store's issuer and the second
// adopts it. A later start with an explicit, different PUBLIC_BASE_URL is refused with a message
// naming the variable and the stored value. Needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { startServer } from '../../src/main.ts';
import { freePort } from '../auth/helpers.ts';
import { fetchToken } from '../helpers/child-server.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace } from '../helpers/server.ts';
import { type Proc, req, startProc } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';

let place: ServerPlace;
const procs: Proc[] = [];
const ports: number[] = [];

before(async () => {
  if (skip) return;
  // No PUBLIC_BASE_URL: each process would default to http://localhost:<its PORT>.
  place = await serverPlace('postgres', { PUBLIC_BASE_URL: '' });
  for (const name of ['issuer-a', 'issuer-b']) {
    const port = await freePort();
    ports.push(port);
    procs.push(await startProc(place, name, { PORT: String(port) }));
  }
});

after(async () => {
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await place?.destroy();
});

test('two processes on different ports accept each other’s tokens', { skip }, async () => {
  const [a, b] = procs.map((p) => p.url) as [string, string];
  const issuer = `http://localhost:${ports[0]}`;
  for (const u of [a, b]) {
    const meta = await req(u, 'GET', '/.well-known/oauth-authorization-server');
    assert.equal(meta.body.issuer, issuer, `${u} publishes the issuer the first process recorded`);
  }
  // A token from each process (b forwards issuance to the leader, but verifies on its own) is
  // accepted by both: the operator API and a trader's own balance.
  const viaA = await fetchToken(a, ADMIN_ID, ADMIN_SECRET);
  const viaB = await fetchToken(b, ADMIN_ID, ADMIN_SECRET);
  for (const u of [a, b]) {
    for (const token of [viaA, viaB]) {
      const r = await req(u, 'GET', '/admin/v1/cluster', { token });
      assert.equal(r.status, 200, `${u}: ${JSON.stringify(r.body)}`);
    }
  }
  const client = await req(b, 'POST', '/admin/v1/clients', { token: viaA, body: { name: 'trader' } });
  assert.equal(client.status, 201, JSON.stringify(client.body));
  const trader = await fetchToken(a, client.body.clientId, client.body.clientSecret);
  for (const u of [a, b]) {
    const r = await req(u, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', { token: trader });
    assert.equal(r.status, 200, `${u}: ${JSON.stringify(r.body)}`);
  }
  // The legacy endpoint's audience is the store's issuer on every process.
  for (const u of [a, b]) {
    const r = await req(u, 'POST', '/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.body.clientId,
        client_secret: client.body.clientSecret,
        audience: issuer,
      },
    });
    assert.equal(r.status, 200, `${u}: ${JSON.stringify(r.body)}`);
  }
});

test('an explicit PUBLIC_BASE_URL other than the stored issuer is refused at start', { skip }, async () => {
  const issuer = `http://localhost:${ports[0]}`;
  await assert.rejects(
    startServer({ env: { ...place.env, PUBLIC_BASE_URL: 'https://elsewhere.example', PORT: '0' } }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.equal(err.variable, 'PUBLIC_BASE_URL');
      assert.match(err.message, /https:\/\/elsewhere\.example/);
      assert.ok(err.message.includes(issuer), err.message);
      return true;
    },
  );
});
