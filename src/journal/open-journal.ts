// Which journal a server uses (docs/journal.md): on PostgreSQL the journal table; on the embedded
// store, segment files in DATA_DIR/journal with fdatasync per group commit (PGlite itself never
// fsyncs). A data directory from before the segment files holds its journal in PGlite's table:
// it is copied into segment files once, built in a side directory and renamed into place, so a
// crash during the copy leaves no half journal behind.

import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Store } from '../store/types.ts';
import { type JournalBackend, SqlJournal } from './backend.ts';
import { FileJournal } from './file-journal.ts';
import { nodeJournalFs } from './journal-fs.ts';

export const JOURNAL_DIR = 'journal';

export async function openJournal(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  store: Store,
): Promise<JournalBackend> {
  if (store.kind !== 'pglite' || config.databaseUrl !== undefined) return new SqlJournal(store);
  const dir = join(config.dataDir, JOURNAL_DIR);
  if (!existsSync(dir)) await importSqlJournal(store, dir);
  return FileJournal.open(dir);
}

async function importSqlJournal(store: Store, dir: string): Promise<void> {
  const sql = new SqlJournal(store);
  const side = `${dir}.importing`;
  rmSync(side, { recursive: true, force: true });
  const file = await FileJournal.open(side);
  let after = 0;
  for (;;) {
    const rows = await sql.read<{ ts: number }>(after, 10_000);
    if (rows.length === 0) break;
    if (rows[0]!.seq !== after + 1 || rows[rows.length - 1]!.seq !== after + rows.length) {
      throw new Error(`the embedded journal table has a gap after seq ${after}; not importing it`);
    }
    await file.append(
      after + 1,
      rows.map((r) => r.cmd),
    );
    after = rows[rows.length - 1]!.seq;
  }
  const newest = (await sql.listSnapshots())[0];
  if (newest !== undefined) {
    const snap = await sql.readSnapshot(newest.seq);
    if (snap !== undefined) await file.writeSnapshot(snap);
  }
  await file.close();
  nodeJournalFs.rename(side, dir);
  await nodeJournalFs.syncDir(parentOf(dir));
}

function parentOf(dir: string): string {
  return join(dir, '..');
}
