// The embedded store's template (src/store/pglite-template.ts): a first open unpacks the build's
// migrated data directory instead of running initdb, the result is a normal database that reopens
// as one, and a template this PGlite cannot read falls back to initdb.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { listMigrations } from '../../src/store/migrations.ts';
import { PgliteStore } from '../../src/store/pglite-store.ts';
import { unpackTemplate } from '../../src/store/pglite-template.ts';

const dir = mkdtempSync(join(tmpdir(), 'tickbook-template-'));
const template = join(dir, 'template.tar.gz');
after(() => rmSync(dir, { recursive: true, force: true }));

before(async () => {
  const { bytes } = await PgliteStore.buildTemplate(template);
  assert.ok(bytes > 100_000, `template of ${bytes} bytes`);
});

test('a first open unpacks the template: migrated, writable, and it reopens as an existing database', async () => {
  const pg = join(dir, 'a', 'pg');
  const store = await PgliteStore.open(pg, { template });
  try {
    assert.equal(store.createdFrom, 'template');
    assert.ok(PgliteStore.exists(pg));
    assert.deepEqual(
      await store.appliedMigrations(),
      listMigrations().map((m) => m.name),
    );
    assert.deepEqual(await store.pendingMigrations(), []);
    assert.deepEqual(await store.migrate(), []);
    await store.exec('CREATE TABLE t (x int)');
    await store.query('INSERT INTO t VALUES ($1)', [42]);
    // The memory settings the store starts PGlite with (docs/packaging.md, "Memory").
    const sb = await store.query<{ shared_buffers: string }>('SHOW shared_buffers');
    assert.equal(sb.rows[0]?.shared_buffers, '16MB');
  } finally {
    await store.close();
  }
  const again = await PgliteStore.open(pg, { template });
  try {
    assert.equal(again.createdFrom, 'existing');
    const r = await again.query<{ x: number }>('SELECT x FROM t');
    assert.deepEqual(r.rows, [{ x: 42 }]);
  } finally {
    await again.close();
  }
});

test('an unreadable template falls back to initdb in an emptied directory', async () => {
  const bad = join(dir, 'bad.tar.gz');
  writeFileSync(bad, 'not a tarball');
  const pg = join(dir, 'b', 'pg');
  const store = await PgliteStore.open(pg, { template: bad });
  try {
    assert.equal(store.createdFrom, 'initdb');
    assert.deepEqual(
      await store.migrate(),
      listMigrations().map((m) => m.name),
    );
  } finally {
    await store.close();
  }
});

test('a start killed while unpacking leaves no database, and its leftovers go at the next start', async () => {
  const parent = join(dir, 'c');
  const pg = join(parent, 'pg');
  // What a killed start leaves: the empty data directory and a half-written sibling whose
  // process is gone (pids above the kernel's maximum, 2^22, never run).
  const stale = join(parent, `.pg.unpacking-${2 ** 22 + 1}`);
  mkdirSync(join(stale, 'base'), { recursive: true });
  writeFileSync(join(stale, 'PG_VERSION'), '17\n');
  mkdirSync(pg, { recursive: true });
  assert.equal(PgliteStore.exists(pg), false);
  const store = await PgliteStore.open(pg, { template });
  try {
    assert.equal(store.createdFrom, 'template');
    assert.equal(existsSync(stale), false);
    assert.deepEqual(await store.pendingMigrations(), []);
  } finally {
    await store.close();
  }
});

test('a template whose tar header checksum does not match is refused and leaves nothing', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'tb-tpl-bad-'));
  const dataDir = join(scratch, 'pg');
  mkdirSync(dataDir);
  const tar = gunzipSync(readFileSync(template));
  const bad = Buffer.from(tar);
  bad[0] = bad[0]! ^ 1; // first entry's name: its header checksum no longer matches
  try {
    assert.throws(() => unpackTemplate(gzipSync(bad), dataDir));
    assert.deepEqual(readdirSync(dataDir), []);
    assert.deepEqual(readdirSync(scratch), ['pg']);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
