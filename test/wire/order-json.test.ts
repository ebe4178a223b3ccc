// An order's wire JSON written as text (src/wire/order-json.ts) is byte for byte the JSON of the
// wire object (orderToWire), and a mass quote's answer text that of its result object
// (quoteSetWire), and a placement's that of its answer object (placedWire): odd strings escaped as
// JSON.stringify escapes them, nulls, expiries, fills; a placement's also the bytes the REST
// route's response schema serializes its 201 to (the same result on both transports).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fastJson from 'fast-json-stringify';
import type { Fill, OrderRecord } from '../../src/exchange/types.ts';
import { placedJson, placedWire, quoteSetJson, quoteSetWire } from '../../src/http/order-requests.ts';
import { jsonString, orderJson, ordersJson } from '../../src/wire/order-json.ts';
import { orderToWire, orderWithFillsSchema } from '../../src/wire/trading.ts';

/** The REST 201 body as Fastify writes it from the route's response schema. */
const serializePlaced = fastJson(orderWithFillsSchema as never);

const T = Date.parse('2026-11-26T10:00:00.123Z');

function order(over: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: '0193f1c2-7a4b-7c3d-8e9f-0a1b2c3d4e5f',
    accountId: 'acct',
    outcomeId: '0193f1c2-7a4b-7c3d-8e9f-0a1b2c3d4e60',
    marketId: '0193f1c2-7a4b-7c3d-8e9f-0a1b2c3d4e61',
    currency: 'CASH',
    price: 420,
    qty: 300,
    originalQty: 500,
    tif: 'GTC',
    expiresAt: null,
    flags: null,
    clientOrderId: null,
    status: 'RESTING',
    createdAt: T,
    updatedAt: T + 1_001,
    ...over,
  };
}

const ODD = [
  'plain',
  '',
  'a"quote',
  'back\\slash',
  'line\nfeed',
  '\u0000\u001f',
  'é ünïcode ✓',
  '\ud83d\ude00',
  'lone \ud800 surrogate',
  'lone \udfff',
];

describe('order JSON text', () => {
  test('jsonString writes what JSON.stringify writes', () => {
    for (const s of ODD) assert.equal(jsonString(s), JSON.stringify(s), s);
  });

  test('an order: the JSON of its wire object, for every field value kind', () => {
    const cases: OrderRecord[] = [
      order(),
      order({ price: 1, qty: 0, originalQty: 0, status: 'CANCELED', currency: 'COIN' }),
      order({ price: 999, tif: 'GTT', expiresAt: T + 86_400_000, status: 'FILLED', qty: 0 }),
      order({ expiresAt: Number.NaN, createdAt: 0, updatedAt: 253402300799999 }),
      ...ODD.map((s) => order({ flags: s, clientOrderId: s, id: `id-${s}` })),
    ];
    for (const o of cases) {
      assert.equal(orderJson(o), JSON.stringify(orderToWire(o)));
      assert.equal(orderJson(o, 7), JSON.stringify(orderToWire(o, 7)));
    }
    assert.equal(ordersJson(cases), JSON.stringify(cases.map((o) => orderToWire(o))));
    assert.equal(ordersJson([]), '[]');
  });

  test('a quote set: the JSON of its result object', () => {
    const orders = [
      order(),
      order({ id: 'b', price: 410 }),
      order({ id: 'c', outcomeId: 'o"2', price: 500 }),
    ];
    for (const set of [
      { marketId: 'm-1', currency: 'CASH' as const, orders },
      { marketId: 'm\u2028', currency: 'COIN' as const, orders: [] },
    ]) {
      const text = quoteSetJson(set);
      assert.equal(text, JSON.stringify(quoteSetWire(set)));
      assert.deepEqual(JSON.parse(text), quoteSetWire(set));
    }
  });

  test('a placement: the JSON of its answer object, with and without fills', () => {
    const fill = (over: Partial<Fill> = {}): Fill => ({
      id: '0193f1c2-7a4b-7c3d-8e9f-0a1b2c3d4e5f:1',
      seq: 42,
      accountId: 'acct',
      orderId: '0193f1c2-7a4b-7c3d-8e9f-0a1b2c3d4e5f',
      outcomeId: '0193f1c2-7a4b-7c3d-8e9f-0a1b2c3d4e60',
      marketId: '0193f1c2-7a4b-7c3d-8e9f-0a1b2c3d4e61',
      currency: 'CASH',
      price: 420,
      qty: 120,
      isTaker: true,
      isWash: false,
      fee: 37,
      feeCoefficient: 0.07,
      ts: T + 5,
      ...over,
    });
    const cases = [
      { order: order(), fills: [] },
      {
        order: order({ qty: 0, status: 'FILLED' as const }),
        fills: [fill({ qty: 200 }), fill({ id: 'x:2', qty: 300, fee: 0 })],
      },
      {
        order: order({ status: 'CANCELED' as const, clientOrderId: 'k"1' }),
        fills: [fill({ isWash: true, fee: 0 })],
      },
      { order: order({ tif: 'GTT', expiresAt: T + 60_000 }), fills: [fill({ currency: 'COIN', price: 1 })] },
    ];
    for (const c of cases) {
      const p = { ...c, replayed: false, seq: 7 };
      assert.equal(placedJson(p), JSON.stringify(placedWire(p)));
      // The socket's answer is the very bytes the REST route's serializer writes for its 201.
      assert.equal(placedJson(p), serializePlaced(placedWire(p)));
    }
  });
});
