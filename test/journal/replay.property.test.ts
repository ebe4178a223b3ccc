// Replay property (principle 2 of docs/architecture.md "Principles"): for random command streams into the sequencer with
// the real Exchange — submitted one by one, concurrently, and in submitMany batches, with random
// snapshot intervals — recovering from the journal alone and from snapshot + tail both give the
// live state's hash, and the journal holds exactly the accepted commands.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../../src/exchange/types.ts';
import { listSnapshots, readJournal } from '../../src/journal/journal-store.ts';
import { recover } from '../../src/journal/recover.ts';
import { Sequencer } from '../../src/journal/sequencer.ts';
import { openTestStore, type TestStore } from '../helpers/store.ts';
import { type Cmd, setupCommands, take, tradingCommands } from './workload.ts';

const SHAPE = { events: 2, marketsPerEvent: 2, accounts: 6 };
const accepted = (r: CommandResult) => r.ok;

/** Commands the workload never makes: each must be rejected and left out of the journal. */
const invalidCommand = fc.constantFrom<Cmd>(
  {
    type: 'PlaceOrder',
    orderId: 'bad-1',
    accountId: 'w-acct-0',
    outcomeId: 'w-m-0-0-0',
    currency: 'CASH',
    price: 501,
    qty: 100,
    tif: 'GTC',
  },
  {
    type: 'PlaceOrder',
    orderId: 'bad-2',
    accountId: 'nobody',
    outcomeId: 'w-m-0-0-0',
    currency: 'CASH',
    price: 500,
    qty: 100,
    tif: 'GTC',
  },
  { type: 'Deposit', accountId: 'w-acct-1', currency: 'CASH', amount: -5 },
  { type: 'CancelOrder', accountId: 'w-acct-2', orderId: 'never-placed' },
);

describe('replay property', () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore('pglite');
  });
  after(async () => {
    await store?.close();
  });

  test('journal-only and snapshot+tail recovery reproduce the live hash', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 20, max: 160 }),
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.tuple(fc.constantFrom('one', 'concurrent', 'many'), fc.integer({ min: 1, max: 25 })), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.tuple(fc.nat(), invalidCommand), { maxLength: 5 }),
        async (seed, n, snapshotEvery, plan, invalid) => {
          await store.exec('TRUNCATE journal; TRUNCATE snapshots');
          const cmds: Cmd[] = take(tradingCommands(SHAPE, seed), n);
          for (const [at, c] of invalid) cmds.splice(at % (cmds.length + 1), 0, c);
          const live = new Exchange();
          let clock = 1_800_000_000_000;
          const seqr = new Sequencer<Command, CommandResult>(live, accepted, store, () => (clock += 7), {
            snapshotEvery,
            maxBatch: 16,
          });
          await seqr.submitMany(setupCommands(SHAPE));
          let i = 0;
          let acceptedCount = seqr.appliedSeq;
          for (let p = 0; i < cmds.length; p++) {
            const [how, size] = plan[p % plan.length]!;
            const chunk = cmds.slice(i, i + size);
            i += chunk.length;
            const results =
              how === 'many'
                ? await seqr.submitMany(chunk)
                : how === 'concurrent'
                  ? await Promise.all(chunk.map((c) => seqr.submit(c)))
                  : [await seqr.submit(chunk[0]!), ...(await seqr.submitMany(chunk.slice(1)))];
            acceptedCount += results.filter((r) => r.ok).length;
          }
          await seqr.flush();
          const liveHash = live.hash();
          assert.equal(seqr.committedSeq, acceptedCount);
          assert.equal(live.lastSeq, acceptedCount);
          // Snapshots are written in the background; wait for them before reading.
          await seqr.snapshotNow();

          const journal = await readJournal<Command>(store, 0, 100_000);
          assert.equal(journal.length, acceptedCount);
          assert.ok(!journal.some((r) => String((r.cmd as { orderId?: string }).orderId).startsWith('bad-')));
          const scratch = await recover(store, () => new Exchange(), {
            fromScratch: true,
            isAccepted: accepted,
          });
          assert.equal(scratch.machine.hash(), liveHash);
          assert.equal(scratch.lastSeq, acceptedCount);

          const snaps = await listSnapshots(store);
          assert.ok(snaps.length >= 1 && snaps.length <= 2);
          const fromSnap = await recover(store, () => new Exchange(), { isAccepted: accepted });
          assert.equal(fromSnap.machine.hash(), liveHash);
          // And from the older snapshot plus a longer tail.
          if (snaps.length === 2) {
            await store.query('DELETE FROM snapshots WHERE seq = $1', [snaps[0]!.seq]);
            const older = await recover(store, () => new Exchange(), { isAccepted: accepted });
            assert.equal(older.snapshotSeq, snaps[1]!.seq);
            assert.equal(older.machine.hash(), liveHash);
          }
        },
      ),
      { numRuns: 12, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) },
    );
  });
});
