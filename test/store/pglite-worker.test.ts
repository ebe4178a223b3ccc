// PGlite on a worker thread (src/store/pglite-worker.ts): database errors keep their SQLSTATE and
// fields across the thread, interactive transactions keep the Store contract and PGlite's
// serialization, a dead thread fails its callers at once, and the thread never holds a process
// open. The whole store contract runs on the worker too (test/store/contract.test.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/index.ts';
import { PgliteStore } from '../../src/store/pglite-store.ts';
import { type PgliteWorker, PgliteWorkerGoneError } from '../../src/store/pglite-worker.ts';
import { openTestStore, pgliteTemplate, type TestStore } from '../helpers/store.ts';

/** A PgliteStore (worker thread) on a private copy of the migrated test template. */
async function openCopy(): Promise<{ store: PgliteStore; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'tickbook-pgworker-'));
  cpSync(await pgliteTemplate(), join(dir, 'pg'), { recursive: true });
  const store = await PgliteStore.open(join(dir, 'pg'), { thread: 'worker' });
  return { store, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('PGlite on a worker thread', () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore('pglite', { thread: 'worker' });
    await store.exec('CREATE TABLE worker_probe (id text PRIMARY KEY, n integer CHECK (n >= 0))');
  });
  after(async () => {
    await store?.close();
  });

  test('the store runs on the worker when asked', async () => {
    const { store: s, cleanup } = await openCopy();
    try {
      assert.equal(s.thread, 'worker');
      assert.deepEqual((await s.query('SELECT 1 AS one')).rows, [{ one: 1 }]);
      await s.close();
    } finally {
      cleanup();
    }
  });

  test("a database error's SQLSTATE, constraint and detail cross the thread", async () => {
    await store.query('INSERT INTO worker_probe (id, n) VALUES ($1, $2)', ['dup', 1]);
    const err = await store.query('INSERT INTO worker_probe (id, n) VALUES ($1, $2)', ['dup', 2]).then(
      () => assert.fail('a duplicate key must fail'),
      (e: unknown) => e as Error & Record<string, unknown>,
    );
    assert.ok(err instanceof Error);
    assert.equal(err.code, '23505'); // unique_violation
    assert.equal(err.constraint, 'worker_probe_pkey');
    assert.equal(err.table, 'worker_probe');
    assert.match(String(err.detail), /Key \(id\)=\(dup\) already exists/);
    assert.equal(err.severity, 'ERROR');
    assert.match(err.message, /duplicate key value violates unique constraint "worker_probe_pkey"/);
    // Inside a transaction too, and through exec.
    const inTx = (await store
      .transaction((tx) => tx.query('INSERT INTO worker_probe (id, n) VALUES ($1, $2)', ['neg', -1]))
      .catch((e: unknown) => e)) as Record<string, unknown>;
    assert.equal(inTx.code, '23514'); // check_violation
    assert.equal(inTx.constraint, 'worker_probe_n_check');
    const syntax = (await store.exec('SELEC 1').catch((e: unknown) => e)) as Record<string, unknown>;
    assert.equal(syntax.code, '42601'); // syntax_error
    assert.equal(await store.ping(), true);
  });

  test('a transaction is rolled back when fn throws, with fn’s error', async () => {
    const boom = new Error('abort after two statements');
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.query('INSERT INTO worker_probe (id, n) VALUES ($1, $2)', ['rb1', 1]);
        await tx.query('UPDATE worker_probe SET n = n + 100 WHERE id = $1', ['dup']);
        throw boom;
      }),
      (e) => e === boom,
    );
    const r = await store.query<{ id: string; n: number }>(
      "SELECT id, n FROM worker_probe WHERE id IN ('rb1', 'dup') ORDER BY id",
    );
    assert.deepEqual(r.rows, [{ id: 'dup', n: 1 }]);
    // The connection is usable again, and a committed transaction returns fn's value.
    const v = await store.transaction(async (tx) => {
      await tx.query('INSERT INTO worker_probe (id, n) VALUES ($1, $2)', ['ok1', 1]);
      return (await tx.query<{ c: number }>('SELECT count(*)::int AS c FROM worker_probe')).rows[0]!.c;
    });
    assert.equal(v, 2);
  });

  test('a query issued while a transaction is open waits for it to end', async () => {
    const order: string[] = [];
    let outside: Promise<unknown> | undefined;
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.query('INSERT INTO worker_probe (id, n) VALUES ($1, $2)', ['in-tx', 1]);
        outside = store
          .query('INSERT INTO worker_probe (id, n) VALUES ($1, $2)', ['outside', 1])
          .then(() => order.push('outside'));
        // Long enough for the outside statement to have run, had it not been made to wait.
        await new Promise((r) => setTimeout(r, 150));
        await tx.query('SELECT 1');
        order.push('tx done');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    await outside;
    assert.deepEqual(order, ['tx done', 'outside']);
    // The outside statement ran after the rollback, not inside the transaction.
    const r = await store.query<{ id: string }>(
      "SELECT id FROM worker_probe WHERE id IN ('in-tx', 'outside') ORDER BY id",
    );
    assert.deepEqual(
      r.rows.map((x) => x.id),
      ['outside'],
    );
  });

  test('a statement on a finished transaction fails', async () => {
    let kept: { query: (sql: string) => Promise<unknown> } | undefined;
    await store.transaction(async (tx) => {
      kept = tx;
    });
    await assert.rejects(kept!.query('SELECT 1'), /Transaction is closed/);
  });
});

describe('a dead worker', () => {
  test('rejects every pending call, fails later calls at once, and ping is false', async () => {
    const { store: s, cleanup } = await openCopy();
    try {
      const slow = s.query('SELECT pg_sleep(5)');
      const queued = s.query('SELECT 1');
      const open = s.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await new Promise((r) => setTimeout(r, 5_000));
      });
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      // As a crash would: the thread ends under the calls it holds.
      await (s as unknown as { db: PgliteWorker }).db.kill();
      for (const p of [slow, queued, open]) {
        await assert.rejects(
          p,
          (e) => e instanceof PgliteWorkerGoneError && /SQL thread exited/.test(e.message),
        );
      }
      assert.ok(Date.now() - t0 < 2_000, 'pending calls are rejected when the thread dies, not after');
      const t1 = Date.now();
      await assert.rejects(s.query('SELECT 1'), PgliteWorkerGoneError);
      await assert.rejects(s.exec('SELECT 1'), PgliteWorkerGoneError);
      await assert.rejects(
        s.transaction(async () => {}),
        PgliteWorkerGoneError,
      );
      assert.equal(await s.ping(), false);
      assert.ok(Date.now() - t1 < 100, 'later calls fail fast');
      await s.close(); // nothing left to close: no error
    } finally {
      cleanup();
    }
  });

  test('a closed store fails later calls with a clear error', async () => {
    const { store: s, cleanup } = await openCopy();
    try {
      await s.close();
      await s.close();
      assert.equal(await s.ping(), false);
      await assert.rejects(s.query('SELECT 1'), /the embedded store is closed/);
    } finally {
      cleanup();
    }
  });
});

test('the worker never holds a process open, yet a pending call completes', async () => {
  const template = await pgliteTemplate();
  // A script that queries and never closes its store: the answer arrives (the thread is held while
  // a call waits) and the process then ends by itself (the idle thread is not).
  const dir = mkdtempSync(join(tmpdir(), 'tickbook-pgworker-'));
  try {
    cpSync(template, join(dir, 'pg'), { recursive: true });
    const script = join(dir, 'child.mts');
    const storeModule = fileURLToPath(new URL('../../src/store/pglite-store.ts', import.meta.url));
    writeFileSync(
      script,
      `import { PgliteStore } from ${JSON.stringify(storeModule)};
const s = await PgliteStore.open(${JSON.stringify(join(dir, 'pg'))}, { thread: 'worker' });
s.query('SELECT pg_sleep(0.3) IS NULL AS slept').then((r) => console.log(JSON.stringify(r.rows)));
`,
    );
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(r.signal, null, 'the child was not killed by the timeout');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), '[{"slept":false}]');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('openStore puts the SQL where EMBEDDED_SQL_THREAD says', async () => {
  for (const thread of ['worker', 'main'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'tickbook-pgworker-'));
    try {
      cpSync(await pgliteTemplate(), join(dir, 'pg'), { recursive: true });
      const s = await openStore({ ...loadConfig({ DATA_DIR: dir, EMBEDDED_SQL_THREAD: thread }) });
      try {
        assert.ok(s instanceof PgliteStore);
        assert.equal(s.thread, thread);
        assert.equal(s.createdFrom, 'existing');
        assert.equal(await s.ping(), true);
      } finally {
        await s.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test("the in-thread backend (EMBEDDED_SQL_THREAD=main; PgliteStore.open's default) keeps the same contract", async () => {
  const s = await PgliteStore.open(undefined);
  try {
    assert.equal(s.thread, 'main');
    await s.exec('CREATE TABLE t (id int PRIMARY KEY)');
    await assert.rejects(
      s.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES (1)');
        throw new Error('no');
      }),
      /no/,
    );
    const dup = (await s
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES (2)');
        await tx.query('INSERT INTO t VALUES (2)');
      })
      .catch((e: unknown) => e)) as Record<string, unknown>;
    assert.equal(dup.code, '23505');
    assert.deepEqual((await s.query('SELECT count(*)::int AS c FROM t')).rows, [{ c: 0 }]);
  } finally {
    await s.close();
  }
});
