// The store interface (principle 6 of docs/architecture.md "Principles"): one contract, two backends (PGlite in DATA_DIR,
// PostgreSQL via DATABASE_URL) that run the same SQL migrations. Domain modules never see a
// backend; they receive a Store and write plain PostgreSQL SQL with $1-style parameters.

export interface QueryResult<T> {
  rows: T[];
  /** Rows inserted, updated or deleted, where the backend reports it. */
  affectedRows?: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>>;
}

export type StoreKind = 'pglite' | 'postgres';

export interface Store extends Queryable {
  readonly kind: StoreKind;
  /**
   * True when this store's SQL runs synchronously on the calling thread (PGlite in the server's
   * thread), so every statement stalls the event loop for as long as it runs. Absent: false.
   */
  readonly sqlOnEventLoop?: boolean;
  /** Runs several statements without parameters (DDL, migrations). */
  exec(sql: string): Promise<void>;
  /** Runs fn in one transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Applies the migrations not yet applied; returns the names it applied (none: a no-op). */
  migrate(): Promise<string[]>;
  /** Names of applied migrations, oldest first. */
  appliedMigrations(): Promise<string[]>;
  /** Names of this build's migrations not applied yet (readiness: none pending). */
  pendingMigrations(): Promise<string[]>;
  /**
   * Takes the single-writer lock (principle 7 of docs/architecture.md "Principles": one sequencer per store): a PostgreSQL
   * advisory lock held on a dedicated connection, or a pid file beside the embedded data directory.
   * Throws WriterLockError when another live process holds it. Resolves to the release function.
   */
  acquireWriterLock?(): Promise<() => Promise<void>>;
  /** True when the backend answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The writer lock held on a session of its own (docs/cluster.md): taking it may be retried, and
 * losing the session is reported to the callback the store was given instead of thrown.
 */
export interface WriterLockSession {
  /** True while this session holds the lock. */
  readonly held: boolean;
  /** Tries once to take the lock; true when this session holds it now. Never throws. */
  tryTake(): Promise<boolean>;
  /** Releases the lock (ending the session releases it too). */
  release(): Promise<void>;
}

/**
 * What a clustered deployment needs of its store beyond `Store` (docs/cluster.md): a writer lock a
 * leader can lose and retake, and notifications between processes. Only the PostgreSQL backend has
 * them (a session advisory lock, LISTEN/NOTIFY); a single embedded process needs neither.
 */
export interface ClusterStore extends Store {
  /** A session for the writer lock; `onLost` is told when a held lock's session is lost. */
  writerLockSession(onLost: (err: unknown) => void): WriterLockSession;
  /**
   * Listens on `channel`; `onNotify` receives each payload, `onLost` the loss of the session (the
   * caller listens again after the outage). Resolves to the function that stops listening.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onLost: (err: unknown) => void,
  ): Promise<() => Promise<void>>;
}

export class WriterLockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WriterLockError';
  }
}
