// The HTTP edge of a scale-out process (docs/cluster.md):
// - every response says the journal seq of the state that answered (x-tickbook-seq); a write
//   acknowledged by the leader carries a seq at or after its own command;
// - x-tickbook-min-seq: N makes a read wait (bounded) until this process has applied N, else 503
//   with Retry-After, so a client reads its own writes on any process;
// - on a process that does not lead, commands (every method but GET/HEAD/OPTIONS, except the few
//   POSTs that only read) are forwarded to the leader and its answer relayed unchanged; 503 with
//   Retry-After when no leader is known or reachable. Forwarding happens in onRequest, before the
//   body is parsed: the raw bytes go to the leader as they came;
// - a request a peer forwarded (x-tickbook-forwarded with a valid x-tickbook-peer proof) is
//   answered as if from the client's address the peer saw (the last x-forwarded-for entry), so the
//   leader's throttles count clients, not replicas; from anyone else the header changes nothing.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClusterNode } from '../../cluster/node.ts';
import { PEER_HEADER } from '../../cluster/peer.ts';
import type { Config } from '../../config.ts';
import { envelope } from '../../errors.ts';
import { uuidv7 } from '../../ids.ts';
import type { DeadmanReport } from '../../stream/messages.ts';

export const SEQ_HEADER = 'x-tickbook-seq';
export const MIN_SEQ_HEADER = 'x-tickbook-min-seq';
/** Marks a forwarded request: never forwarded a second time (no loops while leadership moves). */
export const FORWARDED_HEADER = 'x-tickbook-forwarded';

/** POST routes that only read: answered by any process from its own state. */
const READ_ONLY_POSTS = new Set([
  '/nbx/v2/emm/events/getMarketsByEvents',
  '/nbx/v1/parlay/request/unauthenticated',
  '/oauth/introspect',
]);

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'host',
  'expect',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

const FORWARD_TIMEOUT_MS = 15_000;

function isCommand(request: FastifyRequest): boolean {
  const m = request.method;
  if (m === 'GET' || m === 'HEAD' || m === 'OPTIONS') return false;
  if (m !== 'POST') return true;
  const path = request.url.split('?')[0] ?? '';
  return !READ_ONLY_POSTS.has(path.replace(/\/+$/, ''));
}

function unavailable(reply: FastifyReply, message: string, retryAfter = 1): FastifyReply {
  return reply
    .code(503)
    .header('retry-after', String(retryAfter))
    .type('application/json; charset=utf-8')
    .send(envelope(503, 'SERVICE_UNAVAILABLE', message));
}

/** The client address a peer forwarded, when the request proves it comes from a peer. */
export function peerForwardedAddress(request: FastifyRequest, node: ClusterNode): string | undefined {
  const h = request.headers;
  if (!node.peer.verify(h[PEER_HEADER], h[FORWARDED_HEADER], h['x-request-id'])) return undefined;
  const xff = h['x-forwarded-for'];
  // The peer appended the address it saw last; earlier entries came from the client, unchecked.
  const last = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').pop()?.trim();
  return last === undefined || last === '' ? undefined : last;
}

/** Root hooks; call before the feature routes are registered. */
export function registerClusterHooks(app: FastifyInstance, node: ClusterNode, config: Config): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers[FORWARDED_HEADER] !== undefined) {
      const ip = peerForwardedAddress(request, node);
      // request.ip is a getter on Fastify's prototype: an own property shadows it for this request.
      if (ip !== undefined) Object.defineProperty(request, 'ip', { value: ip, enumerable: true });
    }
    const raw = request.headers[MIN_SEQ_HEADER];
    if (raw !== undefined) {
      const v = Array.isArray(raw) ? raw[0] : raw;
      if (v === undefined || !/^\d{1,15}$/.test(v.trim())) {
        return reply
          .code(400)
          .type('application/json; charset=utf-8')
          .send(
            envelope(
              400,
              'VALIDATION_FAILED',
              `${MIN_SEQ_HEADER} must be a non-negative integer (a journal seq)`,
            ),
          );
      }
      const want = Number(v.trim());
      // A command on a process that forwards it is answered by the leader, always ahead.
      if (!(isCommand(request) && node.mode !== 'leader')) {
        if (!(await node.waitForSeq(want, config.minSeqWaitMs))) {
          return unavailable(
            reply,
            `This process has applied the journal up to seq ${node.seq}, not yet ${want}; retry shortly or ask another process`,
          );
        }
      }
    }
    if (!isCommand(request) || node.mode === 'leader') return;
    if (request.headers[FORWARDED_HEADER] !== undefined) {
      return unavailable(reply, 'Leadership is moving between processes; retry shortly');
    }
    if (node.mode !== 'replica' || node.leaderUrl === undefined) {
      return unavailable(
        reply,
        node.mode === 'down'
          ? 'The database is unreachable: commands are refused until it is back (reads are still served); retry shortly'
          : 'No leader is known right now (failover in progress); retry shortly',
      );
    }
    return forward(request, reply, node, config);
  });

  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader(SEQ_HEADER)) reply.header(SEQ_HEADER, String(node.seq));
    done(null, payload);
  });
}

async function readBody(request: FastifyRequest, limit: number): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of request.raw) {
    const b = c as Buffer;
    n += b.length;
    if (n > limit) return 'too-large';
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

async function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  node: ClusterNode,
  config: Config,
): Promise<FastifyReply> {
  const body = await readBody(request, config.bodyLimit);
  if (body === 'too-large') {
    return reply
      .code(413)
      .type('application/json; charset=utf-8')
      .send(envelope(413, 'BODY_TOO_LARGE', `Request body is larger than ${config.bodyLimit} bytes`));
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(request.headers)) {
    if (v === undefined || HOP_BY_HOP.has(k)) continue;
    headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  }
  headers.set('x-request-id', request.id);
  headers.set(FORWARDED_HEADER, config.nodeName);
  headers.set(PEER_HEADER, node.peer.sign(config.nodeName, request.id));
  const xff = request.headers['x-forwarded-for'];
  headers.set('x-forwarded-for', xff ? `${String(xff)}, ${request.ip}` : request.ip);
  let res: Response;
  try {
    res = await fetch(node.leaderUrl + request.url, {
      method: request.method,
      headers,
      body:
        body.length > 0 || request.method !== 'DELETE'
          ? new Uint8Array(body) // a copy over a plain ArrayBuffer, which fetch's BodyInit takes
          : undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
  } catch (err) {
    node.forwardFailures++;
    request.log.warn(
      { err: String(err), leader: node.leaderUrl },
      'forwarding a command to the leader failed',
    );
    void node.readLeader().catch(() => {});
    // Outcome unknown if the leader died mid-request (as for any lost connection): retry with the
    // same clientOrderId.
    return unavailable(reply, 'The leader could not be reached; retry shortly (failover may be in progress)');
  }
  node.forwarded++;
  const answer = Buffer.from(await res.arrayBuffer());
  reply.code(res.status);
  res.headers.forEach((v, k) => {
    if (!HOP_BY_HOP.has(k) && k !== 'date') reply.header(k, v);
  });
  return reply.send(answer);
}

/** Where a replica asks the leader to fire a cancel-on-disconnect (peers only). */
export const PEER_CANCEL_PATH = '/cluster/v1/cancel-on-disconnect';

/**
 * A replica's cancel-on-disconnect (docs/cluster.md "Streams"): the leader fires it (one
 * CancelOrders through its sequencer) and answers the report. Unknown outcome when the leader
 * cannot be reached: the report then says journalSeq null, like a stopped sequencer's.
 */
export async function cancelOnDisconnectAtLeader(
  node: ClusterNode,
  config: Config,
  accountId: string,
): Promise<DeadmanReport> {
  const requestId = `cod-${config.nodeName}-${uuidv7()}`;
  const res = await fetch(node.leaderUrl + PEER_CANCEL_PATH, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-request-id': requestId,
      [FORWARDED_HEADER]: config.nodeName,
      [PEER_HEADER]: node.peer.sign(config.nodeName, requestId),
    },
    body: JSON.stringify({ accountId }),
    signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
  });
  if (res.status !== 200) throw new Error(`the leader answered ${res.status}`);
  return (await res.json()) as DeadmanReport;
}

export interface ClusterRoutesOptions {
  node: ClusterNode;
  config: Config;
  /** Fires a cancel-on-disconnect a replica reports (the leader's dead-man switch). */
  cancelOnDisconnect?: (accountId: string) => Promise<DeadmanReport>;
}

/**
 * GET /admin/v1/cluster: this process's role, seq, state hash and lag (admin scope); and the
 * peers-only endpoint a replica's cancel-on-disconnect goes to.
 */
export async function clusterRoutes(app: FastifyInstance, opts: ClusterRoutesOptions) {
  const { node, config } = opts;
  const fire = opts.cancelOnDisconnect;
  if (fire !== undefined) {
    app.post<{ Body: { accountId: string } }>(
      PEER_CANCEL_PATH,
      {
        schema: {
          hide: true,
          body: {
            type: 'object',
            required: ['accountId'],
            additionalProperties: false,
            properties: { accountId: { type: 'string', minLength: 1, maxLength: 64 } },
          },
        },
      },
      async (request, reply) => {
        const h = request.headers;
        if (!node.peer.verify(h[PEER_HEADER], h[FORWARDED_HEADER], h['x-request-id'])) {
          return reply
            .code(403)
            .type('application/json; charset=utf-8')
            .send(envelope(403, 'INSUFFICIENT_SCOPE', 'Only a process of this cluster may call this'));
        }
        return fire(request.body.accountId);
      },
    );
  }
  app.get(
    '/admin/v1/cluster',
    {
      onRequest: app.requireScope('admin'),
      schema: {
        tags: ['admin'],
        summary: 'Scale-out status of the answering process',
        description:
          'Role, the journal seq of its state with the state hash at that seq (equal on every process at the same seq), the leader it forwards to, and its lag. docs/cluster.md.',
        security: [{ bearer: [] }],
        response: {
          200: {
            type: 'object',
            properties: {
              node: { type: 'string' },
              mode: { type: 'string', enum: ['starting', 'leader', 'replica', 'down'] },
              seq: { type: 'integer' },
              hash: { type: 'string' },
              epoch: { type: 'integer' },
              leaderUrl: { type: ['string', 'null'] },
              lagSeq: { type: 'integer' },
              lagMs: { type: 'integer' },
              ready: { type: 'boolean' },
            },
          },
        },
      },
    },
    async (_req, reply) => {
      const { seq, hash } = node.stateHash();
      // The hash is of the state at `seq`, whatever the header would say for a leader.
      reply.header(SEQ_HEADER, String(seq));
      return {
        node: config.nodeName,
        mode: node.mode,
        seq,
        hash,
        epoch: node.epoch,
        leaderUrl: node.leaderUrl ?? null,
        lagSeq: node.lagSeq,
        lagMs: node.lagMs,
        ready: node.ready(),
      };
    },
  );
}
