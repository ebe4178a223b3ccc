// Where log lines go: JSON lines (one object per line, for collectors) or pino-pretty's coloured
// one-line form for a person at a terminal. LOG_FORMAT=auto (the default) picks pretty when stdout
// is a TTY and JSON otherwise, so a redirected or containerized server still emits JSON.

import pino from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config.ts';
import { loggerOptions } from '../http/logger.ts';

/** Bytes of JSON lines gathered before a write to stdout. */
export const LOG_BATCH_BYTES = 8192;
/** The longest a line waits in that buffer. */
export const LOG_FLUSH_MS = 100;

export function usePrettyLogs(format: Config['logFormat'], isTTY: boolean | undefined): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY === true);
}

/** The process logger for the configured level and format. */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  out: NodeJS.WriteStream = process.stdout,
): pino.Logger {
  const opts = loggerOptions(config.logLevel);
  if (opts === false) return pino({ level: 'silent' });
  if (!usePrettyLogs(config.logFormat, out.isTTY)) {
    // JSON to stdout in batches: sonic-boom gathers lines until LOG_BATCH_BYTES and writes them
    // with one synchronous write (pino's own default is synchronous too), flushing at the latest
    // every LOG_FLUSH_MS. Once the access line itself became cheap, a write per request — or the
    // thread-pool hop an asynchronous write costs — was the largest part of the log's cost on a
    // small cached GET (docs/bench-read-path.md). A synchronous write means a log reader that stops
    // reading holds the server back instead of letting a buffer grow without bound. pino flushes on
    // exit; a kill -9 loses at most the unwritten batch, never a journaled command (docs/http.md,
    // "Access log and request ids").
    if (out !== process.stdout) return pino(opts as pino.LoggerOptions, out);
    const dest = pino.destination({
      dest: 1,
      sync: true,
      minLength: LOG_BATCH_BYTES,
      periodicFlush: LOG_FLUSH_MS,
    });
    // pino registers an exit flush only for asynchronous destinations; a batch still gathering
    // must be written on exit too (test/start/log-output.test.ts).
    process.once('exit', () => {
      try {
        dest.flushSync();
      } catch {
        // stdout already closed (EPIPE): nothing left to write to
      }
    });
    return pino(opts as pino.LoggerOptions, dest);
  }
  const stream = pretty({
    colorize: out.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
    // Synchronous writes keep the start-up lines and the banner in order.
    sync: true,
    destination: out,
  });
  return pino(opts as pino.LoggerOptions, stream);
}
