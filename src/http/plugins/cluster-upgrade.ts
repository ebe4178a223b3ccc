// A replica's `/trade` upgrades go to the leader (docs/cluster.md "Writes go to the leader"): the
// order-entry socket carries commands only (orders, quotes, parlay quotes), so on a process that does
// not lead the whole connection is relayed, byte for byte, to the leader's `/trade`: the upgrade
// request (its headers, the token among them, checked by the leader) and then both directions of
// the WebSocket. A client never needs to know which process it reached. When no leader is known or
// reachable the upgrade is refused 503 with Retry-After, like a forwarded REST command. A relayed
// connection ends with the leader's (a failover): the client reconnects, as after any lost
// connection, and lands on the new leader. This process taking the lead closes the connections it
// relays, so their clients reconnect to it. `/tape` is never relayed: every process streams.

import type { IncomingMessage } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as connectTls } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import type { ClusterNode } from '../../cluster/node.ts';
import type { Config } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { refuse, takeUpgrade } from '../routes/tape-upgrade.ts';
import { TRADE_PATH } from '../routes/trade.ts';
import { FORWARDED_HEADER } from './cluster.ts';

/** Request headers not relayed as they came (the relay sets its own). */
const REPLACED = new Set(['host', 'x-forwarded-for', FORWARDED_HEADER]);

/**
 * How long the leader has to take the connection and begin its answer to the upgrade. Past it the
 * client is refused 503 like when the leader is unreachable: a leader host that drops packets
 * would otherwise hold the connect for the kernel's SYN retries (minutes on Linux), and a leader
 * process that accepts but is stalled would hold the client with no answer at all.
 */
export const LEADER_ANSWER_MS = 5_000;

const unavailable = (message: string) =>
  new ApiError('SERVICE_UNAVAILABLE', message, undefined, { 'retry-after': '1' });

/** The upgrade request as the leader receives it. */
function requestHead(req: IncomingMessage, leader: URL, config: Config): string {
  const lines = [`GET ${req.url ?? TRADE_PATH} HTTP/1.1`, `Host: ${leader.host}`];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!REPLACED.has(raw[i]!.toLowerCase())) lines.push(`${raw[i]}: ${raw[i + 1]}`);
  }
  const xff = req.headers['x-forwarded-for'];
  const ip = req.socket.remoteAddress ?? '';
  lines.push(`X-Forwarded-For: ${xff ? `${String(xff)}, ${ip}` : ip}`);
  lines.push(`${FORWARDED_HEADER}: ${config.nodeName}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Relays `/trade` upgrades to the leader while this process does not lead. */
export function relayTradeUpgrades(
  app: FastifyInstance,
  node: ClusterNode,
  config: Config,
  leaderAnswerMs = LEADER_ANSWER_MS,
): void {
  const relayed = new Set<{ client: Duplex; leader: Socket }>();
  const closeAll = () => {
    for (const r of relayed) {
      r.client.destroy();
      r.leader.destroy();
    }
    relayed.clear();
  };

  const onUpgrade = (req: IncomingMessage, client: Duplex, head: Buffer) => {
    if (node.mode === 'leader') return; // the order-entry socket's own (src/http/routes/trade.ts)
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://x').pathname;
    } catch {
      return; // the tape's handler answers a bad request target
    }
    if (path !== TRADE_PATH) return;
    takeUpgrade(req);
    client.on('error', () => client.destroy());
    // Relayed once at most: a relayed upgrade reaching a process that does not lead is refused.
    if (req.headers[FORWARDED_HEADER] !== undefined) {
      refuse(client, unavailable('Leadership is moving between processes; reconnect shortly'));
      return;
    }
    const url = node.mode === 'replica' ? node.leaderUrl : undefined;
    if (url === undefined) {
      refuse(client, unavailable('No leader is known right now (failover in progress); reconnect shortly'));
      return;
    }
    const leader = new URL(url);
    // An https leader (TICKBOOK_ADVERTISE_URL takes either) is reached over TLS, as REST forwarding's
    // fetch reaches it, and its certificate checked the same way.
    const secure = leader.protocol === 'https:';
    const host = leader.hostname.replace(/^\[|\]$/g, '');
    const port = Number(leader.port || (secure ? 443 : 80));
    const upstream = secure
      ? connectTls({ host, port, servername: isIP(host) === 0 ? host : undefined })
      : connect({ host, port });
    const pair = { client, leader: upstream };
    /** Set once the leader's answer begins: from then on the two sockets live and die together. */
    let answered = false;
    /** Set once the pair is torn down or the client refused: each happens once. */
    let done = false;
    upstream.setNoDelay(true);
    upstream.setTimeout(leaderAnswerMs);
    upstream.once('connect', () => {
      node.forwarded++;
      relayed.add(pair);
      upstream.write(requestHead(req, leader, config));
      if (head.length > 0) upstream.write(head);
      upstream.once('data', () => {
        answered = true;
        upstream.setTimeout(0);
      });
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // Before the leader answers, the client has had no byte yet: it is refused 503 and reconnects.
    const fail = (err: string) => {
      if (done || client.destroyed) return; // closed meanwhile (by its client, or on taking the lead)
      done = true;
      node.forwardFailures++;
      app.log.warn({ err, leader: url }, 'relaying a /trade upgrade to the leader failed');
      void node.readLeader().catch(() => {});
      relayed.delete(pair);
      upstream.unpipe(client);
      client.unpipe(upstream);
      upstream.destroy();
      refuse(
        client,
        unavailable('The leader could not be reached; reconnect shortly (failover may be in progress)'),
      );
    };
    upstream.on('error', (err) => {
      if (answered) return upstream.destroy();
      fail(String(err));
    });
    upstream.once('timeout', () => {
      if (!answered) fail(`no answer from the leader within ${leaderAnswerMs} ms`);
    });
    const end = () => {
      done = true;
      relayed.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    upstream.once('close', () => {
      if (answered) end();
      else fail('the leader closed the connection without answering');
    });
    client.once('close', end);
  };

  // Before the order-entry socket's own listener, which leaves an upgrade taken here alone.
  app.server.prependListener('upgrade', onUpgrade);
  node.on('leader', closeAll);
  app.addHook('onClose', async () => {
    app.server.off('upgrade', onUpgrade);
    node.off('leader', closeAll);
    closeAll();
  });
}
