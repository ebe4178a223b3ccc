import type { Config } from '../config.ts';
import { PgliteStore } from './pglite-store.ts';
import { PostgresStore } from './postgres-store.ts';
import type { Store } from './types.ts';

export type { Queryable, QueryResult, Store, StoreKind } from './types.ts';

/**
 * DATABASE_URL selects PostgreSQL; otherwise the embedded store lives in DATA_DIR/pg, its SQL on
 * the thread EMBEDDED_SQL_THREAD names (a worker thread of its own by default).
 */
export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> &
    Partial<Pick<Config, 'embeddedSqlThread'>> & { nodeName?: string },
): Promise<Store> {
  if (config.databaseUrl !== undefined) return PostgresStore.open(config.databaseUrl, 10, config.nodeName);
  return PgliteStore.open(`${config.dataDir}/pg`, { thread: config.embeddedSqlThread });
}
