// A start that cannot go on because of the environment: the message names the variable to fix,
// the process exits with a documented code and no stack trace (docs/operations.md, "Exit codes").

import { redactDatabaseUrl } from '../config.ts';

/** Exit codes of a failed start (sysexits.h names where one fits). */
export const EXIT = {
  /** A setting is invalid or names something that does not exist (also ConfigError). */
  config: 2,
  /** A service the server needs (PostgreSQL) cannot be reached now; retrying may work. */
  unavailable: 69,
} as const;

export class StartError extends Error {
  constructor(
    readonly variable: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(`cannot start: ${variable}: ${message}`);
    this.name = 'StartError';
  }
}

interface CodedError {
  code?: string;
  message?: string;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  '57P03',
]);

/** A failure to open the PostgreSQL store, as a StartError naming DATABASE_URL. */
export function databaseStartError(err: unknown, databaseUrl: string): StartError {
  const e = (err ?? {}) as CodedError;
  const where = redactDatabaseUrl(databaseUrl);
  const detail = `${e.message ?? String(err)}${e.code ? ` (${e.code})` : ''}`;
  if (e.code !== undefined && UNREACHABLE.has(e.code)) {
    return new StartError(
      'DATABASE_URL',
      `PostgreSQL at ${where} is not reachable: ${detail}`,
      EXIT.unavailable,
    );
  }
  return new StartError('DATABASE_URL', `cannot open PostgreSQL at ${where}: ${detail}`, EXIT.config);
}

/** A failure to listen, as a StartError naming PORT or HOST; undefined for other errors. */
export function listenStartError(err: unknown, host: string, port: number): StartError | undefined {
  const code = (err as CodedError | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return new StartError(
        'PORT',
        `port ${port} on ${host} is already in use; stop the other process or set PORT`,
        EXIT.config,
      );
    case 'EACCES':
      return new StartError(
        'PORT',
        `not allowed to listen on port ${port} (ports below 1024 need privileges); set PORT`,
        EXIT.config,
      );
    case 'EADDRNOTAVAIL':
      return new StartError(
        'HOST',
        `${host} is not an address of this machine; set HOST (127.0.0.1, 0.0.0.0, ::)`,
        EXIT.config,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new StartError(
        'HOST',
        `the host name ${host} does not resolve; set HOST to an address of this machine`,
        EXIT.config,
      );
    default:
      return undefined;
  }
}
