// A boosted parlay through the real app (docs/parlays.md "Boosts"), on PGlite and on PostgreSQL when
// DATABASE_URL is set: the operator creates a boost funded by its account, the trader claims it,
// requests with it and wagers; the boost's cost leaves the funding account
// (FILL_PARLAY_BOOST_FUNDS) and every side's ledger sums to its wallet; after a restart the journal
// gives back the same boost and parlay.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { expectStatus as ok, parlayDesk } from '../helpers/parlay-desk.ts';
import { storeKinds } from '../helpers/store.ts';

for (const kind of storeKinds()) {
  describe(`boosted parlay on ${kind}, through a restart`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    after(async () => {
      for (const c of cleanup.reverse()) await c();
    });

    test('create, claim, boosted request and wager: the funder pays, money in the ledger', async () => {
      const d = await parlayDesk(kind, cleanup);
      const { m1, m2, as } = d;
      const alice = await d.party('alice');
      const house = await d.party('house');
      const bob = await d.party('bob', ['make:parlay', 'read:trader']);
      const liquidity = await d.party('mm');
      await d.offerLiquidity(liquidity);
      const check = (label: string) => d.checkLedgers(label, [alice, bob, house]);

      const houseId = house.accountId;
      const created = await d.admin().call('POST', '/admin/v1/boosts', {
        kind: 'MULTIPLIER',
        value: 1.25,
        validTo: '2100-01-01T00:00:00.000Z',
        fundingAccountId: houseId,
      });
      ok(created, 201);
      const boostId: string = created.body.id;
      ok(await as(alice).call('POST', `/nbx/v1/boosts/${boostId}/claim`), 200);
      const req = await as(alice).call('POST', '/nbx/v1/parlay/request', {
        outcomes: [{ id: m1.outcomeIds[0] }, { id: m2.outcomeIds[1] }],
        boostId,
      });
      ok(req, 201);
      assert.equal(req.body[0].boostId, boostId);
      const id: string = req.body[0].id;
      await d.quote(bob, id, 0.25);
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
      const rows = (await d.ledger(house)).filter((t) => t.kind === 'FILL_PARLAY_BOOST_FUNDS');
      assert.deepEqual(
        rows.map((t) => t.amount),
        ['-5.00000'],
      );
      // The operator's Api on whichever server is running (it restarts below).
      const boosts = async () => (await d.admin().call('GET', '/admin/v1/boosts')).body;
      const beforeBoosts = await boosts();
      assert.equal(beforeBoosts[0].fills, 1);
      const before = (await as(alice).call('GET', '/nbx/v1/parlays')).body;
      await d.restart();
      assert.deepEqual((await as(alice).call('GET', '/nbx/v1/parlays')).body, before);
      assert.deepEqual(await boosts(), beforeBoosts);
      await check('restarted');
    });
  });
}
