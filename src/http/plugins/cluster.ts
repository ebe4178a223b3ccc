// The HTTP edge of a scale-out process (docs/cluster.md):
// - every response says the journal seq of the state that answered (x-tickbook-seq); a write
//   acknowledged by the leader carries a seq at or after its own command;
// - x-tickbook-min-seq: N makes a read wait (bounded) until this process has applied N, else 503
//   with Retry-After, so a client reads its own writes on any process;
// - on a process that does not lead, commands (every method but GET/HEAD/OPTIONS, except the few
//   POSTs that only read) are forwarded to the leader and its answer relayed unchanged; 503 with
//   Retry-After when no leader is known or reachable. Forwarding happens in onRequest, before the
//   body is parsed: the raw bytes go to the leader as they came.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClusterNode } from '../../cluster/node.ts';
import type { Config } from '../../config.ts';
import { envelope } from '../../errors.ts';

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

/** Root hooks; call before the feature routes are registered. */
export function registerClusterHooks(app: FastifyInstance, node: ClusterNode, config: Config): void {
  app.addHook('onRequest', async (request, reply) => {
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

/** GET /admin/v1/cluster: this process's role, seq, state hash and lag (admin scope). */
export async function clusterRoutes(app: FastifyInstance, opts: { node: ClusterNode; config: Config }) {
  const { node, config } = opts;
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
