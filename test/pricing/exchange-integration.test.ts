// Pricing from a real Exchange built through commands (CreateLeague, CreateTeam, CreateEvent with
// MONEY/SPREAD/TOTAL markets, CreateAccount, Deposit, PlaceOrder), directly and through the route.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import Fastify from 'fastify';
import { loadConfig } from '../../src/config.ts';
import parlayRoutes, { PARLAY_PATH } from '../../src/http/routes/parlay.ts';
import { fitGame, fitGameCached } from '../../src/pricing/fit.ts';
import { pricingParams } from '../../src/pricing/league-models.ts';
import { priceParlay } from '../../src/pricing/parlay.ts';
import { buildRealSlate, T0 } from './real-exchange.ts';

type Slate = ReturnType<typeof buildRealSlate>;

/** The maker bids 100 on the away moneyline 5 ticks above its best bid: the home leg gets cheaper. */
function outbidAwayMoneyline(x: Slate['exchange'], g: Slate['games'][number], makerId: string, ts: number) {
  const best = x.bestBid(g.outcomes.ML![1], 'CASH')!;
  const r = x.apply({
    type: 'PlaceOrder',
    ts,
    orderId: randomUUID(),
    accountId: makerId,
    outcomeId: g.outcomes.ML![1],
    currency: 'CASH',
    price: best.price + 5,
    qty: 100,
    tif: 'GTC',
  });
  assert.ok(r.ok);
}

describe('pricing from a real Exchange', () => {
  test('leg prices come from the engine’s books and the fit recovers the quoted model', () => {
    const { exchange: x, games } = buildRealSlate(2);
    const g = games[0]!;
    const ids = [g.outcomes.ML![0], g.outcomes['SP-3.5']![0], g.outcomes['TOT47.5']![0]];
    const r = priceParlay(x, { outcomeIds: ids, currency: 'CASH' }, pricingParams({ margin: 0 }));
    assert.ok(r.ok, JSON.stringify(!r.ok && r.decline));
    for (const leg of r.quote.legs) {
      const m = x.market(leg.market.id)!;
      const other = x.bestBid(m.outcomeIds[leg.outcome.index === 0 ? 1 : 0], 'CASH')!;
      assert.equal(leg.price, (1000 - other.price) / 1000);
    }
    assert.equal(r.quote.maxQty, 5000);
    const fit = r.quote.groups[0]!.model!.fit;
    assert.ok(Math.abs(fit.muMargin! - 3) < 0.5, `μ_M ${fit.muMargin}`);
    assert.ok(Math.abs(fit.muTotal! - 45) < 0.5, `μ_T ${fit.muTotal}`);
    // Home ML ∧ home −3.5 is the −3.5 leg; with the over it lies below the tighter leg.
    assert.ok(r.quote.shaded < Math.min(...r.quote.legs.map((l) => l.price)));
    assert.ok(r.quote.shaded > r.quote.legs.reduce((p, l) => p * l.price, 1));

    // Legs on the two games multiply.
    const cross = priceParlay(
      x,
      { outcomeIds: [g.outcomes.ML![0], games[1]!.outcomes.ML![1]], currency: 'CASH' },
      pricingParams({ margin: 0 }),
    );
    assert.ok(cross.ok);
    assert.equal(cross.quote.shaded, cross.quote.legs[0]!.price * cross.quote.legs[1]!.price);
  });

  test('book changes move the price; emptying the other side declines NO_LIQUIDITY', () => {
    const { exchange: x, games, makerId } = buildRealSlate(2);
    const g = games[0]!;
    const ids = [g.outcomes.ML![0], games[1]!.outcomes.ML![0]];
    const params = pricingParams({ margin: 0 });
    const before = priceParlay(x, { outcomeIds: ids, currency: 'CASH' }, params);
    assert.ok(before.ok);
    // A better bid on the away moneyline makes the home side cheaper to buy.
    outbidAwayMoneyline(x, g, makerId, T0 + 10_000_000);
    const afterBid = priceParlay(x, { outcomeIds: ids, currency: 'CASH' }, params);
    assert.ok(afterBid.ok);
    assert.ok(afterBid.quote.price < before.quote.price);
    assert.equal(afterBid.quote.maxQty, 100);
    // Cancel every order of the maker on game 0: nothing left to buy there.
    const c = x.apply({
      type: 'CancelOrders',
      ts: T0 + 10_000_001,
      accountId: makerId,
      scope: 'event',
      scopeId: g.eventId,
    });
    assert.ok(c.ok);
    const empty = priceParlay(x, { outcomeIds: ids, currency: 'CASH' }, params);
    assert.ok(!empty.ok);
    assert.equal(empty.decline.code, 'NO_LIQUIDITY');
  });

  test('the memoized fit follows the books: a new order refits', () => {
    const { exchange: x, games, makerId } = buildRealSlate(1);
    const event = x.event(games[0]!.eventId)!;
    const before = fitGameCached(x, event, 'CASH', 13.5, 13.5);
    assert.equal(fitGameCached(x, event, 'CASH', 13.5, 13.5), before); // same lastSeq: memo hit
    assert.deepEqual(before, fitGame(x, event, 'CASH', 13.5, 13.5));
    const best = x.bestBid(games[0]!.outcomes.ML![0], 'CASH')!;
    const r = x.apply({
      type: 'PlaceOrder',
      ts: T0 + 20_000_000,
      orderId: randomUUID(),
      accountId: makerId,
      outcomeId: games[0]!.outcomes.ML![0],
      currency: 'CASH',
      price: best.price + 20,
      qty: 10,
      tif: 'GTC',
    });
    assert.ok(r.ok);
    const after = fitGameCached(x, event, 'CASH', 13.5, 13.5);
    assert.notEqual(after, before);
    assert.ok(after.muMargin! > before.muMargin!, 'a dearer home bid moves the fitted margin toward home');
    assert.deepEqual(after, fitGame(x, event, 'CASH', 13.5, 13.5));
  });

  test('the memoized fit outlives commands that touch none of the game’s books or the catalog', () => {
    const { exchange: x, games, makerId } = buildRealSlate(2);
    const event = x.event(games[0]!.eventId)!;
    const before = fitGameCached(x, event, 'CASH', 13.5, 13.5);
    // a deposit, and an order on the other game's book: lastSeq moves, this game's inputs do not
    assert.ok(
      x.apply({ type: 'Deposit', ts: T0 + 20_000_000, accountId: makerId, currency: 'CASH', amount: 1 }).ok,
    );
    const other = games[1]!.outcomes.ML![0];
    const otherBest = x.bestBid(other, 'CASH')!;
    assert.ok(
      x.apply({
        type: 'PlaceOrder',
        ts: T0 + 20_000_001,
        orderId: randomUUID(),
        accountId: makerId,
        outcomeId: other,
        currency: 'CASH',
        price: otherBest.price + 20,
        qty: 10,
        tif: 'GTC',
      }).ok,
    );
    assert.equal(fitGameCached(x, event, 'CASH', 13.5, 13.5), before, 'kept: the same object');
    assert.deepEqual(before, fitGame(x, event, 'CASH', 13.5, 13.5), 'and still what a fit gives');
    // other parameters are another fit (it takes the game's one entry)
    const wider = fitGameCached(x, event, 'CASH', 13.5, 10);
    assert.notEqual(wider, before);
    assert.deepEqual(wider, fitGame(x, event, 'CASH', 13.5, 10));
    const again = fitGameCached(x, event, 'CASH', 13.5, 13.5);
    assert.deepEqual(again, before);

    // a catalog change of the game (a market of it closes) refits
    const closed = x.market(event.marketIds.find((id) => x.market(id)!.type === 'SPREAD')!)!;
    assert.ok(
      x.apply({ type: 'SetMarketStatus', ts: T0 + 20_000_002, marketId: closed.id, status: 'CLOSED' }).ok,
    );
    const afterClose = fitGameCached(x, event, 'CASH', 13.5, 13.5);
    assert.notEqual(afterClose, again);
    assert.deepEqual(afterClose, fitGame(x, event, 'CASH', 13.5, 13.5));
    assert.ok(afterClose.marginMarkets < before.marginMarkets, 'the closed spread no longer counts');
  });

  test('the route serves the engine’s prices on the production wire format', async () => {
    const { exchange: x, games } = buildRealSlate(2);
    const g = games[0]!;
    const app = Fastify();
    await app.register(parlayRoutes, { reader: () => x, config: { ...loadConfig({}), parlayRateLimit: 0 } });
    const res = await app.inject({
      method: 'POST',
      url: PARLAY_PATH,
      payload: {
        outcomes: [{ id: g.outcomes.ML![0] }, { id: g.outcomes['TOT44.5']![1] }],
        boostId: null,
        currency: 'COIN',
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const [offer] = res.json();
    assert.equal(offer.currency, 'COIN');
    assert.equal(offer.legs[0].outcome.market.event.game.id, g.gameId);
    assert.equal(offer.legs[1].outcome.market.event.game.id, g.gameId);
    assert.equal(offer.legs[1].outcome.market.type, 'TOTAL');
    const tt = await app.inject({
      method: 'POST',
      url: PARLAY_PATH,
      payload: { outcomes: [{ id: g.outcomes.ML![0] }, { id: g.outcomes.TT![0] }] },
    });
    assert.equal(tt.statusCode, 400);
    assert.equal(tt.json().code, 'UNSUPPORTED_COMBINATION');
    await app.close();
  });

  test('the route remembers an offer only while the state stands: a new order reprices', async () => {
    const { exchange: x, games, makerId } = buildRealSlate(1);
    const g = games[0]!;
    const app = Fastify();
    await app.register(parlayRoutes, { reader: () => x, config: { ...loadConfig({}), parlayRateLimit: 0 } });
    const legs = { outcomes: [{ id: g.outcomes.ML![0] }, { id: g.outcomes['TOT47.5']![0] }], boostId: null };
    const quote = async () => {
      const res = await app.inject({ method: 'POST', url: PARLAY_PATH, payload: legs });
      assert.equal(res.statusCode, 201, res.body);
      return res.json()[0];
    };
    const fresh = () => {
      const q = priceParlay(
        x,
        { outcomeIds: legs.outcomes.map((o) => o.id), currency: 'CASH' },
        pricingParams({}),
      );
      assert.ok(q.ok);
      return q.quote;
    };
    const first = await quote();
    const again = await quote();
    assert.notEqual(again.id, first.id, 'every offer has its own id');
    const { id: _a, expiresAt: _b, ...rest } = first;
    const { id: _c, expiresAt: _d, ...restAgain } = again;
    assert.deepEqual(restAgain, rest);
    assert.equal(first.price, fresh().priceText);
    // A dearer bid on the other moneyline side makes the home leg cheaper: the next quote follows.
    outbidAwayMoneyline(x, g, makerId, T0 + 30_000_000);
    const after = await quote();
    assert.equal(after.price, fresh().priceText);
    assert.ok(Number(after.price) < Number(first.price));
    assert.equal(after.maxQty, 100);
    await app.close();
  });
});
