import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type PlaceRequest, placeCommand } from '../../src/runtime/place-command.ts';

// The command is built with every key it can carry (absent options undefined) so that the
// sequencer's ts and the engine's handles are stores, not new properties. What the journal holds
// is its JSON, which must stay the bytes the command had when options were added only when given.

const ORDER = '0190f000-0000-7000-8000-000000000001';
const ACCOUNT = '0190f000-0000-7000-8000-000000000002';
const OUTCOME = '0190F000-0000-7000-8000-000000000003';

/** As the journal sees it: the sequencer's stamped copy, then the engine's handles. */
function journaled(request: PlaceRequest): string {
  const stamped: Record<string, unknown> = {
    ...placeCommand(ACCOUNT, ORDER, request),
    ts: 1_700_000_001_000,
  };
  stamped.ah = 17;
  stamped.oh = 6;
  return JSON.stringify(stamped);
}

const head = `{"type":"PlaceOrder","orderId":"${ORDER}","accountId":"${ACCOUNT}","outcomeId":"${OUTCOME.toLowerCase()}","currency":"CASH","price":495,"qty":10`;

describe('placeCommand: the journaled bytes', () => {
  it('without options: no ttl, stp, reprice or mmp key, ts then the handles last', () => {
    const text = journaled({ outcomeId: OUTCOME, price: 0.495, qty: 10, currency: 'CASH', tif: 'GTC' });
    assert.equal(
      text,
      `${head},"tif":"GTC","flags":null,"clientOrderId":null,"ts":1700000001000,"ah":17,"oh":6}`,
    );
  });

  it('with every option: ttl before flags, stp, reprice and mmp after clientOrderId', () => {
    const gtt = journaled({
      outcomeId: OUTCOME,
      price: 0.495,
      qty: 10,
      currency: 'CASH',
      tif: 'GTT',
      ttl: 60_000,
      flags: 'x',
      clientOrderId: 'k1',
      stp: 'CANCEL_MAKER',
      mmp: true,
    });
    assert.equal(
      gtt,
      `${head},"tif":"GTT","ttl":60000,"flags":"x","clientOrderId":"k1","stp":"CANCEL_MAKER","mmp":true,"ts":1700000001000,"ah":17,"oh":6}`,
    );
    const po = journaled({
      outcomeId: OUTCOME,
      price: 0.495,
      qty: 10,
      currency: 'CASH',
      tif: 'PO',
      reprice: true,
    });
    assert.equal(
      po,
      `${head},"tif":"PO","flags":null,"clientOrderId":null,"reprice":true,"ts":1700000001000,"ah":17,"oh":6}`,
    );
  });

  it('a false reprice or mmp is no key, as before', () => {
    const text = journaled({
      outcomeId: OUTCOME,
      price: 0.495,
      qty: 10,
      currency: 'CASH',
      tif: 'GTC',
      reprice: false,
      mmp: false,
    });
    assert.ok(!text.includes('reprice') && !text.includes('mmp'), text);
  });
});
