// The stream's HTTP edge (docs/stream.md): the `GET /tape` WebSocket upgrade (ws, noServer, on the
// Fastify server's 'upgrade' event), the dead-man switch's `POST /nbx/v2/emm/heartbeat`, and the
// AsyncAPI document at /asyncapi.json.
//
// Authentication happens before the upgrade, so a refusal is an ordinary HTTP 401/403 with the
// error envelope. The token is read from, in order: `Authorization: Bearer`, the `access_token`
// query parameter, or a `Sec-WebSocket-Protocol` value `bearer.<token>` (browsers can set neither
// header nor query privately; offer `tickbook` beside it and the server selects `tickbook`, never
// echoing the token). Tokens are never logged: the upgrade is not a Fastify request, so the
// request logger never sees its URL.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import client from 'prom-client';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Principal } from '../../auth/scopes.ts';
import type { AuthService } from '../../auth/service.ts';
import { ApiError } from '../../errors.ts';
import type { Metrics } from '../../observability/metrics.ts';
import { asyncApiDocument } from '../../stream/asyncapi.ts';
import { admitsStream, channelScopes } from '../../stream/channel-access.ts';
import { DEADMAN_MAX_MS, DEADMAN_MIN_MS, type DeadmanSwitch } from '../../stream/deadman.ts';
import type { Connection, StreamHub } from '../../stream/hub.ts';
import { errorFrame } from '../../stream/messages.ts';
import { tradeChannel } from '../order-socket/messages.ts';
import { authErrors, bearer, errorEnvelope } from '../schemas/common.ts';
import { VIEWER_CLIENT_ID } from '../ui-viewer.ts';
import { MessageBucket, StallClock } from './tape-rate.ts';
import { authenticate, badUpgrade, pingSweep, refuse, tokenOf } from './tape-upgrade.ts';
import { TRADE_PATH } from './trade.ts';

export interface TapeOptions {
  hub: StreamHub;
  deadman: DeadmanSwitch;
  auth: Pick<AuthService, 'verifyCached' | 'verifyAccessToken'>;
  metrics?: Metrics;
  /** Protocol ping interval (15 s); a client that has not answered the previous ping is closed. */
  pingMs?: number;
  /** Largest client frame (bytes); a larger one closes the connection with 1009. */
  maxPayload?: number;
  /**
   * Client messages per second a connection may send on average (a token bucket holding as many);
   * more closes it with 4029.
   */
  maxMessagesPerSecond?: number;
  publicBaseUrl?: string;
}

export const TAPE_PATH = '/tape';
export const SUBPROTOCOL = 'tickbook';
/** Close codes (docs/stream.md "Close codes"). */
export const CLOSE = { tooBig: 1009, policy: 1008, rateLimited: 4029, shutdown: 1001 } as const;

const heartbeatBody = {
  type: 'object',
  required: ['timeoutMs'],
  additionalProperties: false,
  properties: {
    timeoutMs: {
      type: 'integer',
      anyOf: [{ const: 0 }, { minimum: DEADMAN_MIN_MS, maximum: DEADMAN_MAX_MS }],
    },
  },
} as const;

/** The heartbeat body, derived from its schema (docs/http.md "Validation and errors"). */
type HeartbeatBody = FromSchema<typeof heartbeatBody>;

export default async function tapeRoutes(app: FastifyInstance, opts: TapeOptions): Promise<void> {
  const { hub, deadman, auth } = opts;
  const pingMs = opts.pingMs ?? 15_000;
  const maxRate = opts.maxMessagesPerSecond ?? 100;
  const registry = opts.metrics?.registry;
  const stalls = new StallClock();
  let seen = 0;
  const resyncs = new client.Counter({
    name: 'tickbook_stream_resync_required_total',
    help: 'Subscriptions dropped with resync_required because the send buffer was full, by channel kind',
    labelNames: ['channel'] as const,
    registers: registry ? [registry] : [],
  });
  new client.Gauge({
    name: 'tickbook_stream_connections',
    help: 'Open /tape WebSocket connections',
    registers: registry ? [registry] : [],
    collect() {
      this.set(hub.connections.size);
    },
  });
  new client.Gauge({
    name: 'tickbook_stream_retained_frames',
    help: 'Frames held for resume, by log',
    labelNames: ['log'] as const,
    registers: registry ? [registry] : [],
    collect() {
      const r = hub.retained();
      for (const [k, v] of Object.entries(r)) this.set({ log: k }, v);
    },
  });
  new client.Gauge({
    name: 'tickbook_stream_retained_bytes',
    help: 'Bytes held for resume by every log together (frame text plus object overheads)',
    registers: registry ? [registry] : [],
    collect() {
      this.set(hub.retention().bytes);
    },
  });
  new client.Gauge({
    name: 'tickbook_stream_retention_budget_bytes',
    help: 'The retention budget (STREAM_RETAIN_BYTES): oldest frames are evicted past it',
    registers: registry ? [registry] : [],
    collect() {
      this.set(hub.retention().budgetBytes);
    },
  });
  new client.Gauge({
    name: 'tickbook_stream_retained_logs',
    help: 'Book and account logs held for resume (empty ones are dropped)',
    labelNames: ['kind'] as const,
    registers: registry ? [registry] : [],
    collect() {
      const r = hub.retention();
      this.set({ kind: 'book' }, r.bookLogs);
      this.set({ kind: 'private' }, r.privateLogs);
    },
  });
  new client.Gauge({
    name: 'tickbook_stream_replays',
    help: 'Resumes being sent from retention in chunks',
    registers: registry ? [registry] : [],
    collect() {
      this.set(hub.replaysInFlight);
    },
  });
  new client.Counter({
    name: 'tickbook_stream_frames_sent_total',
    help: 'Data frames sent to /tape clients',
    registers: registry ? [registry] : [],
    collect() {
      const d = hub.delivered - seen;
      seen = hub.delivered;
      if (d > 0) this.inc(d);
    },
  });
  hub.onResync = (ch) => resyncs.inc({ channel: ch });

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: opts.maxPayload ?? 4096,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  const pings = pingSweep(wss, pingMs);
  const connOf = new WeakMap<WebSocket, Connection>();
  const codArmed = new WeakSet<Connection>();

  // `data` is a boolean: the client message's schema said so (src/stream/client-message.ts).
  hub.onCancelOnDisconnect = (c, data) => {
    if (c.principal.accountId === null || !c.principal.scopes.has('execute:trader')) {
      c.sendControl(
        errorFrame('INSUFFICIENT_SCOPE', 'cancel_on_disconnect requires the scope execute:trader'),
      );
      return;
    }
    if (data) codArmed.add(c);
    else codArmed.delete(c);
    c.sendControl(JSON.stringify({ event: 'cancel_on_disconnect', data: { armed: data } }));
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://x');
    } catch {
      refuse(socket, new ApiError('VALIDATION_FAILED', 'Bad request target'));
      return;
    }
    if (url.pathname === TRADE_PATH) return; // the order-entry socket's (src/http/routes/trade.ts)
    if (url.pathname !== TAPE_PATH) {
      refuse(socket, new ApiError('ROUTE_NOT_FOUND', `Route GET:${url.pathname} not found`));
      return;
    }
    const bad = badUpgrade(req);
    if (bad !== undefined) {
      refuse(socket, bad);
      return;
    }
    socket.on('error', () => socket.destroy());
    authenticate(auth, tokenOf(req, url)).then(
      (principal) => {
        // Any scope some channel of the table accepts opens the stream; each subscribe then checks
        // its own channel's scope (docs/stream.md "Connecting").
        if (!admitsStream(principal, hub.table)) {
          const scopes = channelScopes(hub.table);
          refuse(
            socket,
            new ApiError('INSUFFICIENT_SCOPE', `The stream requires one of the scopes ${scopes.join(', ')}`, {
              requiredScope: scopes[0],
              acceptedScopes: scopes,
            }),
          );
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => open(ws, principal, url));
      },
      (err) => {
        opts.metrics?.authFailures.inc({ reason: 'stream_token' });
        refuse(socket, err);
      },
    );
  };

  const open = (ws: WebSocket, principal: Principal, url: URL) => {
    const c = hub.connect(ws, { ...principal, public: principal.clientId === VIEWER_CLIENT_ID });
    connOf.set(ws, c);
    pings.watch(ws);
    const bucket = new MessageBucket(maxRate, stalls);
    ws.on('message', (data, isBinary) => {
      if (c.closed) return;
      if (!bucket.take()) {
        ws.close(CLOSE.rateLimited, `rate limit: at most ${maxRate} messages per second`);
        hub.disconnect(c);
        return;
      }
      if (isBinary) {
        c.sendControl(errorFrame('BAD_MESSAGE', 'Frames must be JSON text'));
        return;
      }
      c.message(data.toString());
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      const armed = codArmed.has(c);
      hub.disconnect(c);
      if (armed && c.principal.accountId !== null) void deadman.fire(c.principal.accountId, 'disconnect');
    });
    if (url.searchParams.get('cancelOnDisconnect') === 'true') hub.onCancelOnDisconnect?.(c, true);
  };

  app.server.on('upgrade', onUpgrade);
  hub.start();
  stalls.start();

  app.addHook('onClose', async () => {
    pings.stop();
    stalls.stop();
    hub.stop();
    deadman.close();
    app.server.off('upgrade', onUpgrade);
    for (const ws of wss.clients) ws.close(CLOSE.shutdown, 'server shutting down');
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });

  app.get(TAPE_PATH, { schema: { hide: true } }, async () => {
    throw new ApiError(
      'VALIDATION_FAILED',
      'GET /tape is a WebSocket endpoint: send an Upgrade request (docs/stream.md)',
    );
  });

  const doc = JSON.stringify(asyncApiDocument(opts.publicBaseUrl ?? 'http://localhost:8080', tradeChannel()));
  app.get('/asyncapi.json', { schema: { hide: true } }, async (_req, reply) => {
    reply.type('application/json; charset=utf-8');
    return doc;
  });

  app.post<{ Body: HeartbeatBody }>(
    '/nbx/v2/emm/heartbeat',
    {
      preHandler: app.requireScope('execute:trader'),
      schema: {
        summary: 'Dead-man switch: arm (timeoutMs 1000–300000) or disarm (0) the cancel-all countdown',
        tags: ['orders'],
        security: bearer,
        body: heartbeatBody,
        response: {
          200: {
            type: 'object',
            required: ['armed', 'timeoutMs', 'deadline', 'fired'],
            properties: {
              armed: { type: 'boolean' },
              timeoutMs: { type: 'integer' },
              deadline: { type: ['string', 'null'] },
              fired: {
                anyOf: [
                  { type: 'null' },
                  {
                    type: 'object',
                    properties: {
                      reason: { type: 'string' },
                      canceled: { type: 'integer' },
                      journalSeq: { type: ['integer', 'null'] },
                      at: { type: 'string' },
                    },
                  },
                ],
              },
            },
          },
          400: errorEnvelope,
          ...authErrors,
        },
      },
    },
    async (request) => {
      const accountId = request.principal?.accountId;
      if (accountId === null || accountId === undefined)
        throw new ApiError('ACCOUNT_NOT_FOUND', 'The token has no account');
      return deadman.heartbeat(accountId, request.body.timeoutMs);
    },
  );
}
