// The command path journals handles (docs/journal.md "Command records"): a command the running
// exchange accepted is journaled with the account and outcome handles the engine resolved, a
// restart replays them to the same state, and a journal of records without handles (written before
// handles) still recovers to that state.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../../src/exchange/types.ts';
import { uuidv7 } from '../../src/ids.ts';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { recover } from '../../src/journal/recover.ts';
import { Sequencer } from '../../src/journal/sequencer.ts';
import type { CommandInput } from '../../src/runtime/exchange-port.ts';
import { openTestStore } from '../helpers/store.ts';

test('accepted commands are journaled with handles; with or without them the journal recovers the state', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tickbook-handles-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const store = await openTestStore('pglite');
  after(() => store.close());
  const journal = await FileJournal.open(join(root, 'journal'));
  // The runtime's own machine and sequencer, as ExchangeRuntime.open builds them (handles recorded).
  const exchange = new Exchange({ recordHandles: true });
  const rt = new Sequencer<Command, CommandResult>(exchange, (r) => r.ok, store, Date.now, { journal });
  const outcome = (m: number, side: 'a' | 'b') => `m${m}-${side}`;
  const setup: CommandInput[] = [
    { type: 'CreateLeague', code: 'NFL', name: 'NFL' },
    {
      type: 'CreateEvent',
      event: {
        id: 'e1',
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'e',
        league: 'NFL',
        scheduledStart: 0,
      },
      game: null,
      markets: [0, 1].map((m) => ({
        id: `m${m}`,
        type: 'MONEY' as const,
        strike: null,
        description: `m${m}`,
        outcomes: [
          { id: outcome(m, 'a'), description: 'a' },
          { id: outcome(m, 'b'), description: 'b' },
        ] as [{ id: string; description: string }, { id: string; description: string }],
      })),
    },
  ];
  for (const a of ['u0', 'u1', 'u2']) {
    setup.push({ type: 'CreateAccount', accountId: a });
    setup.push({ type: 'Deposit', accountId: a, currency: 'CASH', amount: 1e9 });
  }
  for (const r of await rt.submitMany(setup as never[])) assert.equal(r.ok, true);
  const orders: CommandInput[] = [];
  for (let i = 0; i < 40; i++) {
    orders.push({
      type: 'PlaceOrder',
      orderId: uuidv7(Date.now()),
      accountId: `u${i % 3}`,
      outcomeId: outcome(i % 2, i % 4 < 2 ? 'a' : 'b'),
      currency: 'CASH',
      price: 490 - (i % 5) * 5, // p + q < 1000: nothing crosses, every order rests
      qty: 10 + i,
      tif: 'GTC',
    });
  }
  for (const r of await rt.submitMany(orders as never[])) assert.equal(r.ok, true);
  const firstOrder = orders[0] as Extract<CommandInput, { type: 'PlaceOrder' }>;
  assert.equal(
    (await rt.submit({ type: 'CancelOrder', accountId: 'u0', orderId: firstOrder.orderId } as never)).ok,
    true,
  );
  const hash = exchange.hash();
  await rt.close();
  await journal.close();

  const journal0 = await FileJournal.open(join(root, 'journal'));
  const rows = await journal0.read<Command & { ah?: number; oh?: number }>(0, 1000);
  const places = rows.map((r) => r.cmd).filter((c) => c.type === 'PlaceOrder');
  assert.equal(places.length, 40);
  for (const c of places) {
    assert.equal(c.ah, Number(c.accountId.slice(1)), 'account handle: creation order');
    assert.equal(c.oh, Number(c.outcomeId[1]) * 2 + (c.outcomeId.endsWith('a') ? 0 : 1));
  }
  const cancel = rows.map((r) => r.cmd).find((c) => c.type === 'CancelOrder');
  assert.equal(cancel?.ah, 0);
  const deposit = rows.map((r) => r.cmd).find((c) => c.type === 'Deposit');
  assert.equal(typeof deposit?.ah, 'number');
  await journal0.close();

  // Restart on the same journal (handles read back).
  const j1 = await FileJournal.open(join(root, 'journal'));
  const again = await recover<Command, CommandResult, Exchange>(
    store,
    () => new Exchange({ events: false }),
    {
      journal: j1,
      fromScratch: true,
      isAccepted: (r) => r.ok,
    },
  );
  assert.equal(again.machine.hash(), hash);
  await j1.close();

  // A journal written before handles: the same records without ah/oh.
  const old = await FileJournal.open(join(root, 'old-journal'));
  await old.append(
    1,
    rows.map((r) => {
      const { ah: _a, oh: _o, ...rest } = r.cmd;
      return rest;
    }),
  );
  const oldRows = await old.read<Record<string, unknown>>(0, 1000);
  assert.ok(oldRows.every((r) => !('ah' in r.cmd) && !('oh' in r.cmd)));
  const fromOld = await recover<Command, CommandResult, Exchange>(
    store,
    () => new Exchange({ events: false }),
    {
      journal: old,
      fromScratch: true,
      isAccepted: (r) => r.ok,
    },
  );
  assert.equal(fromOld.machine.hash(), hash);
  await old.close();
});
