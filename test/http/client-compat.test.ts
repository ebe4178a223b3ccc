// What real clients of the production API send that a strict server would refuse
// (docs/http.md "The production wire"): `Content-Type: application/json` on every request, body or not,
// and `DELETE /orders/all` as the cancel-everything call.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ACCOUNT_MM,
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
import { ADMIN, assertError, type Harness, json, makeHarness, TAPE, trader } from './harness.ts';

let h: Harness;
let A: Record<string, string>;
let ACC: string;
const G = 2000;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
  addOpenGame(h.port, G);
  seedLiquidity(h.port, G);
  ACC = h.port.newId();
  assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: ACC }).ok);
  assert.ok(
    h.port.applyNow({ type: 'Deposit', accountId: ACC, currency: 'CASH', amount: 1_000 * 100_000 }).ok,
  );
  A = trader(ACC);
});
after(() => h.close());

const JSON_CT = { 'content-type': 'application/json' };

/** A request exactly as httpx/aiohttp sessions send it: JSON content type, zero-length body. */
const bodyless = (method: 'GET' | 'DELETE' | 'POST', url: string, headers: Record<string, string>) =>
  h.app.inject({ method, url, headers: { ...headers, ...JSON_CT, 'content-length': '0' }, payload: '' });

async function rest(price = 0.2): Promise<string> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/nbx/v2/emm/orders/place',
    headers: A,
    payload: { outcomeId: outcomeId(G, 'MONEY', 0), price, qty: 100, currency: 'CASH', tif: 'GTC' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return json<{ id: string }>(res).id;
}

describe('JSON content type with no body', () => {
  test('every DELETE route that takes no body runs as if the header were absent', async () => {
    const o1 = await rest();
    const one = await bodyless('DELETE', `/nbx/v2/emm/orders/${o1}`, A);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(json<{ status: string }>(one).status, 'CANCELED');

    await rest();
    const byMarket = await bodyless('DELETE', `/nbx/v2/emm/orders/market/${marketId(G, 'MONEY')}`, A);
    assert.equal(byMarket.statusCode, 200, byMarket.body);
    assert.equal(json<unknown[]>(byMarket).length, 1);

    await rest();
    const byEvent = await bodyless('DELETE', `/nbx/v2/emm/orders/event/${eventId(G)}`, A);
    assert.equal(byEvent.statusCode, 200, byEvent.body);
    assert.equal(json<unknown[]>(byEvent).length, 1);

    await rest();
    const kill = await bodyless('DELETE', '/nbx/v2/emm/kill', A);
    assert.equal(kill.statusCode, 200, kill.body);
    assert.equal(json<unknown[]>(kill).length, 1);

    await rest();
    const all = await bodyless('DELETE', '/nbx/v2/emm/orders/all', A);
    assert.equal(all.statusCode, 200, all.body);
    assert.equal(json<unknown[]>(all).length, 1);

    // The admin lock route: create a lock, clear it body-less.
    const lock = await h.app.inject({
      method: 'POST',
      url: '/admin/v1/locks',
      headers: ADMIN,
      payload: { reason: 'test', minuteDuration: 5 },
    });
    assert.equal(lock.statusCode, 201, lock.body);
    const cleared = await bodyless('DELETE', `/admin/v1/locks/${json<{ id: string }>(lock).id}`, ADMIN);
    assert.ok(cleared.statusCode < 300, cleared.body);
  });

  test('the DELETE route that needs a body answers VALIDATION_FAILED, not MALFORMED_JSON', async () => {
    assertError(await bodyless('DELETE', '/nbx/v2/emm/orders/batch', A), 400, 'VALIDATION_FAILED');
  });

  test('POST routes that need a body: VALIDATION_FAILED; nothing submitted', async () => {
    const before = h.port.applied.length;
    assertError(await bodyless('POST', '/nbx/v2/emm/orders/place', A), 400, 'VALIDATION_FAILED');
    assertError(await bodyless('POST', '/nbx/v2/emm/orders/batch', A), 400, 'VALIDATION_FAILED');
    assertError(
      await bodyless('POST', '/nbx/v2/emm/events/getMarketsByEvents', TAPE),
      400,
      'VALIDATION_FAILED',
    );
    assert.equal(h.port.applied.length, before);
  });

  test('GET with a JSON content type and no body', async () => {
    const res = await bodyless('GET', '/nbx/v2/emm/events?limit=1', TAPE);
    assert.equal(res.statusCode, 200, res.body);
    const bal = await bodyless('GET', '/nbx/v2/emm/account/balance?currency=CASH', A);
    assert.equal(bal.statusCode, 200, bal.body);
  });

  test('a non-empty body that is not JSON is still MALFORMED_JSON; poisoned keys still refused', async () => {
    const bad = (payload: string) =>
      h.app.inject({
        method: 'POST',
        url: '/nbx/v2/emm/orders/place',
        headers: { ...A, ...JSON_CT },
        payload,
      });
    assertError(await bad('{"outcomeId":'), 400, 'MALFORMED_JSON');
    assertError(await bad('   '), 400, 'MALFORMED_JSON');
    const poisoned = await bad('{"__proto__":{"x":1}}');
    assert.equal(poisoned.statusCode, 400, poisoned.body);
  });
});

describe('DELETE /nbx/v2/emm/orders/all', () => {
  test('cancels every resting order of the account, like /kill; other accounts untouched', async () => {
    const mm = h.port.reader().openOrders(ACCOUNT_MM).length;
    await rest(0.2);
    await rest(0.25);
    const res = await h.app.inject({ method: 'DELETE', url: '/nbx/v2/emm/orders/all', headers: A });
    assert.equal(res.statusCode, 200, res.body);
    const body = json<{ status: string }[]>(res);
    h.checkShape('DELETE', '/nbx/v2/emm/orders/all', 200, body);
    assert.equal(body.length, 2);
    assert.ok(body.every((o) => o.status === 'CANCELED'));
    assert.equal(h.port.reader().openOrders(ACC).length, 0);
    assert.equal(h.port.reader().openOrders(ACCOUNT_MM).length, mm);
    // Nothing open: an empty list and no command.
    const n = h.port.applied.length;
    const again = await h.app.inject({ method: 'DELETE', url: '/nbx/v2/emm/orders/all', headers: A });
    assert.deepEqual(json(again), []);
    assert.equal(h.port.applied.length, n);
    // GET /orders/all is still the listing, and the scope is execute:trader.
    const list = await h.app.inject({ method: 'GET', url: '/nbx/v2/emm/orders/all', headers: A });
    assert.equal(list.statusCode, 200);
    assert.ok(json<{ status: string }[]>(list).every((o) => o.status === 'CANCELED'));
    assertError(
      await h.app.inject({ method: 'DELETE', url: '/nbx/v2/emm/orders/all', headers: TAPE }),
      403,
      'INSUFFICIENT_SCOPE',
    );
  });
});

interface WireMarket {
  id: string;
  type: string;
  status: string;
  eventId: string;
  league: string;
  isConsensus: boolean;
  event: {
    id: string;
    type: string;
    status: string;
    description: string;
    game?: { id: string; homeTeam: { symbol: string } | null; awayTeam: { symbol: string } | null };
  };
}

describe('markets carry their event', () => {
  const outcomes = (a: string, b: string) => [{ description: a }, { description: b }];
  let created: { event: { id: string }; markets: WireMarket[] };
  before(async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: ADMIN,
      payload: {
        type: 'Game',
        description: 'Away @ Home',
        league: 'NFL',
        scheduledStart: '2026-12-01T18:00:00.000Z',
        game: { homeTeamId: teamId('NFL', 0), awayTeamId: teamId('NFL', 1) },
        // Any spelling in any case: codes and wire names.
        markets: [
          { type: 'moneyline', description: 'ML', outcomes: outcomes('H', 'A') },
          {
            type: 'spread',
            strike: -3.5,
            description: 'Spread -3.5',
            outcomes: outcomes('H -3.5', 'A +3.5'),
          },
          {
            type: 'SPREAD',
            strike: -7.5,
            description: 'Spread -7.5',
            outcomes: outcomes('H -7.5', 'A +7.5'),
          },
          { type: 'total', strike: 44.5, description: 'Total 44.5', outcomes: outcomes('O', 'U') },
        ],
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    created = json(res);
  });

  test('the admin answer, markets/{id}, getMarketsByEvent and markets/open embed the same event', async () => {
    const [ml, s1, s2, tot] = created.markets;
    assert.deepEqual(
      created.markets.map((m) => [m.type, m.isConsensus]),
      [
        ['MONEY', true],
        ['SPREAD', true],
        ['SPREAD', false],
        ['TOTAL', true],
      ],
    );
    const one = await h.app.inject({ url: `/nbx/v2/emm/markets/${s2!.id}`, headers: TAPE });
    const m = json<WireMarket>(one);
    h.checkShape('GET', '/nbx/v2/emm/markets/:marketId', 200, m);
    assert.equal(m.isConsensus, false);
    assert.equal(m.event.id, created.event.id);
    assert.equal(m.event.status, 'OPEN_PREGAME');
    assert.equal(m.event.type, 'Game');
    assert.equal(m.event.description, 'Away @ Home');
    assert.ok(m.event.game);
    assert.equal(typeof m.event.game.homeTeam?.symbol, 'string');
    const ev = json<{ game: unknown }>(
      await h.app.inject({ url: `/nbx/v2/emm/events/${created.event.id}`, headers: TAPE }),
    );
    assert.deepEqual(m.event.game, ev.game);

    const byEvent = json<WireMarket[]>(
      await h.app.inject({
        url: `/nbx/v2/emm/events/getMarketsByEvent/${created.event.id}?currency=CASH`,
        headers: TAPE,
      }),
    );
    h.checkShape('GET', '/nbx/v2/emm/events/getMarketsByEvent/:eventId', 200, byEvent);
    assert.deepEqual(
      byEvent.map((x) => x.id),
      [ml!.id, s1!.id, s2!.id, tot!.id],
    );
    for (const x of byEvent) assert.deepEqual(x.event, m.event);
    const open = json<WireMarket[]>(
      await h.app.inject({ url: '/nbx/v2/emm/markets/open?league=NFL', headers: TAPE }),
    );
    h.checkShape('GET', '/nbx/v2/emm/markets/open', 200, open);
    assert.deepEqual(open.find((x) => x.id === s1!.id)?.event, m.event);
  });

  test('a status change of the event reaches every cached market answer', async () => {
    const url = `/nbx/v2/emm/markets/${created.markets[0]!.id}`;
    const before = await h.app.inject({ url, headers: TAPE });
    const byEventUrl = `/nbx/v2/emm/events/getMarketsByEvent/${created.event.id}?currency=CASH`;
    await h.app.inject({ url: byEventUrl, headers: TAPE }); // fill the cache
    const st = await h.app.inject({
      method: 'POST',
      url: `/admin/v1/events/${created.event.id}/status`,
      headers: ADMIN,
      payload: { status: 'CLOSED_PREGAME' },
    });
    assert.ok(st.statusCode === 200, st.body);
    // The old ETag no longer matches: the bytes changed.
    const after = await h.app.inject({
      url,
      headers: { ...TAPE, 'if-none-match': String(before.headers.etag) },
    });
    assert.equal(after.statusCode, 200);
    assert.equal(json<WireMarket>(after).event.status, 'CLOSED_PREGAME');
    const byEvent = json<WireMarket[]>(await h.app.inject({ url: byEventUrl, headers: TAPE }));
    assert.ok(byEvent.every((x) => x.event.status === 'CLOSED_PREGAME'));
  });

  test('a future embeds its event without game', async () => {
    const m = json<WireMarket>(
      await h.app.inject({
        url: `/nbx/v2/emm/events/getMarketsByEvent/${futureId(0)}?currency=CASH`,
        headers: TAPE,
      }),
    );
    const [fm] = m as unknown as WireMarket[];
    assert.equal(fm!.event.type, 'Future');
    assert.equal('game' in fm!.event, false);
    assert.equal(fm!.type, 'YES_NO');
    assert.equal(fm!.isConsensus, true);
  });

  test('marketType filters accept the code and the name in any case; the wire says the code', async () => {
    const want = json<WireMarket[]>(
      await h.app.inject({ url: '/nbx/v2/emm/markets/open?marketType=MONEY', headers: TAPE }),
    );
    assert.ok(want.length > 0);
    assert.ok(want.every((x) => x.type === 'MONEY'));
    for (const v of ['Moneyline', 'money', 'moneyline', 'MONEYLINE', 'MoneyLine', 'Money']) {
      const got = json<WireMarket[]>(
        await h.app.inject({ url: `/nbx/v2/emm/markets/open?marketType=${v}`, headers: TAPE }),
      );
      assert.deepEqual(
        got.map((x) => x.id),
        want.map((x) => x.id),
        v,
      );
    }
    assertError(
      await h.app.inject({ url: '/nbx/v2/emm/markets/open?marketType=Moneylines', headers: TAPE }),
      400,
      'VALIDATION_FAILED',
    );
    const bad = await h.app.inject({
      method: 'POST',
      url: '/admin/v1/events',
      headers: ADMIN,
      payload: {
        type: 'Future',
        description: 'x',
        league: 'NFL',
        scheduledStart: '2026-12-01T18:00:00.000Z',
        markets: [{ type: 'Parlay', description: 'x', outcomes: outcomes('Y', 'N') }],
      },
    });
    assertError(bad, 400, 'VALIDATION_FAILED');
  });
});
