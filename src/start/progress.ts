// Start-up progress a person can follow: each slow phase (creating the embedded database, migrating,
// recovering the exchange state, creating the demo slate) logs when it starts, a "still …" line
// every few seconds while it runs, and how long it took. A first start of the embedded store spends
// most of its time inside PGlite's initdb, which reports nothing itself (docs/operations.md).

import type { Logger } from 'pino';

export interface PhaseOptions {
  /** Seconds between "still …" lines. */
  everySeconds?: number;
  /** Said once at the start: why this can take a while. */
  hint?: string;
}

/** Runs `work`, logging its start, a heartbeat while it runs, and its duration. */
export async function phase<T>(
  log: Logger,
  what: string,
  work: () => Promise<T>,
  opts: PhaseOptions = {},
): Promise<T> {
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 100) / 10;
  log.info(opts.hint ? `${what}… (${opts.hint})` : `${what}…`);
  const timer = setInterval(
    () => log.info(`still ${what}… ${Math.round(seconds())} s`),
    1000 * (opts.everySeconds ?? 5),
  );
  timer.unref();
  try {
    const out = await work();
    log.info({ seconds: seconds() }, `${what}: done in ${seconds()} s`);
    return out;
  } finally {
    clearInterval(timer);
  }
}
