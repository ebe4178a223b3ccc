// The private `mmp` frame (docs/stream.md "Messages"): a breach reaches the breaching account's
// private channel from the very command that breached, after the cancels of its protected orders.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Command } from '../../src/exchange/types.ts';
import { commandFrames } from '../../src/stream/frames.ts';
import { bid, ok, setup, T0 } from '../exchange/fixtures.ts';

test('a breach sends cancel frames then one mmp frame to the account', () => {
  const x = setup();
  const config = { intervalMs: 1_000, qtyLimit: 50, netLimit: 0, freezeMs: 0 };
  ok(x.apply({ type: 'SetMmp', ts: T0, accountId: 'alice', eventId: 'E1', currency: 'CASH', config }));
  ok(x.apply(bid('alice', 'M1-a', 400, 50, { mmp: true, ts: T0 + 1 })));
  ok(x.apply(bid('alice', 'M2-a', 400, 50, { mmp: true, ts: T0 + 1 })));
  const cmd: Command = bid('bob', 'M1-b', 600, 50, { ts: T0 + 2 });
  const frames = commandFrames(x, cmd, ok(x.apply(cmd)), 42);
  // Private frames are serialized when first read (src/stream/lazy-frames.ts): spreading reads them.
  const mine = [
    ...((frames.channels.get('private') as Map<string, Iterable<string>> | undefined)?.get('alice') ?? []),
  ].map((f) => JSON.parse(f) as { event: string; data: never });
  assert.deepEqual(
    mine.map((f) => f.event),
    ['fill', 'cancel', 'mmp'],
  );
  assert.deepEqual(mine[2], {
    event: 'mmp',
    journalSeq: 42,
    data: {
      state: 'FROZEN',
      eventId: 'E1',
      currency: 'CASH',
      qtyFilled: 50,
      netExposure: 50,
      canceled: 1,
      frozenUntil: null,
      timestamp: new Date(T0 + 2).toISOString(),
    },
  });
  const reset: Command = { type: 'ResetMmp', ts: T0 + 3, accountId: 'alice', eventId: null };
  const after = [
    ...(
      commandFrames(x, reset, ok(x.apply(reset)), 43).channels.get('private') as Map<string, Iterable<string>>
    ).get('alice')!,
  ];
  assert.equal(JSON.parse(after[0]!).data.state, 'RESET');
});
