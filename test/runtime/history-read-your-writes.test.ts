// Read-your-writes of the history (docs/journal.md "Projector"): the projection runs after the
// acknowledgement, off the order's path, so an order can be acknowledged while its history rows
// are not written yet. A history read (orders, fills, transactions) issued after the
// acknowledgement must still see it: the read waits for the projector's watermark to reach the
// commit it came after. Here the projection statements are held back by a gate, so the order is
// acknowledged and provably unprojected when the reads start; they may answer only once the gate
// opens, and then with the order, its fill and its ledger rows. On PGlite in the server's thread,
// PGlite on its worker thread (the embedded default) and PostgreSQL when DATABASE_URL is set.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { Command } from '../../src/exchange/types.ts';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { ExchangeRuntime } from '../../src/runtime/exchange-runtime.ts';
import type { PgliteThread } from '../../src/store/pglite-store.ts';
import type { Store, StoreKind } from '../../src/store/types.ts';
import { uuidIds } from '../helpers/history-reference.ts';
import { openTestStore, storeKinds } from '../helpers/store.ts';
import { setupCommands } from '../journal/workload.ts';

const quiet = { info() {}, warn() {}, error() {} };
const SHAPE = { events: 1, marketsPerEvent: 1, accounts: 2 };

/** A store whose projection statements wait while the gate is closed (everything else passes). */
function gated(inner: Store) {
  let open = true;
  let release: () => void = () => {};
  let opened = Promise.resolve();
  const store: Store = Object.assign(Object.create(inner) as Store, {
    query: (async (sql: string, params?: readonly unknown[]) => {
      if (sql.includes('UPDATE projection_watermark')) while (!open) await opened;
      return inner.query(sql, params);
    }) as Store['query'],
  });
  return {
    store,
    close() {
      open = false;
      opened = new Promise<void>((r) => {
        release = r;
      });
    },
    open() {
      open = true;
      release();
    },
  };
}

type Variant = { kind: StoreKind; thread?: PgliteThread };
const variants: Variant[] = storeKinds().flatMap((kind): Variant[] =>
  kind === 'pglite'
    ? [
        { kind, thread: 'main' as const },
        { kind, thread: 'worker' as const },
      ]
    : [{ kind }],
);

for (const { kind, thread } of variants) {
  test(`${kind}${thread ? ` (SQL thread ${thread})` : ''}: history reads after an ack see the order, its fills and ledger rows before they were projected`, async () => {
    const inner = await openTestStore(kind, thread ? { thread } : {});
    const dir = mkdtempSync(join(tmpdir(), 'tickbook-ryw-'));
    const gate = gated(inner);
    const journal = kind === 'pglite' ? await FileJournal.open(join(dir, 'journal')) : undefined;
    const config = loadConfig({ LOG_LEVEL: 'silent', TICKBOOK_DEMO: 'false' });
    const rt = await ExchangeRuntime.open({
      config,
      store: gate.store,
      log: quiet,
      ...(journal ? { journal } : {}),
    });
    try {
      const ids = (x: string) => uuidIds(x);
      for (const r of await rt.submitMany(setupCommands(SHAPE).map(uuidIds) as never[]))
        assert.equal(r.ok, true);
      await rt.projector.drain();

      gate.close();
      const [maker, taker] = [ids('w-acct-0'), ids('w-acct-1')];
      const place = (accountId: string, orderId: string, outcome: 0 | 1): Command =>
        ({
          type: 'PlaceOrder',
          orderId: ids(orderId),
          accountId,
          outcomeId: ids(`w-m-0-0-${outcome}`),
          currency: 'CASH',
          price: 500,
          qty: 100,
          tif: 'GTC',
        }) as Command;
      assert.equal((await rt.submit(place(maker, 'w-o-maker', 0))).ok, true);
      const r = await rt.submit(place(taker, 'w-o-taker', 1));
      assert.ok(r.ok && r.events.some((e) => e.kind === 'OrderFilled'), 'the taker traded');
      // Acknowledged (the journal is durable) and not projected: the reads cannot answer from SQL yet.
      assert.ok(rt.projector.watermark < rt.sequencer.committedSeq, 'the projection is held back');

      let answered = false;
      const reads = Promise.all([
        rt.history.orders({ accountId: taker, limit: 10, offset: 0 }),
        rt.history.fills({ accountId: taker, limit: 10, offset: 0 }),
        rt.history.transactions({ accountId: taker, limit: 10, offset: 0 }),
        rt.history.order(taker, ids('w-o-taker')),
      ]).finally(() => {
        answered = true;
      });
      await new Promise((res) => setTimeout(res, 100));
      assert.equal(answered, false, 'a history read waits for the projection of what it came after');
      gate.open();
      const [orders, fills, ledger, one] = await reads;

      assert.deepEqual(
        orders.map((o) => [o.id, o.status]),
        [[ids('w-o-taker'), 'FILLED']],
      );
      assert.equal(one?.status, 'FILLED');
      assert.deepEqual(
        fills.map((f) => [f.orderId, f.qty, f.isTaker]),
        [[ids('w-o-taker'), 100, true]],
      );
      assert.ok(
        ledger.some((t) => t.orderId === ids('w-o-taker') || t.fillId === fills[0]?.id),
        `the taker's ledger rows: ${JSON.stringify(ledger)}`,
      );
      // The maker's order (filled in the same run, never read before) is there too.
      const makerOrders = await rt.history.orders({ accountId: maker, limit: 10, offset: 0 });
      assert.deepEqual(
        makerOrders.map((o) => [o.id, o.status]),
        [[ids('w-o-maker'), 'FILLED']],
      );
    } finally {
      gate.open();
      await rt.close();
      await inner.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
