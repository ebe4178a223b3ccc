// End to end through the real app: an operator creates a game and two
// trader clients, funds them, the traders trade through the API, the book (docs/http.md "Markets and books") and
// balances (§4.8) move by exactly the right amounts, the market settles, and all of it is still
// there — to the state hash — after a restart on the same store. Runs on PGlite, and on
// PostgreSQL when DATABASE_URL is set.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ADMIN_ID, ADMIN_SECRET, Api, serverPlace, start } from '../helpers/server.ts';
import { storeKinds } from '../helpers/store.ts';

for (const kind of storeKinds()) {
  describe(`trading flow on ${kind}`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    after(async () => {
      for (const c of cleanup.reverse()) await c();
    });

    test('place, fill, settle, restart', async () => {
      const place = await serverPlace(kind);
      cleanup.push(() => place.destroy());
      let srv = await start(place);
      let closed = false;
      cleanup.push(async () => {
        if (!closed) await srv.close();
      });
      const api = new Api(srv);
      api.token = await api.tokenFor(ADMIN_ID, ADMIN_SECRET);

      // Catalog through the admin API.
      assert.equal(
        (await api.call('POST', '/admin/v1/leagues', { code: 'NFL', name: 'National Football League' }))
          .status,
        201,
      );
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
      assert.equal(home.status, 201, JSON.stringify(home.body));
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
      assert.equal(ev.status, 201, JSON.stringify(ev.body));
      const eventId: string = ev.body.event.id;
      const market = ev.body.markets[0];
      const [o0, o1]: [string, string] = market.outcomeIds;

      // Two traders, each with a fresh account, funded by the operator.
      const mk = async (name: string) => {
        const c = await api.call('POST', '/admin/v1/clients', { name });
        assert.equal(c.status, 201, JSON.stringify(c.body));
        const dep = await api.call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
          currency: 'CASH',
          amount: 1000,
        });
        assert.ok(dep.status === 200 || dep.status === 201, JSON.stringify(dep.body));
        return { ...c.body, token: await api.tokenFor(c.body.clientId, c.body.clientSecret) };
      };
      const alice = await mk('alice');
      const bob = await mk('bob');
      const as = (t: { token: string }) => new Api(srv, t.token);

      // Alice rests a bid on outcome 0: 1000 MCU payout at 0.6 reserves 6.00 Cash.
      const a1 = await as(alice).call('POST', '/nbx/v2/emm/orders/place', {
        outcomeId: o0,
        price: 0.6,
        qty: 1000,
        currency: 'CASH',
        tif: 'GTC',
      });
      assert.equal(a1.status, 201, JSON.stringify(a1.body));
      assert.equal(a1.body.status, 'RESTING');
      assert.deepEqual((await as(alice).call('GET', '/emm/v2/account/balance')).body, {
        balance: 994,
        currency: 'CASH',
      });

      const book1 = await as(bob).call(
        'GET',
        `/nbx/v2/emm/events/getMarketsByEvent/${eventId}?currency=CASH`,
      );
      assert.equal(book1.status, 200);
      assert.deepEqual(book1.body[0].book.bids, [{ price: 0.6, qty: 1000 }]);
      assert.deepEqual(book1.body[0].book.asks, []);

      // Bob's bid on outcome 1 at 0.45 crosses (0.45 + 0.6 ≥ 1): he trades at 1 − 0.6 = 0.4.
      const b1 = await as(bob).call('POST', '/nbx/v2/emm/orders/place', {
        outcomeId: o1,
        price: 0.45,
        qty: 400,
        currency: 'CASH',
        tif: 'IOC',
      });
      assert.equal(b1.status, 201, JSON.stringify(b1.body));
      assert.equal(b1.body.status, 'FILLED');
      assert.deepEqual((await as(bob).call('GET', '/nbx/v2/emm/account/balance?currency=CASH')).body, {
        balance: 998.4,
        currency: 'CASH',
      });
      assert.deepEqual((await as(alice).call('GET', '/emm/v2/account/balance')).body.balance, 994);

      const book2 = await as(bob).call('GET', `/nbx/v2/emm/book/${market.id}?currency=CASH`);
      assert.deepEqual(book2.body.bids, [{ price: 0.6, qty: 600 }]);

      const posA = await as(alice).call('GET', '/nbx/v2/emm/positions/all?currency=CASH');
      assert.deepEqual(
        posA.body.map((p: any) => [p.outcomeId, p.size, p.cost]),
        [[o0, 400, 2.4]],
      );
      const posB = await as(bob).call('GET', '/nbx/v2/emm/positions/all?currency=CASH');
      assert.deepEqual(
        posB.body.map((p: any) => [p.outcomeId, p.size, p.cost]),
        [[o1, 400, 1.6]],
      );
      const fillsB = await as(bob).call('GET', '/nbx/v2/emm/fills/all?currency=CASH');
      assert.equal(fillsB.status, 200);
      // The market's public print, from the history tables: Bob bought outcome 1 at 0.4.
      const prints = await as(bob).call('GET', `/nbx/v2/emm/markets/${market.id}/trades?currency=CASH`);
      assert.equal(prints.status, 200, JSON.stringify(prints.body));
      assert.deepEqual(
        prints.body.map((t: { outcomeId: string; price: number; qty: number }) => [
          t.outcomeId,
          t.price,
          t.qty,
        ]),
        [[o1, 0.4, 400]],
      );
      assert.equal(fillsB.body.length, 1);
      assert.equal(fillsB.body[0].price, 0.4);
      assert.equal(fillsB.body[0].isTaker, true);

      // Another account's order is invisible.
      assert.equal((await as(bob).call('GET', `/nbx/v2/emm/orders/${a1.body.id}`)).status, 404);

      // Close and settle: outcome 0 wins; Alice's rest is cancelled (3.60 back) and she is paid 4.00.
      assert.equal(
        (await api.call('POST', `/admin/v1/markets/${market.id}/status`, { status: 'CLOSED' })).status,
        200,
      );
      const settled = await api.call('POST', `/admin/v1/markets/${market.id}/settle`, {
        winningOutcomeId: o0,
      });
      assert.equal(settled.status, 200, JSON.stringify(settled.body));
      assert.equal((await as(alice).call('GET', '/emm/v2/account/balance')).body.balance, 1001.6);
      assert.equal((await as(bob).call('GET', '/emm/v2/account/balance')).body.balance, 998.4);

      const hash = srv.runtime.exchange.hash();
      const seq = srv.runtime.exchange.lastSeq;
      await srv.close();
      closed = true;

      // Restart on the same store: same state, same balances, history still answers.
      srv = await start(place);
      closed = false;
      assert.equal(srv.runtime.exchange.lastSeq, seq);
      assert.equal(srv.runtime.exchange.hash(), hash);
      const api2 = new Api(srv, alice.token);
      assert.equal((await api2.call('GET', '/emm/v2/account/balance')).body.balance, 1001.6);
      const o = await api2.call('GET', `/nbx/v2/emm/orders/${a1.body.id}`);
      assert.equal(o.status, 200, JSON.stringify(o.body));
      assert.equal(o.body.status, 'CANCELED');
      assert.equal(o.body.qty, 600);
      assert.equal(o.body.originalQty, 1000);
      const all = await api2.call('GET', '/nbx/v2/emm/orders/all?currency=CASH');
      assert.equal(all.body.length, 1);
    });
  });
}
