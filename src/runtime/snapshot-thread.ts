// Starts the snapshot thread (src/runtime/snapshot-worker.ts; docs/journal.md "Snapshots: a shadow
// state on a worker thread") from compiled output and from the sources alike. Compiled, the entry
// is snapshot-worker.js beside this file. Run through tsx (the tests, the benches), this file is
// .ts and so is the entry, and Node 20 does not apply the parent's `--import tsx` to a worker's
// entry module: the thread first registers tsx's loader (resolved here, from this file, so that it
// is the parent's own copy), then imports the entry.

import { Worker } from 'node:worker_threads';
import { ShadowSnapshots } from '../journal/shadow-snapshots.ts';
import type { Log } from '../observability/log.ts';

const FROM_SOURCES = import.meta.url.endsWith('.ts');

export function spawnSnapshotThread(): Worker {
  if (!FROM_SOURCES) {
    return new Worker(new URL('./snapshot-worker.js', import.meta.url), { execArgv: [] });
  }
  const entry = new URL('./snapshot-worker.ts', import.meta.url).href;
  // Resolved only when running from the sources, where tsx is what runs them.
  const loader = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(loader)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, execArgv: [] });
}

/**
 * The runtime's snapshot thread: its snapshots are serialized off the command path, from a second
 * state fed the durable batches, so no command waits for one (docs/journal.md "Snapshots: a shadow
 * state on a worker thread"). A failure is logged; snapshots are then taken in line, as before,
 * until one of them starts a new thread.
 */
export function snapshotThread(log: Log): ShadowSnapshots {
  return new ShadowSnapshots(spawnSnapshotThread, (err) =>
    log.warn({ err }, 'snapshot thread failed: snapshots are taken in line meanwhile'),
  );
}
