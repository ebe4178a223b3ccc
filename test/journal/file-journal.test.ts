// The embedded store's segment journal (docs/journal.md, "Segment files"): power loss, torn and
// damaged tails, a failing fdatasync, rotation and retention. Runs over PowerLossFs (memory).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FileJournal, JournalCorruptError } from '../../src/journal/file-journal.ts';
import { KEPT_WRITE_BYTES } from '../../src/journal/record-format.ts';
import { recover } from '../../src/journal/recover.ts';
import { Sequencer, SequencerStoppedError } from '../../src/journal/sequencer.ts';
import type { Store } from '../../src/store/types.ts';
import { type LedgerCmd, LedgerMachine, type LedgerResult, ledgerAccepted } from './ledger-machine.ts';
import { PowerLossFs } from './power-loss-fs.ts';

const DIR = '/j';
// The sequencer over a FileJournal never touches the store.
const noStore = {} as Store;

function sequencer(journal: FileJournal, lastSeq = 0, lastTs = 0) {
  let now = lastTs;
  return new Sequencer<LedgerCmd, LedgerResult>(new LedgerMachine(), ledgerAccepted, noStore, () => ++now, {
    journal,
    lastSeq,
    lastTs,
    snapshotEvery: 1e9,
  });
}

async function readAll(j: FileJournal) {
  const out: { seq: number; cmd: { key?: string } }[] = [];
  for (;;) {
    const rows = await j.read<{ key?: string }>(out.length, 1000);
    if (rows.length === 0) return out;
    out.push(...rows);
  }
}

/** Runs `total` commands from 8 submitters, cutting power after `cutAfter` acks. */
async function runUntilCut(fs: PowerLossFs, total: number, cutAfter: number, segmentBytes: number) {
  const j = await FileJournal.open(DIR, { fs, segmentBytes });
  const s = sequencer(j);
  s.on('fatal', () => {});
  const acked = new Map<number, string>();
  const submitted: string[] = [];
  let crashed: PowerLossFs | undefined;
  let cut: ((f: PowerLossFs) => void) | undefined;
  const done = new Promise<PowerLossFs>((r) => {
    cut = r;
  });
  let next = 0;
  const worker = async () => {
    while (next < total && crashed === undefined) {
      const key = `k${next++}`;
      const before = s.appliedSeq;
      submitted[before] = key;
      const r = await s.submit({ type: 'Add', key, n: 1 });
      if (crashed !== undefined) return; // after the cut nothing counts as acknowledged
      assert.equal(r.ok, true);
      acked.set(before + 1, key);
      if (acked.size >= cutAfter && crashed === undefined) {
        crashed = fs; // freeze: the image is taken now, before any further write completes
        cut!(fs);
      }
    }
  };
  const workers = Promise.all(Array.from({ length: 8 }, worker));
  const image = await Promise.race([done, workers.then(() => fs)]);
  crashed ??= image;
  return { image, acked, submitted };
}

describe('segment journal', () => {
  test('power loss: recovery yields exactly a prefix holding every acknowledged command; a torn or flipped tail is cut by its CRC', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 120 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.nat({ max: 4000 }), { maxLength: 3 }),
        fc.integer({ min: 200, max: 4000 }),
        async (cutAfter, torn, flips, segmentBytes) => {
          const fs = new PowerLossFs();
          const { image, acked, submitted } = await runUntilCut(fs, 150, cutAfter, segmentBytes);
          const after = image.crash({ tornFraction: torn, flips });
          const j = await FileJournal.open(DIR, { fs: after });
          const rows = await readAll(j);
          // A prefix: seqs 1..n, each the command submitted with that seq.
          rows.forEach((r, i) => {
            assert.equal(r.seq, i + 1);
            assert.equal(r.cmd.key, submitted[i], `seq ${r.seq} holds what was submitted`);
          });
          // Every acknowledged command is in it.
          const maxAcked = Math.max(0, ...acked.keys());
          assert.ok(rows.length >= maxAcked, `recovered ${rows.length} < acknowledged ${maxAcked}`);
          for (const [seq, key] of acked) assert.equal(rows[seq - 1]!.cmd.key, key);
          // Recovery state equals a replay of the prefix, and the journal continues from it.
          const rec = await recover(noStore, () => new LedgerMachine(), {
            journal: j,
            isAccepted: ledgerAccepted,
          });
          assert.equal(rec.lastSeq, rows.length);
          const s2 = sequencer(j, rec.lastSeq, rec.lastTs);
          const r = await s2.submit({ type: 'Add', key: 'again', n: 1 });
          assert.equal(r.ok, true);
          assert.equal(s2.committedSeq, rows.length + 1);
          await j.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a flipped bit in synced data followed by later records is a hard error, never a silent cut', async () => {
    const fs = new PowerLossFs();
    const j = await FileJournal.open(DIR, { fs });
    const s = sequencer(j);
    for (let i = 0; i < 20; i++) await s.submit({ type: 'Add', key: `k${i}`, n: 1 });
    await j.close();
    const [name] = fs.list(DIR);
    fs.flip(`${DIR}/${name}`, 30); // inside record 1's payload
    await assert.rejects(FileJournal.open(DIR, { fs }), (e: unknown) => {
      assert.ok(e instanceof JournalCorruptError);
      assert.match((e as Error).message, /record seq 1 fails its CRC.*damaged in the middle/);
      return true;
    });
  });

  test('a torn last record is cut from the file and never applied', async () => {
    const fs = new PowerLossFs();
    const j = await FileJournal.open(DIR, { fs });
    const s = sequencer(j);
    for (let i = 0; i < 5; i++) await s.submit({ type: 'Add', key: `k${i}`, n: 1 });
    await j.close();
    const [name] = fs.list(DIR);
    const path = `${DIR}/${name}`;
    const whole = fs.read(path).length;
    fs.append(fs.open(path), Buffer.from([0x20, 0, 0, 0, 1, 2, 3])); // a header cut short
    const j2 = await FileJournal.open(DIR, { fs });
    assert.deepEqual(j2.cutTail, { seq: 6, segment: name, offset: whole, bytes: 7 });
    assert.equal(fs.read(path).length, whole, 'the torn bytes are truncated');
    assert.equal((await readAll(j2)).length, 5);
  });

  test('one write buffer for every batch: small, large (past the kept size) and small again read back whole', async () => {
    const fs = new PowerLossFs();
    const j = await FileJournal.open(DIR, { fs });
    const s = sequencer(j);
    // A batch of keys this long passes KEPT_WRITE_BYTES, so it is written from a buffer of its own,
    // and the batches around it reuse the kept one: each must leave exactly its own bytes.
    const big = 'x'.repeat(KEPT_WRITE_BYTES / 100);
    const sizes = [1, 40, 3, 150, 2, 1];
    const keys: string[] = [];
    for (const [b, n] of sizes.entries()) {
      const cmds = Array.from({ length: n }, (_, i) => ({
        type: 'Add' as const,
        key: `b${b}-${i}-${n === 150 ? big : 'k'}`,
        n: 1,
      }));
      keys.push(...cmds.map((c) => c.key));
      await s.submitMany(cmds);
    }
    await j.close();
    const j2 = await FileJournal.open(DIR, { fs });
    assert.equal(j2.cutTail, undefined);
    assert.deepEqual(
      (await readAll(j2)).map((r) => r.cmd.key),
      keys,
    );
  });

  test('a failed fdatasync acknowledges nothing of its group and stops the sequencer', async () => {
    const fs = new PowerLossFs();
    const j = await FileJournal.open(DIR, { fs });
    const s = sequencer(j);
    let fatal: unknown;
    s.on('fatal', (e) => {
      fatal = e;
    });
    await s.submit({ type: 'Add', key: 'before', n: 1 });
    fs.failNextSync = Object.assign(new Error('EIO'), { code: 'EIO' });
    const group = Array.from({ length: 10 }, (_, i) => s.submit({ type: 'Add', key: `g${i}`, n: 1 }));
    const outcomes = await Promise.allSettled(group);
    for (const o of outcomes) {
      assert.equal(o.status, 'rejected', 'nothing of the failed group is acknowledged');
      assert.ok((o as PromiseRejectedResult).reason instanceof SequencerStoppedError);
    }
    assert.ok(fatal instanceof SequencerStoppedError);
    assert.equal(s.stopped, true);
    assert.equal(s.committedSeq, 1);
    await assert.rejects(s.submit({ type: 'Add', key: 'later', n: 1 }), SequencerStoppedError);
    await assert.rejects(j.append(12, [{ ts: 1 }]), /fdatasync failed/);
  });

  test('overlapping syncs across rotations never touch a closed segment handle', async () => {
    // Syncs of random length, so a later sync can return before an earlier one; a datasync on a
    // closed handle is an EBADF (a real descriptor could even have been reused by then).
    class JitterFs extends PowerLossFs {
      private closed = new Set<number>();
      private rnd = 7;
      override async datasync(handle: number): Promise<void> {
        if (this.closed.has(handle)) throw new Error(`EBADF: datasync of closed handle ${handle}`);
        this.rnd = (this.rnd * 1103515245 + 12345) % 2147483648;
        await new Promise((r) => setTimeout(r, (this.rnd >>> 16) % 4));
        if (this.closed.has(handle)) throw new Error(`EBADF: handle ${handle} closed during its datasync`);
        return super.datasync(handle);
      }
      override close(handle: number): void {
        this.closed.add(handle);
        super.close(handle);
      }
    }
    const fs = new JitterFs();
    const j = await FileJournal.open(DIR, { fs, segmentBytes: 200 });
    const s = sequencer(j);
    let next = 0;
    const worker = async () => {
      while (next < 400) await s.submit({ type: 'Add', key: `k${next++}`, n: 1 });
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    assert.equal(s.committedSeq, 400);
    assert.ok(j.stats().segments > 20, `${j.stats().segments} segments`);
    await j.close();
    const rec = await recover(noStore, () => new LedgerMachine(), {
      journal: await FileJournal.open(DIR, { fs }),
      isAccepted: ledgerAccepted,
    });
    assert.equal(rec.lastSeq, 400);
  });

  test('rotation at the size bound, reads across segments, retention keeps what recovery needs', async () => {
    const fs = new PowerLossFs();
    const j = await FileJournal.open(DIR, { fs, segmentBytes: 500 });
    const s = sequencer(j);
    for (let i = 0; i < 100; i++) await s.submit({ type: 'Add', key: `k${i}`, n: 1 });
    const st = j.stats();
    assert.ok(st.segments > 5, `${st.segments} segments`);
    assert.equal((await readAll(j)).length, 100);
    await s.snapshotNow();
    const [snap] = await j.listSnapshots();
    assert.equal(snap!.seq, 100);
    const gone = await j.prune(60);
    assert.ok(gone.segments > 0);
    assert.ok(j.stats().firstSeq <= 60 && j.stats().firstSeq > 1);
    await j.close();
    const j2 = await FileJournal.open(DIR, { fs });
    const rec = await recover(noStore, () => new LedgerMachine(), {
      journal: j2,
      isAccepted: ledgerAccepted,
    });
    assert.equal(rec.lastSeq, 100);
    assert.equal(rec.snapshotSeq, 100);
    assert.equal(rec.machine.applied, 100);
    await assert.rejects(
      recover(noStore, () => new LedgerMachine(), { journal: j2, fromScratch: true }),
      /pruned/,
    );
  });
});
