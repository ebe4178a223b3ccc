// A parlay desk in the engine for the wire tests and benches of a parlay request's and a parlay
// position's answers (test/wire/parlay-json.test.ts, bench/parlay-answers.ts): the fixtures' game
// with UUID ids, a boosted request filled (R1), an open COIN request with two quotes (R2), a bare
// one (R3). The same state every time.

import { Exchange as Engine } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';
import { bid, ok, parlayRequest, T0 } from '../exchange/fixtures.ts';

export { T0 };

/** Ids as the server makes them (UUIDs: the schema's serializer checks them on nullable objects). */
const uuid = (n: number) => `0193f1c2-7a4b-7c3d-8e9f-${n.toString(16).padStart(12, '0')}`;
export const [H, A, E1, G1, M1, M2, R1, R2, R3] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map(uuid) as [
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
export const [M1a, M1b, M2a, M2b] = [out(M1, 'a'), out(M1, 'b'), out(M2, 'a'), out(M2, 'b')];

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

/** The game, a boosted request filled (R1), an open COIN request with two quotes (R2), R3 bare. */
export function desk(): Engine {
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
