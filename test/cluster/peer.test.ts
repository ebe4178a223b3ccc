// Peers (docs/cluster.md "Peers"): a request forwarded by a process of the same store is answered
// as if from the client address that process saw; the same headers from anyone else — no proof, a
// wrong proof, a proof under another store's secret — change nothing. No database needed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import type { ClusterNode } from '../../src/cluster/node.ts';
import { PEER_HEADER, PeerAuth } from '../../src/cluster/peer.ts';
import { loadConfig } from '../../src/config.ts';
import { FORWARDED_HEADER, registerClusterHooks } from '../../src/http/plugins/cluster.ts';

/** A store holding one peer secret row, as the migration's table does. */
function storeWithSecret() {
  let secret: string | undefined;
  return {
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<{ rows: T[] }> {
      if (sql.startsWith('INSERT')) secret ??= params[0] as string;
      return { rows: (secret === undefined ? [] : [{ secret }]) as T[] };
    },
  };
}

test('x-forwarded-for is trusted from peers only', async () => {
  const peer = await PeerAuth.load(storeWithSecret() as never);
  const stranger = await PeerAuth.load(storeWithSecret() as never);
  const node = { mode: 'leader', seq: 0, peer, waitForSeq: async () => true } as unknown as ClusterNode;
  const app = Fastify();
  registerClusterHooks(app, node, loadConfig({}));
  app.get('/ip', async (request) => ({ ip: request.ip }));
  const ip = async (headers: Record<string, string>) =>
    (await app.inject({ method: 'GET', url: '/ip', headers, remoteAddress: '10.0.0.2' })).json().ip;

  assert.equal(await ip({}), '10.0.0.2');
  const forwarded = {
    'x-request-id': 'r1',
    [FORWARDED_HEADER]: 'n1',
    'x-forwarded-for': '6.6.6.6, 203.0.113.7',
  };
  assert.equal(await ip({ ...forwarded, [PEER_HEADER]: peer.sign('n1', 'r1') }), '203.0.113.7');
  assert.equal(await ip(forwarded), '10.0.0.2', 'no proof');
  assert.equal(await ip({ ...forwarded, [PEER_HEADER]: 'x'.repeat(43) }), '10.0.0.2', 'a wrong proof');
  assert.equal(
    await ip({ ...forwarded, [PEER_HEADER]: peer.sign('n1', 'r2') }),
    '10.0.0.2',
    'another request',
  );
  assert.equal(
    await ip({ ...forwarded, [PEER_HEADER]: stranger.sign('n1', 'r1') }),
    '10.0.0.2',
    'another store',
  );
  await app.close();
});
