// The operator API over the exchange (scope admin): money, catalog, statuses, settlement, locks.
// Each call is exactly one command; bad input is a 4xx envelope and applies nothing.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  ACCOUNT_A,
  ACCOUNT_B,
  eventId,
  marketId,
  outcomeId,
  seedAccounts,
  seedCatalog,
  teamId,
} from './fixture.ts';
import { ADMIN, assertError, type Harness, json, makeHarness, TAPE, trader } from './harness.ts';

let h: Harness;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
});
after(() => h.close());

const post = (url: string, payload: unknown, headers: Record<string, string> = ADMIN) =>
  h.app.inject({ method: 'POST', url, headers, payload: payload as object });

/** Asserts the call answered `status` and applied exactly `commands` commands. */
async function expectCommands<T>(n: number, fn: () => Promise<T>): Promise<T> {
  const before = h.port.applied.length;
  const r = await fn();
  assert.equal(h.port.applied.length - before, n);
  return r;
}

describe('money', () => {
  test('deposit and withdraw in currency units', async () => {
    const res = await expectCommands(1, () =>
      post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'CASH', amount: 12.34567 }),
    );
    assert.equal(res.statusCode, 201, res.body);
    h.checkShape('POST', '/admin/v1/accounts/:accountId/deposits', 201, json(res));
    assert.deepEqual(json(res), {
      accountId: ACCOUNT_A,
      currency: 'CASH',
      balance: 10012.34567,
      reserved: 0,
    });
    const w = await post(`/admin/v1/accounts/${ACCOUNT_A}/withdrawals`, {
      currency: 'CASH',
      amount: 0.34567,
    });
    assert.equal(json<{ balance: number }>(w).balance, 10012);
    const bal = await h.app.inject({
      method: 'GET',
      url: '/nbx/v2/emm/account/balance',
      headers: trader(ACCOUNT_A),
    });
    assert.equal(json<{ balance: number }>(bal).balance, 10012);
  });
  test('amounts past the money ceiling: the schema and the engine refuse them', async () => {
    await expectCommands(0, async () => {
      const tooMuch = await post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, {
        currency: 'CASH',
        amount: 10_000_000_000.00001,
      });
      assertError(tooMuch, 400, 'INVALID_AMOUNT');
      // within the schema's bound, but the wallet already holds money: past the ceiling
      const over = await post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, {
        currency: 'CASH',
        amount: 10_000_000_000,
      });
      assertError(over, 400, 'AMOUNT_OUT_OF_RANGE');
      const order = (body: object) =>
        h.app.inject({
          method: 'POST',
          url: '/nbx/v2/emm/orders/place',
          headers: trader(ACCOUNT_A),
          payload: {
            outcomeId: outcomeId(15, 'TOTAL', 0),
            price: 0.5,
            currency: 'CASH',
            tif: 'GTC',
            ...body,
          },
        });
      assertError(await order({ qty: 1_000_000_000_001 }), 400, 'INVALID_QTY');
      assertError(await order({ qty: 10_000_000_001, currency: 'COIN' }), 400, 'AMOUNT_OUT_OF_RANGE');
    });
  });
  test('bad amounts, currencies, accounts, scopes', async () => {
    await expectCommands(0, async () => {
      assertError(
        await post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'CASH', amount: 0.000001 }),
        400,
        'INVALID_AMOUNT',
      );
      assertError(
        await post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'CASH', amount: -5 }),
        400,
        'INVALID_AMOUNT',
      );
      assertError(
        await post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'CASH', amount: 0 }),
        400,
        'INVALID_AMOUNT',
      );
      assertError(
        await post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'GBP', amount: 5 }),
        400,
        'INVALID_CURRENCY',
      );
      assertError(
        await post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'CASH' }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await post('/admin/v1/accounts/nope/deposits', { currency: 'CASH', amount: 5 }),
        400,
        'INVALID_ID',
      );
      assertError(
        await post('/admin/v1/accounts/00000000-0000-4000-8000-000000000000/deposits', {
          currency: 'CASH',
          amount: 5,
        }),
        404,
        'ACCOUNT_NOT_FOUND',
      );
      assertError(
        await post(`/admin/v1/accounts/${ACCOUNT_B}/withdrawals`, { currency: 'CASH', amount: 1e6 }),
        409,
        'INSUFFICIENT_FUNDS',
      );
      assertError(
        await post(`/admin/v1/accounts/${ACCOUNT_A}/deposits`, { currency: 'CASH', amount: 5 }, TAPE),
        403,
        'INSUFFICIENT_SCOPE',
      );
    });
  });
});

describe('catalog', () => {
  test('league, team, then an event with its game and markets in one command', async () => {
    const lg = await expectCommands(1, () =>
      post('/admin/v1/leagues', { code: 'CFL', name: 'Canadian Football League' }),
    );
    assert.equal(lg.statusCode, 201);
    assertError(await post('/admin/v1/leagues', { code: 'CFL', name: 'again' }), 409, 'ALREADY_EXISTS');
    assertError(await post('/admin/v1/leagues', { code: 'cfl', name: 'lower' }), 400, 'VALIDATION_FAILED');
    const t1 = json<{ id: string; shortName: string; mascot: string }>(
      await post('/admin/v1/teams', { league: 'CFL', name: 'Toronto Argonauts', symbol: 'TOR' }),
    );
    assert.equal(t1.shortName, 'Argonauts');
    assert.equal(t1.mascot, 'Argonauts');
    const t2 = json<{ id: string }>(
      await post('/admin/v1/teams', {
        league: 'CFL',
        name: 'Montreal Alouettes',
        shortName: 'Alouettes',
        symbol: 'MTL',
        mascot: 'Als',
      }),
    );
    assertError(
      await post('/admin/v1/teams', { league: 'NOPE', name: 'X Y', symbol: 'XY' }),
      404,
      'LEAGUE_NOT_FOUND',
    );
    const body = {
      type: 'Game',
      description: 'Montreal Alouettes @ Toronto Argonauts',
      league: 'CFL',
      scheduledStart: '2026-12-01T23:00:00Z',
      game: { homeTeamId: t1.id, awayTeamId: t2.id },
      markets: [
        {
          type: 'Moneyline',
          description: 'MTL @ TOR Moneyline',
          outcomes: [
            { description: 'TOR', competitorTeamId: t1.id },
            { description: 'MTL', competitorTeamId: t2.id },
          ],
        },
        {
          type: 'TOTAL',
          strike: 51.5,
          description: 'MTL @ TOR Total 51.5',
          outcomes: [{ description: 'Over 51.5' }, { description: 'Under 51.5' }],
        },
      ],
    };
    const res = await expectCommands(1, () => post('/admin/v1/events', body));
    assert.equal(res.statusCode, 201, res.body);
    h.checkShape('POST', '/admin/v1/events', 201, json(res));
    const created = json<{
      event: {
        id: string;
        status: string;
        scheduledStart: string;
        marketIds: string[];
        game: { homeTeam: { id: string } };
      };
      markets: { type: string; strike: number | null }[];
    }>(res);
    assert.equal(created.event.status, 'OPEN_PREGAME');
    assert.equal(created.event.scheduledStart, '2026-12-01T23:00:00.000Z');
    assert.equal(created.event.game.homeTeam.id, t1.id);
    assert.deepEqual(
      created.markets.map((m) => [m.type, m.strike]),
      [
        ['MONEY', null],
        ['TOTAL', 51.5],
      ],
    );
    const pub = await h.app.inject({
      method: 'GET',
      url: `/nbx/v2/emm/events/${created.event.id}`,
      headers: TAPE,
    });
    assert.deepEqual(json(pub), created.event);
    const leagues = json<string[]>(
      await h.app.inject({ method: 'GET', url: '/nbx/v2/emm/event-metadata/leagues', headers: TAPE }),
    );
    assert.equal(leagues.at(-1), 'CFL');
  });
  test('bad events apply nothing', async () => {
    const base = { type: 'Future', description: 'X', league: 'NFL', scheduledStart: '2026-12-01T00:00:00Z' };
    await expectCommands(0, async () => {
      assertError(
        await post('/admin/v1/events', { ...base, scheduledStart: 'tomorrow' }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(await post('/admin/v1/events', { ...base, type: 'Game' }), 400, 'VALIDATION_FAILED');
      assertError(await post('/admin/v1/events', { ...base, league: 'NOPE' }), 404, 'LEAGUE_NOT_FOUND');
      assertError(
        await post('/admin/v1/events', {
          ...base,
          markets: [
            { type: 'Cricket', description: 'x', outcomes: [{ description: 'a' }, { description: 'b' }] },
          ],
        }),
        400,
        'VALIDATION_FAILED',
      );
      assertError(
        await post('/admin/v1/events', {
          ...base,
          markets: [{ type: 'YES_NO', description: 'x', outcomes: [{ description: 'a' }] }],
        }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });
});

describe('statuses, settlement, locks', () => {
  test('event status: allowed transition, forbidden one, unknown event', async () => {
    // Game 0 is OPEN_PREGAME.
    const res = await post(`/admin/v1/events/${eventId(0)}/status`, { status: 'CLOSED_PREGAME' });
    assert.equal(res.statusCode, 200, res.body);
    h.checkShape('POST', '/admin/v1/events/:eventId/status', 200, json(res));
    assert.equal(json<{ status: string }>(res).status, 'CLOSED_PREGAME');
    assertError(
      await post(`/admin/v1/events/${eventId(0)}/status`, { status: 'INITIAL' }),
      409,
      'INVALID_TRANSITION',
    );
    assertError(
      await post(`/admin/v1/events/${eventId(0)}/status`, { status: 'LIVE' }),
      400,
      'VALIDATION_FAILED',
    );
    assertError(
      await post('/admin/v1/events/00000000-0000-4000-8000-000000000000/status', { status: 'FINAL' }),
      404,
      'EVENT_NOT_FOUND',
    );
  });

  test('close and settle a market: winners paid their full payout', async () => {
    // Game 15 is OPEN_PREGAME: A rests 300 on outcome 1 at 0.49, B buys 300 of outcome 0 at 0.51 and
    // takes all of it, so the book is empty when the market closes.
    const rest = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/place',
      headers: trader(ACCOUNT_A),
      payload: { outcomeId: outcomeId(15, 'TOTAL', 1), price: 0.49, qty: 300, currency: 'CASH', tif: 'GTC' },
    });
    assert.equal(rest.statusCode, 201, rest.body);
    const before = h.port.reader().wallet(ACCOUNT_B, 'CASH')!.available;
    const placed = await h.app.inject({
      method: 'POST',
      url: '/nbx/v2/emm/orders/place',
      headers: trader(ACCOUNT_B),
      payload: { outcomeId: outcomeId(15, 'TOTAL', 0), price: 0.51, qty: 300, currency: 'CASH', tif: 'IOC' },
    });
    assert.equal(placed.statusCode, 201, placed.body);
    const mid = marketId(15, 'TOTAL');
    assertError(await post(`/admin/v1/markets/${mid}/settle`, { result: 'PUSH' }), 409, 'INVALID_TRANSITION');
    const closed = await post(`/admin/v1/markets/${mid}/status`, { status: 'CLOSED' });
    assert.equal(json<{ status: string }>(closed).status, 'CLOSED', closed.body);
    h.checkShape('POST', '/admin/v1/markets/:marketId/status', 200, json(closed));
    assertError(
      await post(`/admin/v1/markets/${mid}/settle`, { winningOutcomeId: outcomeId(16, 'TOTAL', 0) }),
      404,
      'OUTCOME_NOT_FOUND',
    );
    assertError(await post(`/admin/v1/markets/${mid}/settle`, {}), 400, 'VALIDATION_FAILED');
    assertError(
      await post(`/admin/v1/markets/${mid}/settle`, {
        winningOutcomeId: outcomeId(15, 'TOTAL', 0),
        result: 'PUSH',
      }),
      400,
      'VALIDATION_FAILED',
    );
    const settled = await post(`/admin/v1/markets/${mid}/settle`, {
      winningOutcomeId: outcomeId(15, 'TOTAL', 0),
    });
    assert.equal(settled.statusCode, 200, settled.body);
    const m = json<{ status: string; settledAt: string; outcomes: { status: string }[] }>(settled);
    assert.equal(m.status, 'SETTLED');
    assert.equal(m.settledAt, new Date(h.clock.t).toISOString());
    assert.deepEqual(
      m.outcomes.map((o) => o.status),
      ['WIN', 'LOSS'],
    );
    // Paid 300 × 0.51 = 153 MCU, won 300 MCU: +147 MCU = +1.47 Cash.
    assert.equal(h.port.reader().wallet(ACCOUNT_B, 'CASH')!.available - before, 147_000);
    assertError(await post(`/admin/v1/markets/${mid}/settle`, { result: 'PUSH' }), 409, 'ALREADY_SETTLED');
    assertError(
      await post('/admin/v1/markets/00000000-0000-4000-8000-000000000000/status', { status: 'CLOSED' }),
      404,
      'MARKET_NOT_FOUND',
    );
  });

  test('locks: set system and event locks, visible on /locks, cleared by id', async () => {
    const sys = await post('/admin/v1/locks', { reason: 'maintenance', minuteDuration: 15 });
    assert.equal(sys.statusCode, 201, sys.body);
    h.checkShape('POST', '/admin/v1/locks', 201, json(sys));
    const lock = json<{ id: string; minuteDuration: number; eventId: null }>(sys);
    assert.equal(lock.minuteDuration, 15);
    const ev = json<{ id: string }>(
      await post('/admin/v1/locks', { reason: 'review', eventId: eventId(10) }),
    );
    const view = json<{ systemLock: { id: string } | null; lockedEventIds: string[] }>(
      await h.app.inject({ method: 'GET', url: '/nbx/v2/emm/locks', headers: TAPE }),
    );
    assert.equal(view.systemLock?.id, lock.id);
    assert.deepEqual(view.lockedEventIds, [eventId(10)]);
    // The operator's view lists every lock with its id (what `tickbook locks list` shows).
    const adminView = await h.app.inject({ method: 'GET', url: '/admin/v1/locks', headers: ADMIN });
    assert.equal(adminView.statusCode, 200);
    h.checkShape('GET', '/admin/v1/locks', 200, json(adminView));
    assert.deepEqual(
      json<{ id: string }[]>(adminView).map((l) => l.id),
      [lock.id, ev.id],
    );
    assertError(await post('/admin/v1/locks', { reason: 'again' }), 409, 'ALREADY_EXISTS');
    assertError(
      await post('/admin/v1/locks', { reason: 'x', eventId: '00000000-0000-4000-8000-000000000000' }),
      404,
      'EVENT_NOT_FOUND',
    );
    assertError(await post('/admin/v1/locks', { reason: 'x', minuteDuration: -1 }), 400, 'VALIDATION_FAILED');
    const del = (id: string) =>
      h.app.inject({ method: 'DELETE', url: `/admin/v1/locks/${id}`, headers: ADMIN });
    assert.equal((await del(lock.id)).statusCode, 204);
    assert.equal((await del(ev.id)).statusCode, 204);
    assertError(await del(ev.id), 404, 'LOCK_NOT_FOUND');
    assertError(await del('zzz'), 400, 'INVALID_ID');
    assert.deepEqual(json(await h.app.inject({ method: 'GET', url: '/nbx/v2/emm/locks', headers: TAPE })), {
      systemLock: null,
      lockedEventIds: [],
    });
    void teamId;
  });
});
