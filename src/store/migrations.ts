// SQL migrations, shared by both backends. Files in src/store/migrations/ named NNN_name.sql are
// applied in name order, each in its own transaction, and recorded in schema_migrations, so that
// running them twice is a no-op. PostgreSQL serializes concurrent migrators with an advisory lock.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Queryable } from './types.ts';

const dir = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  name: string;
  sql: string;
}

export function listMigrations(): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name: name.replace(/\.sql$/, ''), sql: readFileSync(dir + name, 'utf8') }));
}

/** This build's migrations that are not among `applied`, in order. */
export function pendingOf(applied: readonly string[]): string[] {
  const done = new Set(applied);
  return listMigrations()
    .map((m) => m.name)
    .filter((n) => !done.has(n));
}

export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  name text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** Applies pending migrations inside `tx` (one transaction per call); returns the names applied. */
export async function applyPending(
  runInTx: (fn: (tx: Queryable & { exec(sql: string): Promise<void> }) => Promise<void>) => Promise<void>,
  applied: Set<string>,
): Promise<string[]> {
  const done: string[] = [];
  for (const m of listMigrations()) {
    if (applied.has(m.name)) continue;
    await runInTx(async (tx) => {
      const again = await tx.query<{ name: string }>('SELECT name FROM schema_migrations WHERE name = $1', [
        m.name,
      ]);
      if (again.rows.length > 0) return;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [m.name]);
      done.push(m.name);
    });
  }
  return done;
}
