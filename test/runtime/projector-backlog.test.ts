// A projection backlog (src/runtime/projector.ts, docs/journal.md "Projector"): a settlement of many
// parlays leaves hundreds of thousands of events queued at once, and gathering their rows, building
// one statement and handing it to the SQL thread is work on the event loop. The projector takes at
// most PROJECT_MAX_EVENTS events a statement (a statement may end inside a committed batch), lets
// the event loop turn between two, and still writes every row once with the watermark.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../../src/exchange/types.ts';
import { uuidv7 } from '../../src/ids.ts';
import { HistoryProjector, PROJECT_MAX_EVENTS, readWatermark } from '../../src/runtime/projector.ts';
import type { Store } from '../../src/store/types.ts';
import { openTestStore } from '../helpers/store.ts';

const T0 = 1_700_000_000_000;

/** `n` deposits on 10 accounts: each result is a ledger entry and a wallet change. */
function deposits(n: number): { results: CommandResult[]; stamps: number[] } {
  const x = new Exchange();
  const accounts = Array.from({ length: 10 }, (_, i) => uuidv7(T0 + i));
  for (const accountId of accounts) x.apply({ type: 'CreateAccount', ts: T0, accountId } as Command);
  const results: CommandResult[] = [];
  const stamps: number[] = [];
  for (let i = 0; i < n; i++) {
    const ts = T0 + 1_000 + i;
    const r = x.apply({ type: 'Deposit', ts, accountId: accounts[i % 10]!, currency: 'CASH', amount: i + 1 });
    assert.ok(r.ok);
    results.push(r);
    stamps.push(ts);
  }
  return { results, stamps };
}

test('a backlog is projected in statements of at most PROJECT_MAX_EVENTS events, the loop turning between two', async () => {
  const store = await openTestStore('pglite');
  try {
    // every statement the projector sends, with how many event-loop turns had passed by then
    let turns = 0;
    let on = true;
    const spin = () => {
      turns++;
      if (on) setImmediate(spin);
    };
    spin();
    const statements: { turn: number; rows: number }[] = [];
    const spy: Store = Object.create(store, {
      query: {
        value: (sql: string, params?: unknown[]) => {
          // the ledger rows' seq column is the first array of the ledger CTE; count rows by it
          if (sql.includes('ledger_history')) {
            const seqs = params!.find((p) => Array.isArray(p)) as unknown[];
            statements.push({ turn: turns, rows: seqs.length });
          }
          return store.query(sql, params);
        },
      },
    });
    const projector = await HistoryProjector.open(spy);
    // one committed batch larger than two statements, then a small one
    const n = Math.ceil((PROJECT_MAX_EVENTS * 2.5) / 2);
    const a = deposits(n);
    const b = deposits(7);
    projector.enqueue(1, a.results, a.stamps);
    projector.enqueue(n + 1, b.results, b.stamps);
    await projector.drain();
    on = false;

    assert.ok(statements.length >= 3, `${statements.length} statements`);
    // two events (a ledger row, a wallet change) per deposit: at most PROJECT_MAX_EVENTS / 2 rows
    for (const s of statements)
      assert.ok(s.rows <= PROJECT_MAX_EVENTS / 2, `${s.rows} rows in one statement`);
    for (let i = 1; i < statements.length; i++)
      assert.ok(
        statements[i]!.turn > statements[i - 1]!.turn,
        'the event loop turned between two statements',
      );
    assert.equal(
      statements.reduce((k, s) => k + s.rows, 0),
      n + 7,
    );
    assert.equal(projector.watermark, n + 7);
    assert.equal(await readWatermark(store), n + 7);
    const rows = await store.query<{ c: number | string; s: number | string; m: number | string }>(
      'SELECT count(*) AS c, count(DISTINCT seq) AS s, max(seq) AS m FROM ledger_history',
    );
    assert.deepEqual(
      [Number(rows.rows[0]!.c), Number(rows.rows[0]!.s), Number(rows.rows[0]!.m)],
      [n + 7, n + 7, n + 7],
    );
    await projector.close();
  } finally {
    await store.close();
  }
});
