// The embedded store's writer lock (a pid file in DATA_DIR): taken exclusively, a dead owner's
// file is taken over, a live owner's refused.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PgliteStore } from '../../src/store/pglite-store.ts';
import { WriterLockError } from '../../src/store/types.ts';

let dir: string;
let store: PgliteStore;
const pidFile = () => join(dir, 'tickbook.pid');

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tickbook-pglock-'));
  store = await PgliteStore.open(dir);
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('no pid file: the lock writes this pid and release removes it', async () => {
  const release = await store.acquireWriterLock();
  assert.equal(readFileSync(pidFile(), 'utf8'), String(process.pid));
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('tickbook.pid')),
    ['tickbook.pid'],
    'no temporary file is left behind',
  );
  await release();
  assert.equal(existsSync(pidFile()), false);
});

test("a dead process's pid file is taken over", async () => {
  // A child that has exited: its pid names no live process.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  writeFileSync(pidFile(), dead.stdout.toString());
  const release = await store.acquireWriterLock();
  assert.equal(readFileSync(pidFile(), 'utf8'), String(process.pid));
  await release();
});

test("a live process's pid file is refused and left alone", async () => {
  const live = String(process.ppid);
  writeFileSync(pidFile(), live);
  await assert.rejects(
    store.acquireWriterLock(),
    (e: unknown) => e instanceof WriterLockError && e.message.includes(`in use by process ${live}`),
  );
  assert.equal(readFileSync(pidFile(), 'utf8'), live);
  rmSync(pidFile());
});
