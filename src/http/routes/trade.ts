// The `GET /trade` WebSocket: order entry for clients with `execute:trader` (docs/order-entry.md).
// Its own path, apart from `/tape`: a read stream and an order-entry socket differ in what they
// allow (the tape's 100 messages a second and 4 KiB frames would refuse a market maker's batches),
// in back-pressure (the tape drops subscriptions of a slow reader; order answers are never dropped)
// and in who may connect. The upgrade is checked as the tape's is (src/http/routes/tape-upgrade.ts):
// a refusal is plain HTTP with the error envelope. Every message is handled by a session
// (src/http/order-socket/session.ts) through the one order-entry service REST uses.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer } from 'ws';
import type { AuthService } from '../../auth/service.ts';
import { type Config, loadConfig } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import type { ExchangePort } from '../../runtime/exchange-port.ts';
import { OrderEntry } from '../../runtime/order-entry.ts';
import { QuoteEntry } from '../../runtime/quote-entry.ts';
import { MESSAGE_TYPES, type Validator } from '../order-socket/handlers.ts';
import { ENVELOPE_SCHEMA } from '../order-socket/messages.ts';
import { type SessionDeps, TradeSession } from '../order-socket/session.ts';
import { parlayQuoteEntry } from '../parlay-quote-entry.ts';
import { placeBodySchema } from '../schemas/trading.ts';
import { bodyValidatorCompiler } from '../validation.ts';
import { rejectionError } from './exchange-common.ts';
import { authenticate, badUpgrade, pingSweep, refuse, tokenOf, upgradeTaken } from './tape-upgrade.ts';

export const TRADE_PATH = '/trade';

/** `?cancelOnDisconnect=true|false` (docs/order-entry.md "Cancel on disconnect"); anything else is refused. */
function cancelOnDisconnectError(url: URL): ApiError | undefined {
  const v = url.searchParams.get('cancelOnDisconnect');
  if (v === null || v === 'true' || v === 'false') return undefined;
  return new ApiError('VALIDATION_FAILED', 'cancelOnDisconnect must be true or false', [
    { path: '/query/cancelOnDisconnect', message: 'must be true or false' },
  ]);
}
const SUBPROTOCOL = 'tickbook';

export interface TradeOptions {
  port: ExchangePort;
  /**
   * The parlay quote rate (PARLAY_QUOTE_RATE), shared with the REST quote route, and the socket
   * limits (TRADE_MAX_IN_FLIGHT, TRADE_HIGH_WATER_BYTES) unless the options below set them.
   */
  config?: Pick<Config, 'parlayQuoteRate'> &
    Partial<Pick<Config, 'tradeMaxInFlight' | 'tradeHighWaterBytes'>>;
  now?: () => number;
  auth: Pick<AuthService, 'verifyCached' | 'verifyAccessToken'>;
  /** Requests in flight per connection; at the bound the connection is not read (TRADE_MAX_IN_FLIGHT, 256). */
  maxInFlight?: number;
  /** Largest client frame, bytes (1 MiB, the REST body limit's default); larger closes with 1009. */
  maxPayload?: number;
  /** Unwritten answer bytes past which a connection stops reading (TRADE_HIGH_WATER_BYTES, 1 MiB). */
  highWaterBytes?: number;
  /** Protocol ping interval (15 s); a client that has not answered the previous ping is closed. */
  pingMs?: number;
}

/** What every session of one server shares: the service, the compiled validators, the limits. */
export function tradeSessionDeps(opts: TradeOptions, onInternalError?: (err: unknown) => void): SessionDeps {
  const compile = (schema: object) => bodyValidatorCompiler({ schema }) as unknown as Validator;
  const validators = new Map<string, Validator>();
  for (const [name, t] of Object.entries(MESSAGE_TYPES)) {
    if (t.schema !== undefined) validators.set(name, compile(t.schema));
  }
  return {
    entry: new OrderEntry(opts.port, rejectionError),
    quotes: new QuoteEntry(opts.port, rejectionError),
    parlayQuotes: parlayQuoteEntry(opts.port, opts.config ?? loadConfig({}), opts.now ?? Date.now),
    auth: opts.auth,
    validators,
    validatePlace: compile(placeBodySchema),
    validateEnvelope: compile(ENVELOPE_SCHEMA),
    maxInFlight: opts.maxInFlight ?? opts.config?.tradeMaxInFlight ?? 256,
    highWaterBytes: opts.highWaterBytes ?? opts.config?.tradeHighWaterBytes ?? 1 << 20,
    ...(onInternalError ? { onInternalError } : {}),
  };
}

export default async function tradeRoutes(app: FastifyInstance, opts: TradeOptions): Promise<void> {
  const { auth } = opts;
  const deps = tradeSessionDeps(opts, (err) =>
    app.log.error({ err }, 'order-entry socket: unexpected error'),
  );
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: opts.maxPayload ?? 1 << 20,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  const pings = pingSweep(wss, opts.pingMs ?? 15_000);
  /** Set on close: connections the server closes itself do not cancel their orders. */
  let shuttingDown = false;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (upgradeTaken(req)) return; // a replica relays it to the leader (docs/cluster.md)
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://x');
    } catch {
      return; // the tape's handler answers a bad request target
    }
    if (url.pathname !== TRADE_PATH) return;
    const bad = badUpgrade(req) ?? cancelOnDisconnectError(url);
    if (bad !== undefined) {
      refuse(socket, bad);
      return;
    }
    const cancelOnDisconnect = url.searchParams.get('cancelOnDisconnect') === 'true';
    socket.on('error', () => socket.destroy());
    const token = tokenOf(req, url);
    authenticate(auth, token).then(
      (principal) => {
        if (!principal.scopes.has('execute:trader') || principal.accountId === null) {
          refuse(
            socket,
            new ApiError('INSUFFICIENT_SCOPE', 'Order entry requires the scope execute:trader', {
              requiredScope: 'execute:trader',
            }),
          );
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          // The answers one group commit resolves are sent in the same turn: they leave in one
          // write per socket (corked until that turn's promise jobs have run), not a syscall each.
          let corked = false;
          const uncork = () => {
            corked = false;
            socket.uncork();
          };
          const session = new TradeSession(
            {
              send: (text, written) => {
                if (!corked) {
                  corked = true;
                  socket.cork();
                  process.nextTick(uncork);
                }
                ws.send(text, written);
              },
              pause: () => ws.pause(),
              resume: () => ws.resume(),
            },
            deps,
            principal,
            token!,
          );
          pings.watch(ws);
          ws.on('message', (data, isBinary) => {
            if (isBinary) session.binary();
            else session.message(data.toString());
          });
          ws.on('error', () => ws.terminate());
          ws.on('close', () => {
            session.close();
            // Cancel-on-disconnect: the account's resting orders go with the connection (one
            // CancelOrders, as DELETE /kill), unless the server itself is shutting down.
            if (cancelOnDisconnect && !shuttingDown) {
              deps.entry.cancelScope(principal.accountId!, 'all').catch((err: unknown) => {
                app.log.warn({ err }, 'order-entry socket: cancel-on-disconnect failed');
              });
            }
          });
        });
      },
      (err) => refuse(socket, err),
    );
  };

  app.server.on('upgrade', onUpgrade);

  app.addHook('onClose', async () => {
    shuttingDown = true;
    pings.stop();
    app.server.off('upgrade', onUpgrade);
    for (const ws of wss.clients) ws.close(1001, 'server shutting down');
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });

  app.get(TRADE_PATH, { schema: { hide: true } }, async () => {
    throw new ApiError(
      'VALIDATION_FAILED',
      'GET /trade is a WebSocket endpoint: send an Upgrade request (docs/order-entry.md)',
    );
  });
}
