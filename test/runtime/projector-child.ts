// Child process of the projector crash test (projector-crash.test.ts). Runs the real
// ExchangeRuntime on a PGlite data directory (argv[2]) with the segment journal (argv[3]), over a
// store whose projection writes (one statement each, docs/journal.md "Projector") hang after the
// first `argv[4]` of them: the history projector then falls behind the journal, as it would if the process died between a journal sync and the
// projection. `argv[5]` says where PGlite runs (main or worker, src/store/pglite-store.ts). Prints
// `acked <seq>` for each acknowledged command; the parent SIGKILLs it.

import { loadConfig } from '../../src/config.ts';
import type { Command } from '../../src/exchange/types.ts';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { ExchangeRuntime } from '../../src/runtime/exchange-runtime.ts';
import { PgliteStore, type PgliteThread } from '../../src/store/pglite-store.ts';
import type { Store } from '../../src/store/types.ts';
import { uuidIds } from '../helpers/history-reference.ts';
import { setupCommands, tradingCommands } from '../journal/workload.ts';

export const SHAPE = { events: 2, marketsPerEvent: 2, accounts: 6 };
const quiet = {
  info() {},
  warn() {},
  error: (o: object) => process.stderr.write(`${String((o as { err?: unknown }).err)}\n`),
};

async function main(): Promise<void> {
  const [pgDir, journalDir, allowArg, thread] = process.argv.slice(2);
  const inner = await PgliteStore.open(pgDir!, { thread: (thread ?? 'main') as PgliteThread });
  await inner.migrate();
  let allowed = Number(allowArg);
  const projection = (sql: string) => sql.includes('UPDATE projection_watermark');
  const store: Store = Object.assign(Object.create(inner) as Store, {
    query: ((sql: string, params?: readonly unknown[]) =>
      !projection(sql) || allowed-- > 0 ? inner.query(sql, params) : new Promise(() => {})) as Store['query'],
  });
  const config = loadConfig({ DATA_DIR: pgDir, SNAPSHOT_EVERY: '100', LOG_LEVEL: 'silent' });
  const journal = await FileJournal.open(journalDir!);
  const rt = await ExchangeRuntime.open({
    config,
    store,
    log: quiet,
    journal,
    clock: () => 1_700_000_000_000,
  });
  const setup = setupCommands(SHAPE).map(uuidIds);
  for (let i = 0; i < setup.length; i += 20) {
    await rt.submitMany(setup.slice(i, i + 20) as never);
    process.stdout.write(`acked ${rt.sequencer.committedSeq}\n`);
  }
  const gen = tradingCommands(SHAPE, 1);
  for (;;) {
    const batch = Array.from({ length: 10 }, () => uuidIds(gen.next().value as Command));
    await rt.submitMany(batch as never);
    process.stdout.write(`acked ${rt.sequencer.committedSeq}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(2);
});
