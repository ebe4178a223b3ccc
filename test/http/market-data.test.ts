// Market data routes: metadata, events, markets with books,
// ticks, locks — shapes against the declared schemas, every bad parameter, pagination equal to the
// filtered catalog, cached bytes with ETag/304 that move exactly when the state moves.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TICKS } from '../../src/exchange/ticks.ts';
import {
  ACCOUNT_A,
  eventId,
  futureId,
  GAME_COUNT,
  marketId,
  outcomeId,
  seedAccounts,
  seedCatalog,
  seedLiquidity,
  teamId,
} from './fixture.ts';
import { assertError, type Harness, json, makeHarness, TAPE } from './harness.ts';

let h: Harness;
const get = (url: string, headers: Record<string, string> = TAPE) =>
  h.app.inject({ method: 'GET', url, headers });

before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
  seedLiquidity(h.port, 0);
});
after(() => h.close());

interface WireEvent {
  id: string;
  type: string;
  status: string;
  league: string;
  scheduledStart: string;
  marketIds: string[];
  game?: { homeTeam: { id: string; symbol: string } };
}

describe('event metadata', () => {
  test('leagues: production order first, others after', async () => {
    const res = await get('/nbx/v2/emm/event-metadata/leagues');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res), ['NFL', 'NBA', 'MLB', 'NHL', 'XFL']);
    h.checkShape('GET', '/nbx/v2/emm/event-metadata/leagues', 200, json(res));
  });
  test('types and statuses', async () => {
    assert.deepEqual(json(await get('/nbx/v2/emm/event-metadata/types')), ['Game', 'Future', 'Tournament']);
    assert.deepEqual(json(await get('/nbx/v2/emm/event-metadata/statuses')), [
      'INITIAL',
      'OPEN_PREGAME',
      'CLOSED_PREGAME',
      'OPEN_INGAME',
      'FINAL',
      'DELAYED',
      'CANCELED',
    ]);
  });
  test('guarded: no credentials 401, wrong scope 403', async () => {
    assertError(await get('/nbx/v2/emm/event-metadata/leagues', {}), 401, 'UNAUTHORIZED');
    assertError(
      await get('/nbx/v2/emm/event-metadata/leagues', { 'x-test-scopes': 'read:trader' }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });
});

describe('events listing', () => {
  test('default page: 100 events in listing order, shape and ISO ms times', async () => {
    const res = await get('/nbx/v2/emm/events');
    assert.equal(res.statusCode, 200);
    const body = json<WireEvent[]>(res);
    h.checkShape('GET', '/nbx/v2/emm/events', 200, body);
    assert.equal(body.length, 100);
    const sorted = h.port.reader().eventsSorted();
    assert.deepEqual(
      body.map((e) => e.id),
      sorted.slice(0, 100).map((e) => e.id),
    );
    for (const e of body) assert.match(e.scheduledStart, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const g0 = body.find((e) => e.id === eventId(0))!;
    assert.equal(g0.game?.homeTeam.id, teamId('NFL', 0));
    assert.deepEqual(g0.marketIds, [marketId(0, 'MONEY'), marketId(0, 'SPREAD'), marketId(0, 'TOTAL')]);
  });

  test('non-game events carry no game', async () => {
    const body = json<WireEvent[]>(await get('/nbx/v2/emm/events?type=Future'));
    assert.deepEqual(body.map((e) => e.id).sort(), [futureId(0), futureId(1)].sort());
    for (const e of body) assert.equal('game' in e, false);
  });

  const filters = [
    '',
    'league=NFL',
    'league=nba',
    'status=OPEN_PREGAME',
    'type=Game&status=FINAL',
    'league=XFL&status=DELAYED',
  ];
  for (const f of filters) {
    for (const limit of [1, 7, 100]) {
      test(`pages of ${limit} over "${f}" equal the filtered catalog`, async () => {
        const p = new URLSearchParams(f);
        const want = h.port
          .reader()
          .eventsSorted()
          .filter(
            (e) =>
              (!p.get('league') || e.league === p.get('league')!.toUpperCase()) &&
              (!p.get('status') || e.status === p.get('status')) &&
              (!p.get('type') || e.type === p.get('type')),
          )
          .map((e) => e.id);
        const got: string[] = [];
        for (let offset = 0; ; offset += limit) {
          const page = json<WireEvent[]>(
            await get(`/nbx/v2/emm/events?${f}&limit=${limit}&offset=${offset}`),
          );
          got.push(...page.map((e) => e.id));
          if (page.length < limit) break;
        }
        assert.deepEqual(got, want);
      });
    }
  }

  test('visibility flags never filter', async () => {
    const all: string[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = json<WireEvent[]>(await get(`/nbx/v2/emm/events?offset=${offset}`));
      all.push(...page.map((e) => e.id));
      if (page.length < 100) break;
    }
    assert.equal(all.length, GAME_COUNT + 2);
  });

  test('unknown league → []', async () => {
    const res = await get('/nbx/v2/emm/events?league=CRICKET');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res), []);
  });

  for (const bad of [
    'limit=101',
    'limit=0',
    'limit=1.5',
    'limit=abc',
    'offset=-1',
    'offset=2.5',
    'status=PLAYING',
    'type=Match',
    'status=open_pregame',
  ]) {
    test(`bad query ${bad} → 400`, async () => {
      const res = await get(`/nbx/v2/emm/events?${bad}`);
      assertError(res, 400, 'VALIDATION_FAILED');
      h.checkShape('GET', '/nbx/v2/emm/events', 400, json(res));
    });
  }
});

describe('one event', () => {
  test('same object as in the listing', async () => {
    const list = json<WireEvent[]>(await get('/nbx/v2/emm/events?limit=100'));
    const res = await get(`/nbx/v2/emm/events/${list[3]!.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(json(res), list[3]);
    h.checkShape('GET', '/nbx/v2/emm/events/:eventId', 200, json(res));
  });
  test('malformed id → 400 INVALID_ID; unknown → 404 EVENT_NOT_FOUND', async () => {
    assertError(await get('/nbx/v2/emm/events/not-a-uuid'), 400, 'INVALID_ID');
    const res = await get('/nbx/v2/emm/events/00000000-0000-4000-8000-000000000000');
    assertError(res, 404, 'EVENT_NOT_FOUND');
    h.checkShape('GET', '/nbx/v2/emm/events/:eventId', 404, json(res));
  });
  test('one UUID definition (docs/http.md "Identifiers"): any version is an id, a urn: prefix is not', async () => {
    for (const id of [
      '00000000-0000-0000-0000-000000000000',
      'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
      '0190a000-0000-f000-0000-000000000001',
    ])
      assertError(await get(`/nbx/v2/emm/events/${id}`), 404, 'EVENT_NOT_FOUND');
    for (const id of [
      'urn:uuid:00000000-0000-4000-8000-000000000000',
      '{00000000-0000-4000-8000-000000000000}',
      '00000000000040008000000000000000',
      '00000000-0000-4000-8000-00000000000g',
    ])
      assertError(await get(`/nbx/v2/emm/events/${encodeURIComponent(id)}`), 400, 'INVALID_ID');
  });
});

interface WireMarket {
  id: string;
  type: string;
  status: string;
  volume: number;
  outcomes: { id: string; last: number | null; type: string; competitor: { id: string } | null }[];
  book: {
    bids: { price: number; qty: number }[];
    asks: { price: number; qty: number }[];
    outcomeLadders: {
      outcomeId: string;
      bids: { id: string; price: number; qty: number; status: string }[];
    }[];
    seq: number;
    asOf: string;
  };
}

describe('markets of an event', () => {
  test('docs/http.md "Markets and books" shape; book from outcome 0, bids high→low, asks low→high, never crossed', async () => {
    const res = await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=CASH`);
    assert.equal(res.statusCode, 200);
    const body = json<WireMarket[]>(res);
    h.checkShape('GET', '/nbx/v2/emm/events/getMarketsByEvent/:eventId', 200, body);
    assert.deepEqual(
      body.map((m) => [m.id, m.type]),
      [
        [marketId(0, 'MONEY'), 'MONEY'],
        [marketId(0, 'SPREAD'), 'SPREAD'],
        [marketId(0, 'TOTAL'), 'TOTAL'],
      ],
    );
    const money = body[0]!;
    assert.deepEqual(money.book.bids, [
      { price: 0.48, qty: 580 },
      { price: 0.47, qty: 570 },
      { price: 0.46, qty: 560 },
    ]);
    // Bids on outcome 1 at 0.49 and 0.48 are offers on outcome 0 at 0.51 and 0.52.
    assert.deepEqual(money.book.asks, [
      { price: 0.51, qty: 590 },
      { price: 0.52, qty: 580 },
    ]);
    assert.ok(money.book.bids[0]!.price < money.book.asks[0]!.price);
    assert.equal(money.book.outcomeLadders[0]!.outcomeId, outcomeId(0, 'MONEY', 0));
    assert.deepEqual(
      money.book.outcomeLadders[1]!.bids.map((b) => [b.price, b.qty, b.status]),
      [
        [0.49, 590, 'RESTING'],
        [0.48, 580, 'RESTING'],
      ],
    );
    assert.equal(money.outcomes[0]!.type, 'HOME');
    assert.equal(money.outcomes[0]!.competitor?.id, teamId('NFL', 0));
    assert.equal(body[2]!.outcomes[0]!.type, 'OVER');
    assert.equal(body[2]!.outcomes[0]!.competitor, null);
    assert.equal(money.book.seq, h.port.reader().bookSeq(marketId(0, 'MONEY'), 'CASH'));
  });

  test('COIN books are separate (empty here)', async () => {
    const body = json<WireMarket[]>(
      await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=COIN`),
    );
    for (const m of body) {
      assert.deepEqual(m.book.bids, []);
      assert.deepEqual(m.book.asks, []);
    }
  });

  test('currency missing or invalid → 400; bad id → 400; unknown event → 404', async () => {
    assertError(await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}`), 400, 'VALIDATION_FAILED');
    assertError(
      await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=USD`),
      400,
      'INVALID_CURRENCY',
    );
    assertError(await get('/nbx/v2/emm/events/getMarketsByEvent/xyz?currency=CASH'), 400, 'INVALID_ID');
    assertError(
      await get('/nbx/v2/emm/events/getMarketsByEvent/00000000-0000-4000-8000-000000000000?currency=CASH'),
      404,
      'EVENT_NOT_FOUND',
    );
  });

  test('getMarketsByEvents: markets of each known event in order, unknown skipped', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/events/getMarketsByEvents',
      headers: TAPE,
      payload: {
        eventIds: [eventId(1), '00000000-0000-4000-8000-000000000000', eventId(0)],
        currency: 'CASH',
      },
    });
    assert.equal(res.statusCode, 200);
    const body = json<WireMarket[]>(res);
    h.checkShape('POST', '/nbx/v2/emm/events/getMarketsByEvents', 200, body);
    assert.deepEqual(
      body.map((m) => m.id),
      [
        ...['MONEY', 'SPREAD', 'TOTAL'].map((k) => marketId(1, k)),
        ...['MONEY', 'SPREAD', 'TOTAL'].map((k) => marketId(0, k)),
      ],
    );
    const single = json<WireMarket[]>(
      await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=CASH`),
    );
    assert.deepEqual(body.slice(3), single);
  });

  test('getMarketsByEvents: 51 ids, 0 ids, bad currency, bad id → 400', async () => {
    const post = (payload: unknown) =>
      h.app.inject({
        method: 'POST',
        url: '/nbx/v2/emm/events/getMarketsByEvents',
        headers: TAPE,
        payload: payload as object,
      });
    const many = Array.from({ length: 51 }, (_, i) => eventId(i));
    assertError(await post({ eventIds: many, currency: 'CASH' }), 400, 'VALIDATION_FAILED');
    assertError(await post({ eventIds: [], currency: 'CASH' }), 400, 'VALIDATION_FAILED');
    assertError(await post({ eventIds: [eventId(0)], currency: 'EUR' }), 400, 'INVALID_CURRENCY');
    assertError(await post({ eventIds: ['nope'], currency: 'CASH' }), 400, 'VALIDATION_FAILED');
    assertError(await post({ eventIds: [eventId(0)] }), 400, 'VALIDATION_FAILED');
  });

  test('book alone equals the embedded book', async () => {
    const res = await get(`/nbx/v2/emm/book/${marketId(0, 'SPREAD')}?currency=CASH`);
    assert.equal(res.statusCode, 200);
    h.checkShape('GET', '/nbx/v2/emm/book/:marketId', 200, json(res));
    const embedded = json<WireMarket[]>(
      await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=CASH`),
    )[1]!.book;
    assert.deepEqual(json(res), embedded);
    assertError(await get(`/nbx/v2/emm/book/${marketId(0, 'SPREAD')}`), 400, 'VALIDATION_FAILED');
    assertError(await get('/nbx/v2/emm/book/1234?currency=CASH'), 400, 'INVALID_ID');
    assertError(
      await get('/nbx/v2/emm/book/00000000-0000-4000-8000-000000000000?currency=CASH'),
      404,
      'MARKET_NOT_FOUND',
    );
  });
});

describe('markets without book', () => {
  test('markets/{id}', async () => {
    const res = await get(`/nbx/v2/emm/markets/${marketId(0, 'TOTAL')}`);
    assert.equal(res.statusCode, 200);
    const m = json<WireMarket & { strike: number; book?: unknown }>(res);
    h.checkShape('GET', '/nbx/v2/emm/markets/:marketId', 200, m);
    assert.equal(m.strike, 47.5);
    assert.equal('book' in m, false);
    assertError(await get('/nbx/v2/emm/markets/zzz'), 400, 'INVALID_ID');
    assertError(
      await get('/nbx/v2/emm/markets/00000000-0000-4000-8000-000000000000'),
      404,
      'MARKET_NOT_FOUND',
    );
  });
  test('markets/open filters by league and by type name or code', async () => {
    const all = json<WireMarket[]>(await get('/nbx/v2/emm/markets/open'));
    h.checkShape('GET', '/nbx/v2/emm/markets/open', 200, all);
    assert.equal(all.length, GAME_COUNT * 3 + 2);
    const spreadsNfl = json<WireMarket[]>(await get('/nbx/v2/emm/markets/open?league=NFL&marketType=Spread'));
    const spreadsNflCode = json<WireMarket[]>(
      await get('/nbx/v2/emm/markets/open?league=NFL&marketType=SPREAD'),
    );
    assert.deepEqual(spreadsNfl, spreadsNflCode);
    assert.equal(spreadsNfl.length, GAME_COUNT / 5);
    for (const m of spreadsNfl) assert.equal(m.type, 'SPREAD');
    assertError(await get('/nbx/v2/emm/markets/open?marketType=Cricket'), 400, 'VALIDATION_FAILED');
  });
});

describe('ticks and locks', () => {
  test('ticks: 279 numbers', async () => {
    const body = json<number[]>(await get('/nbx/v2/emm/ticks'));
    assert.equal(body.length, 279);
    assert.equal(body.length, TICKS.length);
    assert.deepEqual(body.slice(0, 2), [0.001, 0.002]);
    assert.ok(body.includes(0.055) && body.includes(0.945) && body.includes(0.999) && !body.includes(0.051));
  });
  test('locks: none, then a system lock and an event lock', async () => {
    const res = await get('/nbx/v2/emm/locks');
    assert.deepEqual(json(res), { systemLock: null, lockedEventIds: [] });
    h.checkShape('GET', '/nbx/v2/emm/locks', 200, json(res));
    const etag = res.headers.etag as string;
    const t = h.clock.t;
    const sys = h.port.newId();
    const ev = h.port.newId();
    assert.ok(
      h.port.applyNow({
        type: 'SetLock',
        lock: { id: sys, eventId: null, reason: 'maintenance', createdAt: t, expiresAt: t + 30 * 60_000 },
      }).ok,
    );
    assert.ok(
      h.port.applyNow({
        type: 'SetLock',
        lock: { id: ev, eventId: eventId(5), reason: 'review', createdAt: t, expiresAt: null },
      }).ok,
    );
    const res2 = await get('/nbx/v2/emm/locks', { ...TAPE, 'if-none-match': etag });
    assert.equal(res2.statusCode, 200);
    assert.deepEqual(json(res2), {
      systemLock: {
        id: sys,
        minuteDuration: 30,
        createdAt: new Date(t).toISOString(),
        reason: 'maintenance',
      },
      lockedEventIds: [eventId(5)],
    });
    h.checkShape('GET', '/nbx/v2/emm/locks', 200, json(res2));
    assert.ok(h.port.applyNow({ type: 'ClearLock', lockId: sys }).ok);
    assert.ok(h.port.applyNow({ type: 'ClearLock', lockId: ev }).ok);
    assert.deepEqual(json(await get('/nbx/v2/emm/locks')), { systemLock: null, lockedEventIds: [] });
  });
});

describe('cached bytes, ETag and 304', () => {
  test('If-None-Match → 304 without body; the ETag moves only when the catalog does', async () => {
    const first = await get('/nbx/v2/emm/events?league=NBA');
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    const again = await get('/nbx/v2/emm/events?league=NBA', { ...TAPE, 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const weak = await get('/nbx/v2/emm/events?league=NBA', { ...TAPE, 'if-none-match': `"x", W/${etag}` });
    assert.equal(weak.statusCode, 304);
    // A change elsewhere in the catalog re-serializes, but identical bytes keep the same ETag.
    assert.ok(h.port.applyNow({ type: 'SetEventStatus', eventId: eventId(0), status: 'CLOSED_PREGAME' }).ok);
    const same = await get('/nbx/v2/emm/events?league=NBA', { ...TAPE, 'if-none-match': etag });
    assert.equal(same.statusCode, 304);
    const nfl = await get('/nbx/v2/emm/events?league=NFL');
    assert.equal(json<WireEvent[]>(nfl).find((e) => e.id === eventId(0))?.status, 'CLOSED_PREGAME');
    assert.ok(h.port.applyNow({ type: 'SetEventStatus', eventId: eventId(0), status: 'OPEN_PREGAME' }).ok);
    const back = await get('/nbx/v2/emm/events?league=NFL', {
      ...TAPE,
      'if-none-match': nfl.headers.etag as string,
    });
    assert.equal(back.statusCode, 200);
  });

  test('a book change moves the book, its event answer and the market, nothing else', async () => {
    const url = `/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=CASH`;
    const before1 = await get(url);
    const other = await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(5)}?currency=CASH`);
    const coin = await get(`/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=COIN`);
    assert.equal(
      (await get(url, { ...TAPE, 'if-none-match': before1.headers.etag as string })).statusCode,
      304,
    );
    // Account A lifts the best offer on outcome 0 (bid 0.51 crosses the 0.49 bid on outcome 1).
    const r = h.port.applyNow({
      type: 'PlaceOrder',
      orderId: h.port.newId(),
      accountId: ACCOUNT_A,
      outcomeId: outcomeId(0, 'MONEY', 0),
      currency: 'CASH',
      price: 510,
      qty: 90,
      tif: 'IOC',
    });
    assert.ok(r.ok);
    const after1 = await get(url, { ...TAPE, 'if-none-match': before1.headers.etag as string });
    assert.equal(after1.statusCode, 200);
    const m = json<WireMarket[]>(after1)[0]!;
    assert.deepEqual(m.book.asks[0], { price: 0.51, qty: 500 });
    assert.equal(m.volume, 90);
    assert.equal(m.outcomes[0]!.last, 0.51);
    assert.equal(m.outcomes[1]!.last, 0.49);
    const untouched = [
      [`/nbx/v2/emm/events/getMarketsByEvent/${eventId(5)}?currency=CASH`, other],
      [`/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=COIN`, coin],
    ] as const;
    for (const [u, prev] of untouched) {
      assert.equal(
        (await get(u, { ...TAPE, 'if-none-match': prev.headers.etag as string })).statusCode,
        304,
        u,
      );
    }
    const market = json<WireMarket>(await get(`/nbx/v2/emm/markets/${marketId(0, 'MONEY')}`));
    assert.equal(market.volume, 90);
  });

  test('asOf is stable while the book does not move', async () => {
    const url = `/nbx/v2/emm/book/${marketId(0, 'TOTAL')}?currency=CASH`;
    const a = json<WireMarket['book']>(await get(url));
    h.clock.t += 5000;
    assert.ok(h.port.applyNow({ type: 'SetEventStatus', eventId: eventId(1), status: 'OPEN_INGAME' }).ok);
    const b = json<WireMarket['book']>(await get(url));
    assert.equal(b.asOf, a.asOf);
  });

  test('arbitrary query strings do not grow memory: the listing cache is bounded', async () => {
    for (let i = 0; i < 50; i++) assert.equal((await get(`/nbx/v2/emm/events?league=L${i}`)).statusCode, 200);
    // Bounded LRU is unit-tested in wire.test.ts; here: extra unknown parameters are not cache keys.
    // ETags derive from the bytes, so equal ETags alone would not show a shared entry: count how
    // often the listing is built from the reader instead.
    const ex = h.port.exchange;
    let builds = 0;
    const real = ex.eventsSorted;
    ex.eventsSorted = () => {
      builds++;
      return real.call(ex);
    };
    try {
      const a = await get('/nbx/v2/emm/events?league=NFL&_=1');
      const built = builds;
      const b = await get('/nbx/v2/emm/events?league=NFL&_=2');
      assert.equal(a.headers.etag, b.headers.etag);
      assert.equal(builds, built, 'a second unknown parameter value built the listing again');
      // The counter does see builds: a query the cache has not held is built once, then served.
      await get('/nbx/v2/emm/events?league=NFL&limit=7&_=3');
      assert.equal(builds, built + 1);
      await get('/nbx/v2/emm/events?league=NFL&limit=7&_=4');
      assert.equal(builds, built + 1);
    } finally {
      delete (ex as { eventsSorted?: unknown }).eventsSorted;
    }
  });
});
