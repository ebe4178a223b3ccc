// The GraphQL read interface /v1/graphql (docs/graphql.md): the queries the production
// documentation shows, with results equal to the REST answers over the same state; every
// `where` operator, ordering, paging, distinct_on; bad, too deep and too costly queries (GraphQL
// errors, never a 5xx); introspection; the rate limit; GraphiQL only when configured. The harness's
// store throws on any query, so these also prove nothing reads the database.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import graphqlRoutes from '../../src/http/routes/graphql.ts';
import { ACCOUNT_A, addOpenGame, outcomeId, seedAccounts, seedCatalog, seedLiquidity } from './fixture.ts';
import { type Harness, json, makeHarness, TAPE, trader } from './harness.ts';

let h: Harness;
before(async () => {
  h = await makeHarness({
    extra: async (app, port) => {
      await app.register(graphqlRoutes, { reader: () => port.reader(), rateLimit: 0, graphiql: false });
    },
  });
  seedCatalog(h.port);
  seedAccounts(h.port);
  for (const i of [3000, 3001, 3002]) {
    addOpenGame(h.port, i);
    seedLiquidity(h.port, i);
    seedLiquidity(h.port, i, 'COIN');
  }
  // A trade, so `last` and `volume` are not all null/0.
  const r = await h.app.inject({
    method: 'POST',
    url: '/nbx/v2/emm/orders/place',
    headers: trader(ACCOUNT_A),
    payload: { outcomeId: outcomeId(3000, 'MONEY', 0), price: 0.52, qty: 100, currency: 'CASH', tif: 'IOC' },
  });
  assert.equal(r.statusCode, 201, r.body);
});
after(() => h.close());

interface GqlResponse<T = Record<string, unknown>> {
  data: T | null;
  errors?: { message: string }[];
}

async function gql<T = Record<string, unknown>>(
  query: string,
  variables?: Record<string, unknown>,
  expectStatus = 200,
): Promise<GqlResponse<T>> {
  const res = await h.app.inject({ method: 'POST', url: '/v1/graphql', payload: { query, variables } });
  assert.equal(res.statusCode, expectStatus, res.body);
  return JSON.parse(res.body) as GqlResponse<T>;
}

async function restAll<T>(path: string): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; ; offset += 100) {
    const sep = path.includes('?') ? '&' : '?';
    const page = json<T[]>(
      await h.app.inject({ url: `${path}${sep}limit=100&offset=${offset}`, headers: TAPE }),
    );
    out.push(...page);
    if (page.length < 100) return out;
  }
}

// The odds screen (production documentation): open events of a league, their markets and
// outcomes with the open CASH orders.
const ODDS_SCREEN = `query Odds($league: String!) {
  event(where: {league: {_eq: $league}, status: {_in: ["OPEN_PREGAME", "OPEN_INGAME"]}},
        order_by: {scheduled_start: asc}) {
    id description status scheduled_start
    game { id homeTeam { id name symbol } awayTeam { id name symbol } }
    markets {
      id type description status strike
      outcomes {
        id description index available last competitor
        orders(where: {status: {_eq: "RESTING"}, currency: {_eq: "CASH"}}) { id price qty currency }
      }
    }
  }
}`;

interface RestOutcome {
  id: string;
  description: string;
  index: number;
  last: number | null;
  competitor: unknown;
}
interface RestMarket {
  id: string;
  type: string;
  description: string;
  status: string;
  strike: number | null;
  outcomes: RestOutcome[];
  book: { outcomeLadders: { outcomeId: string; bids: { id: string; price: number; qty: number }[] }[] };
}

describe('production documentation queries equal the REST answers', () => {
  test('open events of a league with outcomes and open CASH orders', async () => {
    const res = await gql<{ event: Record<string, unknown>[] }>(ODDS_SCREEN, { league: 'NFL' });
    assert.equal(res.errors, undefined);
    const got = res.data!.event;
    const rest = [
      ...(await restAll<{ id: string; status: string; game?: unknown }>(
        '/nbx/v2/emm/events?league=NFL&status=OPEN_PREGAME',
      )),
      ...(await restAll<{ id: string; status: string; game?: unknown }>(
        '/nbx/v2/emm/events?league=NFL&status=OPEN_INGAME',
      )),
    ];
    assert.ok(rest.length >= 3);
    assert.deepEqual(new Set(got.map((e) => e.id)), new Set(rest.map((e) => e.id)));
    let orders = 0;
    for (const e of got) {
      const restEvent = rest.find((x) => x.id === e.id) as {
        game?: { id: string; homeTeam: { name: string } };
      };
      // Futures of the league have no game, in both interfaces.
      const game = e.game as { id: string; homeTeam: { name: string } } | null;
      assert.equal(game?.id, restEvent.game?.id);
      assert.equal(game?.homeTeam.name, restEvent.game?.homeTeam.name);
      const markets = json<RestMarket[]>(
        await h.app.inject({
          url: `/nbx/v2/emm/events/getMarketsByEvent/${e.id}?currency=CASH`,
          headers: TAPE,
        }),
      );
      const gm = e.markets as Record<string, unknown>[];
      assert.deepEqual(
        gm.map((m) => [m.id, m.type, m.description, m.status, m.strike]),
        markets.map((m) => [m.id, m.type, m.description, m.status, m.strike]),
      );
      for (const [i, m] of markets.entries()) {
        const outs = gm[i]!.outcomes as Record<string, unknown>[];
        for (const [j, o] of m.outcomes.entries()) {
          const g = outs[j]!;
          assert.deepEqual(
            [g.id, g.description, g.index, g.last, g.competitor],
            [o.id, o.description, o.index, o.last, o.competitor],
          );
          const ladder = m.book.outcomeLadders.find((l) => l.outcomeId === o.id)!;
          assert.deepEqual(
            g.orders,
            ladder.bids.map((b) => ({ id: b.id, price: b.price, qty: b.qty, currency: 'CASH' })),
          );
          orders += ladder.bids.length;
          // available = 1 − the best bid on the other outcome.
          const other = m.book.outcomeLadders.find((l) => l.outcomeId !== o.id)!;
          const best = other.bids[0];
          assert.equal(g.available, best === undefined ? null : Math.round((1 - best.price) * 1000) / 1000);
        }
      }
    }
    assert.ok(orders > 0, 'the screen shows open orders');
    // The trade moved `last` on one outcome: GraphQL says what REST says.
    const traded = got.flatMap((e) =>
      (e.markets as { outcomes: { id: string; last: number | null }[] }[]).flatMap((m) => m.outcomes),
    );
    assert.ok(traded.some((o) => o.last !== null));
  });

  test('leagues via distinct_on equal the leagues of the REST events', async () => {
    const res = await gql<{ event: { league: string }[] }>(
      '{ event(distinct_on: league, order_by: {league: asc}) { league } }',
    );
    const rest = await restAll<{ league: string }>('/nbx/v2/emm/events');
    assert.deepEqual(
      res.data!.event.map((e) => e.league),
      [...new Set(rest.map((e) => e.league))].sort(),
    );
  });

  test('futures by type equal REST events?type=Future, markets without game', async () => {
    const res = await gql<{
      event: {
        id: string;
        game: unknown;
        markets: { type: string; outcomes: { description: string }[] }[];
      }[];
    }>(
      '{ event(where: {type: {_eq: "Future"}}) { id game { id } markets { type outcomes { description } } } }',
    );
    const rest = await restAll<{ id: string }>('/nbx/v2/emm/events?type=Future');
    assert.ok(rest.length > 0);
    assert.deepEqual(
      res.data!.event.map((e) => e.id),
      rest.map((e) => e.id),
    );
    for (const e of res.data!.event) {
      assert.equal(e.game, null);
      assert.deepEqual(
        e.markets.map((m) => m.type),
        ['YES_NO'],
      );
    }
  });

  test('GET serves queries too', async () => {
    const q = encodeURIComponent('{ event(limit: 2) { id } }');
    const res = await h.app.inject({ url: `/v1/graphql?query=${q}` });
    assert.equal(res.statusCode, 200, res.body);
    const rest = json<{ id: string }[]>(
      await h.app.inject({ url: '/nbx/v2/emm/events?limit=2', headers: TAPE }),
    );
    assert.deepEqual(
      JSON.parse(res.body).data.event.map((e: { id: string }) => e.id),
      rest.map((e) => e.id),
    );
  });
});

describe('result cache', () => {
  test('an answer is reused only while no command was applied', async () => {
    const q = `{ outcome(where: {id: {_eq: "${outcomeId(3001, 'TOTAL', 0)}"}}) { orders(where: {currency: {_eq: "CASH"}}) { price qty } } }`;
    const orders = async () =>
      (await gql<{ outcome: { orders: { price: number; qty: number }[] }[] }>(q)).data!.outcome[0]!.orders;
    const before = await orders();
    assert.deepEqual(await orders(), before);
    const placed = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/place',
      headers: trader(ACCOUNT_A),
      payload: { outcomeId: outcomeId(3001, 'TOTAL', 0), price: 0.3, qty: 77, currency: 'CASH', tif: 'GTC' },
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const after = await orders();
    assert.equal(after.length, before.length + 1);
    assert.ok(after.some((o) => o.price === 0.3 && o.qty === 77));
  });
});

describe('where, order_by, limit, offset, distinct_on', () => {
  const ids = async (query: string) =>
    (await gql<{ event: { id: string }[] }>(query)).data!.event.map((e) => e.id);
  let all: { id: string; league: string; status: string; scheduled_start: string; game_id: string | null }[];
  before(async () => {
    all = (await gql<{ event: typeof all }>('{ event { id league status scheduled_start game_id } }')).data!
      .event;
  });

  test('every comparison operator and the boolean combinators', async () => {
    const expect = (pred: (e: (typeof all)[number]) => boolean) => all.filter(pred).map((e) => e.id);
    const mid = all[Math.floor(all.length / 2)]!.scheduled_start;
    const cases: [string, (e: (typeof all)[number]) => boolean][] = [
      ['{league: {_eq: "NBA"}}', (e) => e.league === 'NBA'],
      ['{league: {_neq: "NBA"}}', (e) => e.league !== 'NBA'],
      ['{league: {_in: ["NBA", "MLB"]}}', (e) => ['NBA', 'MLB'].includes(e.league)],
      ['{league: {_nin: ["NBA", "MLB"]}}', (e) => !['NBA', 'MLB'].includes(e.league)],
      [`{scheduled_start: {_gt: "${mid}"}}`, (e) => e.scheduled_start > mid],
      [`{scheduled_start: {_gte: "${mid}"}}`, (e) => e.scheduled_start >= mid],
      [`{scheduled_start: {_lt: "${mid}"}}`, (e) => e.scheduled_start < mid],
      [`{scheduled_start: {_lte: "${mid}"}}`, (e) => e.scheduled_start <= mid],
      ['{game_id: {_is_null: true}}', (e) => e.game_id === null],
      ['{game_id: {_is_null: false}}', (e) => e.game_id !== null],
      [
        '{_and: [{league: {_eq: "NFL"}}, {status: {_eq: "OPEN_PREGAME"}}]}',
        (e) => e.league === 'NFL' && e.status === 'OPEN_PREGAME',
      ],
      [
        '{_or: [{league: {_eq: "NHL"}}, {status: {_eq: "FINAL"}}]}',
        (e) => e.league === 'NHL' || e.status === 'FINAL',
      ],
      ['{_not: {league: {_eq: "NFL"}}}', (e) => e.league !== 'NFL'],
    ];
    for (const [where, pred] of cases) {
      const want = expect(pred);
      assert.ok(want.length > 0 && want.length < all.length, `${where} discriminates`);
      assert.deepEqual(await ids(`{ event(where: ${where}) { id } }`), want, where);
    }
  });

  test('relation filters: object relations and array relations (any row)', async () => {
    const homeName = (
      await gql<{ game: { homeTeam: { name: string } }[] }>('{ game(limit: 1) { homeTeam { name } } }')
    ).data!.game[0]!.homeTeam.name;
    const viaGame = await ids(`{ event(where: {game: {homeTeam: {name: {_eq: "${homeName}"}}}}) { id } }`);
    assert.ok(viaGame.length > 0);
    const games = await gql<{ game: { id: string; homeTeam: { name: string } }[] }>(
      '{ game { id homeTeam { name } } }',
    );
    const gameIds = new Set(games.data!.game.filter((g) => g.homeTeam.name === homeName).map((g) => g.id));
    assert.deepEqual(
      viaGame,
      all.filter((e) => e.game_id !== null && gameIds.has(e.game_id)).map((e) => e.id),
    );
    // Events having a YES_NO market = the futures.
    assert.deepEqual(
      await ids('{ event(where: {markets: {type: {_eq: "YES_NO"}}}) { id } }'),
      await ids('{ event(where: {type: {_eq: "Future"}}) { id } }'),
    );
    // Outcomes of NBA markets through outcome → market → event.
    const o = await gql<{ outcome: { market: { event: { league: string } } }[] }>(
      '{ outcome(where: {market: {event: {league: {_eq: "NBA"}}}}) { market { event { league } } } }',
    );
    assert.ok(o.data!.outcome.length > 0);
    assert.ok(o.data!.outcome.every((x) => x.market.event.league === 'NBA'));
  });

  test('order_by, limit, offset', async () => {
    const desc = await ids('{ event(order_by: [{scheduled_start: desc}]) { id } }');
    const byStart = [...all].sort((a, b) =>
      a.scheduled_start < b.scheduled_start ? 1 : a.scheduled_start > b.scheduled_start ? -1 : 0,
    );
    assert.deepEqual(
      desc,
      byStart.map((e) => e.id),
    );
    assert.deepEqual(
      await ids('{ event(limit: 3, offset: 2) { id } }'),
      all.slice(2, 5).map((e) => e.id),
    );
    const byLeagueThenStart = await gql<{ event: { league: string; scheduled_start: string }[] }>(
      '{ event(order_by: [{league: desc}, {scheduled_start: asc}]) { league scheduled_start } }',
    );
    const rows = byLeagueThenStart.data!.event;
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      assert.ok(a.league > b.league || (a.league === b.league && a.scheduled_start <= b.scheduled_start));
    }
  });

  test('distinct_on keeps the first row per value, and must lead order_by', async () => {
    const r = await gql<{ event: { league: string; scheduled_start: string }[] }>(
      '{ event(distinct_on: [league], order_by: [{league: asc}, {scheduled_start: desc}]) { league scheduled_start } }',
    );
    for (const e of r.data!.event) {
      const latest = all
        .filter((x) => x.league === e.league)
        .map((x) => x.scheduled_start)
        .sort()
        .at(-1);
      assert.equal(e.scheduled_start, latest);
    }
    const bad = await gql('{ event(distinct_on: [league], order_by: {scheduled_start: asc}) { id } }');
    assert.match(bad.errors![0]!.message, /distinct_on/);
  });
});

describe('bad queries are GraphQL errors, never a 5xx', () => {
  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({
      method: 'POST',
      url: '/v1/graphql',
      headers: { 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  test('syntax errors, unknown fields, wrong argument types, unknown operators', async () => {
    for (const query of [
      '{ event { id ',
      '{ event { nope } }',
      '{ event(limit: "x") { id } }',
      '{ event(where: {league: {_nope: "N%"}}) { id } }',
      '{ event(order_by: {league: sideways}) { id } }',
      'mutation { event { id } }',
      '{ nope }',
      'subscription { event { id } }',
    ]) {
      const res = await post({ query });
      // Parse and validation errors are 400; an operation the schema cannot run is a 200 with errors.
      assert.ok(res.statusCode === 400 || res.statusCode === 200, `${query}: ${res.body}`);
      const body = JSON.parse(res.body);
      assert.equal(body.data, null, query);
      assert.ok(Array.isArray(body.errors) && body.errors.length > 0, query);
      assert.equal(typeof body.errors[0].message, 'string');
    }
  });

  test('bad variables, negative limits, no query, junk bodies', async () => {
    const badVar = await post({ query: ODDS_SCREEN, variables: { league: 42 } });
    assert.ok(badVar.statusCode < 500, badVar.body);
    assert.match(JSON.parse(badVar.body).errors[0].message, /league/);
    const neg = await gql('{ event(limit: -1) { id } }');
    assert.match(neg.errors![0]!.message, /limit/);
    for (const payload of ['{}', '[]', '{"query": 5}', 'not json', '', '{"query": null}']) {
      const res = await post(payload);
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${payload}: ${res.statusCode} ${res.body}`);
    }
  });

  test('too deep: rejected before execution', async () => {
    const res = await post({
      query:
        '{ event { markets { event { markets { event { markets { event { markets { event { id } } } } } } } } } }',
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, /depth/i);
  });

  test('too costly: aliases cannot multiply the work', async () => {
    const many = Array.from(
      { length: 60 },
      (_, i) =>
        `a${i}: event { id description league status scheduled_start game_id is_visible_pregame is_visible_live type created_at }`,
    ).join(' ');
    const res = await post({ query: `{ ${many} }` });
    assert.equal(res.statusCode, 400, res.body.slice(0, 300));
    assert.match(res.body, /cost/i);
  });

  test('introspection is on', async () => {
    const res = await gql<{
      __schema: { queryType: { name: string }; types: { name: string }[] };
      __type: { fields: { name: string }[] };
    }>('{ __schema { queryType { name } types { name } } __type(name: "outcome") { fields { name } } }');
    assert.equal(res.data!.__schema.queryType.name, 'query_root');
    const types = res.data!.__schema.types.map((t) => t.name);
    for (const t of [
      'event',
      'game',
      'market',
      'outcome',
      'order',
      'event_bool_exp',
      'String_comparison_exp',
      'order_by',
      'event_select_column',
    ])
      assert.ok(types.includes(t), t);
    const fields = res.data!.__type.fields.map((f) => f.name);
    for (const f of ['id', 'description', 'index', 'last', 'available', 'competitor', 'orders'])
      assert.ok(fields.includes(f), f);
  });
});

describe('rate limit and GraphiQL', () => {
  test('per client when a valid token names one, else per address; 429 is a GraphQL error', async () => {
    const app = await makeHarness({
      extra: async (a, port) => {
        await a.register(graphqlRoutes, {
          reader: () => port.reader(),
          rateLimit: 3,
          graphiql: true,
          identify: async (req) => (req.headers.authorization === 'Bearer good' ? 'client-1' : undefined),
        });
      },
    });
    try {
      const q = (headers: Record<string, string>, remoteAddress = '10.0.0.1') =>
        app.app.inject({
          url: `/v1/graphql?query=${encodeURIComponent('{ event(limit: 1) { id } }')}`,
          headers,
          remoteAddress,
        });
      for (let i = 0; i < 3; i++) assert.equal((await q({})).statusCode, 200);
      const limited = await q({});
      assert.equal(limited.statusCode, 429);
      assert.ok(JSON.parse(limited.body).errors[0].message);
      // An unverifiable token counts against the address; another address has its own quota.
      assert.equal((await q({ authorization: 'Bearer junk' })).statusCode, 429);
      assert.equal((await q({}, '10.0.0.2')).statusCode, 200);
      // A client is counted as itself wherever it comes from.
      for (let i = 0; i < 3; i++)
        assert.equal((await q({ authorization: 'Bearer good' }, `10.0.1.${i}`)).statusCode, 200);
      assert.equal((await q({ authorization: 'Bearer good' }, '10.0.2.1')).statusCode, 429);
      const page = await app.app.inject({ url: '/graphiql', remoteAddress: '10.9.9.9' });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /text\/html/);
    } finally {
      await app.close();
    }
    // The shared harness was built with graphiql: false.
    assert.equal((await h.app.inject({ url: '/graphiql' })).statusCode, 404);
  });
});
