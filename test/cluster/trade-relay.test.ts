// A replica relaying `/trade` to its leader (docs/cluster.md "Writes go to the leader"), against a
// stand-in leader: the upgrade request arrives with its path, query and token, the client's address
// appended to x-forwarded-for and the relay's node name, and bytes then flow both ways; an
// unreachable leader, no known leader and an upgrade relayed already are refused 503 with
// Retry-After; `/tape` is not relayed; the connections relayed close when the process leads. No
// database needed.

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { WebSocket, WebSocketServer } from 'ws';
import type { ClusterNode } from '../../src/cluster/node.ts';
import { loadConfig } from '../../src/config.ts';
import { relayTradeUpgrades } from '../../src/http/plugins/cluster-upgrade.ts';
import { upgradeTaken } from '../../src/http/routes/tape-upgrade.ts';

/** What the relay reads of the node: its mode, the leader's URL, the counters, the 'leader' event. */
class FakeNode extends EventEmitter {
  mode: 'leader' | 'replica' | 'down' = 'replica';
  leaderUrl: string | undefined;
  forwarded = 0;
  forwardFailures = 0;
  readLeader = async () => {};
}

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of closers.reverse()) await c();
});

/** A stand-in leader: an echoing WebSocket on /trade that records each upgrade request. */
async function leader(): Promise<{ url: string; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server: Server = createServer((_req, res) => res.end());
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    seen.push(req);
    wss.handleUpgrade(req, socket, head, (ws) => ws.on('message', (d) => ws.send(`echo:${d.toString()}`)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/**
 * A replica's HTTP server with the relay, and listeners standing for the stream's (`/tape`: 418)
 * and the order-entry socket's (`/trade` when the relay did not take it: 409), registered after
 * the relay as the real ones are.
 */
async function replica(
  node: FakeNode,
  leaderAnswerMs?: number,
): Promise<{ app: FastifyInstance; ws: string; tapes: number[] }> {
  const app = Fastify();
  relayTradeUpgrades(
    app,
    node as unknown as ClusterNode,
    loadConfig({ TICKBOOK_NODE_NAME: 'replica-x' }),
    leaderAnswerMs,
  );
  const tapes: number[] = [];
  const answer = (socket: Duplex, status: string) =>
    socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    if (req.url?.startsWith('/tape')) {
      tapes.push(1);
      answer(socket, '418 Tape');
    } else if (req.url?.startsWith('/trade') && !upgradeTaken(req)) answer(socket, '409 Own');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return { app, ws: `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}`, tapes };
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_q, r) =>
      reject(Object.assign(new Error(`HTTP ${r.statusCode}`), { status: r.statusCode, headers: r.headers })),
    );
    ws.once('error', reject);
  });
}

const refused = (p: Promise<unknown>) =>
  p.then(
    () => assert.fail('the upgrade was accepted'),
    (e: { status: number; headers: Record<string, string> }) => ({
      status: e.status,
      retryAfter: e.headers['retry-after'],
    }),
  );

test('a replica relays /trade to the leader, both ways, and refuses when it cannot', async () => {
  const lead = await leader();
  const node = new FakeNode();
  node.leaderUrl = lead.url;
  const { ws: base, tapes } = await replica(node);

  const ws = await open(`${base}/trade?cancelOnDisconnect=false`, {
    authorization: 'Bearer tok',
    'x-forwarded-for': '203.0.113.7',
  });
  const answer = new Promise<string>((r) => ws.once('message', (d) => r(d.toString())));
  ws.send('hello');
  assert.equal(await answer, 'echo:hello');
  const up = lead.seen[0]!;
  assert.equal(up.url, '/trade?cancelOnDisconnect=false');
  assert.equal(up.headers.authorization, 'Bearer tok');
  assert.equal(up.headers.host, new URL(lead.url).host);
  assert.equal(up.headers['x-forwarded-for'], '203.0.113.7, 127.0.0.1');
  assert.equal(up.headers['x-tickbook-forwarded'], 'replica-x');
  assert.equal(node.forwarded, 1);

  // /tape is every process's own.
  await assert.rejects(open(`${base}/tape`), { status: 418 });
  assert.equal(tapes.length, 1);
  assert.equal(lead.seen.length, 1);

  // Taking the lead closes what this process relays.
  const closed = new Promise<void>((r) => ws.once('close', () => r()));
  node.emit('leader', 2);
  await closed;

  // Relayed once at most; no leader known; the leader unreachable.
  assert.deepEqual(await refused(open(`${base}/trade`, { 'x-tickbook-forwarded': 'other' })), {
    status: 503,
    retryAfter: '1',
  });
  node.leaderUrl = undefined;
  assert.deepEqual(await refused(open(`${base}/trade`)), { status: 503, retryAfter: '1' });
  node.leaderUrl = 'http://127.0.0.1:1';
  assert.deepEqual(await refused(open(`${base}/trade`)), { status: 503, retryAfter: '1' });
  assert.equal(node.forwardFailures, 1);
  assert.equal(lead.seen.length, 1);

  // A leader answers its own upgrades: the relay leaves them to the order-entry socket.
  node.mode = 'leader';
  node.leaderUrl = lead.url;
  await assert.rejects(open(`${base}/trade`), { status: 409 });
  assert.equal(lead.seen.length, 1);
});

test('a leader that takes the connection but never answers: the client is refused 503, not held', async () => {
  // A stalled leader process: it accepts, reads the upgrade request, and says nothing.
  const held: Socket[] = [];
  const silent = createTcpServer((socket) => {
    held.push(socket);
    socket.resume();
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  });
  const node = new FakeNode();
  node.leaderUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const { ws: base } = await replica(node, 200);

  const t0 = Date.now();
  assert.deepEqual(await refused(open(`${base}/trade`)), { status: 503, retryAfter: '1' });
  assert.ok(Date.now() - t0 < 5_000, "refused at the relay's bound, not the client's patience");
  assert.equal(held.length, 1);
  assert.equal(node.forwarded, 1);
  assert.equal(node.forwardFailures, 1);
  // The relay let go of the leader's side too.
  await new Promise<void>((r) => (held[0]!.destroyed ? r() : held[0]!.once('close', () => r())));
});

test('an https leader is reached over TLS', async () => {
  // What the relay sends first: a TLS ClientHello (a handshake record, 0x16) rather than `GET`.
  let first: Promise<Buffer> | undefined;
  const held: Socket[] = [];
  const tlsPort = createTcpServer((socket) => {
    held.push(socket);
    first = new Promise((r) => socket.once('data', r));
  });
  await new Promise<void>((r) => tlsPort.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((r) => tlsPort.close(() => r()));
  });
  const node = new FakeNode();
  node.leaderUrl = `https://127.0.0.1:${(tlsPort.address() as AddressInfo).port}`;
  const { ws: base } = await replica(node, 200);
  assert.deepEqual(await refused(open(`${base}/trade`)), { status: 503, retryAfter: '1' });
  assert.ok(first !== undefined, 'the relay connected');
  assert.equal((await first)[0], 0x16);
});
