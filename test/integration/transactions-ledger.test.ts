// The ledger sums to the wallet (docs/http.md, "Transactions"): for funded accounts that traded as
// maker and taker, pregame and in-game (with the live taker fee), netted and settled, the amounts
// of GET /nbx/v2/emm/transactions add up to available + reserved, through the real app on the
// embedded store — and still do after a restart (rows come from the SQL history, not memory).

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ADMIN_ID, ADMIN_SECRET, Api, serverPlace, start } from '../helpers/server.ts';

/** "-12.34000" → -1_234_000 Money, exactly (5 decimals on the wire). */
const money = (s: string): number => {
  assert.match(s, /^-?\d+\.\d{5}$/);
  const neg = s.startsWith('-');
  const [w, f] = s.replace('-', '').split('.') as [string, string];
  const v = Number(w) * 100_000 + Number(f);
  return neg ? -v : v;
};
const units = (x: number): number => Math.round(x * 100_000);

describe('transactions ledger on pglite', () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  test('sum of transactions = available + reserved, through trading, fees and settlement', async () => {
    const place = await serverPlace('pglite');
    cleanup.push(() => place.destroy());
    let srv = await start(place);
    let closed = false;
    cleanup.push(async () => {
      if (!closed) await srv.close();
    });
    const api = new Api(srv);
    api.token = await api.tokenFor(ADMIN_ID, ADMIN_SECRET);
    const ok = (r: { status: number; body: unknown }, ...codes: number[]) =>
      assert.ok(codes.includes(r.status), `${r.status} ${JSON.stringify(r.body)}`);

    ok(await api.call('POST', '/admin/v1/leagues', { code: 'NFL', name: 'National Football League' }), 201);
    const home = await api.call('POST', '/admin/v1/teams', {
      league: 'NFL',
      name: 'Buffalo Bills',
      symbol: 'BUF',
    });
    const away = await api.call('POST', '/admin/v1/teams', {
      league: 'NFL',
      name: 'Kansas City Chiefs',
      symbol: 'KC',
    });
    const ev = await api.call('POST', '/admin/v1/events', {
      type: 'Game',
      status: 'OPEN_PREGAME',
      description: 'Kansas City Chiefs @ Buffalo Bills',
      league: 'NFL',
      scheduledStart: '2030-01-26T18:30:00.000Z',
      game: { homeTeamId: home.body.id, awayTeamId: away.body.id },
      markets: [
        {
          type: 'MONEY',
          description: 'KC @ BUF Moneyline',
          outcomes: [{ description: 'BUF' }, { description: 'KC' }],
        },
      ],
    });
    ok(ev, 201);
    const eventId: string = ev.body.event.id;
    const market = ev.body.markets[0];
    const [o0, o1]: [string, string] = market.outcomeIds;

    const mk = async (name: string) => {
      const c = await api.call('POST', '/admin/v1/clients', { name });
      ok(c, 201);
      ok(
        await api.call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
          currency: 'CASH',
          amount: 1000,
        }),
        200,
        201,
      );
      return { ...c.body, token: await api.tokenFor(c.body.clientId, c.body.clientSecret) };
    };
    const alice = await mk('alice');
    const bob = await mk('bob');
    ok(
      await api.call('POST', `/admin/v1/accounts/${alice.accountId}/withdrawals`, {
        currency: 'CASH',
        amount: 10.5,
      }),
      200,
      201,
    );
    const as = (t: { token: string }) => new Api(srv, t.token);
    const place1 = async (
      who: { token: string },
      outcomeId: string,
      price: number,
      qty: number,
      tif: string,
    ) => {
      const r = await as(who).call('POST', '/nbx/v2/emm/orders/place', {
        outcomeId,
        price,
        qty,
        currency: 'CASH',
        tif,
      });
      ok(r, 201);
      return r.body;
    };

    // Pregame: Alice makes, Bob takes (no fee).
    await place1(alice, o0, 0.6, 1000, 'GTC');
    await place1(bob, o1, 0.45, 400, 'IOC');
    // In-game: the taker pays the live fee. Bob makes on outcome 0, Alice takes on outcome 1; both
    // then hold both outcomes and the pairs net.
    ok(await api.call('POST', `/admin/v1/events/${eventId}/status`, { status: 'OPEN_INGAME' }), 200);
    await place1(bob, o0, 0.3, 500, 'GTC');
    const taker = await place1(alice, o1, 0.75, 200, 'IOC');

    const ledger = async (who: { token: string }) => {
      const r = await as(who).call('GET', '/nbx/v2/emm/transactions?currency=CASH&limit=1000');
      ok(r, 200);
      return r.body as {
        id: string;
        kind: string;
        amount: string;
        orderId?: string;
        fillId?: string;
        marketId?: string;
      }[];
    };
    const wallet = async (who: { token: string }) => {
      const b = await as(who).call('GET', '/nbx/v2/emm/account/balance?currency=CASH');
      const c = await as(who).call('GET', '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH');
      return units(b.body.balance) + units(c.body.openOrderCost);
    };
    const sum = (rows: { amount: string }[]) => rows.reduce((s, t) => s + money(t.amount), 0);
    const check = async (label: string) => {
      for (const who of [alice, bob]) {
        const rows = await ledger(who);
        assert.equal(sum(rows), await wallet(who), `${label}: ${who.name}'s ledger ≠ wallet`);
      }
    };

    // Bob still rests 300 at 0.3 (reserved): the ledger counts it as still in the wallet.
    await check('trading');
    const fee = (await ledger(alice)).filter((t) => t.kind === 'FEE_STRAIGHT_TAKER_LIVE_FUNDS');
    assert.equal(fee.length, 1);
    assert.ok(money(fee[0]!.amount) < 0);
    assert.equal(fee[0]!.orderId, taker.id);
    assert.equal(fee[0]!.marketId, market.id);

    ok(await api.call('POST', `/admin/v1/markets/${market.id}/status`, { status: 'CLOSED' }), 200);
    ok(await api.call('POST', `/admin/v1/markets/${market.id}/settle`, { winningOutcomeId: o0 }), 200);
    await check('settled');

    const kinds = async (who: { token: string }) => new Set((await ledger(who)).map((t) => t.kind));
    assert.deepEqual([...(await kinds(alice))].sort(), [
      'DEPOSIT',
      'FEE_STRAIGHT_TAKER_LIVE_FUNDS',
      'FILL_STRAIGHT_MAKER_FUNDS',
      'FILL_STRAIGHT_TAKER_LIVE_FUNDS',
      'NETTING',
      'SETTLEMENT',
      'WITHDRAWAL',
    ]);
    assert.deepEqual([...(await kinds(bob))].sort(), [
      'DEPOSIT',
      'FILL_STRAIGHT_MAKER_LIVE_FUNDS',
      'FILL_STRAIGHT_TAKER_FUNDS',
      'NETTING',
    ]);

    // After a restart the same rows answer from the store.
    const before = await ledger(alice);
    await srv.close();
    closed = true;
    srv = await start(place);
    closed = false;
    assert.deepEqual(await ledger(alice), before);
    await check('restarted');
  });
});
