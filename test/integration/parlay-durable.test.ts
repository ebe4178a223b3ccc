// A parlay through the real app (docs/parlays.md), on PGlite and on PostgreSQL when DATABASE_URL is
// set: request, a maker's quote, the wager, settlement of both legs; the ledger of each side sums
// to its wallet (available + reserved) with the parlay rows at every step, and after a restart the
// journal gives back the same parlay and the store the same rows.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { expectStatus as ok, parlayDesk } from '../helpers/parlay-desk.ts';
import { storeKinds } from '../helpers/store.ts';

for (const kind of storeKinds()) {
  describe(`parlay on ${kind}, through a restart`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    after(async () => {
      for (const c of cleanup.reverse()) await c();
    });

    test('request, quote, wager, settlement: money in the ledger and the journal', async () => {
      const d = await parlayDesk(kind, cleanup);
      const { m1, m2, as } = d;
      const alice = await d.party('alice');
      const bob = await d.party('bob', ['make:parlay', 'read:trader']);
      const liquidity = await d.party('mm');
      await d.offerLiquidity(liquidity);
      const check = (label: string) => d.checkLedgers(label, [alice, bob]);

      const req = await as(alice).call('POST', '/nbx/v1/parlay/request', {
        outcomes: [{ id: m1.outcomeIds[0] }, { id: m2.outcomeIds[1] }],
        boostId: null,
      });
      ok(req, 201);
      const id: string = req.body[0].id;
      await d.quote(bob, id, 0.25);
      const w = await as(alice).call('POST', `/nbx/v1/parlay/request/${id}/wager`, {
        stake: 25,
        maxPrice: 0.25,
        clientOrderId: 'w-1',
      });
      ok(w, 201);
      assert.equal(w.body.qty, 10_000);
      await check('filled');
      const kinds = async (who: { token: string }) => new Set((await d.ledger(who)).map((t) => t.kind));
      assert.ok((await kinds(alice)).has('FILL_PARLAY_TAKER_FUNDS'));
      assert.ok((await kinds(alice)).has('FEE_PARLAY_TAKER_FUNDS'));
      assert.ok((await kinds(bob)).has('FILL_PARLAY_MAKER_FUNDS'));

      for (const [m, o] of [
        [m1, m1.outcomeIds[0]],
        [m2, m2.outcomeIds[1]],
      ] as const) {
        ok(await d.admin().call('POST', `/admin/v1/markets/${m.id}/status`, { status: 'CLOSED' }), 200);
        ok(await d.admin().call('POST', `/admin/v1/markets/${m.id}/settle`, { winningOutcomeId: o }), 200);
      }
      await check('settled');
      assert.ok((await kinds(alice)).has('SETTLE_PARLAY_TAKER_FUNDS'));

      const before = (await as(alice).call('GET', '/nbx/v1/parlays')).body;
      assert.equal(before[0].status, 'SETTLED');
      assert.equal(before[0].payout, 100);
      await d.restart();
      assert.deepEqual((await as(alice).call('GET', '/nbx/v1/parlays')).body, before);
      await check('restarted');
    });
  });
}
