// The one place that reads process.env (DESIGN.md §10, after dydx's config-util): every setting is
// parsed once, typed, validated, and handed to the rest of the program as a frozen object.
// An invalid value stops the start with a message naming the variable.

export type TokenAlg = 'RS256' | 'ES256' | 'EdDSA';
export type TickbookEnv = 'production' | 'qa';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicBaseUrl: string;
  env: TickbookEnv;
  tokenTtlSeconds: number;
  tokenAlg: TokenAlg;
  keyEncryptionSecret: string | undefined;
  legacyAuthPort: number | undefined;
  logLevel: string;
  adminClientId: string | undefined;
  adminClientSecret: string | undefined;
  /** Journal: take a state snapshot every N journaled commands. */
  snapshotEvery: number;
  /** Journal: longest time (ms) a command waits for its group commit to start. */
  groupCommitMaxWaitMs: number;
  /** Create the demo slate on first start of an empty store. */
  demo: boolean;
  /** Seed of the demo slate (deterministic for a given seed and start time). */
  demoSeed: number;
  /** The living demo: games go live, finish and settle on their own. */
  demoLive: boolean;
  /** Simulated seconds per real second for the living demo (tests use large values). */
  demoSpeed: number;
  /** Live taker fee coefficient, DESIGN.md §4. */
  feeCoefficient: number;
  /** Move events OPEN_PREGAME → OPEN_INGAME at scheduledStart. */
  autoGoLive: boolean;
  /** Parlay endpoint: requests per address per window; 0 lifts the limit. */
  parlayRateLimit: number;
  parlayRateWindowMs: number;
  parlayMaxLegs: number;
  /** Parlay house margin, as a fraction of the fair price (0.05 = 5 %). */
  parlayMargin: number;
  /** Seconds a parlay offer stays valid (Cache-Control max-age and expiresAt agree). */
  parlayQuoteTtlSeconds: number;
  /** Failed client authentications allowed per client_id or address per minute. */
  authFailureLimit: number;
  /** Largest request body accepted, bytes. */
  bodyLimit: number;
  /** Serve the browser UI at /ui (and redirect / there); docs/ui.md. */
  ui: boolean;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`invalid configuration: ${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function optStr(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim()))
    throw new ConfigError(name, `expected an integer, got ${JSON.stringify(raw)}`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(name, `expected an integer from ${min} to ${max}, got ${raw}`);
  }
  return n;
}

function num(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new ConfigError(name, `expected a number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `expected true or false, got ${JSON.stringify(raw)}`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, values: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `expected one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const raw = str(env, name, fallback);
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, `expected a URL, got ${JSON.stringify(raw)}`);
  }
  if (!protocols.includes(u.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

/** Parses the configuration from an environment (process.env by default). Throws ConfigError. */
export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const databaseUrl = optStr(env, 'DATABASE_URL');
  if (databaseUrl !== undefined) url(env, 'DATABASE_URL', databaseUrl, ['postgres:', 'postgresql:']);
  // The issuer and legacy audience carry no trailing slash, so that string comparison is exact.
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']).replace(
    /\/+$/,
    '',
  );
  const legacyAuthPort = optStr(env, 'LEGACY_AUTH_PORT');
  const demo = bool(env, 'TICKBOOK_DEMO', databaseUrl === undefined);
  const config: Config = {
    port,
    host: str(env, 'HOST', '127.0.0.1'),
    dataDir: str(env, 'DATA_DIR', './data'),
    databaseUrl,
    publicBaseUrl,
    env: oneOf<TickbookEnv>(env, 'TICKBOOK_ENV', 'production', ['production', 'qa']),
    tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 86400, 60, 31 * 86400),
    tokenAlg: oneOf<TokenAlg>(env, 'TOKEN_ALG', 'RS256', ['RS256', 'ES256', 'EdDSA']),
    keyEncryptionSecret: optStr(env, 'KEY_ENCRYPTION_SECRET'),
    legacyAuthPort: legacyAuthPort === undefined ? undefined : int(env, 'LEGACY_AUTH_PORT', 0, 0, 65535),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    adminClientId: optStr(env, 'TICKBOOK_ADMIN_CLIENT_ID'),
    adminClientSecret: optStr(env, 'TICKBOOK_ADMIN_CLIENT_SECRET'),
    snapshotEvery: int(env, 'SNAPSHOT_EVERY', 100_000, 1, 1_000_000_000),
    groupCommitMaxWaitMs: int(env, 'GROUP_COMMIT_MAX_WAIT_MS', 0, 0, 1000),
    demo,
    demoSeed: int(env, 'DEMO_SEED', 20261121, 0, 2 ** 31 - 1),
    demoLive: bool(env, 'DEMO_LIVE', demo),
    demoSpeed: num(env, 'DEMO_SPEED', 1, 0.001, 1_000_000),
    feeCoefficient: num(env, 'FEE_COEFFICIENT', 0.03, 0, 1),
    autoGoLive: bool(env, 'AUTO_GO_LIVE', true),
    parlayRateLimit: int(env, 'PARLAY_RATE_LIMIT', 60, 0, 1_000_000),
    parlayRateWindowMs: int(env, 'PARLAY_RATE_WINDOW_MS', 10_000, 100, 3_600_000),
    parlayMaxLegs: int(env, 'PARLAY_MAX_LEGS', 12, 2, 64),
    parlayMargin: num(env, 'PARLAY_MARGIN', 0.05, 0, 0.5),
    parlayQuoteTtlSeconds: int(env, 'PARLAY_QUOTE_TTL_SECONDS', 5, 1, 300),
    authFailureLimit: int(env, 'AUTH_FAILURE_LIMIT', 20, 1, 1_000_000),
    bodyLimit: int(env, 'BODY_LIMIT', 1_048_576, 1024, 64 * 1_048_576),
    ui: bool(env, 'UI', true),
  };
  if ((config.adminClientId === undefined) !== (config.adminClientSecret === undefined)) {
    throw new ConfigError(
      config.adminClientId === undefined ? 'TICKBOOK_ADMIN_CLIENT_ID' : 'TICKBOOK_ADMIN_CLIENT_SECRET',
      'TICKBOOK_ADMIN_CLIENT_ID and TICKBOOK_ADMIN_CLIENT_SECRET are set together or not at all',
    );
  }
  return Object.freeze(config);
}
