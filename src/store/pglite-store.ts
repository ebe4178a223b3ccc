// Embedded backend: PGlite (PostgreSQL compiled to WASM) keeping its data directory on disk.
// Single connection; PGlite serializes queries itself. relaxedDurability stays off, so a query
// returns only after PGlite has written its changes out to the file system. PGlite runs in this
// thread unless asked to run on a worker thread (`thread: 'worker'`; the server asks by default,
// EMBEDDED_SQL_THREAD; src/store/pglite-worker.ts): its WASM is synchronous inside each call, so
// here it stops request handling for as long as each statement runs, and there it costs a second
// V8 isolate and malloc arena (docs/journal.md, "The embedded SQL store"). The writer lock (the
// pid file), the template unpack and `exists()` stay in this thread either way.

import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { applyPending, MIGRATIONS_TABLE, pendingOf } from './migrations.ts';
import { readTemplate, TEMPLATE_FILE, unpackTemplate } from './pglite-template.ts';
import { type PgliteBackend, PgliteWorker } from './pglite-worker.ts';
import { isAlive } from './process-alive.ts';
import { type Queryable, type QueryResult, type Store, WriterLockError } from './types.ts';

type PgliteTx = Pick<PGlite, 'query' | 'exec'>;

function wrap(q: PgliteTx): Queryable & { exec(sql: string): Promise<void> } {
  return {
    async query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const r = await q.query<T>(sql, params as unknown[] | undefined);
      return { rows: r.rows, affectedRows: r.affectedRows };
    },
    async exec(sql: string): Promise<void> {
      await q.exec(sql);
    },
  };
}

/** PGlite in this thread: `open`'s default (the server's is the worker), and always for the build's template. */
class InThread implements PgliteBackend {
  private readonly q: ReturnType<typeof wrap>;
  constructor(readonly db: PGlite) {
    this.q = wrap(db);
  }
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
    return this.q.query<T>(sql, params);
  }
  exec(sql: string): Promise<void> {
    return this.q.exec(sql);
  }
  transaction<T>(fn: (tx: Queryable & { exec(sql: string): Promise<void> }) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => fn(wrap(tx)));
  }
  async close(): Promise<void> {
    // PGlite throws on a second close; the Store contract lets callers close twice.
    if (!this.db.closed) await this.db.close();
  }
}

/** Where PGlite runs: the event loop's thread (`open`'s default) or a worker thread of its own. */
export type PgliteThread = 'worker' | 'main';

async function openBackend(dataDir: string | undefined, thread: PgliteThread): Promise<PgliteBackend> {
  if (thread === 'worker') return PgliteWorker.open(dataDir, START_PARAMS);
  return new InThread(
    dataDir === undefined
      ? await PGlite.create()
      : await PGlite.create(dataDir, { startParams: START_PARAMS }),
  );
}

export class PgliteStore implements Store {
  readonly kind = 'pglite' as const;
  private constructor(
    private readonly db: PgliteBackend,
    private readonly dataDir?: string,
    /** How the database came to be: found on disk, unpacked from the template, or by initdb. */
    readonly createdFrom: 'existing' | 'template' | 'initdb' | 'memory' = 'memory',
  ) {}

  /** Where this store's SQL runs. */
  get thread(): PgliteThread {
    return this.db instanceof PgliteWorker ? 'worker' : 'main';
  }

  get sqlOnEventLoop(): boolean {
    return this.thread === 'main';
  }

  /** True when `dataDir` already holds a database (opening it recovers; absent, open runs initdb). */
  static exists(dataDir: string): boolean {
    return existsSync(join(dataDir, 'PG_VERSION'));
  }

  /**
   * Opens (creating when absent) the data directory; `undefined` keeps everything in memory. A new
   * database is unpacked from the build's template when there is one (src/store/pglite-template.ts;
   * `template: false` or a missing file runs initdb instead); `createdFrom` says which happened.
   * `thread` says where PGlite runs (default: this thread).
   */
  static async open(
    dataDir: string | undefined,
    opts: { template?: string | false; thread?: PgliteThread } = {},
  ): Promise<PgliteStore> {
    const thread = opts.thread ?? 'main';
    if (dataDir === undefined) return new PgliteStore(await openBackend(undefined, thread));
    mkdirSync(dataDir, { recursive: true });
    // Opening is already writing (PGlite recovers its WAL): never beside a live owner.
    const owner = liveOwner(dataDir);
    if (owner !== undefined) {
      throw new WriterLockError(`the embedded store ${dataDir} is in use by process ${owner}; stop it first`);
    }
    if (PgliteStore.exists(dataDir))
      return new PgliteStore(await openBackend(dataDir, thread), dataDir, 'existing');
    const template = opts.template === false ? undefined : readTemplate(opts.template ?? TEMPLATE_FILE);
    // Only into a directory holding nothing: the template's files replace it.
    if (template !== undefined && readdirSync(dataDir).length === 0) {
      try {
        unpackTemplate(template, dataDir);
        return new PgliteStore(await openBackend(dataDir, thread), dataDir, 'template');
      } catch {
        // A template that does not unpack, or that this PGlite cannot open (a build from another
        // version): empty the directory again and create the database the slow way.
        for (const e of readdirSync(dataDir)) rmSync(join(dataDir, e), { recursive: true, force: true });
      }
    }
    return new PgliteStore(await openBackend(dataDir, thread), dataDir, 'initdb');
  }

  /**
   * Builds the template (src/store/pglite-template.ts): initdb and every migration in memory, a
   * checkpoint so the files hold the data rather than a WAL to replay, then the data directory
   * as a gzipped tarball written to `file`. Build time only, so PGlite runs in this thread.
   */
  static async buildTemplate(file: string = TEMPLATE_FILE): Promise<{ bytes: number }> {
    const store = await PgliteStore.open(undefined, { thread: 'main' });
    try {
      await store.migrate();
      const db = (store.db as InThread).db;
      await db.exec('CHECKPOINT');
      const bytes = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
      writeFileSync(file, bytes);
      return { bytes: bytes.length };
    } finally {
      await store.close();
    }
  }

  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
    return this.db.query<T>(sql, params);
  }

  async exec(sql: string): Promise<void> {
    await this.db.exec(sql);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  async migrate(): Promise<string[]> {
    await this.db.exec(MIGRATIONS_TABLE);
    const applied = new Set(await this.appliedMigrations());
    return applyPending((fn) => this.db.transaction(fn), applied);
  }

  async pendingMigrations(): Promise<string[]> {
    return pendingOf(await this.appliedMigrations());
  }

  async appliedMigrations(): Promise<string[]> {
    await this.db.exec(MIGRATIONS_TABLE);
    const r = await this.db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    return r.rows.map((x) => x.name);
  }

  async acquireWriterLock(): Promise<() => Promise<void>> {
    if (this.dataDir === undefined) return async () => {};
    // PGlite is one process's database: a second process opening the same directory would
    // corrupt it. A pid file says who has it; a pid that no longer runs is a crashed owner.
    const file = join(this.dataDir, PID_FILE);
    // The pid file is created exclusively, so of two processes starting together only one gets
    // it. A file left by a dead process (or by this one) is removed and the create tried once more.
    if (!createPidFile(file)) {
      const other = liveOwner(this.dataDir);
      if (other !== undefined) {
        throw new WriterLockError(`the embedded store ${this.dataDir} is in use by process ${other}`);
      }
      rmSync(file, { force: true });
      if (!createPidFile(file)) {
        throw new WriterLockError(
          `the embedded store ${this.dataDir} is in use by process ${readPid(file) ?? 'unknown'}`,
        );
      }
    }
    return async () => {
      try {
        if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
      } catch {
        // already gone
      }
    };
  }

  async ping(): Promise<boolean> {
    try {
      await this.db.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

const PID_FILE = 'tickbook.pid';

/**
 * PGlite's own start parameters plus smaller memory settings. PostgreSQL's defaults (128 MB of
 * shared buffers, 64 MB for maintenance such as the VACUUM main.ts runs) are sized for a server
 * with many connections; here one process owns a database of tens of megabytes, the exchange state
 * and the read caches live in the JavaScript heap, and PGlite's WASM heap keeps every page it ever
 * touched. With 16 MB each the idle demo server measured 371 MB resident instead of 489 MB
 * (docs/packaging.md, "Memory").
 */
const START_PARAMS = [
  ...(PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams,
  '-c',
  'shared_buffers=16MB',
  '-c',
  'maintenance_work_mem=16MB',
];

/**
 * Creates the pid file holding this process's pid, atomically and only if it does not exist:
 * the pid goes into a private temporary file first and is then hard-linked under the shared
 * name (link fails with EEXIST when the name is taken), so no reader ever sees a half-written
 * file. False when another file already holds the name.
 */
function createPidFile(file: string): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, String(process.pid));
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

function readPid(file: string): number | undefined {
  try {
    return Number(readFileSync(file, 'utf8').trim());
  } catch {
    return undefined;
  }
}

/** The pid of another live process holding the data directory, if any (a dead one's file is stale). */
function liveOwner(dataDir: string): number | undefined {
  const pid = readPid(join(dataDir, PID_FILE));
  return pid !== undefined && Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)
    ? pid
    : undefined;
}
