import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { appendCommands, listSnapshots, readJournal, readSnapshot } from '../../src/journal/journal-store.ts';
import { RecoveryError, recover } from '../../src/journal/recover.ts';
import { type CommittedBatch, Sequencer, SequencerStoppedError } from '../../src/journal/sequencer.ts';
import type { Queryable, QueryResult, Store } from '../../src/store/types.ts';
import { openTestStore, type TestStore } from '../helpers/store.ts';
import { type LedgerCmd, LedgerMachine, type LedgerResult, ledgerAccepted } from './ledger-machine.ts';

/** Counts journal appends (one statement per group commit) and can fail them (a lost database). */
function instrumented(inner: Store): Store & { txCount: number; failFrom: number } {
  const count = (sql: string): Error | undefined => {
    if (!/^\s*INSERT INTO journal/.test(sql)) return undefined;
    s.txCount++;
    return s.txCount >= s.failFrom ? new Error('connection lost') : undefined;
  };
  const s = {
    kind: inner.kind,
    txCount: 0,
    failFrom: Number.POSITIVE_INFINITY,
    exec: inner.exec.bind(inner),
    migrate: inner.migrate.bind(inner),
    appliedMigrations: inner.appliedMigrations.bind(inner),
    pendingMigrations: inner.pendingMigrations.bind(inner),
    ping: inner.ping.bind(inner),
    close: inner.close.bind(inner),
    query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      const err = count(sql);
      return err === undefined ? inner.query<T>(sql, params) : Promise.reject(err);
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return inner.transaction((tx) =>
        fn({
          query<U>(sql: string, params?: readonly unknown[]): Promise<QueryResult<U>> {
            const err = count(sql);
            return err === undefined ? tx.query<U>(sql, params) : Promise.reject(err);
          },
        }),
      );
    },
  };
  return s;
}

describe('Sequencer', () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore('pglite');
  });
  after(async () => {
    await store?.close();
  });
  beforeEach(async () => {
    await store.exec('TRUNCATE journal; TRUNCATE snapshots');
  });

  test('accepted commands get consecutive seqs and are journaled; rejected ones are answered and skipped', async () => {
    const m = new LedgerMachine();
    let now = 1000;
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(m, ledgerAccepted, store, () => now++);
    const r1 = await seqr.submit({ type: 'Add', key: 'a', n: 5 });
    const bad = await seqr.submit({ type: 'Add', key: 'a', n: -1 });
    const r2 = await seqr.submit({ type: 'Add', key: 'b', n: 7 });
    assert.deepEqual(r1, { ok: true, balance: 5 });
    assert.deepEqual(bad, { ok: false, code: 'INVALID_AMOUNT' });
    assert.deepEqual(r2, { ok: true, balance: 7 });
    assert.equal(seqr.committedSeq, 2);
    const rows = await readJournal<LedgerCmd>(store, 0, 100);
    assert.deepEqual(
      rows.map((r) => [r.seq, r.cmd.type === 'Add' ? r.cmd.key : '', r.ts]),
      [
        [1, 'a', 1000],
        [2, 'b', 1002],
      ],
    );
    assert.equal(rows[1]!.cmd.ts, rows[1]!.ts);
  });

  test('the promise resolves only after the commit: committedSeq covers it by then', async () => {
    const m = new LedgerMachine();
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(m, ledgerAccepted, store);
    const p = seqr.submit({ type: 'Add', key: 'a', n: 1 });
    // Applied synchronously (state is ahead), not yet durable.
    assert.equal(m.balances.get('a'), 1);
    assert.equal(seqr.appliedSeq, 1);
    assert.equal(seqr.committedSeq, 0);
    await p;
    assert.equal(seqr.committedSeq, 1);
    assert.equal((await readJournal(store, 0, 10)).length, 1);
  });

  test('group commit: concurrent submits share commits; listeners see contiguous ranges in order', async () => {
    const inner = instrumented(store);
    const m = new LedgerMachine();
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(m, ledgerAccepted, inner);
    const batches: CommittedBatch<LedgerCmd, LedgerResult>[] = [];
    seqr.onCommitted((b) => batches.push(b));
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => seqr.submit({ type: 'Add', key: `k${i % 7}`, n: i + 1 })),
    );
    assert.equal(results.length, 300);
    // The commit loop lets the event loop turn before forming a batch, so a burst submitted in
    // one tick shares a single commit.
    assert.ok(inner.txCount < 300, `expected fewer commits than commands, got ${inner.txCount}`);
    assert.ok(inner.txCount >= 1);
    assert.equal(
      batches.reduce((n, b) => n + b.commands.length, 0),
      300,
    );
    let next = 1;
    for (const b of batches) {
      assert.equal(b.firstSeq, next);
      assert.equal(b.lastSeq, b.firstSeq + b.commands.length - 1);
      assert.equal(b.results.length, b.commands.length);
      next = b.lastSeq + 1;
    }
    const rows = await readJournal<LedgerCmd>(store, 0, 1000);
    assert.deepEqual(
      rows.map((r) => r.seq),
      Array.from({ length: 300 }, (_, i) => i + 1),
    );
  });

  test('maxBatch splits a large burst into several commits', async () => {
    const inner = instrumented(store);
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(
      new LedgerMachine(),
      ledgerAccepted,
      inner,
      Date.now,
      {
        maxBatch: 10,
      },
    );
    const cmds = Array.from({ length: 35 }, (_, i) => ({ type: 'Add' as const, key: 'k', n: i + 1 }));
    const res = await seqr.submitMany(cmds);
    assert.equal(res.length, 35);
    assert.equal(inner.txCount, 4);
  });

  test('submitMany returns one result per command, rejected ones included, in one commit', async () => {
    const inner = instrumented(store);
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(new LedgerMachine(), ledgerAccepted, inner);
    const res = await seqr.submitMany([
      { type: 'Add', key: 'x', n: 1 },
      { type: 'Add', key: 'x', n: 0 },
      { type: 'Add', key: 'x', n: 2 },
    ]);
    assert.deepEqual(res, [
      { ok: true, balance: 1 },
      { ok: false, code: 'INVALID_AMOUNT' },
      { ok: true, balance: 3 },
    ]);
    assert.equal(inner.txCount, 1);
    assert.equal(seqr.committedSeq, 2);
  });

  test('ts is stamped from the clock and never runs backwards', async () => {
    const clock = [5000, 4000, 6000, 5500];
    let i = 0;
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(new LedgerMachine(), ledgerAccepted, store, () => {
      const t = clock[i++];
      if (t === undefined) throw new Error('the test clock ran out of readings');
      return t;
    });
    for (let k = 0; k < 4; k++) await seqr.submit({ type: 'Add', key: 'a', n: 1 });
    const rows = await readJournal<LedgerCmd>(store, 0, 10);
    assert.deepEqual(
      rows.map((r) => r.ts),
      [5000, 5000, 6000, 6000],
    );
  });

  test('fail-stop: a failed commit rejects pending and later commands and emits fatal', async () => {
    const inner = instrumented(store);
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(new LedgerMachine(), ledgerAccepted, inner);
    await seqr.submit({ type: 'Add', key: 'a', n: 1 });
    inner.failFrom = inner.txCount + 1;
    let fatal: unknown;
    seqr.on('fatal', (e) => {
      fatal = e;
    });
    const a = seqr.submit({ type: 'Add', key: 'a', n: 2 });
    const b = seqr.submit({ type: 'Add', key: 'a', n: 3 }); // waits behind a's commit
    await assert.rejects(a, SequencerStoppedError);
    await assert.rejects(b, SequencerStoppedError);
    assert.ok(fatal instanceof SequencerStoppedError);
    assert.match((fatal as Error).message, /restart from the journal/);
    assert.equal(seqr.stopped, true);
    // A rejected command would be answered at once; after the stop even that is refused.
    await assert.rejects(seqr.submit({ type: 'Add', key: 'a', n: -1 }), SequencerStoppedError);
    await assert.rejects(seqr.submitMany([{ type: 'Add', key: 'a', n: 1 }]), SequencerStoppedError);
    assert.equal(seqr.committedSeq, 1);
    // The journal holds exactly what was acknowledged.
    assert.equal((await readJournal(store, 0, 10)).length, 1);
  });

  test('fail-stop: a state machine that throws stops the sequencer', async () => {
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(new LedgerMachine(), ledgerAccepted, store);
    const inFlight = seqr.submit({ type: 'Add', key: 'a', n: 1 });
    // One turn of the event loop: the commit loop forms its batch and starts the commit.
    await new Promise((r) => setImmediate(r));
    const waiting = seqr.submit({ type: 'Add', key: 'a', n: 2 }); // waits for the next commit
    // Handled from the start: it may be refused while the in-flight commit is still awaited below
    // (on a store that answers from another thread that commit takes real event-loop turns).
    const waitingRefused = assert.rejects(waiting, SequencerStoppedError);
    await assert.rejects(seqr.submit({ type: 'Boom' }), SequencerStoppedError);
    // The command whose commit was already under way was applied before the fault: it is durable
    // and acknowledged. The one still waiting is refused (outcome: not journaled).
    assert.deepEqual(await inFlight, { ok: true, balance: 1 });
    await waitingRefused;
    assert.equal((await readJournal(store, 0, 10)).length, 1);
    await assert.rejects(seqr.submit({ type: 'Add', key: 'a', n: 1 }), SequencerStoppedError);
  });

  test('a machine numbering its own commands must agree with the journal seq', async () => {
    const m = Object.assign(new LedgerMachine(), {
      get lastSeq() {
        return 41;
      },
    });
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(m, ledgerAccepted, store, Date.now, { lastSeq: 0 });
    await assert.rejects(seqr.submit({ type: 'Add', key: 'a', n: 1 }), /wrong lastSeq/);
  });

  test('snapshots every N commands and on close; keeps the last two; recovery from any path agrees', async () => {
    const m = new LedgerMachine();
    let now = 0;
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(m, ledgerAccepted, store, () => ++now, {
      snapshotEvery: 10,
    });
    const taken: number[] = [];
    seqr.on('snapshot', (s: { seq: number }) => taken.push(s.seq));
    for (let i = 0; i < 45; i++) await seqr.submit({ type: 'Add', key: `k${i % 3}`, n: i + 1 });
    await seqr.close();
    assert.deepEqual(taken, [10, 20, 30, 40, 45]);
    const snaps = await listSnapshots(store);
    assert.deepEqual(
      snaps.map((s) => s.seq),
      [45, 40],
    );
    await assert.rejects(seqr.submit({ type: 'Add', key: 'a', n: 1 }), SequencerStoppedError);

    const live = m.hash();
    const fromSnap = await recover(store, () => new LedgerMachine(), { isAccepted: ledgerAccepted });
    assert.equal(fromSnap.snapshotSeq, 45);
    assert.equal(fromSnap.replayed, 0);
    assert.equal(fromSnap.lastSeq, 45);
    assert.equal(fromSnap.lastTs, 45);
    assert.equal(fromSnap.machine.hash(), live);

    const scratch = await recover(store, () => new LedgerMachine(), { fromScratch: true, pageSize: 7 });
    assert.equal(scratch.replayed, 45);
    assert.equal(scratch.machine.hash(), live);

    // Point in time: state after seq 40 from the older snapshot, and after 43 from snapshot 40 + tail.
    const at43 = await recover(store, () => new LedgerMachine(), { toSeq: 43 });
    assert.equal(at43.snapshotSeq, 40);
    assert.equal(at43.replayed, 3);
    const at43scratch = await recover(store, () => new LedgerMachine(), { toSeq: 43, fromScratch: true });
    assert.equal(at43.machine.hash(), at43scratch.machine.hash());
  });

  test('recovery reports a gap in the journal instead of skipping it', async () => {
    const add = (n: number) => ({ type: 'Add' as const, key: 'k', n, ts: n });
    await appendCommands(store, 1, [1, 2, 3].map(add));
    await appendCommands(store, 5, [5, 6].map(add));
    await assert.rejects(
      recover(store, () => new LedgerMachine(), { pageSize: 2 }),
      (err: unknown) => err instanceof RecoveryError && /journal gap: seq 5 follows 3/.test(err.message),
    );
    await assert.rejects(
      recover(store, () => new LedgerMachine()),
      RecoveryError,
    );
    const before = await recover(store, () => new LedgerMachine(), { toSeq: 3 });
    assert.equal(before.lastSeq, 3);
  });

  test('recovery skips a snapshot whose hash does not match and continues from the journal', async () => {
    const m = new LedgerMachine();
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(m, ledgerAccepted, store, Date.now, {
      snapshotEvery: 5,
    });
    for (let i = 0; i < 12; i++) await seqr.submit({ type: 'Add', key: 'k', n: 1 });
    await seqr.close();
    const newest = (await listSnapshots(store))[0]!;
    assert.equal(newest.seq, 12);
    await store.query('UPDATE snapshots SET hash = $1 WHERE seq = $2', ['bogus', newest.seq]);
    const r = await recover(store, () => new LedgerMachine());
    assert.equal(r.skippedSnapshots.length, 1);
    assert.equal(r.skippedSnapshots[0]!.seq, 12);
    assert.equal(r.snapshotSeq, 10);
    assert.equal(r.replayed, 2);
    assert.equal(r.machine.hash(), m.hash());
    const row = await readSnapshot(store, 10);
    assert.ok(row !== undefined && row.state instanceof Uint8Array);
  });

  test('a sequencer started from recover() continues the journal', async () => {
    const m = new LedgerMachine();
    const s1 = new Sequencer<LedgerCmd, LedgerResult>(m, ledgerAccepted, store, () => 100);
    await s1.submitMany([
      { type: 'Add', key: 'a', n: 1 },
      { type: 'Add', key: 'a', n: 2 },
    ]);
    await s1.close();
    const r = await recover(store, () => new LedgerMachine());
    const s2 = new Sequencer<LedgerCmd, LedgerResult>(r.machine, ledgerAccepted, store, () => 50, {
      lastSeq: r.lastSeq,
      lastTs: r.lastTs,
      lastSnapshotSeq: r.snapshotSeq,
    });
    assert.deepEqual(await s2.submit({ type: 'Add', key: 'a', n: 4 }), { ok: true, balance: 7 });
    const rows = await readJournal<LedgerCmd>(store, 0, 10);
    assert.deepEqual(
      rows.map((x) => [x.seq, x.ts]),
      [
        [1, 100],
        [2, 100],
        [3, 100],
      ],
    );
  });
  test('an append guard: batches append while it holds; refused, nothing of the batch is journaled (fail-stop)', async () => {
    await store.exec('CREATE TABLE IF NOT EXISTS seq_guard (id int PRIMARY KEY, epoch int NOT NULL)');
    await store.exec('DELETE FROM seq_guard');
    await store.exec('INSERT INTO seq_guard (id, epoch) VALUES (1, 1)');
    class Refused extends Error {}
    const guarded: number[] = [];
    const seqr = new Sequencer<LedgerCmd, LedgerResult>(
      new LedgerMachine(),
      ledgerAccepted,
      store,
      Date.now,
      {
        appendGuard: (lastSeq) => {
          guarded.push(lastSeq);
          return {
            sql: 'SELECT 1 FROM seq_guard WHERE id = 1 AND epoch = $3',
            params: [1],
            refused: () => new Refused('epoch moved'),
          };
        },
      },
    );
    await seqr.submitMany([
      { type: 'Add', key: 'a', n: 1 },
      { type: 'Add', key: 'a', n: 2 },
    ]);
    assert.equal(guarded.at(-1), 2, 'the guard is asked with the batch last seq');
    assert.equal((await readJournal(store, 0, 10)).length, 2);
    await store.exec('UPDATE seq_guard SET epoch = 2');
    const err = await seqr.submit({ type: 'Add', key: 'a', n: 3 }).then(
      () => assert.fail('a refused append must not be acknowledged'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof SequencerStoppedError);
    assert.ok((err as SequencerStoppedError).cause instanceof Refused, 'the guard refusal is the cause');
    assert.equal((await readJournal(store, 0, 10)).length, 2);
    await assert.rejects(seqr.submit({ type: 'Add', key: 'a', n: 4 }), SequencerStoppedError);
  });
});
