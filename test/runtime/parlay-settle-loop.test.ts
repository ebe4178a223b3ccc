// The runtime's issuing of parlay settlement chunks (src/runtime/parlay-settle-loop.ts, docs/parlays.md
// "Settlement in chunks"): after a budgeted SettleMarket the loop submits SettleParlays one per
// event-loop turn until none is due, other work runs between two chunks, a state restored between
// chunks (a restart) is finished by a fresh loop, and the scheduler's pass offers the same chunk.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandInput, CommandResult } from '../../src/exchange/types.ts';
import { ParlaySettleLoop } from '../../src/runtime/parlay-settle-loop.ts';
import { dueCommands } from '../../src/runtime/scheduler.ts';
import { ok, parlayQuote, parlayRequest, parlayWager, setup, T0 } from '../exchange/fixtures.ts';

const N = 9;

/** N open parlays on M1-a × M2-b, alice against bob; M1 closed. */
function world(): Exchange {
  const x = setup();
  for (let i = 0; i < N; i++) {
    const ts = T0 + 10 + i;
    const requestId = `R${i}`;
    ok(x.apply(parlayRequest({ ts, requestId, expiresAt: ts + 60_000 })));
    ok(x.apply(parlayQuote({ ts, quoteId: `q${i}`, requestId, expiresAt: ts + 60_000 })));
    ok(x.apply(parlayWager({ ts, requestId })));
  }
  ok(x.apply({ type: 'SetMarketStatus', ts: T0 + 100, marketId: 'M1', status: 'CLOSED' }));
  return x;
}

/** A port over an Exchange that applies at once (as the sequencer does) and records the commands. */
function portOf(x: Exchange, log: (string | Command)[]) {
  let ts = T0 + 1_000;
  return {
    reader: () => x,
    submit: (cmd: CommandInput): Promise<CommandResult> => {
      const c = { ...cmd, ts: ts++ } as Command;
      log.push(c);
      return Promise.resolve(x.apply(c));
    },
  };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('parlay settlement chunks issued by the runtime', () => {
  test('one chunk per event-loop turn until none is due, other work between two', async () => {
    const x = world();
    ok(x.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b', parlayBudget: 2 }));
    const log: (string | Command)[] = [];
    const errors: unknown[] = [];
    const loop = new ParlaySettleLoop(portOf(x, log), 3, (e) => errors.push(e));
    assert.equal(loop.settling, false);
    loop.kick();
    loop.kick(); // one scheduled at a time
    // settling from the first chunk scheduled to the last applied (the projector holds back meanwhile)
    const settling: boolean[] = [loop.settling];
    // other work of the event loop: a marker per turn
    for (let i = 0; i < 6; i++) {
      await turn();
      log.push(`turn ${i}`);
      settling.push(loop.settling);
    }
    assert.deepEqual(settling, [true, true, true, false, false, false, false]);
    const chunks = log.filter((e) => typeof e !== 'string') as Command[];
    assert.deepEqual(
      chunks.map((c) => (c.type === 'SettleParlays' ? [c.marketId, c.max] : c.type)),
      [
        ['M1', 3],
        ['M1', 3],
        ['M1', 3],
      ],
    );
    // never two chunks without a turn of other work between them
    for (let i = 1; i < log.length; i++)
      assert.ok(
        typeof log[i] === 'string' || typeof log[i - 1] === 'string',
        `two chunks back to back at ${i}`,
      );
    assert.deepEqual(x.parlaySettlementsDue(), []);
    assert.equal(x.parlays('alice', { status: 'OPEN' }).length, 0);
    assert.deepEqual(errors, []);
    loop.kick(); // nothing due: nothing scheduled
    await turn();
    assert.equal(log.filter((e) => typeof e !== 'string').length, 3);
  });

  test('a restart between chunks: the restored state is finished by a fresh loop; the pass offers it too', async () => {
    const x = world();
    ok(x.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-a', parlayBudget: 4 }));
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.deepEqual(y.parlaySettlementsDue(), [{ marketId: 'M1', parlays: 5 }]);
    assert.deepEqual(dueCommands(y, T0 + 2_000, { autoGoLive: false, parlayChunk: 4 }), [
      { type: 'SettleParlays', marketId: 'M1', max: 4 },
    ]);
    assert.deepEqual(dueCommands(y, T0 + 2_000, { autoGoLive: false }), []);
    const loop = new ParlaySettleLoop(portOf(y, []), 4, (e) => assert.fail(String(e)));
    loop.kick();
    for (let i = 0; i < 3; i++) await turn();
    assert.deepEqual(y.parlaySettlementsDue(), []);
    // M1-a won: every parlay's M1 leg is recorded, none settled (M2 is still open)
    for (const p of y.parlays('alice'))
      assert.deepEqual(
        p.legs.map((l) => l.status),
        ['WIN', 'TBD'],
      );
  });

  test('stopped: nothing more is issued', async () => {
    const x = world();
    ok(x.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b', parlayBudget: 1 }));
    const log: (string | Command)[] = [];
    const loop = new ParlaySettleLoop(portOf(x, log), 2, () => {});
    loop.kick();
    loop.stop();
    await turn();
    await turn();
    assert.deepEqual(log, []);
    assert.deepEqual(x.parlaySettlementsDue(), [{ marketId: 'M1', parlays: 8 }]);
  });
});
