// The parlay envelopes of the private channel are spliced from text both sides share
// (parlay-frames.ts parlayFramePair): each must be, byte for byte, the envelope of that side's
// parlayToWire, for open and settled parlays, boosted or not, with odd ids and a self-filled one.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ParlayRecord } from '../../src/exchange/types.ts';
import { envelope } from '../../src/stream/messages.ts';
import { parlayFramePair } from '../../src/stream/parlay-frames.ts';
import { parlayToWire } from '../../src/wire/parlays.ts';

const base: ParlayRecord = {
  id: '0b6c1a52-3f0e-4d6a-9d61-2f4f2a9b7e10',
  requestId: '5e1f7c3a-8a3b-4b7e-a1c2-6d9e0f1a2b3c',
  quoteId: 'q-1',
  currency: 'CASH',
  takerAccountId: 'taker-1',
  makerAccountId: 'maker-1',
  price: 123_457,
  qty: 40,
  stake: 4_938_280,
  collateral: 35_061_720,
  fee: 437_901,
  clientOrderId: 'my "quoted" \\ order',
  legs: [
    { outcomeId: 'o-a', marketId: 'm-1', eventId: 'e-1', price: 351_000, status: 'LOSS' },
    { outcomeId: 'o-b', marketId: 'm-2', eventId: 'e-1', price: 351_741, status: 'TBD' },
  ],
  status: 'OPEN',
  takerPayout: null,
  makerPayout: null,
  createdAt: 1_700_000_000_123,
  settledAt: null,
};

const cases: [string, ParlayRecord][] = [
  ['open', base],
  [
    'settled for the maker',
    { ...base, status: 'SETTLED', takerPayout: 0, makerPayout: 40_000_000, settledAt: 1_700_000_100_000 },
  ],
  [
    'settled, split by a push',
    {
      ...base,
      status: 'SETTLED',
      takerPayout: 14_040_000,
      makerPayout: 25_960_000,
      settledAt: 1_700_000_100_001,
    },
  ],
  [
    'boosted, COIN, no clientOrderId',
    {
      ...base,
      currency: 'COIN',
      clientOrderId: null,
      boostId: 'b-1',
      quotePrice: 110_000,
      boostCost: 539_000,
    },
  ],
  ['self-filled', { ...base, makerAccountId: 'taker-1' }],
];

describe('parlayFramePair', () => {
  for (const [name, p] of cases) {
    for (const event of ['parlayFill', 'parlayUpdate'] as const) {
      test(`${name}, ${event}: each side's frame is its envelope of parlayToWire`, () => {
        const [taker, maker] = parlayFramePair(event, p, 4711);
        assert.equal(taker, envelope(event, parlayToWire(p, p.takerAccountId), { journalSeq: 4711 }));
        if (p.makerAccountId === p.takerAccountId) assert.equal(maker, undefined);
        else assert.equal(maker, envelope(event, parlayToWire(p, p.makerAccountId), { journalSeq: 4711 }));
        assert.equal(JSON.parse(taker).data.role, 'TAKER');
      });
    }
  }
});
