// The parlay section of a snapshot in slices (src/exchange/parlay-snapshot.ts): the records are
// written one at a time with yields between, and the bytes are those of the section written as one
// JSON value, so the state hash, and every snapshot already on disk, stay as they were.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BinWriter } from '../../src/exchange/codec.ts';
import { Exchange } from '../../src/exchange/exchange.ts';
import { PARLAY_MAGIC, parlaySectionBytes } from '../../src/exchange/parlay-snapshot.ts';
import { ok, parlayQuote, parlayRequest, parlayWager, setup, T0 } from './fixtures.ts';

/** `filled` parlays (alice's or carol's, bob the maker) and `open` requests nobody quoted. */
function world(filled: number, open: number): Exchange {
  const x = setup();
  for (let i = 0; i < filled + open; i++) {
    const ts = T0 + 10 + i;
    const taker = i % 2 === 0 ? 'alice' : 'carol';
    const requestId = `R${i}`;
    ok(x.apply(parlayRequest({ ts, requestId, accountId: taker, expiresAt: ts + 60_000 })));
    if (i >= filled) continue;
    ok(x.apply(parlayQuote({ ts, quoteId: `q${i}`, requestId, expiresAt: ts + 60_000 })));
    const clientOrderId = i % 3 === 0 ? `c${i}` : null;
    ok(x.apply(parlayWager({ ts, requestId, accountId: taker, stake: 25_000 + i, clientOrderId })));
  }
  return x;
}

/** The generator run to its end: the bytes, and how many slices it took. */
function slices(x: Exchange, sliceWork: number): { bytes: Uint8Array; count: number } {
  const it = x.snapshotSlices(sliceWork);
  let count = 1;
  let step = it.next();
  while (!step.done) {
    count++;
    step = it.next();
  }
  return { bytes: step.value, count };
}

describe('the parlay section of a snapshot, in slices', () => {
  test('yields between records and gives snapshot()`s exact bytes', () => {
    const x = world(1_500, 300);
    const whole = x.snapshot();
    const fewRecords = slices(x, 40);
    // 1,500 parlays and 1,800 requests at 4 units a record, 40 units a slice: one slice per 10
    assert.ok(fewRecords.count >= 330, `${fewRecords.count} slices`);
    assert.deepEqual(Buffer.from(fewRecords.bytes), Buffer.from(whole));
    assert.deepEqual(Buffer.from(slices(x, 7).bytes), Buffer.from(whole));
    assert.deepEqual(Buffer.from(slices(x, 1_000_000).bytes), Buffer.from(whole));
  });

  test('the section is the records as one JSON value, as it was written before slicing', () => {
    const x = world(40, 5);
    const bytes = Buffer.from(x.snapshot());
    // the section as the unsliced writer wrote it: magic, collateral, then one JSON string
    const p = (x as unknown as { s: { parlay: import('../../src/exchange/parlay-state.ts').ParlayState } }).s
      .parlay;
    const w = new BinWriter();
    w.str(PARLAY_MAGIC);
    w.f64(p.collateral[0]!);
    w.f64(p.collateral[1]!);
    w.json({ requests: [...p.requests.values()], parlays: [...p.parlays.values()] });
    const section = Buffer.from(w.bytes());
    assert.deepEqual(bytes.subarray(bytes.length - section.length), section);
    // the buffer's estimate covers the records, so the writer does not grow it while writing them
    assert.ok(parlaySectionBytes(p) >= section.length, `${parlaySectionBytes(p)} < ${section.length}`);
  });

  test('a snapshot written in slices restores the same state', () => {
    const x = world(300, 30);
    const { bytes } = slices(x, 16);
    const y = new Exchange();
    y.restore(bytes);
    assert.equal(y.hash(), x.hash());
    assert.equal(y.parlay('R7')?.status, 'OPEN');
    assert.equal(y.parlayRequest('R310')?.status, 'Unfilled');
    assert.equal(y.parlayForClientOrderId('alice', 'c12'), 'R12');
  });
});
