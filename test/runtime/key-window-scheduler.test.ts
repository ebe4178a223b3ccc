// The scheduler's part of the idempotency window (docs/exchange.md "Idempotency window"): it issues
// ExpireClientOrderIds with the configured window only when the reader says one is due, in chunks
// of KEY_SWEEP_CHUNK, and never with the window off (0 or absent).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Command } from '../../src/exchange/types.ts';
import { dueCommands, KEY_SWEEP_CHUNK } from '../../src/runtime/scheduler.ts';
import { bid, ok, setup, T0 } from '../exchange/fixtures.ts';

const HOUR = 3_600_000;
const keyCommands = (x: ReturnType<typeof setup>, now: number, keyWindowMs?: number) =>
  dueCommands(x, now, { autoGoLive: false, ...(keyWindowMs === undefined ? {} : { keyWindowMs }) }).filter(
    (c) => c.type === 'ExpireClientOrderIds',
  );

describe('scheduler: the idempotency window', () => {
  test('due only once a key exists, then once a window has passed', () => {
    const x = setup();
    assert.deepEqual(keyCommands(x, T0, HOUR), [], 'no key: nothing to age');
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'A', clientOrderId: 'k' })));
    const first = keyCommands(x, T0, HOUR);
    assert.deepEqual(first, [{ type: 'ExpireClientOrderIds', windowMs: HOUR, max: KEY_SWEEP_CHUNK }]);
    ok(x.apply({ ...first[0], ts: T0 } as Command));
    assert.deepEqual(keyCommands(x, T0 + HOUR - 1, HOUR), []);
    assert.equal(keyCommands(x, T0 + HOUR, HOUR).length, 1);
  });

  test('the window off issues nothing, keys or not', () => {
    const x = setup();
    ok(x.apply(bid('alice', 'M1-a', 400, 10, { orderId: 'A', clientOrderId: 'k' })));
    assert.deepEqual(keyCommands(x, T0 + 100 * HOUR, 0), []);
    assert.deepEqual(keyCommands(x, T0 + 100 * HOUR), []);
  });
});
