// Snapshots on the snapshot thread (src/journal/shadow-snapshots.ts, src/runtime/snapshot-worker.ts;
// docs/journal.md "Snapshots: a shadow state on a worker thread"): the thread's bytes are the
// in-line serialization's, byte for byte, at the same seq; no command waits for them; recovery
// from them reaches the live state's hash; a failed thread falls back to in-line snapshots and is
// started again from one. On the journal table (each store kind) and on segment files.

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult, StateMachine } from '../../src/exchange/types.ts';
import type { JournalBackend } from '../../src/journal/backend.ts';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { readSnapshot } from '../../src/journal/journal-store.ts';
import { recover } from '../../src/journal/recover.ts';
import { Sequencer, type SnapshotStats } from '../../src/journal/sequencer.ts';
import {
  type ShadowSnapshot,
  ShadowSnapshots,
  type ShadowThreadError,
} from '../../src/journal/shadow-snapshots.ts';
import { SnapshotHolding } from '../../src/journal/snapshot-holding.ts';
import { spawnSnapshotThread } from '../../src/runtime/snapshot-thread.ts';
import { openTestStore, storeKinds, type TestStore } from '../helpers/store.ts';
import { type Cmd, outcomeIds, rng, setupCommands, take, tradingCommands } from './workload.ts';

const SHAPE = { events: 6, marketsPerEvent: 3, accounts: 200 };
const accepted = (r: CommandResult) => r.ok;
const T0 = 1_800_000_000_000;

/** Trading interleaved with parlays: requests on two games' outcomes, a maker's quote, a wager. */
function stream(n: number, seed: number): Cmd[] {
  const trading = tradingCommands(SHAPE, seed);
  const outcomes = outcomeIds(SHAPE);
  const perEvent = SHAPE.marketsPerEvent * 2;
  const r = rng(seed + 7);
  const out: Cmd[] = [];
  for (let i = 0; out.length < n; i++) {
    out.push(trading.next().value as Cmd);
    if (i % 10 !== 0) continue;
    const e = Math.floor(r() * (SHAPE.events - 1));
    const requestId = `r-${seed}-${i}`;
    const taker = `w-acct-${Math.floor(r() * 100)}`;
    out.push(
      {
        type: 'ParlayRequest',
        requestId,
        accountId: taker,
        currency: 'CASH',
        legs: [
          { outcomeId: outcomes[e * perEvent]!, price: 500_000 },
          { outcomeId: outcomes[(e + 1) * perEvent + 1]!, price: 400_000 },
        ],
        refPrice: 200_000,
        stake: null,
        expiresAt: T0 + 10_000_000,
      },
      {
        type: 'ParlayQuote',
        quoteId: `q-${seed}-${i}`,
        requestId,
        accountId: `w-acct-${100 + Math.floor(r() * 100)}`,
        price: 210_000,
        maxQty: 5_000,
        expiresAt: T0 + 10_000_000,
      },
    );
    if (i % 20 === 0) {
      out.push({
        type: 'ParlayWager',
        requestId,
        accountId: taker,
        stake: 100_000 + i,
        maxPrice: 300_000,
        clientOrderId: null,
      });
    }
  }
  return out;
}

/** A snapshot thread whose threads the test can reach (to end one, as a crash would). */
function shadowThread(failures: ShadowThreadError[]): { shadow: ShadowSnapshots; threads: Worker[] } {
  const threads: Worker[] = [];
  const shadow = new ShadowSnapshots(
    () => {
      const w = spawnSnapshotThread();
      threads.push(w);
      return w;
    },
    (err) => failures.push(err),
  );
  return { shadow, threads };
}

interface Rig {
  live: Exchange;
  seqr: Sequencer<Command, CommandResult>;
  stats: SnapshotStats[];
  errors: unknown[];
  journal: JournalBackend | undefined;
}

function rig(
  store: TestStore,
  journal: JournalBackend | undefined,
  every: number,
  shadow: ShadowSnapshots | undefined,
): Rig {
  const live = new Exchange();
  let clock = T0;
  const machine: StateMachine<Command, CommandResult> & { readonly lastSeq: number } = {
    apply: (c) => live.apply(c),
    hash: () => live.hash(),
    snapshot: () => live.snapshot(),
    snapshotSlices: () => live.snapshotSlices(),
    restore: (b) => live.restore(b),
    get lastSeq() {
      return live.lastSeq;
    },
  };
  const seqr = new Sequencer<Command, CommandResult>(machine, accepted, store, () => (clock += 1), {
    snapshotEvery: every,
    ...(journal !== undefined ? { journal } : {}),
    ...(shadow !== undefined ? { shadow } : {}),
  });
  const stats: SnapshotStats[] = [];
  const errors: unknown[] = [];
  seqr.on('snapshot', (s: SnapshotStats) => stats.push(s));
  seqr.on('snapshotError', (e: unknown) => errors.push(e));
  return { live, seqr, stats, errors, journal };
}

/** Submits in chunks; returns how many of each command type were accepted. */
async function submitAll(
  seqr: Sequencer<Command, CommandResult>,
  cmds: Cmd[],
  chunk = 500,
): Promise<Map<string, number>> {
  const accepted = new Map<string, number>();
  for (let i = 0; i < cmds.length; i += chunk) {
    const part = cmds.slice(i, i + chunk);
    const results = await seqr.submitMany(part as never);
    results.forEach((r, k) => {
      if (r.ok) accepted.set(part[k]!.type, (accepted.get(part[k]!.type) ?? 0) + 1);
    });
  }
  return accepted;
}

async function storedBytes(
  store: TestStore,
  journal: JournalBackend | undefined,
  seq: number,
): Promise<Buffer> {
  const row = journal !== undefined ? await journal.readSnapshot(seq) : await readSnapshot(store, seq);
  assert.ok(row !== undefined, `snapshot ${seq} stored`);
  return Buffer.from(row.state);
}

/** The state after `seq`, replayed from the journal alone (no snapshot). */
async function replayedTo(
  store: TestStore,
  journal: JournalBackend | undefined,
  seq: number,
): Promise<Exchange> {
  const r = await recover<Command, CommandResult, Exchange>(store, () => new Exchange(), {
    fromScratch: true,
    toSeq: seq,
    isAccepted: accepted,
    ...(journal !== undefined ? { journal } : {}),
  });
  return r.machine;
}

const journals: { name: string; open: (dir: string) => Promise<JournalBackend | undefined> }[] = [
  { name: 'journal table', open: async () => undefined },
  { name: 'segment files', open: (dir) => FileJournal.open(join(dir, 'journal')) },
];

for (const kind of storeKinds()) {
  for (const j of journals) {
    if (kind === 'postgres' && j.name === 'segment files') continue; // segment files are the embedded store's
    describe(`snapshots on the snapshot thread (${kind}, ${j.name})`, () => {
      const cleanups: (() => Promise<void>)[] = [];
      after(async () => {
        for (const c of cleanups.reverse()) await c();
      });
      async function open(): Promise<{ store: TestStore; journal: JournalBackend | undefined }> {
        const store = await openTestStore(kind);
        const dir = mkdtempSync(join(tmpdir(), 'tickbook-shadow-'));
        const journal = await j.open(dir);
        cleanups.push(async () => {
          await journal?.close();
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        });
        return { store, journal };
      }

      test('every snapshot is the in-line one byte for byte, and recovery from one reaches the live hash', async () => {
        const { store, journal } = await open();
        const failures: ShadowThreadError[] = [];
        const { shadow } = shadowThread(failures);
        const r = rig(store, journal, 1_500, shadow);
        const cmds = [...setupCommands(SHAPE), ...stream(5_000, 1)];
        const took = await submitAll(r.seqr, cmds);
        await r.seqr.snapshotNow();
        assert.ok((took.get('ParlayWager') ?? 0) > 100, 'parlays were filled');
        const fin = r.stats[r.stats.length - 1]!;
        assert.equal(fin.seq, r.seqr.appliedSeq);
        // The final one against this very state serialized in line, in slices.
        const gen = r.live.snapshotSlices(500);
        let step = gen.next();
        while (!step.done) step = gen.next();
        assert.deepEqual(await storedBytes(store, journal, fin.seq), Buffer.from(step.value));
        // The newest two (the ones kept: a periodic one and the final) against the journal
        // replayed to their seq. A periodic one is due every 1,500 commands, and is skipped while
        // the one before is still being written, so how many were taken depends on the timing.
        assert.ok(r.stats.length >= 2, `${r.stats.length} snapshots`);
        for (const s of r.stats.slice(-2)) {
          assert.equal(s.thread, 'snapshot');
          assert.equal(s.heldMs, 0);
          const replayed = await replayedTo(store, journal, s.seq);
          assert.deepEqual(
            await storedBytes(store, journal, s.seq),
            Buffer.from(replayed.snapshot()),
            `seq ${s.seq}`,
          );
        }
        const older = r.stats[r.stats.length - 2]!;
        // Recovery: the newest snapshot, and the older one plus the journal tail, reach the live hash.
        const rec = await recover<Command, CommandResult, Exchange>(store, () => new Exchange(), {
          isAccepted: accepted,
          ...(journal !== undefined ? { journal } : {}),
        });
        assert.equal(rec.snapshotSeq, fin.seq);
        assert.equal(rec.machine.hash(), r.live.hash());
        const tail = await recover<Command, CommandResult, Exchange>(store, () => new Exchange(), {
          isAccepted: accepted,
          maxSnapshotSeq: older.seq,
          ...(journal !== undefined ? { journal } : {}),
        });
        assert.equal(tail.snapshotSeq, older.seq);
        assert.ok(tail.replayed > 0);
        assert.equal(tail.machine.hash(), r.live.hash());
        assert.deepEqual(failures, []);
        assert.deepEqual(r.errors, []);
        await r.seqr.close();
      });

      test('a command submitted while the thread serializes is applied and answered without waiting', async () => {
        const { store, journal } = await open();
        const failures: ShadowThreadError[] = [];
        // The thread's answer is released only once the command below has been answered: if the
        // command waited for the snapshot, neither would ever finish.
        let release!: () => void;
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        let asked!: () => void;
        const askedP = new Promise<void>((resolve) => {
          asked = resolve;
        });
        class Gated extends ShadowSnapshots {
          override async snapshot(): Promise<ShadowSnapshot> {
            const s = super.snapshot();
            asked();
            await released;
            return s;
          }
        }
        const shadow = new Gated(spawnSnapshotThread, (err) => failures.push(err));
        const r = rig(store, journal, Number.MAX_SAFE_INTEGER, shadow);
        await submitAll(r.seqr, [...setupCommands(SHAPE), ...stream(2_000, 2)]);
        const snap = r.seqr.snapshotNow();
        await askedP;
        const before = r.live.lastSeq;
        const cmd = take(tradingCommands(SHAPE, 99), 1)[0]!;
        const answer = r.seqr.submit(cmd as never);
        assert.equal(r.live.lastSeq, before + 1, 'applied at once, not held');
        const res = await answer;
        assert.equal(res.ok, true);
        assert.equal(r.stats.length, 0, 'answered before the snapshot was stored');
        release();
        await snap;
        assert.equal(r.stats.length, 1);
        assert.equal(r.stats[0]!.seq, before, 'the snapshot is the state before that command');
        const replayed = await replayedTo(store, journal, before);
        assert.deepEqual(await storedBytes(store, journal, before), Buffer.from(replayed.snapshot()));
        assert.deepEqual(failures, []);
        await r.seqr.close();
      });

      test('a thread that dies: snapshots go in line, a new thread starts from one, and all agree', async () => {
        const { store, journal } = await open();
        const failures: ShadowThreadError[] = [];
        const { shadow, threads } = shadowThread(failures);
        const r = rig(store, journal, 1_000, shadow);
        await submitAll(r.seqr, [...setupCommands(SHAPE), ...stream(1_500, 3)]);
        assert.equal(threads.length, 1);
        while (r.stats.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
        assert.equal(r.stats[0]!.thread, 'snapshot');
        await threads[0]!.terminate(); // as a crash of the thread would end it
        while (failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        assert.match(failures[0]!.message, /exited/);
        assert.equal(shadow.live, false);
        // The exchange goes on; the next snapshot is taken in line and starts a second thread.
        const n = r.stats.length;
        await submitAll(r.seqr, stream(1_500, 4), 100);
        await r.seqr.flush();
        while (r.stats.length === n) await new Promise((resolve) => setTimeout(resolve, 5));
        assert.equal(r.stats[n]!.thread, 'sequencer');
        assert.equal(threads.length, 2);
        assert.equal(shadow.live, true);
        await submitAll(r.seqr, stream(1_500, 5), 100);
        await r.seqr.snapshotNow();
        const last = r.stats[r.stats.length - 1]!;
        assert.equal(last.thread, 'snapshot');
        assert.equal(last.seq, r.seqr.appliedSeq);
        assert.deepEqual(await storedBytes(store, journal, last.seq), Buffer.from(r.live.snapshot()));
        const rec = await recover<Command, CommandResult, Exchange>(store, () => new Exchange(), {
          isAccepted: accepted,
          ...(journal !== undefined ? { journal } : {}),
        });
        assert.equal(rec.machine.hash(), r.live.hash());
        assert.equal(failures.length, 1);
        await r.seqr.close();
      });
    });
  }
}

describe('a snapshot thread that never answers', () => {
  test('is ended after answerMs and reported, so snapshots go back in line', async () => {
    const failures: ShadowThreadError[] = [];
    // A real thread that reads its messages and never answers (stuck in its own work).
    const stuck = () =>
      new Worker("require('node:worker_threads').parentPort.on('message', () => {})", { eval: true });
    const shadow = new ShadowSnapshots(stuck, (err) => failures.push(err), 3, 200);
    shadow.seed(new Exchange().snapshot(), 0);
    assert.equal(shadow.live, true);
    await assert.rejects(shadow.snapshot(), /no answer in 200 ms/);
    assert.equal(shadow.live, false);
    assert.equal(failures.length, 1);
    assert.equal(shadow.canStart, true, 'a later in-line snapshot may start another');
    await shadow.close();
  });
});

describe('a snapshot thread that cannot start', () => {
  test('is reported, and snapshots stay in line', () => {
    const failures: ShadowThreadError[] = [];
    const shadow = new ShadowSnapshots(
      () => {
        throw new Error('no loader');
      },
      (err) => failures.push(err),
    );
    shadow.seed(new Exchange().snapshot(), 0);
    assert.equal(shadow.live, false);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.message, /could not start/);
  });
});

describe('a thread snapshot lost after more batches were sent', () => {
  test('makes the next snapshot due at once, in line', async () => {
    const stuck = () =>
      new Worker("require('node:worker_threads').parentPort.on('message', () => {})", { eval: true });
    const shadow = new ShadowSnapshots(stuck, () => {}, 3, 200);
    shadow.seed(new Exchange().snapshot(), 0);
    const events = new EventEmitter();
    const lost = new Promise((resolve) => events.once('snapshotError', resolve));
    const holding = new SnapshotHolding<Command, CommandResult>(
      new Exchange() as unknown as StateMachine<Command, CommandResult>,
      undefined as never, // no store: this snapshot is never stored
      undefined,
      events,
      () => {},
      10,
      0,
      shadow,
    );
    const batch = (n: number) => Array.from({ length: n }, () => '{"ts":0}');
    holding.committed(1, 10, batch(10) as never[], batch(10)); // due: asks the thread at seq 10
    assert.equal(holding.lastSeq, 10);
    holding.committed(11, 12, batch(2) as never[], batch(2)); // sent before the thread fails
    await lost;
    await new Promise((resolve) => setImmediate(resolve)); // the failed write is let go after
    assert.equal(holding.lastSeq, 0, 'the lost snapshot no longer counts');
    assert.equal(holding.dueAt(12), true, 'the next one is due now, in line');
    await shadow.close();
  });
});
