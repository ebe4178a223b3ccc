// Errors node's HTTP parser raises before a request object exists ('clientError': header fields
// too large, malformed request lines, headers or framing, request timeouts). No route, hook or
// error handler runs for them, so this writes the one error envelope (docs/http.md "Validation and errors") — with its `code` — onto
// the socket itself, as node's docs for 'clientError' describe, and closes the connection: after a
// parse error the byte stream cannot be trusted to find the next request.

import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type ErrorCode, ErrorCodes, envelope } from '../errors.ts';

/** The code a parser error answers with (llhttp's HPE_* codes, node's ERR_HTTP_*). */
export function clientErrorCode(err: NodeJS.ErrnoException): ErrorCode {
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  return 'MALFORMED_REQUEST';
}

/** The raw HTTP/1.1 response for a parser error. */
export function clientErrorResponse(err: NodeJS.ErrnoException): string {
  const code = clientErrorCode(err);
  const status = ErrorCodes[code].status;
  const body = JSON.stringify(envelope(status, code, ErrorCodes[code].message));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Fastify's `clientErrorHandler` (called with the instance as `this`, for its logger). */
export function clientErrorHandler(
  this: { log: { debug(obj: object, msg: string): void } },
  err: NodeJS.ErrnoException,
  socket: Socket,
): void {
  // A reset peer has nothing left to read an answer (node's docs for 'clientError').
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: { code: err.code, message: err.message } }, 'client error');
  const answer = (): void => {
    if (socket.writable) socket.end(clientErrorResponse(err));
    socket.destroySoon();
  };
  // The response in flight on this connection, if any (node keeps it on the socket until it is
  // finished; node's own fallback reads the same field).
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight == null || inFlight.writableFinished) {
    answer();
    return;
  }
  if (inFlight.req?.complete) {
    // The error is in a later, pipelined request: answer it after the earlier response, in order.
    inFlight.once('finish', answer);
    inFlight.once('close', () => socket.destroySoon());
    return;
  }
  // The error is in the in-flight request itself (its body's framing): answer it, unless its
  // response already started, which a second status line would corrupt.
  if (inFlight.headersSent) socket.destroy();
  else answer();
}
