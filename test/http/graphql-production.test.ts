// /v1/graphql as the production schema has it (docs/graphql.md "Schema (the production names)"): the query
// texts public clients send to the production interface (variables typed `uuid`, `player` on
// `market`, filters on outcome `last` and `available`, camelCase `originalQty`), every column the
// production schema exposes to them with its real value or null, and every operator Hasura allows
// on each scalar (uuid, timestamptz, String with LIKE, Int, Float, Boolean, jsonb) with `_and`,
// `_or`, `_not`. The result cache is off, so a repeated query runs compiled by graphql-jit (after
// its first run) and must answer the same. The harness's store throws on any query: nothing here
// reads the database.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_PATTERN_LENGTH, REGEX_STEPS_PER_REQUEST } from '../../src/http/graphql/regex.ts';
import graphqlRoutes from '../../src/http/routes/graphql.ts';
import { uuidFor } from '../../src/ids.ts';
import {
  ACCOUNT_A,
  addOpenGame,
  eventId,
  futureId,
  marketId,
  outcomeId,
  seedAccounts,
  seedCatalog,
  seedLiquidity,
  teamId,
} from './fixture.ts';
import { type Harness, json, makeHarness, TAPE, trader } from './harness.ts';

let h: Harness;
const LOCKED = 3101;
before(async () => {
  h = await makeHarness({
    extra: async (app, port) => {
      await app.register(graphqlRoutes, {
        reader: () => port.reader(),
        rateLimit: 0,
        graphiql: false,
        resultCache: 0,
      });
    },
  });
  seedCatalog(h.port);
  seedAccounts(h.port);
  for (const i of [3100, LOCKED]) {
    addOpenGame(h.port, i);
    seedLiquidity(h.port, i);
    seedLiquidity(h.port, i, 'COIN');
  }
  // Trades in both currencies, so `last` and `altLast` are not all null.
  for (const currency of ['CASH', 'COIN'] as const) {
    const r = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/place',
      headers: trader(ACCOUNT_A),
      payload: { outcomeId: outcomeId(3100, 'MONEY', 0), price: 0.52, qty: 100, currency, tif: 'IOC' },
    });
    assert.equal(r.statusCode, 201, r.body);
  }
  // A running score on game 3100 (the demo's living games write theirs the same way).
  const ok = (r: { ok: boolean }) => assert.ok(r.ok, JSON.stringify(r));
  ok(
    h.port.applyNow({
      type: 'SetGameScore',
      gameId: uuidFor('test', 'game', 3100),
      homeScore: 17,
      awayScore: 10,
      period: 3,
      timeRemaining: '4:30',
    }),
  );
  ok(
    h.port.applyNow({
      type: 'SetLock',
      lock: {
        id: uuidFor('test', 'lock', 1),
        eventId: eventId(LOCKED),
        reason: 'review',
        createdAt: 0,
        expiresAt: null,
      },
    }),
  );
});
after(() => h.close());

interface GqlResponse<T> {
  data: T | null;
  errors?: { message: string }[];
}

/** Runs a query twice (the second run is graphql-jit's compiled form) and returns the one answer. */
async function gql<T>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const answers: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/graphql', payload: { query, variables } });
    assert.equal(res.statusCode, 200, res.body);
    answers.push(res.body);
  }
  assert.equal(answers[1], answers[0], 'the compiled query answers as the first run');
  const body = JSON.parse(answers[0]!) as GqlResponse<T>;
  assert.equal(body.errors, undefined, answers[0]);
  return body.data!;
}

/** A query that must fail with a GraphQL error (never a 5xx); returns the first message. */
async function gqlError(query: string, variables?: Record<string, unknown>): Promise<string> {
  const res = await h.app.inject({ method: 'POST', url: '/v1/graphql', payload: { query, variables } });
  assert.ok(res.statusCode === 200 || res.statusCode === 400, res.body);
  const body = JSON.parse(res.body) as GqlResponse<unknown>;
  assert.equal(body.data ?? null, null, res.body);
  assert.ok(body.errors && body.errors.length > 0, res.body);
  return body.errors[0]!.message;
}

interface RestMarket {
  id: string;
  type: string;
  strike: number | null;
  volume: number;
  isConsensus: boolean;
  outcomes: {
    id: string;
    description: string;
    type: string;
    status: string;
    last: number | null;
    competitor: { id: string } | null;
  }[];
  book: {
    outcomeLadders: {
      outcomeId: string;
      bids: { id: string; price: number; qty: number; originalQty: number }[];
    }[];
  };
}

async function restMarkets(id: string, currency: 'CASH' | 'COIN' = 'CASH'): Promise<RestMarket[]> {
  return json<RestMarket[]>(
    await h.app.inject({
      url: `/nbx/v2/emm/events/getMarketsByEvent/${id}?currency=${currency}`,
      headers: TAPE,
    }),
  );
}

/** Price to buy an outcome now from the REST book: 1 − best bid on the other outcome. */
function availableFrom(m: RestMarket, outcome: string): number | null {
  const best = m.book.outcomeLadders.find((l) => l.outcomeId !== outcome)!.bids[0];
  return best === undefined ? null : Math.round((1 - best.price) * 1000) / 1000;
}

describe('query texts public clients send to the production interface', () => {
  // An odds screen over several leagues: status by _or inside _and, the league through the game,
  // outcomes that have a price (`last` or `available` not null), capped lists.
  const ALL_EVENTS = `
  query GetAllEvents($leagues: [String!]!) {
    event(
      where: {
        _and: [
          { _or: [{ status: { _eq: "OPEN_PREGAME" } }, { status: { _eq: "OPEN_INGAME" } }] }
          { game: { league: { _in: $leagues } } }
        ]
      }
      limit: 50
    ) {
      description
      id
      status
      game {
        scheduled_start
        league
      }
      markets(limit: 12) {
        description
        id
        outcomes(
          where: { _or: [{ last: { _is_null: false } }, { available: { _is_null: false } }] }
          limit: 4
        ) {
          description
          last
          available
          id
        }
      }
    }
  }
`;

  test('events of several leagues with priced outcomes (filters on last and available)', async () => {
    const data = await gql<{
      event: {
        id: string;
        status: string;
        game: { league: string };
        markets: { id: string; outcomes: { id: string; last: number | null; available: number | null }[] }[];
      }[];
    }>(ALL_EVENTS, { leagues: ['NFL', 'NBA'] });
    assert.ok(data.event.length > 0 && data.event.length <= 50);
    let priced = 0;
    for (const e of data.event) {
      assert.ok(['OPEN_PREGAME', 'OPEN_INGAME'].includes(e.status));
      assert.ok(['NFL', 'NBA'].includes(e.game.league));
      const rest = await restMarkets(e.id);
      assert.deepEqual(
        e.markets.map((m) => m.id),
        rest.slice(0, 12).map((m) => m.id),
      );
      for (const [i, m] of e.markets.entries()) {
        const want = rest[i]!.outcomes.map((o) => ({
          id: o.id,
          last: o.last,
          available: availableFrom(rest[i]!, o.id),
        }))
          .filter((o) => o.last !== null || o.available !== null)
          .slice(0, 4);
        assert.deepEqual(
          m.outcomes.map((o) => ({ id: o.id, last: o.last, available: o.available })),
          want,
        );
        priced += want.length;
      }
    }
    assert.ok(priced > 0, 'some outcomes have a price');
    // An outcome without a bid on its other side and no trade is left out.
    const g3000 = data.event.find((e) => e.id === eventId(3100));
    assert.ok(g3000, 'the seeded open NFL game is listed');
  });

  // One event by id, the variable typed with Hasura's `uuid`, with its orders.
  const EVENT_DETAIL = `
  query GetEventDetail($eventId: uuid!) {
    event(where: { id: { _eq: $eventId } }) {
      description
      id
      status
      game {
        scheduled_start
        league
      }
      markets {
        description
        id
        outcomes(where: { _or: [{ last: { _is_null: false } }, { available: { _is_null: false } }] }) {
          description
          id
          last
          available
          orders(
            where: { status: { _eq: "OPEN" }, currency: { _eq: "CASH" } }
            limit: 10
          ) {
            status
            qty
            price
            id
          }
        }
      }
    }
  }
`;

  test('one event by a uuid variable (any case), markets and outcomes as REST', async () => {
    const id = eventId(3100);
    for (const variable of [id, id.toUpperCase()]) {
      const data = await gql<{
        event: { id: string; markets: { id: string; outcomes: { id: string; orders: unknown[] }[] }[] }[];
      }>(EVENT_DETAIL, { eventId: variable });
      assert.equal(data.event.length, 1);
      assert.equal(data.event[0]!.id, id);
      const rest = await restMarkets(id);
      assert.deepEqual(
        data.event[0]!.markets.map((m) => m.id),
        rest.map((m) => m.id),
      );
      // Tickbook's open orders have status RESTING (docs/graphql.md), so "OPEN" selects none.
      for (const m of data.event[0]!.markets) for (const o of m.outcomes) assert.deepEqual(o.orders, []);
    }
    // The same query with Tickbook's status lists the book's bids.
    const resting = await gql<{ event: { markets: { outcomes: { orders: { id: string }[] }[] }[] }[] }>(
      EVENT_DETAIL.replace('_eq: "OPEN"', '_eq: "RESTING"'),
      { eventId: id },
    );
    const rest = await restMarkets(id);
    const bids = rest.flatMap((m) =>
      m.book.outcomeLadders.flatMap((l) => l.bids.slice(0, 10).map((b) => b.id)),
    );
    const got = resting.event[0]!.markets.flatMap((m) =>
      m.outcomes.flatMap((o) => o.orders.map((x) => x.id)),
    );
    assert.deepEqual(new Set(got), new Set(bids));
    assert.ok(got.length > 0);
    // A uuid variable that is not one is an error, never a 5xx.
    assert.match(await gqlError(EVENT_DETAIL, { eventId: 'not-a-uuid' }), /uuid/);
  });

  // Player props of a league: `playerId` filtered, `player { full_name }` selected.
  const PLAYER_PROPS = `
query Markets($types: [String!], $limit: Int!, $offset: Int!, $league: String!) {
  market(
    where: {
      league: {_eq: $league},
      type: {_in: $types},
      status: {_eq: "OPEN"},
      playerId: {_is_null: false},
      event: {status: {_neq: "FINAL"}}
    },
    order_by: {id: asc},
    limit: $limit, offset: $offset
  ) {
    id
    type
    strike
    volume
    player { full_name }
    event { scheduled_start }
    outcomes { type last available }
  }
}
`;

  test('player props: the query runs; Tickbook lists no players, so no market has one', async () => {
    const vars = { types: ['TOTAL', 'SPREAD', 'MONEY'], limit: 200, offset: 0, league: 'NFL' };
    const data = await gql<{ market: unknown[] }>(PLAYER_PROPS, vars);
    assert.deepEqual(data.market, []);
    // Without a player the same selection answers every open NFL market of those types, by id.
    const all = await gql<{
      market: { id: string; type: string; player: null; outcomes: { type: string }[] }[];
    }>(PLAYER_PROPS.replace('{_is_null: false}', '{_is_null: true}'), vars);
    assert.ok(all.market.length > 0);
    const ids = all.market.map((m) => m.id);
    assert.deepEqual(ids, [...ids].sort());
    for (const m of all.market) {
      assert.ok(['TOTAL', 'SPREAD', 'MONEY'].includes(m.type));
      assert.equal(m.player, null);
      assert.deepEqual(
        m.outcomes.map((o) => o.type),
        m.type === 'TOTAL' ? ['OVER', 'UNDER'] : ['HOME', 'AWAY'],
      );
    }
  });

  // One event with every column a public client reads (events, games, markets, outcomes), the
  // market filter passed as a `market_bool_exp` variable.
  const EVENT_MARKETS = `
query EventMarkets($eventId: uuid!, $where: market_bool_exp!) {
  event(where: {id: {_eq: $eventId}}) {
    id type league status description scheduled_start
    is_visible_pregame is_visible_live is_status_locked parent_event_id game_id
    game {
      id league sport status scheduled_start period time_remaining home_score away_score
      homeTeam { id name symbol primary_color }
      awayTeam { id name symbol primary_color }
    }
    markets(where: $where) {
      id type status description strike is_consensus volume league competitorId playerId
      competitor
      player { id }
      market_detail { question }
      outcomes {
        id description type index status last available altLast altAvailable competitorId competitor
      }
    }
    events { id markets(where: $where) { id } }
  }
}
`;
  const OPEN_WITH_LIQUIDITY = {
    _and: [
      { status: { _eq: 'OPEN' } },
      { _or: [{ is_consensus: { _eq: true } }, { outcomes: { available: { _is_null: false } } }] },
    ],
  };

  test('every production column of event, game, market and outcome: real values or null', async () => {
    const data = await gql<{ event: Record<string, unknown>[] }>(EVENT_MARKETS, {
      eventId: eventId(3100),
      where: OPEN_WITH_LIQUIDITY,
    });
    const e = data.event[0]!;
    assert.equal(e.parent_event_id, null);
    assert.equal(e.game_id, uuidFor('test', 'game', 3100));
    assert.equal(e.is_status_locked, false);
    assert.deepEqual(e.events, []);
    const g = e.game as Record<string, unknown>;
    assert.deepEqual(
      [g.sport, g.period, g.time_remaining, g.home_score, g.away_score],
      ['FOOTBALL', 3, '4:30', 17, 10],
    );
    assert.equal((g.homeTeam as Record<string, unknown>).primary_color, null);
    const rest = await restMarkets(eventId(3100));
    const restCoin = await restMarkets(eventId(3100), 'COIN');
    const markets = e.markets as Record<string, unknown>[];
    assert.deepEqual(
      markets.map((m) => m.id),
      rest.map((m) => m.id),
    );
    for (const [i, m] of markets.entries()) {
      const r = rest[i]!;
      assert.deepEqual(
        [
          m.type,
          m.strike,
          m.is_consensus,
          m.volume,
          m.league,
          m.competitorId,
          m.playerId,
          m.competitor,
          m.player,
        ],
        [r.type, r.strike, r.isConsensus, r.volume, 'NFL', null, null, null, null],
      );
      assert.equal(m.market_detail, null, 'only propositions carry a question');
      for (const [j, o] of (m.outcomes as Record<string, unknown>[]).entries()) {
        const ro = r.outcomes[j]!;
        const coin = restCoin[i]!.outcomes[j]!;
        assert.deepEqual(
          [o.id, o.type, o.status, o.last, o.available, o.altLast, o.altAvailable, o.competitorId],
          [
            ro.id,
            ro.type,
            ro.status,
            ro.last,
            availableFrom(r, ro.id),
            coin.last,
            availableFrom(restCoin[i]!, ro.id),
            ro.competitor?.id ?? null,
          ],
        );
        assert.deepEqual(o.competitor, ro.competitor);
      }
    }
    assert.ok(
      markets.some((m) => (m.outcomes as { altLast: unknown }[]).some((o) => o.altLast !== null)),
      'the COIN trade shows in altLast',
    );
  });

  test('open orders with camelCase originalQty, as the REST ladder', async () => {
    const data = await gql<{
      outcome: {
        id: string;
        orders: { id: string; qty: number; originalQty: number; original_qty: number }[];
      }[];
    }>(
      `query Orders($id: uuid!) { outcome(where: {id: {_eq: $id}}) { id
        orders(where: {currency: {_eq: "CASH"}}) { id qty originalQty original_qty } } }`,
      { id: outcomeId(3100, 'SPREAD', 0) },
    );
    const ladder = (await restMarkets(eventId(3100)))
      .find((m) => m.id === marketId(3100, 'SPREAD'))!
      .book.outcomeLadders.find((l) => l.outcomeId === outcomeId(3100, 'SPREAD', 0))!;
    assert.deepEqual(
      data.outcome[0]!.orders,
      ladder.bids.map((b) => ({
        id: b.id,
        qty: b.qty,
        originalQty: b.originalQty,
        original_qty: b.originalQty,
      })),
    );
    assert.ok(ladder.bids.length > 0);
  });
});

describe('columns with real data', () => {
  test('is_status_locked follows the operator lock on the event', async () => {
    const data = await gql<{ event: { id: string; is_status_locked: boolean }[] }>(
      '{ event(where: {is_status_locked: {_eq: true}}) { id is_status_locked } }',
    );
    assert.deepEqual(data.event, [{ id: eventId(LOCKED), is_status_locked: true }]);
  });

  test('game sport by league, null for a league outside the catalog', async () => {
    const data = await gql<{ game: { league: string; sport: string | null }[] }>(
      '{ game(distinct_on: league, order_by: {league: asc}) { league sport } }',
    );
    assert.deepEqual(data.game, [
      { league: 'MLB', sport: 'BASEBALL' },
      { league: 'NBA', sport: 'BASKETBALL' },
      { league: 'NFL', sport: 'FOOTBALL' },
      { league: 'NHL', sport: 'HOCKEY' },
      { league: 'XFL', sport: null },
    ]);
  });

  test('a proposition carries its event question in market_detail', async () => {
    const data = await gql<{ market: { type: string; market_detail: { question: string } | null }[] }>(
      `{ market(where: {event_id: {_eq: "${futureId(1)}"}}) { type market_detail { question } } }`,
    );
    assert.deepEqual(data.market, [{ type: 'YES_NO', market_detail: { question: 'Future 1' } }]);
  });
});

describe('every operator Hasura allows on each scalar', () => {
  interface Ev {
    id: string;
    description: string;
    scheduled_start: string;
    game_id: string | null;
  }
  let all: Ev[];
  before(async () => {
    all = (await gql<{ event: Ev[] }>('{ event { id description scheduled_start game_id } }')).event;
  });
  const ids = async (where: string, variables?: Record<string, unknown>, head = '') =>
    (
      await gql<{ event: { id: string }[] }>(`query Q${head} { event(where: ${where}) { id } }`, variables)
    ).event.map((e) => e.id);
  const expect = (pred: (e: Ev) => boolean) => all.filter(pred).map((e) => e.id);
  const discriminating = (want: string[], label: string) =>
    assert.ok(want.length > 0 && want.length < all.length, `${label} discriminates`);

  test('uuid: _eq _neq _in _nin _gt _gte _lt _lte _is_null, literals and variables', async () => {
    const [a, b] = [eventId(5), eventId(7)];
    const cases: [string, (e: Ev) => boolean][] = [
      [`{id: {_eq: "${a.toUpperCase()}"}}`, (e) => e.id === a],
      [`{id: {_neq: "${a}"}}`, (e) => e.id !== a],
      [`{id: {_in: ["${a}", "${b}"]}}`, (e) => e.id === a || e.id === b],
      [`{id: {_nin: ["${a}", "${b}"]}}`, (e) => e.id !== a && e.id !== b],
      [`{id: {_gt: "${a}"}}`, (e) => e.id > a],
      [`{id: {_gte: "${a}"}}`, (e) => e.id >= a],
      [`{id: {_lt: "${a}"}}`, (e) => e.id < a],
      [`{id: {_lte: "${a}"}}`, (e) => e.id <= a],
      ['{game_id: {_is_null: true}}', (e) => e.game_id === null],
    ];
    for (const [where, pred] of cases) {
      const want = expect(pred);
      discriminating(want, where);
      assert.deepEqual(await ids(where), want, where);
    }
    assert.deepEqual(
      await ids('{id: {_in: $ids}}', { ids: [a, b.toUpperCase()] }, '($ids: [uuid!])'),
      expect((e) => e.id === a || e.id === b),
    );
    assert.match(await gqlError(`{ event(where: {id: {_eq: "${a.slice(1)}"}}) { id } }`), /uuid/);
    assert.match(await gqlError('{ event(where: {id: {_eq: 5}}) { id } }'), /string|uuid/i);
    // A uuid column does not compare as text.
    assert.match(await gqlError('{ event(where: {id: {_like: "0%"}}) { id } }'), /_like/);
  });

  test('timestamptz: every operator, any RFC 3339 zone, compared as time', async () => {
    const mid = all[Math.floor(all.length / 2)]!.scheduled_start;
    const ms = Date.parse(mid);
    // The same instant written in +02:00 with a space, as PostgreSQL accepts it.
    const local = new Date(ms + 2 * 3_600_000).toISOString().replace('T', ' ').replace('Z', '+02:00');
    const cases: [string, (e: Ev) => boolean][] = [
      ['_eq', (e) => e.scheduled_start === mid],
      ['_neq', (e) => e.scheduled_start !== mid],
      ['_gt', (e) => e.scheduled_start > mid],
      ['_gte', (e) => e.scheduled_start >= mid],
      ['_lt', (e) => e.scheduled_start < mid],
      ['_lte', (e) => e.scheduled_start <= mid],
    ];
    for (const [op, pred] of cases) {
      const want = expect(pred);
      discriminating(want, op);
      assert.deepEqual(await ids(`{scheduled_start: {${op}: "${local}"}}`), want, op);
      assert.deepEqual(
        await ids(`{scheduled_start: {${op}: $t}}`, { t: mid }, '($t: timestamptz!)'),
        want,
        op,
      );
    }
    assert.deepEqual(
      await ids(`{scheduled_start: {_in: ["${local}"]}}`),
      expect((e) => e.scheduled_start === mid),
    );
    assert.deepEqual(
      await ids(`{scheduled_start: {_nin: ["${local}"]}}`),
      expect((e) => e.scheduled_start !== mid),
    );
    assert.deepEqual(await ids('{scheduled_start: {_is_null: true}}'), []);
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '2026-02-30']) {
      assert.match(
        await gqlError(`{ event(where: {scheduled_start: {_gt: "${bad}"}}) { id } }`),
        /timestamptz/,
      );
    }
  });

  test('String: _like _nlike _ilike _nilike (%, _ and escapes) beside the ordered operators', async () => {
    const cases: [string, (e: Ev) => boolean][] = [
      ['{description: {_like: "A1%"}}', (e) => e.description.startsWith('A1')],
      ['{description: {_nlike: "A1%"}}', (e) => !e.description.startsWith('A1')],
      ['{description: {_like: "a1%"}}', () => false],
      ['{description: {_ilike: "a1%"}}', (e) => e.description.startsWith('A1')],
      ['{description: {_nilike: "a1%"}}', (e) => !e.description.startsWith('A1')],
      ['{description: {_like: "A_ @ H_"}}', (e) => /^A\d @ H\d$/.test(e.description)],
      ['{description: {_like: "%@ H1_"}}', (e) => /@ H1\d$/.test(e.description)],
      ['{description: {_ilike: "%future%"}}', (e) => e.description.startsWith('Future')],
      ['{description: {_gt: "B"}}', (e) => e.description > 'B'],
    ];
    for (const [where, pred] of cases) {
      const want = expect(pred);
      if (where !== '{description: {_like: "a1%"}}') discriminating(want, where);
      assert.deepEqual(await ids(where), want, where);
    }
    // `\` escapes a wildcard: no description holds a literal % or _.
    assert.deepEqual(await ids('{description: {_like: "%\\\\%%"}}'), []);
    assert.deepEqual(await ids('{description: {_like: "A1\\\\_%"}}'), []);
    assert.match(await gqlError('{ event(where: {description: {_like: "A\\\\"}}) { id } }'), /escape/);
  });

  test('String: _regex _nregex _iregex _niregex (PostgreSQL ~, ~*) and _similar _nsimilar', async () => {
    const cases: [string, (e: Ev) => boolean][] = [
      ['{description: {_regex: "^A1[0-9] @"}}', (e) => /^A1[0-9] @/.test(e.description)],
      ['{description: {_nregex: "^A1[0-9] @"}}', (e) => !/^A1[0-9] @/.test(e.description)],
      ['{description: {_regex: "h1\\\\d$"}}', () => false],
      ['{description: {_iregex: "h1\\\\d$"}}', (e) => /h1\d$/i.test(e.description)],
      ['{description: {_niregex: "h1\\\\d$"}}', (e) => !/h1\d$/i.test(e.description)],
      ['{description: {_regex: "(A2|A3)[0-9]? @ H"}}', (e) => /(A2|A3)[0-9]? @ H/.test(e.description)],
      ['{description: {_regex: "^A[[:digit:]]{3} "}}', (e) => /^A\d{3} /.test(e.description)],
      ['{description: {_similar: "A(1|2)% @ H%"}}', (e) => /^A(1|2).* @ H.*$/s.test(e.description)],
      ['{description: {_nsimilar: "A(1|2)% @ H%"}}', (e) => !/^A(1|2).* @ H.*$/s.test(e.description)],
      ['{description: {_similar: "Future _"}}', (e) => /^Future .$/.test(e.description)],
    ];
    for (const [where, pred] of cases) {
      const want = expect(pred);
      if (!where.includes('_regex: "h1')) discriminating(want, where);
      assert.deepEqual(await ids(where), want, where);
    }
    // Patterns a linear-time engine cannot run, or that are not patterns, are errors naming why.
    assert.match(
      await gqlError('{ event(where: {description: {_regex: "(a)\\\\1"}}) { id } }'),
      /backreference/,
    );
    assert.match(await gqlError('{ event(where: {description: {_regex: "(?=A)"}}) { id } }'), /lookaround/);
    assert.match(await gqlError('{ event(where: {description: {_regex: "(A"}}) { id } }'), /unmatched/);
    // A pattern that backtracks exponentially in JavaScript's RegExp answers at once here.
    const t0 = performance.now();
    assert.deepEqual(await ids('{description: {_regex: "^(A+)+$"}}'), []);
    assert.ok(performance.now() - t0 < 2000);
  });

  test('regular-expression work per request is bounded: a costly filter is an error, not a stall', async () => {
    // Every match is charged program size × (text length + 1) steps before it runs. `(.?){250}zz`
    // compiles to over 500 instructions; enough distinct copies of it in one `_or` charge more than
    // the request's budget over the outcome descriptions, while compiling them costs a fraction.
    const { outcome } = await gql<{ outcome: { description: string }[] }>('{ outcome { description } }');
    const chars = outcome.reduce((n, o) => n + o.description.length + 1, 0);
    const copies = Math.ceil(REGEX_STEPS_PER_REQUEST / (500 * chars)) + 1;
    assert.ok(copies * 20 * 1_000 < REGEX_STEPS_PER_REQUEST / 2, 'compiling is not what runs out');
    const or = Array.from({ length: copies }, (_, k) => `{description: {_regex: "(.?){250}zz${k}"}}`);
    const t0 = performance.now();
    const msg = await gqlError(`{ outcome(where: {_or: [${or.join(', ')}]}) { id } }`);
    assert.match(msg, /work one request may do/);
    assert.ok(performance.now() - t0 < 2000);
    // Long patterns are refused before anything is compiled.
    const long = 'a'.repeat(MAX_PATTERN_LENGTH + 1);
    assert.match(
      await gqlError(`{ outcome(where: {description: {_regex: "${long}"}}) { id } }`),
      /longer than 1000 characters/,
    );
  });

  test('Float on outcome last, available (CASH) and altLast, altAvailable (COIN); order_by on them', async () => {
    type O = {
      id: string;
      last: number | null;
      available: number | null;
      altLast: number | null;
      altAvailable: number | null;
    };
    const outs = (await gql<{ outcome: O[] }>('{ outcome { id last available altLast altAvailable } }'))
      .outcome;
    const oids = async (where: string) =>
      (await gql<{ outcome: { id: string }[] }>(`{ outcome(where: ${where}) { id } }`)).outcome.map(
        (o) => o.id,
      );
    const traded = outs.find((o) => o.last !== null)!.last!;
    const cases: [string, (o: O) => boolean][] = [
      ['{last: {_is_null: false}}', (o) => o.last !== null],
      [`{last: {_eq: ${traded}}}`, (o) => o.last === traded],
      ['{available: {_gt: 0.51}}', (o) => o.available !== null && o.available > 0.51],
      ['{available: {_lte: 0.51}}', (o) => o.available !== null && o.available <= 0.51],
      ['{available: {_in: [0.51, 0.52]}}', (o) => o.available === 0.51 || o.available === 0.52],
      ['{available: {_nin: [0.51]}}', (o) => o.available !== null && o.available !== 0.51],
      ['{available: {_neq: 0.51}}', (o) => o.available !== null && o.available !== 0.51],
      ['{available: {_gte: 0.52}}', (o) => o.available !== null && o.available >= 0.52],
      ['{available: {_lt: 0.52}}', (o) => o.available !== null && o.available < 0.52],
      ['{altLast: {_is_null: false}}', (o) => o.altLast !== null],
      ['{altAvailable: {_is_null: false}}', (o) => o.altAvailable !== null],
      [
        '{_or: [{last: {_is_null: false}}, {available: {_is_null: false}}]}',
        (o) => o.last !== null || o.available !== null,
      ],
    ];
    for (const [where, pred] of cases) {
      const want = outs.filter(pred).map((o) => o.id);
      assert.ok(want.length > 0 && want.length < outs.length, `${where} discriminates`);
      assert.deepEqual(await oids(where), want, where);
    }
    const byAvail = (
      await gql<{ outcome: { available: number | null }[] }>(
        '{ outcome(where: {available: {_is_null: false}}, order_by: {available: desc}) { available } }',
      )
    ).outcome.map((o) => o.available!);
    assert.deepEqual(
      byAvail,
      [...byAvail].sort((x, y) => y - x),
    );
  });

  test('Int, Boolean and jsonb columns', async () => {
    const games = (
      await gql<{ game: { id: string; home_score: number | null }[] }>('{ game { id home_score } }')
    ).game;
    const scored = (await gql<{ game: { id: string }[] }>('{ game(where: {home_score: {_gte: 17}}) { id } }'))
      .game;
    assert.deepEqual(
      scored.map((g) => g.id),
      games.filter((g) => g.home_score !== null && g.home_score >= 17).map((g) => g.id),
    );
    assert.ok(scored.length > 0);
    const consensus = (
      await gql<{ market: { is_consensus: boolean }[] }>(
        '{ market(where: {_not: {is_consensus: {_eq: true}}}) { is_consensus } }',
      )
    ).market;
    assert.ok(consensus.every((m) => m.is_consensus === false));
    // jsonb: the competitor object of moneyline outcomes.
    const home = teamId('NFL', 0);
    type C = { id: string; competitor: { id: string; symbol: string } | null };
    const outs = (await gql<{ outcome: C[] }>('{ outcome { id competitor } }')).outcome;
    const jids = async (where: string, variables?: Record<string, unknown>, head = '') =>
      (
        await gql<{ outcome: { id: string }[] }>(
          `query J${head} { outcome(where: ${where}) { id } }`,
          variables,
        )
      ).outcome.map((o) => o.id);
    const cases: [string, (o: C) => boolean][] = [
      ['{competitor: {_is_null: false}}', (o) => o.competitor !== null],
      [`{competitor: {_contains: {id: "${home}"}}}`, (o) => o.competitor?.id === home],
      ['{competitor: {_has_key: "symbol"}}', (o) => o.competitor !== null],
      ['{competitor: {_has_keys_all: ["symbol", "nope"]}}', () => false],
      ['{competitor: {_has_keys_any: ["symbol", "nope"]}}', (o) => o.competitor !== null],
      [`{competitorId: {_eq: "${home}"}}`, (o) => o.competitor?.id === home],
    ];
    for (const [where, pred] of cases) {
      assert.deepEqual(
        await jids(where),
        outs.filter(pred).map((o) => o.id),
        where,
      );
    }
    const whole = outs.find((o) => o.competitor?.id === home)!.competitor!;
    assert.deepEqual(
      await jids('{competitor: {_eq: $c}}', { c: { ...whole } }, '($c: jsonb)'),
      outs.filter((o) => o.competitor?.id === home).map((o) => o.id),
    );
    assert.deepEqual(
      await jids('{competitor: {_contained_in: $c}}', { c: { ...whole, extra: 1 } }, '($c: jsonb)'),
      outs.filter((o) => o.competitor?.id === home).map((o) => o.id),
    );
    assert.deepEqual(
      await jids('{competitor: {_neq: $c}}', { c: whole }, '($c: jsonb)'),
      outs.filter((o) => o.competitor !== null && o.competitor.id !== home).map((o) => o.id),
    );
  });

  test('the schema offers each scalar exactly the operators Hasura defines for it', async () => {
    const data = await gql<{
      __schema: { types: { name: string; inputFields: { name: string }[] | null }[] };
    }>('{ __schema { types { name inputFields { name } } } }');
    const ops = (t: string) =>
      data.__schema.types
        .find((x) => x.name === `${t}_comparison_exp`)!
        .inputFields!.map((f) => f.name)
        .sort();
    const ordered = ['_eq', '_gt', '_gte', '_in', '_is_null', '_lt', '_lte', '_neq', '_nin'];
    for (const t of ['uuid', 'timestamptz', 'Int', 'Float', 'Boolean']) assert.deepEqual(ops(t), ordered, t);
    assert.deepEqual(
      ops('String'),
      [
        ...ordered,
        ...['_ilike', '_like', '_nilike', '_nlike'],
        ...['_iregex', '_niregex', '_nregex', '_regex', '_nsimilar', '_similar'],
      ].sort(),
    );
    assert.deepEqual(ops('jsonb'), [
      '_contained_in',
      '_contains',
      '_eq',
      '_has_key',
      '_has_keys_all',
      '_has_keys_any',
      '_in',
      '_is_null',
      '_neq',
      '_nin',
    ]);
  });
});
