// SNAPSHOT_THREAD (docs/journal.md "Snapshots: a shadow state on a worker thread"): by default the
// runtime's snapshots come from the snapshot thread and hold no command; with the switch off they
// are serialized in line by the sequencer. Either way the stored snapshot is the live state: its
// hash, stored beside the bytes, is the state hash of the runtime at the snapshot's seq.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { SnapshotStats } from '../../src/journal/sequencer.ts';
import { ExchangeRuntime } from '../../src/runtime/exchange-runtime.ts';
import { uuidIds } from '../helpers/history-reference.ts';
import { openTestStore } from '../helpers/store.ts';
import { setupCommands } from '../journal/workload.ts';

const quiet = { info() {}, warn() {}, error() {} };

async function snapshotWith(env: Record<string, string>): Promise<SnapshotStats> {
  const store = await openTestStore('pglite');
  const config = loadConfig({ LOG_LEVEL: 'silent', TICKBOOK_DEMO: 'false', ...env });
  const rt = await ExchangeRuntime.open({ config, store, log: quiet });
  try {
    for (const r of await rt.submitMany(
      setupCommands({ events: 1, marketsPerEvent: 2, accounts: 3 }).map(uuidIds) as never[],
    ))
      assert.equal(r.ok, true);
    const stored = new Promise<SnapshotStats>((resolve) => rt.sequencer.once('snapshot', resolve));
    await rt.sequencer.snapshotNow();
    const stats = await stored;
    assert.equal(stats.seq, rt.sequencer.committedSeq, 'the snapshot is at the last durable seq');
    const row = await store.query<{ hash: string }>('SELECT hash FROM snapshots WHERE seq = $1', [stats.seq]);
    assert.equal(row.rows[0]?.hash, rt.exchange.hash(), 'the stored snapshot is the live state');
    return stats;
  } finally {
    await rt.close();
    await store.close();
  }
}

test('snapshots come from the thread by default and from the sequencer with SNAPSHOT_THREAD=false', async () => {
  const threaded = await snapshotWith({});
  assert.equal(threaded.thread, 'snapshot');
  assert.equal(threaded.heldMs, 0, 'no command was held');
  const inline = await snapshotWith({ SNAPSHOT_THREAD: 'false' });
  assert.equal(inline.thread, 'sequencer');
  assert.equal(inline.seq, threaded.seq);
});

test('SNAPSHOT_THREAD takes only a boolean', () => {
  assert.throws(() => loadConfig({ SNAPSHOT_THREAD: 'sometimes' }), /SNAPSHOT_THREAD/);
});
