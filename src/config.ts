// The one place that reads process.env (after dydx's config-util): every setting is
// parsed once, typed, validated, and handed to the rest of the program as a frozen object.
// An invalid value stops the start with a message naming the variable.

import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { join } from 'node:path';

export type TokenAlg = 'RS256' | 'ES256' | 'EdDSA';
export type TickbookEnv = 'production' | 'qa';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  publicBaseUrl: string;
  /** PUBLIC_BASE_URL was set (not the port's default): a store with another issuer refuses it. */
  publicBaseUrlSet: boolean;
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
  /** Journal: snapshots from a shadow state on a worker thread (false: in line, holding commands). */
  snapshotThread: boolean;
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
  /** The living demo's pre-game line moves per game per hour (0: pre-game lines stay put). */
  demoPregameMoves: number;
  /** Live taker fee coefficient, docs/exchange.md "Fees". */
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
  /** Tradeable parlays (docs/parlays.md "Limits"): how long a request stays open, ms. */
  parlayRequestTtlMs: number;
  /** Unfilled requests one account may hold at once. */
  parlayMaxOpenRequests: number;
  /** Stake bounds of a parlay request or wager, currency units. */
  parlayMinStake: number;
  parlayMaxStake: number;
  /** Quotes one maker may submit per second (REST). */
  parlayQuoteRate: number;
  /** The house quote's maker account (docs/parlays.md "The house quote"); unset: no house quote. */
  parlayHouseAccount: string | undefined;
  /** Most collateral the house holds in open parlays, and per game, currency units. */
  parlayHouseBankroll: number;
  parlayHouseGameExposure: number;
  parlaySettleChunk: number; // PARLAY_SETTLE_CHUNK in src/runtime/scheduler.ts
  clientOrderIdWindowMs: number; // ms a clientOrderId is kept (docs/exchange.md "Idempotency window"); 0: for good
  /** Failed client authentications allowed per client_id or address per minute. */
  authFailureLimit: number;
  /** Largest request body accepted, bytes. */
  bodyLimit: number;
  /** `audience` values the legacy /oauth/token accepts (exact match); default [publicBaseUrl]. */
  legacyTokenAudiences: readonly string[];
  /** /v1/graphql requests per client (or address) per minute; 0 lifts the limit. */
  graphqlRateLimit: number;
  /** Serve the GraphiQL page at /graphiql (off in production). */
  graphiql: boolean;
  /** /trade: requests in flight per connection, and unwritten answer bytes before reads pause. */
  tradeMaxInFlight: number;
  tradeHighWaterBytes: number;
  /** /tape: protocol ping interval (ms); a client that misses one is closed (docs/stream.md). */
  streamPingMs: number;
  /** /tape: application heartbeat interval per subscribed channel (ms). */
  streamHeartbeatMs: number;
  /** /tape: per-connection send-buffer bound (bytes). */
  streamMaxBufferBytes: number;
  /** /tape: bytes every resume log together may retain (docs/stream.md "Retention"). */
  streamRetainBytes: number;
  /** PostgreSQL scale-out role (docs/cluster.md): contend for the writer lock, insist on it, or follow. */
  role: TickbookRole;
  /** The URL other processes forward commands to while this one leads (docs/cluster.md). */
  advertiseUrl: string | undefined;
  /** This process's PostgreSQL application_name (operators find and terminate its sessions by it). */
  nodeName: string;
  /** Longest wait (ms) for a replica to reach a request's x-tickbook-min-seq before 503. */
  minSeqWaitMs: number;
  /** Replica /readyz turns unready while its lag behind the journal exceeds this (ms). */
  replicaMaxLagMs: number;
  /** Replica journal poll interval (ms), the fallback of the LISTEN/NOTIFY doorbell. */
  followPollMs: number;
  /** Log lines: JSON, pretty (pino-pretty), or auto = pretty when stdout is a terminal. */
  logFormat: 'auto' | 'json' | 'pretty';
  /**
   * Where generated operator credentials are written: one file per store (docs/operations.md), so
   * a PostgreSQL store never overwrites the embedded store's file in the same DATA_DIR.
   */
  adminCredentialsFile: string;
  /** Disk retention (docs/disk-use.md): seconds between passes; 0 turns retention off. */
  retentionIntervalSeconds: number;
  /** Drop journal rows the oldest kept snapshot covers ('snapshot') or keep all ('all'). */
  journalRetention: 'all' | 'snapshot';
  /** Drop cancelled, never-filled order-history rows older than this many seconds; 0 keeps them. */
  canceledOrderRetentionSeconds: number;
  /** Serve the browser UI at /ui (and redirect / there); docs/ui.md. */
  ui: boolean;
  /**
   * Embedded store: run PGlite on a worker thread of its own ('worker', the default: off the event
   * loop, at the cost of memory) or in the server's thread ('main'). docs/journal.md, "The embedded
   * SQL store".
   */
  embeddedSqlThread: 'worker' | 'main';
}

export type TickbookRole = 'auto' | 'leader' | 'replica';

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

/**
 * The audiences the legacy token endpoint accepts: the server's own address (`own`), then a
 * comma-separated list of further audience strings (any string an old client was built with, URL
 * or not), compared exactly; blank entries are skipped. Unset or empty: only `own`.
 */
function audienceList(env: Env, name: string, own: string): readonly string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return Object.freeze([own]);
  const listed = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (listed.length === 0) throw new ConfigError(name, 'expected a comma-separated list of audiences');
  // The server's own address always stays accepted: listing the production audience for old
  // clients must not lock out the clients that send this server's address (docs/auth.md).
  const list = [...new Set([own, ...listed])];
  if (list.length > 64) throw new ConfigError(name, `at most 64 audiences, got ${list.length}`);
  for (const a of list) {
    if (a.length > 512)
      throw new ConfigError(name, `an audience longer than 512 characters: ${a.slice(0, 40)}…`);
  }
  return Object.freeze(list);
}

/** DATABASE_URL: a postgres:// URL naming a host (a socket directory may come as ?host=). */
function postgresUrl(raw: string): void {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(
      'DATABASE_URL',
      'expected a URL like postgres://user:password@host:5432/database, got something that is not a URL',
    );
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new ConfigError(
      'DATABASE_URL',
      `expected a postgres:// or postgresql:// URL, got the scheme ${JSON.stringify(u.protocol)}`,
    );
  }
  if (u.hostname === '' && !u.searchParams.has('host')) {
    throw new ConfigError('DATABASE_URL', 'the URL names no host (postgres://user@host:5432/database)');
  }
}

/** DATABASE_URL without its password, for messages and the start banner. */
export function redactDatabaseUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** HOST: an IPv4/IPv6 address (brackets allowed) or a DNS name (RFC 1123 §2.1). */
function host(raw: string): string {
  const v = raw.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(v) !== 0 || HOSTNAME.test(v)) return v;
  throw new ConfigError(
    'HOST',
    `expected an IP address (127.0.0.1, 0.0.0.0, ::) or a host name, got ${JSON.stringify(raw)}`,
  );
}

/**
 * The operator credentials file of a store. The embedded store owns DATA_DIR, so its file keeps
 * the name admin-credentials.json; a PostgreSQL store's file is named by a hash of the URL without
 * its password (host, port, database, user, options), one file per database (docs/operations.md).
 */
export function adminCredentialsFile(dataDir: string, databaseUrl: string | undefined): string {
  if (databaseUrl === undefined) return join(dataDir, 'admin-credentials.json');
  let key = databaseUrl;
  try {
    const u = new URL(databaseUrl);
    u.password = '';
    key = u.toString();
  } catch {
    // validated earlier; the raw string is still a stable key
  }
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 12);
  return join(dataDir, `admin-credentials.postgres-${hash}.json`);
}

/** Parses the configuration from an environment (process.env by default). Throws ConfigError. */
export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const databaseUrl = optStr(env, 'DATABASE_URL');
  if (databaseUrl !== undefined) postgresUrl(databaseUrl);
  // The issuer and legacy audience carry no trailing slash, so that string comparison is exact.
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`, ['http:', 'https:']).replace(
    /\/+$/,
    '',
  );
  const legacyAuthPort = optStr(env, 'LEGACY_AUTH_PORT');
  const demo = bool(env, 'TICKBOOK_DEMO', databaseUrl === undefined);
  const embeddedRetention = databaseUrl === undefined ? 60 : 0; // RETENTION_INTERVAL_SECONDS
  const config: Config = {
    port,
    host: host(str(env, 'HOST', '127.0.0.1')),
    dataDir: str(env, 'DATA_DIR', './data'),
    databaseUrl,
    publicBaseUrl,
    publicBaseUrlSet: optStr(env, 'PUBLIC_BASE_URL') !== undefined,
    env: oneOf<TickbookEnv>(env, 'TICKBOOK_ENV', 'production', ['production', 'qa']),
    tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 86400, 60, 31 * 86400),
    tokenAlg: oneOf<TokenAlg>(env, 'TOKEN_ALG', 'RS256', ['RS256', 'ES256', 'EdDSA']),
    keyEncryptionSecret: optStr(env, 'KEY_ENCRYPTION_SECRET'),
    legacyAuthPort: legacyAuthPort === undefined ? undefined : int(env, 'LEGACY_AUTH_PORT', 0, 0, 65535),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    adminClientId: optStr(env, 'TICKBOOK_ADMIN_CLIENT_ID'),
    adminClientSecret: optStr(env, 'TICKBOOK_ADMIN_CLIENT_SECRET'),
    snapshotEvery: int(env, 'SNAPSHOT_EVERY', 100_000, 1, 1_000_000_000),
    snapshotThread: bool(env, 'SNAPSHOT_THREAD', true),
    groupCommitMaxWaitMs: int(env, 'GROUP_COMMIT_MAX_WAIT_MS', 0, 0, 1000),
    demo,
    demoSeed: int(env, 'DEMO_SEED', 20261121, 0, 2 ** 31 - 1),
    demoLive: bool(env, 'DEMO_LIVE', demo),
    demoSpeed: num(env, 'DEMO_SPEED', 1, 0.001, 1_000_000),
    demoPregameMoves: num(env, 'DEMO_PREGAME_MOVES', 6, 0, 3600),
    feeCoefficient: num(env, 'FEE_COEFFICIENT', 0.03, 0, 1),
    autoGoLive: bool(env, 'AUTO_GO_LIVE', true),
    parlayRateLimit: int(env, 'PARLAY_RATE_LIMIT', 60, 0, 1_000_000),
    parlayRateWindowMs: int(env, 'PARLAY_RATE_WINDOW_MS', 10_000, 100, 3_600_000),
    parlayMaxLegs: int(env, 'PARLAY_MAX_LEGS', 12, 2, 64),
    parlayMargin: num(env, 'PARLAY_MARGIN', 0.05, 0, 0.5),
    parlayQuoteTtlSeconds: int(env, 'PARLAY_QUOTE_TTL_SECONDS', 5, 1, 300),
    parlayRequestTtlMs: int(env, 'PARLAY_REQUEST_TTL_MS', 30_000, 1_000, 3_600_000),
    parlayMaxOpenRequests: int(env, 'PARLAY_MAX_OPEN_REQUESTS', 20, 1, 10_000),
    parlayMinStake: num(env, 'PARLAY_MIN_STAKE', 1, 0.00001, 1_000_000_000),
    parlayMaxStake: num(env, 'PARLAY_MAX_STAKE', 10_000, 0.00001, 1_000_000_000),
    parlayQuoteRate: int(env, 'PARLAY_QUOTE_RATE', 50, 1, 1_000_000),
    parlayHouseAccount: optStr(env, 'PARLAY_HOUSE_ACCOUNT'),
    parlayHouseBankroll: num(env, 'PARLAY_HOUSE_BANKROLL', 100_000, 0, 1_000_000_000),
    parlayHouseGameExposure: num(env, 'PARLAY_HOUSE_GAME_EXPOSURE', 10_000, 0, 1_000_000_000),
    parlaySettleChunk: int(env, 'PARLAY_SETTLE_CHUNK', 500, 1, 1_000_000),
    clientOrderIdWindowMs: int(env, 'CLIENT_ORDER_ID_WINDOW_HOURS', 24, 0, 24 * 365) * 3_600_000,
    authFailureLimit: int(env, 'AUTH_FAILURE_LIMIT', 20, 1, 1_000_000),
    bodyLimit: int(env, 'BODY_LIMIT', 1_048_576, 1024, 64 * 1_048_576),
    legacyTokenAudiences: audienceList(env, 'LEGACY_TOKEN_AUDIENCES', publicBaseUrl),
    graphqlRateLimit: int(env, 'GRAPHQL_RATE_LIMIT', 650, 0, 1_000_000),
    graphiql: bool(env, 'GRAPHIQL', env.NODE_ENV !== 'production'),
    tradeMaxInFlight: int(env, 'TRADE_MAX_IN_FLIGHT', 256, 1, 65_536),
    tradeHighWaterBytes: int(env, 'TRADE_HIGH_WATER_BYTES', 1_048_576, 16_384, 64 * 1_048_576),
    streamPingMs: int(env, 'STREAM_PING_MS', 15_000, 100, 600_000),
    streamHeartbeatMs: int(env, 'STREAM_HEARTBEAT_MS', 5_000, 50, 5_000),
    streamMaxBufferBytes: int(env, 'STREAM_MAX_BUFFER_BYTES', 1_048_576, 16_384, 64 * 1_048_576),
    streamRetainBytes: int(env, 'STREAM_RETAIN_BYTES', 64 * 1_048_576, 1_048_576, 16 * 1024 * 1_048_576),
    role: oneOf<TickbookRole>(env, 'TICKBOOK_ROLE', databaseUrl === undefined ? 'leader' : 'auto', [
      'auto',
      'leader',
      'replica',
    ]),
    advertiseUrl:
      optStr(env, 'TICKBOOK_ADVERTISE_URL') === undefined
        ? undefined
        : url(env, 'TICKBOOK_ADVERTISE_URL', '', ['http:', 'https:']).replace(/\/+$/, ''),
    nodeName: str(env, 'TICKBOOK_NODE_NAME', `tickbook-${process.pid}`).slice(0, 63),
    minSeqWaitMs: int(env, 'TICKBOOK_MIN_SEQ_WAIT_MS', 2000, 0, 60_000),
    replicaMaxLagMs: int(env, 'TICKBOOK_REPLICA_MAX_LAG_MS', 2000, 1, 3_600_000),
    followPollMs: int(env, 'TICKBOOK_FOLLOW_POLL_MS', 250, 10, 60_000),
    logFormat: oneOf(env, 'LOG_FORMAT', 'auto', ['auto', 'json', 'pretty']),
    adminCredentialsFile: adminCredentialsFile(str(env, 'DATA_DIR', './data'), databaseUrl),
    // The embedded store has no autovacuum or checkpointer, so retention runs by default there;
    // journal and history pruning default on only for the demo (docs/disk-use.md).
    retentionIntervalSeconds: int(env, 'RETENTION_INTERVAL_SECONDS', embeddedRetention, 0, 86_400),
    journalRetention: oneOf(env, 'JOURNAL_RETENTION', demo ? 'snapshot' : 'all', ['all', 'snapshot']),
    canceledOrderRetentionSeconds: int(
      env,
      'CANCELED_ORDER_RETENTION_SECONDS',
      demo ? 300 : 0,
      0,
      10 * 365 * 86_400,
    ),
    ui: bool(env, 'UI', true),
    embeddedSqlThread: oneOf(env, 'EMBEDDED_SQL_THREAD', 'worker', ['main', 'worker']),
  };
  if (databaseUrl === undefined && config.role === 'replica') {
    throw new ConfigError(
      'TICKBOOK_ROLE',
      'replica needs PostgreSQL (DATABASE_URL): the embedded store is one process’s database, so it has no replicas (docs/cluster.md)',
    );
  }
  if ((config.adminClientId === undefined) !== (config.adminClientSecret === undefined)) {
    throw new ConfigError(
      config.adminClientId === undefined ? 'TICKBOOK_ADMIN_CLIENT_ID' : 'TICKBOOK_ADMIN_CLIENT_SECRET',
      'TICKBOOK_ADMIN_CLIENT_ID and TICKBOOK_ADMIN_CLIENT_SECRET are set together or not at all',
    );
  }
  return Object.freeze(config);
}
