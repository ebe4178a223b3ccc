// The store contract (principle 6 of docs/architecture.md "Principles": two stores, one schema), run against every kind in
// storeKinds(): PGlite always, PostgreSQL when DATABASE_URL is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  appendCommands,
  journalTail,
  listSnapshots,
  readJournal,
  readSnapshot,
  writeSnapshot,
} from '../../src/journal/journal-store.ts';
import { listMigrations } from '../../src/store/migrations.ts';
import type { PgliteThread } from '../../src/store/pglite-store.ts';
import type { StoreKind } from '../../src/store/types.ts';
import { openTestStore, storeKinds, type TestStore } from '../helpers/store.ts';

// PGlite twice: in the server's thread and on a worker thread (EMBEDDED_SQL_THREAD, the server's default).
interface Variant {
  kind: StoreKind;
  thread?: PgliteThread;
  name: string;
}
const variants = storeKinds().flatMap((kind): Variant[] =>
  kind === 'pglite'
    ? [
        { kind, thread: 'main', name: 'pglite' },
        { kind, thread: 'worker', name: 'pglite on a worker thread' },
      ]
    : [{ kind, name: kind }],
);

for (const { kind, thread, name } of variants) {
  describe(`store contract: ${name}`, () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(kind, { thread });
      await store.exec(
        'CREATE TABLE contract_probe (id text PRIMARY KEY, n bigint, doc jsonb, bin bytea, t text)',
      );
    });
    after(async () => {
      await store?.close();
    });

    test('every migration is applied and migrating again is a no-op', async () => {
      const applied = await store.appliedMigrations();
      assert.deepEqual(
        applied,
        listMigrations().map((m) => m.name),
      );
      assert.deepEqual(await store.migrate(), []);
      assert.deepEqual(await store.appliedMigrations(), applied);
      assert.deepEqual(await store.pendingMigrations(), []);
    });

    test('ping answers', async () => {
      assert.equal(await store.ping(), true);
    });

    test('parameters round-trip: text, bigint as number, jsonb, bytea', async () => {
      const bin = new Uint8Array([0, 1, 2, 254, 255]);
      const doc = { a: 1, b: [true, null, 'x'], c: { d: 'é€' } };
      const big = 9_007_199_254_740_991; // Number.MAX_SAFE_INTEGER
      await store.query('INSERT INTO contract_probe (id, n, doc, bin, t) VALUES ($1, $2, $3, $4, $5)', [
        'r1',
        big,
        JSON.stringify(doc),
        bin,
        'it\'s "quoted" \\ and unicode ✓',
      ]);
      const r = await store.query<{ id: string; n: number; doc: unknown; bin: Uint8Array; t: string }>(
        'SELECT id, n, doc, bin, t FROM contract_probe WHERE id = $1',
        ['r1'],
      );
      assert.equal(r.rows.length, 1);
      const row = r.rows[0]!;
      assert.equal(row.id, 'r1');
      assert.equal(typeof row.n, 'number');
      assert.equal(row.n, big);
      assert.deepEqual(row.doc, doc);
      assert.ok(row.bin instanceof Uint8Array);
      assert.deepEqual([...row.bin], [...bin]);
      assert.equal(row.t, 'it\'s "quoted" \\ and unicode ✓');
      const c = await store.query<{ c: number }>('SELECT count(*)::bigint AS c FROM contract_probe');
      assert.equal(c.rows[0]!.c, 1);
    });

    test('affectedRows is reported for writes', async () => {
      const r = await store.query('UPDATE contract_probe SET t = $1 WHERE id = $2', ['u', 'r1']);
      assert.equal(r.affectedRows, 1);
    });

    test('transaction commits when fn resolves and returns its value', async () => {
      const out = await store.transaction(async (tx) => {
        await tx.query('INSERT INTO contract_probe (id, n) VALUES ($1, $2)', ['tx-ok', 1]);
        await tx.query('INSERT INTO contract_probe (id, n) VALUES ($1, $2)', ['tx-ok2', 2]);
        return 'done';
      });
      assert.equal(out, 'done');
      const r = await store.query<{ id: string }>(
        "SELECT id FROM contract_probe WHERE id LIKE 'tx-ok%' ORDER BY id",
      );
      assert.deepEqual(
        r.rows.map((x) => x.id),
        ['tx-ok', 'tx-ok2'],
      );
    });

    test('transaction rolls back every statement when fn throws', async () => {
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.query('INSERT INTO contract_probe (id, n) VALUES ($1, $2)', ['tx-bad', 1]);
          throw new Error('abort');
        }),
        /abort/,
      );
      // A failing statement inside rolls back the earlier ones too.
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.query('INSERT INTO contract_probe (id, n) VALUES ($1, $2)', ['tx-bad2', 1]);
          await tx.query('INSERT INTO contract_probe (id, n) VALUES ($1, $2)', ['r1', 1]); // duplicate key
        }),
      );
      const r = await store.query("SELECT id FROM contract_probe WHERE id LIKE 'tx-bad%'");
      assert.equal(r.rows.length, 0);
      assert.equal(await store.ping(), true);
    });

    test('journal: append in one statement, read in order and in pages, tail', async () => {
      assert.deepEqual(await journalTail(store), { seq: 0, ts: 0 });
      const cmds = Array.from({ length: 25 }, (_, i) => ({
        type: 'Deposit',
        accountId: `a'${i}"\\`,
        amount: 2 ** 40 + i,
        ts: 1_700_000_000_000 + i,
      }));
      await store.transaction((tx) => appendCommands(tx, 1, cmds.slice(0, 10)));
      await store.transaction((tx) => appendCommands(tx, 11, cmds.slice(10)));
      assert.deepEqual(await journalTail(store), { seq: 25, ts: 1_700_000_000_024 });
      const all = await readJournal<(typeof cmds)[number]>(store, 0, 100);
      assert.deepEqual(
        all.map((r) => r.seq),
        Array.from({ length: 25 }, (_, i) => i + 1),
      );
      assert.deepEqual(
        all.map((r) => r.cmd),
        cmds,
      );
      assert.equal(all[3]!.ts, cmds[3]!.ts);
      const page = await readJournal(store, 10, 5);
      assert.deepEqual(
        page.map((r) => r.seq),
        [11, 12, 13, 14, 15],
      );
      const bounded = await readJournal(store, 20, 100, 22);
      assert.deepEqual(
        bounded.map((r) => r.seq),
        [21, 22],
      );
      // A seq already taken fails the whole batch: no silent interleaving of two writers.
      await assert.rejects(store.transaction((tx) => appendCommands(tx, 25, [{ ts: 1 }, { ts: 2 }])));
      assert.equal((await journalTail(store)).seq, 25);
      // Stored as the sequencer serialized it (json text, key order kept) and readable with SQL.
      const raw = await store.query<{ t: string; type: string }>(
        "SELECT cmd::text AS t, cmd->>'type' AS type FROM journal WHERE seq = 1",
      );
      assert.deepEqual(raw.rows[0], { t: JSON.stringify(cmds[0]), type: 'Deposit' });
    });

    test('journal: pages across a gap in the seqs return the rows that exist, in order', async () => {
      // A gap never happens in a healthy journal; recovery must still see it to report it.
      await store.exec('DELETE FROM journal');
      const cmd = (seq: number) => ({ type: 'Deposit', n: seq, ts: 1_000 + seq });
      await appendCommands(store, 1, [1, 2, 3, 4, 5].map(cmd));
      await appendCommands(store, 8, [8, 9, 10].map(cmd));
      const seqs = async (after: number, limit: number, to?: number) =>
        (await readJournal<ReturnType<typeof cmd>>(store, after, limit, to)).map((r) => {
          assert.equal(r.cmd.n, r.seq);
          assert.equal(r.ts, 1_000 + r.seq);
          return r.seq;
        });
      assert.deepEqual(await seqs(0, 100), [1, 2, 3, 4, 5, 8, 9, 10]);
      assert.deepEqual(await seqs(0, 5), [1, 2, 3, 4, 5]);
      assert.deepEqual(await seqs(3, 3), [4, 5, 8]);
      assert.deepEqual(await seqs(5, 2), [8, 9]);
      assert.deepEqual(await seqs(3, 100, 8), [4, 5, 8]);
      assert.deepEqual(await seqs(5, 100, 7), []);
      assert.deepEqual(await seqs(10, 100), []);
      await store.exec('DELETE FROM journal');
    });

    test('journal: a guarded append inserts every row while the guard holds, none when it does not', async () => {
      await store.exec('DELETE FROM journal');
      await store.exec('CREATE TABLE IF NOT EXISTS contract_guard (id int PRIMARY KEY, epoch int NOT NULL)');
      await store.exec('DELETE FROM contract_guard');
      await store.exec('INSERT INTO contract_guard (id, epoch) VALUES (1, 7)');
      // onAppended's side effect, counted: a sequence advanced once per append that inserted.
      await store.exec('DROP SEQUENCE IF EXISTS contract_bell; CREATE SEQUENCE contract_bell');
      const rang = async () =>
        Number(
          (
            await store.query<{ n: number | string }>(
              'SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM contract_bell',
            )
          ).rows[0]!.n,
        );
      class Refused extends Error {}
      // The shape of the leader's fencing (src/cluster/leader-row.ts): a row lock on the guard row.
      const guard = (epoch: number) => ({
        sql: 'SELECT id FROM contract_guard WHERE id = 1 AND epoch = $3 FOR SHARE',
        params: [epoch],
        onAppended: "nextval('contract_bell')",
        refused: () => new Refused(`epoch ${epoch} moved`),
      });
      const cmd = (seq: number) => ({ type: 'Deposit', n: seq, ts: 1_000 + seq });
      await appendCommands(store, 1, [1, 2, 3].map(cmd), guard(7));
      assert.equal(await rang(), 1);
      await assert.rejects(appendCommands(store, 4, [4, 5].map(cmd), guard(6)), Refused);
      await assert.rejects(
        store.transaction((tx) => appendCommands(tx, 4, [4, 5].map(cmd), guard(8))),
        Refused,
      );
      assert.deepEqual(
        (await readJournal<ReturnType<typeof cmd>>(store, 0, 100)).map((r) => r.cmd.n),
        [1, 2, 3],
      );
      assert.equal(await rang(), 1, 'a refused append does not evaluate onAppended');
      await appendCommands(store, 4, [4].map(cmd), guard(7));
      assert.equal((await journalTail(store)).seq, 4);
      assert.equal(await rang(), 2);
      await store.exec('DELETE FROM journal');
    });

    test('journal: migration 006 turns jsonb commands written before it into json', async () => {
      await store.exec('DELETE FROM journal');
      await store.exec('ALTER TABLE journal ALTER COLUMN cmd TYPE jsonb USING cmd::jsonb');
      const cmds = [
        { type: 'PlaceOrder', price: 455, accountId: 'a"\\', ts: 7 },
        { type: 'Expire', ts: 8 },
      ];
      // The append statement as it was before 006.
      await store.query(
        `INSERT INTO journal (seq, ts, cmd) SELECT $1::bigint + (x.o - 1), (x.c->>'ts')::bigint, x.c
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(c, o)`,
        [1, JSON.stringify(cmds)],
      );
      const m = listMigrations().find((x) => x.name === '006_journal_json');
      assert.ok(m !== undefined);
      await store.exec(m.sql);
      const type = await store.query<{ t: string }>(
        "SELECT data_type AS t FROM information_schema.columns WHERE table_name = 'journal' AND column_name = 'cmd' AND table_schema = current_schema()",
      );
      assert.equal(type.rows[0]!.t, 'json');
      assert.deepEqual(
        (await readJournal(store, 0, 10)).map((r) => [r.seq, r.ts, r.cmd]),
        [
          [1, 7, cmds[0]],
          [2, 8, cmds[1]],
        ],
      );
      const later = { type: 'Expire', ts: 9 };
      await appendCommands(store, 3, [later]);
      assert.deepEqual((await journalTail(store)).seq, 3);
      await store.exec('DELETE FROM journal');
    });

    test('snapshots: write, read back bytes and hash, keep only the newest two', async () => {
      const bytes = (n: number) => new Uint8Array([n, 0, 255, n]);
      await writeSnapshot(store, { seq: 5, hash: 'h5', state: bytes(5) });
      await writeSnapshot(store, { seq: 10, hash: 'h10', state: bytes(10) });
      await writeSnapshot(store, { seq: 15, hash: 'h15', state: bytes(15) });
      assert.deepEqual(await listSnapshots(store), [
        { seq: 15, hash: 'h15' },
        { seq: 10, hash: 'h10' },
      ]);
      const s = await readSnapshot(store, 15);
      assert.ok(s !== undefined);
      assert.equal(s.constructor, Object);
      assert.equal(s.state.constructor, Uint8Array);
      assert.deepEqual(s, { seq: 15, hash: 'h15', state: bytes(15) });
      assert.equal(await readSnapshot(store, 5), undefined);
      // Writing the same seq again replaces it (a retried close()).
      await writeSnapshot(store, { seq: 15, hash: 'h15b', state: bytes(16) });
      assert.equal((await readSnapshot(store, 15))?.hash, 'h15b');
    });
  });
}
