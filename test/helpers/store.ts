// Isolated, migrated stores for tests, fast (principle 6 of docs/architecture.md "Principles").
//
// PGlite: creating a data directory runs initdb in WASM (4–5 s, ~900 MB peak), so it is done ONCE
// per set of migrations: the migrated template lives in .tmp/pglite-template/<hash of the
// migration files>/ and every test gets a plain file copy of it, opened as its own PGlite. Of
// the ways to get a fresh instance, copying the directory and opening it was the fastest measured
// (docs/journal.md: copy + open ≈ 0.5 s + reopen cost, against loadDataDir from a dump or clone(),
// which both re-extract the whole 40 MB data directory into the WASM file system).
// Concurrent test processes (the runner runs files in parallel) build the template under a lock
// file; the finished template appears by an atomic rename, so nobody ever opens half of one.
//
// PostgreSQL (only when DATABASE_URL is set): a fresh schema per store, put first on the
// search_path through the connection options, migrated, and dropped on close.

import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listMigrations } from '../../src/store/migrations.ts';
import { PgliteStore, type PgliteThread } from '../../src/store/pglite-store.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import type { Queryable, Store, StoreKind } from '../../src/store/types.ts';

const root = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const tmpRoot = join(root, '.tmp');
const templatesDir = join(tmpRoot, 'pglite-template');
const instancesDir = join(tmpRoot, 'pglite-test');

/** A store for one test; close() also deletes its data directory or schema. */
export interface TestStore extends Store {
  /** PGlite: the data directory (a private copy of the template). */
  readonly dataDir?: string;
  /** PostgreSQL: the schema holding this store's tables. */
  readonly schema?: string;
}

/** Store kinds to run suites against: PGlite always, PostgreSQL when DATABASE_URL is set. */
export function storeKinds(): StoreKind[] {
  return process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/** `thread`: where PGlite runs (src/store/pglite-store.ts; default, as the server's, in-thread). */
export async function openTestStore(
  kind: StoreKind = 'pglite',
  opts: { thread?: PgliteThread } = {},
): Promise<TestStore> {
  return kind === 'pglite' ? openPgliteTestStore(opts.thread) : openPostgresTestStore();
}

// ------------------------------------------------------------------ PGlite

/** Hash of exactly the migrations the stores apply (listMigrations), names and SQL. */
function migrationsHash(): string {
  const h = createHash('sha256');
  for (const m of listMigrations()) h.update(m.name).update('\0').update(m.sql).update('\0');
  return h.digest('hex').slice(0, 16);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Path of the migrated template data directory, building it if this process is first. */
export async function pgliteTemplate(): Promise<string> {
  const hash = migrationsHash();
  const dir = join(templatesDir, hash);
  const lock = `${dir}.lock`;
  mkdirSync(templatesDir, { recursive: true });
  const deadline = Date.now() + 300_000;
  while (!existsSync(dir)) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx');
    } catch {
      // Someone else builds it. A lock older than 3 minutes belongs to a killed process.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 180_000) rmSync(lock, { force: true });
      } catch {}
      if (Date.now() > deadline) throw new Error(`timed out waiting for the PGlite template (${lock})`);
      await sleep(200);
      continue;
    }
    try {
      writeSync(fd, String(process.pid));
      if (existsSync(dir)) break;
      const building = `${dir}.build-${process.pid}-${randomBytes(4).toString('hex')}`;
      const s = await PgliteStore.open(building);
      await s.migrate();
      await s.close();
      renameSync(building, dir);
    } finally {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
  return dir;
}

async function openPgliteTestStore(thread?: PgliteThread): Promise<TestStore> {
  const template = await pgliteTemplate();
  mkdirSync(instancesDir, { recursive: true });
  const dataDir = join(instancesDir, `${process.pid}-${randomBytes(6).toString('hex')}`);
  cpSync(template, dataDir, { recursive: true });
  const inner = await PgliteStore.open(dataDir, { thread });
  // Migrations added since the template was built are impossible (the template is keyed by
  // their hash), so this is a cheap no-op that also proves the copy is usable.
  await inner.migrate();
  return wrap(inner, { dataDir }, async () => {
    rmSync(dataDir, { recursive: true, force: true });
  });
}

// ------------------------------------------------------------------ PostgreSQL

export interface PostgresSchema {
  /** The schema's name: `prefix` + 12 random hex digits. */
  schema: string;
  /** DATABASE_URL with the schema first on the search_path (connection options). */
  url: string;
  /** DROP SCHEMA … CASCADE. */
  drop(): Promise<void>;
}

/** A fresh, empty schema on DATABASE_URL, for one test store or one test server. */
export async function createPostgresSchema(prefix: string): Promise<PostgresSchema> {
  const base = process.env.DATABASE_URL;
  if (base === undefined || base === '') throw new Error('DATABASE_URL is not set');
  const schema = `${prefix}${randomBytes(6).toString('hex')}`;
  const admin = await PostgresStore.open(base, 1);
  try {
    await admin.exec(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.close();
  }
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return {
    schema,
    url: u.toString(),
    async drop() {
      const a = await PostgresStore.open(base, 1);
      try {
        await a.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await a.close();
      }
    },
  };
}

async function openPostgresTestStore(): Promise<TestStore> {
  const place = await createPostgresSchema('t_');
  const inner = await PostgresStore.open(place.url);
  await inner.migrate();
  return wrap(inner, { schema: place.schema }, place.drop);
}

// ------------------------------------------------------------------

function wrap(
  inner: Store,
  extra: { dataDir?: string; schema?: string },
  cleanup: () => Promise<void>,
): TestStore {
  let closed = false;
  const s: TestStore = {
    kind: inner.kind,
    ...extra,
    query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]) {
      return inner.query<T>(sql, params);
    },
    exec: (sql) => inner.exec(sql),
    transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      return inner.transaction(fn);
    },
    migrate: () => inner.migrate(),
    appliedMigrations: () => inner.appliedMigrations(),
    pendingMigrations: () => inner.pendingMigrations(),
    ping: () => inner.ping(),
    async close() {
      if (closed) return;
      closed = true;
      await inner.close();
      await cleanup();
    },
  };
  return s;
}
