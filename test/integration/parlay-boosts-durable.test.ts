// A boosted parlay through the real app (docs/parlays.md "Boosts"), on PGlite and on PostgreSQL when
// DATABASE_URL is set: the operator creates a boost funded by its account, the trader claims it,
// requests with it and wagers; the boost's cost leaves the funding account
// (FILL_PARLAY_BOOST_FUNDS) and every side's ledger sums to its wallet; after a restart the journal
// gives back the same boost and parlay.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ADMIN_ID, ADMIN_SECRET, Api, serverPlace, start } from '../helpers/server.ts';
import { storeKinds } from '../helpers/store.ts';

const money = (s: string): number => {
  const neg = s.startsWith('-');
  const [w, f] = s.replace('-', '').split('.') as [string, string];
  const v = Number(w) * 100_000 + Number((f ?? '').padEnd(5, '0'));
  return neg ? -v : v;
};
const units = (x: number): number => Math.round(x * 100_000);

for (const kind of storeKinds()) {
  describe(`boosted parlay on ${kind}, through a restart`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    after(async () => {
      for (const c of cleanup.reverse()) await c();
    });

    test('create, claim, boosted request and wager: the funder pays, money in the ledger', async () => {
      const place = await serverPlace(kind, { TICKBOOK_DEMO: 'false' });
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
      const team = async (name: string, symbol: string) =>
        (await api.call('POST', '/admin/v1/teams', { league: 'NFL', name, symbol })).body.id as string;
      const ev = await api.call('POST', '/admin/v1/events', {
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'Kansas City Chiefs @ Buffalo Bills',
        league: 'NFL',
        scheduledStart: '2030-01-26T18:30:00.000Z',
        game: {
          homeTeamId: await team('Buffalo Bills', 'BUF'),
          awayTeamId: await team('Kansas City Chiefs', 'KC'),
        },
        markets: [
          {
            type: 'MONEY',
            description: 'KC @ BUF Moneyline',
            outcomes: [{ description: 'BUF' }, { description: 'KC' }],
          },
          {
            type: 'TOTAL',
            strike: 47.5,
            description: 'KC @ BUF Total 47.5',
            outcomes: [{ description: 'Over 47.5' }, { description: 'Under 47.5' }],
          },
        ],
      });
      ok(ev, 201);
      const [m1, m2] = ev.body.markets as { id: string; outcomeIds: [string, string] }[];
      const mk = async (name: string, scopes?: string[]) => {
        const c = await api.call('POST', '/admin/v1/clients', { name, ...(scopes ? { scopes } : {}) });
        ok(c, 201);
        ok(
          await api.call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
            currency: 'CASH',
            amount: 1000,
          }),
          200,
          201,
        );
        return {
          name,
          accountId: c.body.accountId as string,
          token: await api.tokenFor(c.body.clientId, c.body.clientSecret),
        };
      };
      const alice = await mk('alice');
      const house = await mk('house');
      const bob = await mk('bob', ['make:parlay', 'read:trader']);
      const liquidity = await mk('mm');
      const as = (t: { token: string }) => new Api(srv, t.token);
      for (const m of [m1!, m2!])
        for (const o of m.outcomeIds)
          ok(
            await as(liquidity).call('POST', '/nbx/v2/emm/orders/place', {
              outcomeId: o,
              price: 0.45,
              qty: 1000,
              currency: 'CASH',
              tif: 'GTC',
            }),
            201,
          );

      const ledger = async (who: { token: string }) =>
        (await as(who).call('GET', '/nbx/v2/emm/transactions?currency=CASH&limit=1000')).body as {
          kind: string;
          amount: string;
        }[];
      const wallet = async (who: { token: string }) => {
        const b = await as(who).call('GET', '/nbx/v2/emm/account/balance?currency=CASH');
        const c = await as(who).call('GET', '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH');
        return units(b.body.balance) + units(c.body.openOrderCost);
      };
      const check = async (label: string) => {
        for (const who of [alice, bob, house]) {
          const rows = await ledger(who);
          assert.equal(
            rows.reduce((s, t) => s + money(t.amount), 0),
            await wallet(who),
            `${label}: ${who.name}'s ledger ≠ wallet`,
          );
        }
      };

      const houseId = house.accountId;
      const created = await api.call('POST', '/admin/v1/boosts', {
        kind: 'MULTIPLIER',
        value: 1.25,
        validTo: '2100-01-01T00:00:00.000Z',
        fundingAccountId: houseId,
      });
      ok(created, 201);
      const boostId: string = created.body.id;
      ok(await as(alice).call('POST', `/nbx/v1/boosts/${boostId}/claim`), 200);
      const req = await as(alice).call('POST', '/nbx/v1/parlay/request', {
        outcomes: [{ id: m1!.outcomeIds[0] }, { id: m2!.outcomeIds[1] }],
        boostId,
      });
      ok(req, 201);
      assert.equal(req.body[0].boostId, boostId);
      const id: string = req.body[0].id;
      ok(
        await as(bob).call('POST', '/nbx/v1/parlay/quotes', {
          requestId: id,
          price: 0.25,
          maxQty: 10_000,
          expiresInMs: 60_000,
        }),
        201,
      );
      const w = await as(alice).call('POST', `/nbx/v1/parlay/request/${id}/wager`, {
        stake: 20,
        maxPrice: 0.2,
        clientOrderId: 'w-1',
      });
      ok(w, 201);
      // odds 4 × 1.25 = 5: 20 Cash at 0.20 buys a 100 Cash payout; bob locks 75, the house pays 5
      assert.deepEqual(
        [w.body.qty, w.body.price, w.body.unboostedPrice, w.body.stake, w.body.collateral, w.body.boostCost],
        [10_000, 0.2, 0.25, 20, 75, 5],
      );
      await check('filled');
      const rows = (await ledger(house)).filter((t) => t.kind === 'FILL_PARLAY_BOOST_FUNDS');
      assert.deepEqual(
        rows.map((t) => t.amount),
        ['-5.00000'],
      );
      // the admin token on the server running now (it restarts below)
      const boosts = async () => (await new Api(srv, api.token).call('GET', '/admin/v1/boosts')).body;
      const beforeBoosts = await boosts();
      assert.equal(beforeBoosts[0].fills, 1);
      const before = (await as(alice).call('GET', '/nbx/v1/parlays')).body;
      await srv.close();
      closed = true;
      srv = await start(place);
      closed = false;
      assert.deepEqual((await as(alice).call('GET', '/nbx/v1/parlays')).body, before);
      assert.deepEqual(await boosts(), beforeBoosts);
      await check('restarted');
    });
  });
}
