// openJournal (docs/journal.md, "Where the journal lives"): an embedded data directory from before
// the segment files has its journal table copied, once, into segment files with its snapshot.

import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { appendCommands, writeSnapshot } from '../../src/journal/journal-store.ts';
import { openJournal } from '../../src/journal/open-journal.ts';
import { openTestStore } from '../helpers/store.ts';

test('an embedded journal table is imported into segment files once, with its newest snapshot', async () => {
  const store = await openTestStore('pglite');
  const dataDir = mkdtempSync(join(tmpdir(), 'tickbook-open-journal-'));
  try {
    const cmds = Array.from({ length: 25 }, (_, i) => ({ type: 'Add', key: `k${i}`, n: 1, ts: 1000 + i }));
    await appendCommands(store, 1, cmds);
    await writeSnapshot(store, { seq: 20, hash: 'a'.repeat(64), state: new Uint8Array([1, 2, 3]) });
    const j = await openJournal({ databaseUrl: undefined, dataDir }, store);
    assert.ok(j instanceof FileJournal);
    assert.deepEqual(await j.tail(), { seq: 25, ts: 1024 });
    const rows = await j.read<{ key: string }>(0, 100);
    assert.deepEqual(
      rows.map((r) => r.cmd.key),
      cmds.map((c) => c.key),
    );
    assert.deepEqual(await j.listSnapshots(), [{ seq: 20, hash: 'a'.repeat(64) }]);
    assert.deepEqual((await j.readSnapshot(20))?.state, new Uint8Array([1, 2, 3]));
    await j.close();
    assert.deepEqual(readdirSync(dataDir), ['journal']);
    // Second open: the segment files are the journal; the table is not read again.
    await appendCommands(store, 26, [{ type: 'Add', key: 'late', n: 1, ts: 2000 }] as never);
    const again = await openJournal({ databaseUrl: undefined, dataDir }, store);
    assert.equal((await again.tail()).seq, 25);
    await again.close();
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
