// A parlay request's and a parlay position's wire JSON written as text (src/wire/parlay-json.ts) are
// byte for byte what the routes' response schemas make of the wire objects (requestToWire,
// parlayToWire) — Fastify's own serializer, as the routes used it — for requests unfilled, boosted,
// filled, cancelled and declined, with quotes or none, for both sides of a fill, and for odd strings.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Command, ParlayRecord, ParlayRequestRecord } from '../../src/exchange/types.ts';
import { wireParlaySchema, wireRequestSchema } from '../../src/http/schemas/parlays.ts';
import { LegOutcomeText, parlayJson, requestBody } from '../../src/wire/parlay-json.ts';
import { parlayToWire, requestToWire } from '../../src/wire/parlays.ts';
import { bid, ok } from '../exchange/fixtures.ts';
import { desk, E1, M1b, M2a, R1, R2, R3, T0 } from '../helpers/parlay-wire-desk.ts';

const ODD = ['a"quote', 'back\\slash', 'line\nfeed', '\u0000', 'é ✓', '\ud83d\ude00', 'lone \ud800'];

describe('parlay JSON text', () => {
  let app: FastifyInstance;
  let wire: unknown;
  before(async () => {
    app = Fastify();
    // what the routes answered before: the wire objects through the routes' response schemas
    app.get(
      '/request',
      { schema: { response: { 200: { type: 'array', items: wireRequestSchema } } } },
      async () => wire,
    );
    app.get('/parlay', { schema: { response: { 200: wireParlaySchema } } }, async () => wire);
    await app.ready();
  });
  after(() => app.close());

  const served = async (path: string, value: unknown): Promise<string> => {
    wire = value;
    const r = await app.inject({ method: 'GET', url: path });
    assert.equal(r.statusCode, 200, r.body);
    return r.body;
  };

  test('a request: the schema serializer’s bytes, in every state', async () => {
    const x = desk();
    const outcomes = new LegOutcomeText();
    const r1 = x.parlayRequest(R1)!;
    const r2 = x.parlayRequest(R2)!;
    const r3 = x.parlayRequest(R3)!;
    const cases: { r: ParlayRequestRecord; now: number; viewer: string }[] = [
      { r: r1, now: T0 + 31, viewer: 'alice' }, // boosted and filled, two quotes
      { r: r1, now: T0 + 31, viewer: 'bob' },
      { r: r2, now: T0 + 43, viewer: 'carol' }, // COIN, a stake, two live quotes
      { r: r2, now: T0 + 60_000, viewer: 'house' }, // read past its deadline: Expired
      { r: r3, now: T0 + 51, viewer: 'alice' }, // no quote, no stake
      { r: { ...r3, status: 'Cancelled' }, now: T0 + 51, viewer: 'alice' },
      {
        r: {
          ...r3,
          status: 'Declined',
          declined: ODD.map((reason, i) => ({ outcomeId: i % 2 === 0 ? M1b : M2a, reason })),
        },
        now: T0 + 51,
        viewer: 'alice',
      },
      { r: { ...r2, declined: [] }, now: T0 + 43, viewer: 'carol' },
      ...ODD.map((s) => ({
        r: {
          ...r2,
          accountId: s,
          quotes: r2.quotes.map((q) => ({ ...q, quoteId: `${q.quoteId}${s}` })),
        },
        now: T0 + 43,
        viewer: s,
      })),
    ];
    for (const { r, now, viewer } of cases) {
      const expected = await served('/request', [requestToWire(x, r, now, viewer)]);
      assert.equal(
        requestBody(x, r, now, viewer, outcomes).toString('utf8'),
        expected,
        `${r.id} ${r.status} ${viewer}`,
      );
      // again from the kept outcome text
      assert.equal(requestBody(x, r, now, viewer, outcomes).toString('utf8'), expected);
    }
  });

  test('a leg’s kept outcome text follows its market’s book and the catalog', async () => {
    const x = desk();
    const outcomes = new LegOutcomeText();
    const r3 = x.parlayRequest(R3)!;
    const check = async () =>
      assert.equal(
        requestBody(x, r3, T0 + 51, 'alice', outcomes).toString('utf8'),
        await served('/request', [requestToWire(x, r3, T0 + 51, 'alice')]),
      );
    await check();
    ok(x.apply(bid('carol', M1b, 470, 100))); // the leg's book moves
    ok(x.apply({ ...bid('carol', M2a, 300, 5), accountId: 'bob' }));
    await check();
    ok(x.apply({ type: 'SetEventStatus', ts: T0 + 60, eventId: E1, status: 'CLOSED_PREGAME' } as Command));
    await check();
  });

  test('a parlay position: the schema serializer’s bytes, for both sides and once settled', async () => {
    const x = desk();
    const p = x.parlay(R1)!;
    const cases: ParlayRecord[] = [
      p,
      { ...p, status: 'SETTLED', takerPayout: 1_000_000, makerPayout: 0, settledAt: T0 + 99_999 },
      { ...p, clientOrderId: null, boostId: undefined, quotePrice: undefined, boostCost: undefined },
      ...ODD.map((s) => ({ ...p, clientOrderId: s, boostId: s })),
    ];
    for (const c of cases)
      for (const viewer of [c.takerAccountId, c.makerAccountId]) {
        const expected = await served('/parlay', parlayToWire(c, viewer));
        assert.equal(parlayJson(c, viewer), expected, `${c.status} ${viewer}`);
      }
  });
});
