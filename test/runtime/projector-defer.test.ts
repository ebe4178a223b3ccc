// The projection held back while the runtime settles parlays in chunks (src/runtime/projector.ts
// deferWhile, docs/journal.md "Projector"): nothing is written while the runtime is busy and no
// history read waits; a history read that waits still gets every row acknowledged before it; once
// the runtime is no longer busy the projector catches up on its own, each row written once.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../../src/exchange/types.ts';
import { uuidv7 } from '../../src/ids.ts';
import { DEFER_MAX_MS, HistoryProjector, readWatermark } from '../../src/runtime/projector.ts';
import type { Queryable } from '../../src/store/types.ts';
import { openTestStore } from '../helpers/store.ts';

const T0 = 1_700_000_000_000;

/** `n` deposits on one account. */
function deposits(x: Exchange, accountId: string, n: number): { results: CommandResult[]; stamps: number[] } {
  const results: CommandResult[] = [];
  const stamps: number[] = [];
  for (let i = 0; i < n; i++) {
    const ts = T0 + 1_000 + i;
    const r = x.apply({ type: 'Deposit', ts, accountId, currency: 'CASH', amount: i + 1 });
    assert.ok(r.ok);
    results.push(r);
    stamps.push(ts);
  }
  return { results, stamps };
}

const ledgerRows = async (q: Queryable) =>
  Number((await q.query<{ c: number | string }>('SELECT count(*) AS c FROM ledger_history')).rows[0]!.c);

/** A store, an exchange with one account, and a projector held back while `busy()` says so. */
async function withProjector(
  busy: () => boolean,
  fn: (t: { store: Queryable; x: Exchange; accountId: string; projector: HistoryProjector }) => Promise<void>,
): Promise<void> {
  const store = await openTestStore('pglite');
  try {
    const x = new Exchange();
    const accountId = uuidv7(T0);
    x.apply({ type: 'CreateAccount', ts: T0, accountId } as Command);
    const projector = await HistoryProjector.open(store);
    projector.deferWhile(busy);
    await fn({ store, x, accountId, projector });
  } finally {
    await store.close();
  }
}

test('while busy, nothing is projected unless a history read waits; after, everything once', async () => {
  let busy = true;
  await withProjector(
    () => busy,
    async ({ store, x, accountId, projector }) => {
      const a = deposits(x, accountId, 5);
      projector.enqueue(1, a.results, a.stamps);
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(projector.watermark, 0, 'held back while busy');
      assert.equal(await readWatermark(store), 0);

      // a history read waiting for seq 5 gets its rows although the runtime is still busy
      await projector.waitFor(5);
      assert.equal(projector.watermark, 5);
      assert.equal(await ledgerRows(store), 5);

      const b = deposits(x, accountId, 3);
      projector.enqueue(6, b.results, b.stamps);
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(projector.watermark, 5, 'held back again once the read was served');

      busy = false;
      const caughtUp = Date.now();
      while (projector.watermark < 8 && Date.now() - caughtUp < 5_000)
        await new Promise((r) => setTimeout(r, 10));
      assert.equal(projector.watermark, 8, 'caught up on its own once not busy');
      assert.equal(await readWatermark(store), 8);
      assert.equal(await ledgerRows(store), 8);
      await projector.close();
    },
  );
});

test('close() projects what was held back', async () => {
  await withProjector(
    () => true,
    async ({ store, x, accountId, projector }) => {
      const a = deposits(x, accountId, 4);
      projector.enqueue(1, a.results, a.stamps);
      await projector.close();
      assert.equal(await readWatermark(store), 4);
      assert.equal(await ledgerRows(store), 4);
    },
  );
});

test('a hold lasts at most DEFER_MAX_MS: a runtime busy for longer still gets its history written', async () => {
  // busy for good, and no history read on this process waits
  await withProjector(
    () => true,
    async ({ store, x, accountId, projector }) => {
      const a = deposits(x, accountId, 3);
      const start = Date.now();
      projector.enqueue(1, a.results, a.stamps);
      await new Promise((r) => setTimeout(r, DEFER_MAX_MS / 2));
      assert.equal(projector.watermark, 0, 'held back at first');
      while (projector.watermark < 3 && Date.now() - start < DEFER_MAX_MS + 4_000)
        await new Promise((r) => setTimeout(r, 10));
      assert.equal(projector.watermark, 3, 'written once the hold ran out');
      assert.ok(Date.now() - start >= DEFER_MAX_MS - 50, 'not before the hold ran out');
      assert.equal(await ledgerRows(store), 3);
      await projector.close();
    },
  );
});
