// A parlay request's and a parlay position's wire JSON written as text (src/wire/parlay-json.ts) are
// byte for byte what the routes' response schemas make of the wire objects (requestToWire,
// parlayToWire) — Fastify's own serializer, as the routes used it — for requests unfilled, boosted,
// filled, cancelled and declined, with quotes or none, for both sides of a fill, and for odd strings.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { Exchange as Engine } from '../../src/exchange/exchange.ts';
import type { Command, ParlayRecord, ParlayRequestRecord } from '../../src/exchange/types.ts';
import { wireParlaySchema, wireRequestSchema } from '../../src/http/schemas/parlays.ts';
import { LegOutcomeText, parlayJson, requestBody } from '../../src/wire/parlay-json.ts';
import { parlayToWire, requestToWire } from '../../src/wire/parlays.ts';
import { bid, ok, parlayRequest, T0 } from '../exchange/fixtures.ts';

const ODD = ['a"quote', 'back\\slash', 'line\nfeed', '\u0000', 'é ✓', '\ud83d\ude00', 'lone \ud800'];

/** The game of the fixtures with a boosted, filled request R1, an open R2 with two quotes, R3 bare. */
/** Ids as the server makes them (UUIDs: the schema's serializer checks them on nullable objects). */
const uuid = (n: number) => `0193f1c2-7a4b-7c3d-8e9f-${n.toString(16).padStart(12, '0')}`;
const [H, A, E1, G1, M1, M2, R1, R2, R3] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(uuid) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
/** A market's two outcomes: its id's number × 16 + 1 and + 2. */
const out = (m: string, side: 'a' | 'b') =>
  uuid(Number.parseInt(m.slice(-12), 16) * 16 + (side === 'a' ? 1 : 2));
const [M1a, M1b, M2a, M2b] = [out(M1, 'a'), out(M1, 'b'), out(M2, 'a'), out(M2, 'b')];

/** The game (a moneyline and a total of 47.5), four funded accounts. */
function setup(): Engine {
  const x = new Engine();
  const ts = T0;
  const team = (id: string, name: string) =>
    ({
      type: 'CreateTeam',
      ts,
      team: {
        id,
        league: 'NFL',
        name,
        shortName: name,
        symbol: name.slice(0, 3).toUpperCase(),
        mascot: name,
      },
    }) as Command;
  const market = (id: string, type: 'MONEY' | 'TOTAL', strike: number | null) => ({
    id,
    type,
    strike,
    description: `${type} "market"`,
    outcomes: [
      { id: out(id, 'a'), description: 'home \u2713' },
      { id: out(id, 'b'), description: 'away' },
    ],
  });
  const cmds: Command[] = [
    { type: 'CreateLeague', ts, code: 'NFL', name: 'National Football League' },
    team(H, 'Home'),
    team(A, 'Away'),
    {
      type: 'CreateEvent',
      ts,
      event: {
        id: E1,
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'A @ H',
        league: 'NFL',
        scheduledStart: T0 + 3_600_000,
      },
      game: { id: G1, homeTeamId: H, awayTeamId: A },
      markets: [market(M1, 'MONEY', null), market(M2, 'TOTAL', 47.5)],
    } as Command,
  ];
  for (const c of cmds) ok(x.apply(c));
  for (const id of ['alice', 'bob', 'carol', 'house']) {
    ok(x.apply({ type: 'CreateAccount', ts, accountId: id }));
    for (const currency of ['CASH', 'COIN'] as const)
      ok(x.apply({ type: 'Deposit', ts, accountId: id, currency, amount: 1_000_000_000 }));
  }
  return x;
}

function desk(): Engine {
  const x = setup();
  const apply = (c: Command) => ok(x.apply(c));
  apply(bid('carol', M1a, 450, 100)); // a book on a leg: its market's wire shows it
  apply({
    type: 'CreateBoost',
    ts: T0 + 1,
    boostId: 'B1',
    kind: 'PERCENT',
    value: 200_000,
    leagues: [],
    minLegs: 2,
    maxStake: 1_000_000,
    validFrom: T0,
    validTo: T0 + 60_000,
    claimLimit: 1,
    fundingAccountId: 'house',
  });
  apply({ type: 'ClaimBoost', ts: T0 + 2, boostId: 'B1', accountId: 'alice' });
  const legs = [
    { outcomeId: M1a, price: 500_000 },
    { outcomeId: M2b, price: 400_000 },
  ];
  apply(parlayRequest({ requestId: R1, legs, refPrice: 250_000, boostId: 'B1', stake: 200_000 }));
  const quote = (requestId: string, accountId: string, price: number, ts: number) =>
    apply({
      type: 'ParlayQuote',
      ts,
      quoteId: `${accountId}:${requestId}`,
      requestId,
      accountId,
      price,
      maxQty: 2_000,
      expiresAt: ts + 20_000,
    });
  quote(R1, 'bob', 250_000, T0 + 20);
  quote(R1, 'house', 260_000, T0 + 21);
  apply({
    type: 'ParlayWager',
    ts: T0 + 30,
    requestId: R1,
    accountId: 'alice',
    stake: 200_000,
    maxPrice: 250_000,
    clientOrderId: 'w"1',
  });
  apply(
    parlayRequest({ requestId: R2, legs, ts: T0 + 40, accountId: 'carol', currency: 'COIN', stake: 123_457 }),
  );
  quote(R2, 'bob', 220_001, T0 + 41);
  quote(R2, 'house', 219_999, T0 + 42);
  apply(
    parlayRequest({
      requestId: R3,
      ts: T0 + 50,
      legs: [
        { outcomeId: M1b, price: 333_333 },
        { outcomeId: M2a, price: 666_667 },
      ],
    }),
  );
  return x;
}

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
