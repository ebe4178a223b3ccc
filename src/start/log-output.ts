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
    // JSON to stdout through an asynchronous destination (sonic-boom without sync) that gathers
    // lines into writes of at least LOG_BATCH_BYTES, flushed at the latest every LOG_FLUSH_MS: a
    // write is a syscall and a thread-pool hop, which cost as much as the rest of a small cached
    // GET once the access line itself became cheap (docs/bench-read-path.md). pino flushes on
    // exit; a kill -9 can lose the last lines (at most a batch and LOG_FLUSH_MS), never a
    // journaled command (docs/http.md, "Access log and request ids").
    if (out !== process.stdout) return pino(opts as pino.LoggerOptions, out);
    return pino(
      opts as pino.LoggerOptions,
      pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }),
    );
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
