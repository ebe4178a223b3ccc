// The `GET /tape` upgrade's checks, before any WebSocket exists (docs/stream.md "Connecting"): where
// the token travels, who it names, and a refusal written as plain HTTP with the error envelope (the
// upgrade is not a Fastify request, so the error handler's mapping is applied here by hand).

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Principal } from '../../auth/scopes.ts';
import type { AuthService } from '../../auth/service.ts';
import { InvalidTokenError } from '../../auth/verifier.ts';
import { ApiError } from '../../errors.ts';
import { mapError } from '../error-handler.ts';

const BEARER_PROTOCOL = 'bearer.';

export function tokenOf(req: IncomingMessage, url: URL): string | undefined {
  const h = req.headers.authorization;
  if (typeof h === 'string') {
    const sp = h.indexOf(' ');
    if (sp > 0 && h.slice(0, sp).toLowerCase() === 'bearer') return h.slice(sp + 1).trim();
  }
  const q = url.searchParams.get('access_token');
  if (q !== null && q !== '') return q;
  const p = req.headers['sec-websocket-protocol'];
  if (typeof p === 'string') {
    for (const v of p.split(',')) {
      const t = v.trim();
      if (t.startsWith(BEARER_PROTOCOL)) return t.slice(BEARER_PROTOCOL.length);
    }
  }
  return undefined;
}

export async function authenticate(
  auth: Pick<AuthService, 'verifyCached' | 'verifyAccessToken'>,
  token: string | undefined,
): Promise<Principal> {
  if (token === undefined || token === '') {
    throw new ApiError('UNAUTHORIZED', 'A bearer access token is required', undefined, {
      'www-authenticate': 'Bearer realm="tickbook"',
    });
  }
  try {
    return auth.verifyCached(token) ?? (await auth.verifyAccessToken(token));
  } catch (err) {
    if (err instanceof InvalidTokenError) {
      throw new ApiError('INVALID_TOKEN', err.message, undefined, {
        'www-authenticate': 'Bearer realm="tickbook", error="invalid_token"',
      });
    }
    throw err;
  }
}

/** Reason phrases of the statuses an upgrade can be refused with. */
const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** Upgrades another listener answers (a replica relaying `/trade` to its leader, docs/cluster.md). */
const taken = new WeakSet<IncomingMessage>();

export function takeUpgrade(req: IncomingMessage): void {
  taken.add(req);
}

export function upgradeTaken(req: IncomingMessage): boolean {
  return taken.has(req);
}

/**
 * What makes an upgrade request one `ws` would refuse with a bare text answer (RFC 6455 §4.2.1):
 * checked first, so the refusal is the error envelope like every other one.
 */
export function badUpgrade(req: IncomingMessage): ApiError | undefined {
  if (req.method !== 'GET') return new ApiError('VALIDATION_FAILED', 'A WebSocket upgrade is a GET request');
  const upgrade = req.headers.upgrade;
  if (typeof upgrade !== 'string' || upgrade.toLowerCase() !== 'websocket') {
    return new ApiError('VALIDATION_FAILED', 'The Upgrade header must be "websocket"');
  }
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key.trim())) {
    return new ApiError(
      'VALIDATION_FAILED',
      'Sec-WebSocket-Key must be 16 random bytes in base64 (RFC 6455 section 4.1)',
    );
  }
  const version = req.headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') {
    // RFC 6455 section 4.4: name the versions the server speaks.
    return new ApiError('VALIDATION_FAILED', 'Sec-WebSocket-Version must be 13', undefined, {
      'sec-websocket-version': '13, 8',
    });
  }
  return undefined;
}

/** An HTTP answer written on the raw socket before any upgrade. */
export function refuse(socket: Duplex, err: unknown): void {
  const m = mapError(err);
  const body = JSON.stringify(m.body);
  const reason = REASONS[m.status] ?? 'Error';
  const lines = [
    `HTTP/1.1 ${m.status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * Protocol pings (RFC 6455 §5.5.2) to every client of `wss` each `ms`: a client that has not
 * answered the previous ping is terminated. `watch` each socket as it opens; `stop` on close.
 */
export function pingSweep(wss: WebSocketServer, ms: number): { watch(ws: WebSocket): void; stop(): void } {
  const alive = new WeakMap<WebSocket, boolean>();
  const timer = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, ms);
  timer.unref();
  return {
    watch(ws) {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
    },
    stop: () => clearInterval(timer),
  };
}
