// Production backend: a PostgreSQL server through a node-postgres pool (DATABASE_URL).

import pg from 'pg';
import { applyPending, MIGRATIONS_TABLE, pendingOf } from './migrations.ts';
import {
  type ClusterStore,
  type Queryable,
  type QueryResult,
  WriterLockError,
  type WriterLockSession,
} from './types.ts';

// bigint (int8) columns come back as strings by default; every int8 this project stores is a
// count or an amount within Number.MAX_SAFE_INTEGER, so parse them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

/** Pooled clients that already carry the no-op 'error' listener (see checkout()). */
const LISTENED = new WeakSet<pg.PoolClient>();

/** Advisory lock key of the single writer (the sequencer). */
const WRITER_LOCK_KEY = 7355609;
/** Advisory lock key held while migrating: one migrator at a time across processes. */
const MIGRATION_LOCK_KEY = 7355608;

function wrap(c: pg.ClientBase | pg.Pool): Queryable & { exec(sql: string): Promise<void> } {
  return {
    async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const r = await c.query(sql, params as unknown[] | undefined);
      return { rows: r.rows as T[], affectedRows: r.rowCount ?? undefined };
    },
    async exec(sql: string): Promise<void> {
      await c.query(sql);
    },
  };
}

export class PostgresStore implements ClusterStore {
  readonly kind = 'postgres' as const;
  private constructor(readonly pool: pg.Pool) {}

  static async open(connectionString: string, max = 10, applicationName?: string): Promise<PostgresStore> {
    // application_name names this process's sessions in pg_stat_activity (docs/cluster.md).
    const pool = new pg.Pool({
      connectionString,
      max,
      ...(applicationName === undefined ? {} : { application_name: applicationName }),
    });
    // An idle client's error (server restart) must not crash the process; the next query fails
    // and is reported where it is made.
    pool.on('error', () => {});
    // Nor may a busy one's. pool.query() listens for 'error' only once and only during its query,
    // so a terminated backend that emits a second error (the FATAL, then the socket's end), or
    // emits between a query and the release, was an uncaught 'error' that killed the process
    // (seen with pg_terminate_backend under load). Every client the pool makes gets a permanent
    // listener; the failures still reach the caller as rejected queries.
    pool.on('connect', (client) => {
      if (!LISTENED.has(client)) {
        LISTENED.add(client);
        client.on('error', () => {});
      }
    });
    const s = new PostgresStore(pool);
    await s.query('SELECT 1');
    return s;
  }

  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
    return wrap(this.pool).query<T>(sql, params);
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.checkout();
    try {
      await client.query('BEGIN');
      const out = await fn(wrap(client));
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * A pooled client for several statements. A checked-out client's session may die between two
   * statements (PostgreSQL restart, terminated backend); node-postgres then emits 'error' on it,
   * which without a listener is an uncaught exception that kills the process. The listener keeps
   * it a failed statement, reported where it is made.
   */
  private async checkout(): Promise<pg.PoolClient> {
    const client = await this.pool.connect();
    if (!LISTENED.has(client)) {
      LISTENED.add(client);
      client.on('error', () => {});
    }
    return client;
  }

  async migrate(): Promise<string[]> {
    const client = await this.checkout();
    try {
      // One migrator at a time across processes (a leader and replicas may start together).
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(MIGRATIONS_TABLE);
      const applied = new Set(
        (await client.query('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
      );
      return await applyPending(async (fn) => {
        await client.query('BEGIN');
        try {
          await fn(wrap(client));
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
      }, applied);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
      client.release();
    }
  }

  async pendingMigrations(): Promise<string[]> {
    return pendingOf(await this.appliedMigrations());
  }

  async appliedMigrations(): Promise<string[]> {
    await this.pool.query(MIGRATIONS_TABLE);
    const r = await this.pool.query('SELECT name FROM schema_migrations ORDER BY name');
    return r.rows.map((x) => x.name as string);
  }

  async acquireWriterLock(): Promise<() => Promise<void>> {
    // Session-level advisory lock on a connection kept out of the pool for the process's life:
    // the lock goes with the session, so a crashed leader releases it (principle 7 of docs/architecture.md "Principles").
    const client = await this.checkout();
    // Keyed by schema as well: one database may hold several stores in separate schemas
    // (tenants, environments, tests), each with its own writer.
    const r = await client.query('SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS ok', [
      WRITER_LOCK_KEY,
    ]);
    if (r.rows[0]?.ok !== true) {
      client.release();
      throw new WriterLockError(
        'another Tickbook process is the writer of this PostgreSQL store (database and schema)',
      );
    }
    return async () => {
      await client
        .query('SELECT pg_advisory_unlock($1, hashtext(current_schema()))', [WRITER_LOCK_KEY])
        .catch(() => {});
      client.release();
    };
  }

  /**
   * A dedicated session for the writer lock (scale-out, docs/cluster.md): unlike
   * acquireWriterLock, taking it may be retried, and losing the session (a PostgreSQL restart, a
   * terminated backend) is reported through onLost instead of crashing the process.
   */
  writerLockSession(onLost: (err: unknown) => void): WriterLockSession {
    return new PgWriterLockSession(this.pool.options, onLost);
  }

  /**
   * LISTENs on `channel` on a dedicated session; `onNotify` receives each payload. The session's
   * loss is reported through onLost (the caller re-listens after the outage).
   */
  async listen(
    channel: string,
    onNotify: (payload: string) => void,
    onLost: (err: unknown) => void,
  ): Promise<() => Promise<void>> {
    const client = new pg.Client(this.pool.options);
    let lost = false;
    const lose = (err: unknown) => {
      if (lost) return;
      lost = true;
      onLost(err);
    };
    client.on('error', lose);
    client.on('end', () => lose(new Error('LISTEN session ended')));
    client.on('notification', (n) => {
      if (n.channel === channel) onNotify(n.payload ?? '');
    });
    await client.connect();
    await client.query(`LISTEN "${channel.replace(/"/g, '')}"`);
    return async () => {
      lost = true;
      await client.end().catch(() => {});
    };
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * The writer's advisory lock on its own session (principle 7 of docs/architecture.md "Principles"): session-level, so a
 * dead process's lock is released by the server. The session has an 'error' listener: a
 * PostgreSQL restart or a terminated backend is a lost lock to step down from (onLost), never an
 * uncaught exception. Keyed by schema like acquireWriterLock, so stores in separate schemas of one
 * database (tests, tenants) never contend.
 */
export class PgWriterLockSession implements WriterLockSession {
  private client: pg.Client | undefined;
  private heldNow = false;
  private gen = 0;

  constructor(
    private readonly options: pg.ClientConfig,
    private readonly onLost: (err: unknown) => void,
  ) {}

  get held(): boolean {
    return this.heldNow;
  }

  /** PostgreSQL backend pid of the session holding the lock (when held). */
  backendPid: number | undefined;

  /** Tries once to take the lock; true when this session holds it now. Never throws. */
  async tryTake(): Promise<boolean> {
    if (this.heldNow) return true;
    try {
      if (this.client === undefined) {
        // TCP keepalives on both ends: after a network partition the server drops the dead
        // leader's session (and so its lock) within about 25 s instead of the OS default of hours,
        // and this side learns of it too.
        const c = new pg.Client({ ...this.options, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
        const gen = ++this.gen;
        c.on('error', (err) => this.lose(gen, err));
        c.on('end', () => this.lose(gen, new Error('writer lock session ended')));
        this.client = c;
        await c.connect();
        await c.query(
          'SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3',
        );
      }
      const r = await this.client.query(
        'SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS ok, pg_backend_pid() AS pid',
        [WRITER_LOCK_KEY],
      );
      if (r.rows[0]?.ok === true) {
        this.heldNow = true;
        this.backendPid = Number(r.rows[0].pid);
      }
      return this.heldNow;
    } catch {
      this.drop();
      return false;
    }
  }

  private lose(gen: number, err: unknown): void {
    if (gen !== this.gen) return;
    const wasHeld = this.heldNow;
    this.drop();
    if (wasHeld) this.onLost(err);
  }

  private drop(): void {
    this.gen++;
    this.heldNow = false;
    this.backendPid = undefined;
    const c = this.client;
    this.client = undefined;
    c?.end().catch(() => {});
  }

  /** Releases the lock (ending the session releases it too). */
  async release(): Promise<void> {
    const c = this.client;
    this.gen++;
    this.heldNow = false;
    this.client = undefined;
    if (c === undefined) return;
    await c
      .query('SELECT pg_advisory_unlock($1, hashtext(current_schema()))', [WRITER_LOCK_KEY])
      .catch(() => {});
    await c.end().catch(() => {});
  }
}
