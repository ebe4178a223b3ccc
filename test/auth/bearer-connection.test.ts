// The bearer guard remembers the token of a connection's Authorization header (src/http/plugins/
// bearer.ts): on one keep-alive connection a changed header is a different token, and a remembered
// token is still checked on every request (expiry, revocation, client status).
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import type { Store } from '../../src/store/types.ts';
import { openStore, startServer, type TestServer } from './helpers.ts';

let store: Store;
let srv: TestServer;
before(async () => {
  store = await openStore();
  srv = await startServer(store, { listen: true, env: { AUTH_FAILURE_LIMIT: '1000' } });
});
after(async () => {
  await srv.close();
  await store.close();
});

function get(agent: Agent, headers: Record<string, string>) {
  return new Promise<{ status: number; body: { clientId?: string; code?: string }; port: number }>(
    (resolve, reject) => {
      const req = httpRequest(`${srv.url}/test/protected/read-tape`, { agent, headers }, (res) => {
        const port = res.socket.localPort ?? -1;
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), port }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

test('one keep-alive connection: each request is checked with the token it carries', async () => {
  const a = await srv.auth.createClient({ name: 'conn-a', scopes: ['read:tape'] });
  const b = await srv.auth.createClient({ name: 'conn-b', scopes: ['read:tape'] });
  const ta = (await srv.auth.issueToken(srv.auth.clients.get(a.clientId)!, undefined, 'test')).access_token;
  const tb = (await srv.auth.issueToken(srv.auth.clients.get(b.clientId)!, undefined, 'test')).access_token;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    const r1 = await get(agent, bearer(ta));
    assert.equal(r1.status, 200);
    assert.equal(r1.body.clientId, a.clientId);
    assert.equal((await get(agent, bearer(ta))).body.clientId, a.clientId);
    const r2 = await get(agent, bearer(tb));
    assert.equal(r2.status, 200);
    assert.equal(r2.body.clientId, b.clientId);
    assert.equal(r2.port, r1.port, 'same connection');
    assert.equal((await get(agent, bearer(ta))).body.clientId, a.clientId);
    // Revoked while the connection still remembers it: refused on the next request.
    await srv.auth.revokeToken(ta, srv.auth.clients.get(a.clientId)!);
    const r3 = await get(agent, bearer(ta));
    assert.equal(r3.status, 401);
    assert.equal(r3.body.code, 'INVALID_TOKEN');
    assert.equal(r3.port, r1.port, 'same connection');
    // No header, another scheme, a malformed token: each answered for itself.
    assert.equal((await get(agent, {})).body.code, 'UNAUTHORIZED');
    assert.equal((await get(agent, { authorization: `Basic ${tb}` })).body.code, 'UNAUTHORIZED');
    assert.equal((await get(agent, { authorization: 'Bearer not a token' })).body.code, 'INVALID_TOKEN');
    const r4 = await get(agent, bearer(tb));
    assert.equal(r4.status, 200);
    assert.equal(r4.body.clientId, b.clientId);
  } finally {
    agent.destroy();
  }
});
