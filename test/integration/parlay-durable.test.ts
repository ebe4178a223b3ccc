// A parlay through the real app (docs/parlays.md), on PGlite and on PostgreSQL when DATABASE_URL is
// set: request, a maker's quote, the wager, settlement of both legs; the ledger of each side sums
// to its wallet (available + reserved) with the parlay rows at every step, and after a restart the
// journal gives back the same parlay and the store the same rows.

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
  describe(`parlay on ${kind}, through a restart`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    after(async () => {
      for (const c of cleanup.reverse()) await c();
    });

    test('request, quote, wager, settlement: money in the ledger and the journal', async () => {
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
        return { name, token: await api.tokenFor(c.body.clientId, c.body.clientSecret) };
      };
      const alice = await mk('alice');
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
        for (const who of [alice, bob]) {
          const rows = await ledger(who);
          assert.equal(
            rows.reduce((s, t) => s + money(t.amount), 0),
            await wallet(who),
            `${label}: ${who.name}'s ledger ≠ wallet`,
          );
        }
      };

      const req = await as(alice).call('POST', '/nbx/v1/parlay/request', {
        outcomes: [{ id: m1!.outcomeIds[0] }, { id: m2!.outcomeIds[1] }],
        boostId: null,
      });
      ok(req, 201);
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
        stake: 25,
        maxPrice: 0.25,
        clientOrderId: 'w-1',
      });
      ok(w, 201);
      assert.equal(w.body.qty, 10_000);
      await check('filled');
      const kinds = async (who: { token: string }) => new Set((await ledger(who)).map((t) => t.kind));
      assert.ok((await kinds(alice)).has('FILL_PARLAY_TAKER_FUNDS'));
      assert.ok((await kinds(alice)).has('FEE_PARLAY_TAKER_FUNDS'));
      assert.ok((await kinds(bob)).has('FILL_PARLAY_MAKER_FUNDS'));

      for (const [m, o] of [
        [m1!, m1!.outcomeIds[0]],
        [m2!, m2!.outcomeIds[1]],
      ] as const) {
        ok(await api.call('POST', `/admin/v1/markets/${m.id}/status`, { status: 'CLOSED' }), 200);
        ok(await api.call('POST', `/admin/v1/markets/${m.id}/settle`, { winningOutcomeId: o }), 200);
      }
      await check('settled');
      assert.ok((await kinds(alice)).has('SETTLE_PARLAY_TAKER_FUNDS'));

      const before = (await as(alice).call('GET', '/nbx/v1/parlays')).body;
      assert.equal(before[0].status, 'SETTLED');
      assert.equal(before[0].payout, 100);
      await srv.close();
      closed = true;
      srv = await start(place);
      closed = false;
      assert.deepEqual((await as(alice).call('GET', '/nbx/v1/parlays')).body, before);
      await check('restarted');
    });
  });
}
