// Where log lines go: JSON lines (one object per line, for collectors) or pino-pretty's coloured
// one-line form for a person at a terminal. LOG_FORMAT=auto (the default) picks pretty when stdout
// is a TTY and JSON otherwise, so a redirected or containerized server still emits JSON.

import pino from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config.ts';
import { loggerOptions } from '../http/logger.ts';
import { LineBatch } from './log-batch.ts';

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
    // JSON to stdout in batches (src/start/log-batch.ts): lines are gathered until LOG_BATCH_BYTES
    // and written with one synchronous write (pino's own default is synchronous too), at the latest
    // LOG_FLUSH_MS after the first line of a batch. Once the access line itself became cheap, a
    // write per request — or the thread-pool hop an asynchronous write costs — was the largest part
    // of the log's cost on a small cached GET (docs/bench-read-path.md). A synchronous write means a
    // log reader that stops reading holds the server back instead of letting a buffer grow without
    // bound. A kill -9 loses at most the unwritten batch, never a journaled command (docs/http.md,
    // "Access log and request ids").
    if (out !== process.stdout) return pino(opts as pino.LoggerOptions, out);
    const batch = new LineBatch(pino.destination({ dest: 1, sync: true }), LOG_BATCH_BYTES, LOG_FLUSH_MS);
    // A batch still gathering must be written on exit (test/start/log-output.test.ts).
    process.once('exit', () => {
      try {
        batch.flushSync();
      } catch {
        // stdout already closed (EPIPE): nothing left to write to
      }
    });
    return pino(opts as pino.LoggerOptions, batch);
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
