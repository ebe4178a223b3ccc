// The access log: one line per request, written when the response has been sent.
//
// Fastify's default LogController writes two lines per request ("incoming request" with the
// serialized request, "request completed" with the serialized reply). At the shipped LOG_LEVEL=info
// those two lines and their serializers were the largest cost of a small cached GET
// (docs/bench-read-path.md), so this controller writes one flat line instead — method, URL
// (secrets in the query masked), status, milliseconds — which is what an operator greps for.
// Requests that fail with an error are logged at error level with the error, as Fastify does.
//
// The line is built here as a string, from the parent logger's own pieces (level prefix, time,
// bindings, line end) and JSON-escaped values, and written to the logger's stream: byte for byte
// the line pino would write for `child({ reqId }).info({ method, url, statusCode, ms }, msg)`
// (test/http/access-log.test.ts compares them), without a per-request child logger
// (src/http/request-logger.ts) or a pass of the redaction paths over four fields that cannot hold a
// secret once the URL is masked. Loggers whose lines this could not reproduce (a mixin, a log
// formatter, hooks, a stream that wants metadata) take pino's path.

import { LogController } from 'fastify';
import pino from 'pino';
import type { RequestMetrics } from '../observability/request-metrics.ts';
import { redactUrl } from './logger.ts';
import { RequestLogger, routeStatsOf } from './request-logger.ts';

const {
  lsCacheSym,
  timeSym,
  chindingsSym,
  endSym,
  streamSym,
  mixinSym,
  formattersSym,
  hooksSym,
  nestedKeySym,
  needsMetadataGsym,
  messageKeySym,
} = pino.symbols;
// Not in pino's type declarations, but exported with the others.
const msgPrefixSym = (pino.symbols as unknown as Record<string, symbol>).msgPrefixSym as symbol;

const MSG = 'request completed';

// biome-ignore lint/suspicious/noExplicitAny: pino's internals are reached through its exported symbols
type Internals = Record<symbol, any>;

interface Writer {
  write(line: string): unknown;
}

const plain = new WeakMap<object, boolean>();

/** True when a line built by accessLine is exactly what `log` would write itself. */
function writesPlainLines(log: object): boolean {
  let ok = plain.get(log);
  if (ok === undefined) {
    const l = log as Internals;
    const stream = l[streamSym] as (Writer & Internals) | undefined;
    ok =
      typeof stream?.write === 'function' &&
      stream[needsMetadataGsym] !== true &&
      !l[mixinSym] &&
      !l[formattersSym]?.log &&
      !l[hooksSym]?.logMethod &&
      !l[hooksSym]?.streamWrite &&
      !l[nestedKeySym] &&
      !l[msgPrefixSym] &&
      l[messageKeySym] === 'msg' &&
      typeof l[lsCacheSym]?.[30] === 'string';
    plain.set(log, ok);
  }
  return ok;
}

/**
 * The access line as `log.child({ [idLabel]: id }).info({ method, url, statusCode, ms }, MSG)`
 * writes it. Every string goes through JSON.stringify, so quotes, backslashes and control
 * characters from a URL or header are escaped and cannot end the line or add a field.
 */
export function accessLine(
  log: object,
  idLabel: string,
  id: string,
  method: string,
  url: string,
  statusCode: number,
  ms: number,
): string {
  const l = log as Internals;
  return (
    `${l[lsCacheSym][30]}${l[timeSym]()}${l[chindingsSym]},${JSON.stringify(idLabel)}:${JSON.stringify(id)}` +
    `,"method":${JSON.stringify(method)},"url":${JSON.stringify(url)}` +
    `,"statusCode":${Number.isFinite(statusCode) ? statusCode : null},"ms":${Number.isFinite(ms) ? ms : null}` +
    `,"msg":"${MSG}"${l[endSym]}`
  );
}

/**
 * Fastify's log controller for the app: at the end of every request it records the request
 * metrics (when given) and writes the access line. Fastify calls requestCompleted once per request
 * when the response has been sent (or failed), so the metrics need no onResponse hook of their own
 * (docs/http.md, "What every request pays").
 */
/** A successful request at least this slow is logged in the terminal's quiet mode too. */
export const SLOW_REQUEST_MS = 1000;

/**
 * Which requests get a line: `every` (JSON logs, what collectors and the access-log bench expect),
 * or `errors-and-slow` (pretty logs on a terminal: a person watching the server reads start-up,
 * lifecycle and errors, which a line per request of the browser UI's polling would drown; a
 * successful request is logged only when slow, at warn, and at debug level otherwise).
 */
export type AccessLogMode = 'every' | 'errors-and-slow';

export class AccessLog extends LogController {
  constructor(
    private readonly requests?: RequestMetrics,
    private readonly mode: AccessLogMode = 'every',
  ) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: Parameters<LogController['requestCompleted']>[1],
    reply: Parameters<LogController['requestCompleted']>[2],
  ): void {
    const elapsed = reply.elapsedTime;
    const requests = this.requests;
    if (requests !== undefined) {
      const method = request.method;
      (routeStatsOf(request.raw, method) ?? requests.route('unmatched', method)).observe(
        reply.statusCode,
        elapsed,
      );
    }
    const url = redactUrl(request.url);
    const ms = Math.round(elapsed * 100) / 100;
    if (this.mode === 'errors-and-slow' && !error && reply.statusCode < 400) {
      const line = { method: request.method, url, statusCode: reply.statusCode, ms };
      if (ms >= SLOW_REQUEST_MS) reply.log.warn(line, 'slow request');
      else reply.log.debug(line, MSG);
      return;
    }
    const log = reply.log as unknown;
    if (!error && log instanceof RequestLogger && !log.made) {
      const parent = log.parent;
      if (!parent.isLevelEnabled('info')) return;
      if (writesPlainLines(parent)) {
        const line = accessLine(
          parent,
          this.requestIdLogLabel,
          String(request.id),
          request.method,
          url,
          reply.statusCode,
          ms,
        );
        ((parent as unknown as Internals)[streamSym] as Writer).write(line);
        return;
      }
    }
    const line = { method: request.method, url, statusCode: reply.statusCode, ms };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, MSG);
  }
}
