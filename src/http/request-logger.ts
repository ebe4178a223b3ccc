// `request.log` without a pino child per request.
//
// Fastify gives every request its own child logger (bindings: the request id). pino builds a child
// by serializing the bindings and copying the parent's state, which showed on the profile of a small
// cached GET at the shipped LOG_LEVEL=info (docs/bench-read-path.md) — yet most requests never log
// through it: the one access-log line is written by src/http/access-log.ts from the request id and
// the parent logger. So the child is made on first use: `RequestLogger` keeps the parent and the
// bindings, answers level checks from the parent, and creates the pino child only when a call would
// actually write a line. What a line contains is unchanged: it is the same pino child writing it.

import type { FastifyBaseLogger, LogLevel } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';
import type { RouteStats } from '../observability/request-metrics.ts';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Args = [unknown, ...unknown[]];

interface PinoLike extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
}

function isPinoLike(log: FastifyBaseLogger): log is PinoLike {
  return typeof (log as Partial<PinoLike>).isLevelEnabled === 'function';
}

export class RequestLogger {
  #child: FastifyBaseLogger | undefined;
  constructor(
    /** The logger the child would be made from (the route's context logger). */
    readonly parent: PinoLike,
    /** The child's bindings: `{ reqId }`. */
    readonly bindings: Bindings,
  ) {}

  /** Whether the pino child exists (something logged through it, or its level was set). */
  get made(): boolean {
    return this.#child !== undefined;
  }

  /** The pino child, made now if it was not yet. */
  get real(): FastifyBaseLogger {
    if (this.#child === undefined) this.#child = this.parent.child(this.bindings);
    return this.#child;
  }

  /** Whether a call at `level` writes; a child made with another level answers for itself. */
  private on(level: Level): boolean {
    return this.#child !== undefined || this.parent.isLevelEnabled(level);
  }

  fatal(...args: Args): void {
    if (this.on('fatal')) (this.real.fatal as (...a: Args) => void)(...args);
  }
  error(...args: Args): void {
    if (this.on('error')) (this.real.error as (...a: Args) => void)(...args);
  }
  warn(...args: Args): void {
    if (this.on('warn')) (this.real.warn as (...a: Args) => void)(...args);
  }
  info(...args: Args): void {
    if (this.on('info')) (this.real.info as (...a: Args) => void)(...args);
  }
  debug(...args: Args): void {
    if (this.on('debug')) (this.real.debug as (...a: Args) => void)(...args);
  }
  trace(...args: Args): void {
    if (this.on('trace')) (this.real.trace as (...a: Args) => void)(...args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    const c = this.#child;
    if (c !== undefined) return isPinoLike(c) ? c.isLevelEnabled(level) : true;
    return this.parent.isLevelEnabled(level);
  }

  get level(): LogLevel {
    return (this.#child ?? this.parent).level as LogLevel;
  }
  /** Setting a level is per request: it makes the child and sets it there. */
  set level(level: LogLevel) {
    this.real.level = level;
  }
}

/**
 * Fastify's `childLoggerFactory`: a lazy RequestLogger when the parent is a pino logger and the
 * child has no options of its own (a route's logLevel or serializers), a plain child otherwise.
 */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
): FastifyBaseLogger {
  if (!isPinoLike(logger) || opts.level !== undefined || opts.serializers !== undefined)
    return logger.child(bindings, opts);
  return new RequestLogger(logger, bindings) as unknown as FastifyBaseLogger;
}

/** Where a route's request-metrics stats ride on the raw request (src/app.ts). */
const kRouteStats = Symbol('tickbook.routeStats');
const kBase = Symbol('tickbook.baseLoggerFactory');

type RouteStatsOf = RouteStats | ReadonlyMap<string, RouteStats>;
type StatsCarrier = { [kRouteStats]?: RouteStatsOf };
/** Fastify's childLoggerFactory signature (the raw request is its fourth argument). */
export type ChildLoggerFactory = (
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
  rawReq: object,
) => FastifyBaseLogger;
type Factory = ChildLoggerFactory & { [kBase]?: ChildLoggerFactory };

/**
 * A route's child-logger factory: Fastify calls it once per request of that route, before any
 * hook, with the raw request; it leaves the route's metrics stats on the raw request for the log
 * controller (src/http/access-log.ts) and makes the request logger with `base`. Wrapping one of
 * these again (the HEAD route Fastify derives from a GET) replaces its stats instead of stacking.
 */
export function routeLoggerFactory(
  stats: RouteStatsOf,
  base: ChildLoggerFactory = requestLoggerFactory,
): ChildLoggerFactory {
  const inner = (base as Factory)[kBase] ?? base;
  const factory: Factory = function routeLogger(this: unknown, logger, bindings, opts, rawReq) {
    (rawReq as StatsCarrier)[kRouteStats] = stats;
    return inner.call(this, logger, bindings, opts, rawReq);
  };
  factory[kBase] = inner;
  return factory;
}

/** The stats of the route that served `rawReq` for `method`, or undefined (the not-found handler). */
export function routeStatsOf(rawReq: object, method: string): RouteStats | undefined {
  const s = (rawReq as StatsCarrier)[kRouteStats];
  if (s === undefined || !(s instanceof Map)) return s as RouteStats | undefined;
  return s.get(method);
}
