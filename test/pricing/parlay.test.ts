// The parlay pricer over an in-memory fake of the exchange reader: leg prices, the independent
// product, the same-game model's properties and every decline code (docs/pricing.md).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { PARLAY_DECLINES } from '../../src/pricing/declines.ts';
import { fitGame } from '../../src/pricing/fit.ts';
import { DEFAULT_LEAGUE_MODELS, pricingParams } from '../../src/pricing/league-models.ts';
import { formatPrice } from '../../src/pricing/odds.ts';
import { gameCorrelation, type ParlayResult, priceParlay } from '../../src/pricing/parlay.ts';
import { askOf, FakeBooks, modelGame } from './fake-books.ts';

const NO_MARGIN = pricingParams({ margin: 0 });
const PARAMS = pricingParams({ margin: 0.05 });

function ok(r: ParlayResult) {
  if (!r.ok) assert.fail(`declined: ${JSON.stringify(r.decline)}`);
  return r.quote;
}
function declined(r: ParlayResult, code: keyof typeof PARLAY_DECLINES) {
  if (r.ok) assert.fail(`priced at ${r.quote.priceText}, expected ${code}`);
  assert.equal(r.decline.code, code, JSON.stringify(r.decline));
  return r.decline;
}
const price = (books: FakeBooks, ids: string[], params = PARAMS, currency: 'CASH' | 'COIN' = 'CASH') =>
  priceParlay(books, { outcomeIds: ids, currency }, params);

/** A one-market event (its own game) with the given bids (ticks) on outcome 0 and 1. */
function single(books: FakeBooks, bid0: number | null, bid1: number | null, qty = 500) {
  const e = books.addEvent();
  return books.addMarket(e, 'MONEY', null, {
    bid0: bid0 === null ? null : { price: bid0, qty },
    bid1: bid1 === null ? null : { price: bid1, qty },
  });
}

describe('leg prices and independent legs', () => {
  test('leg price is 1 − best bid on the other outcome; maxQty is the smallest depth', () => {
    const books = new FakeBooks();
    const a = single(books, 400, 550, 300); // buy A0 at 0.450
    const b = single(books, 200, 700, 120); // buy B1 at 0.800
    const q = ok(price(books, [a.outcomeIds[0], b.outcomeIds[1]], NO_MARGIN));
    assert.deepEqual(
      q.legs.map((l) => l.priceText),
      ['0.45000', '0.80000'],
    );
    assert.equal(q.priceText, '0.36000');
    assert.equal(q.maxQty, 120);
    assert.equal(q.decimalOdds, 2.77778);
    assert.equal(q.americanOdds, 178);
  });

  test('legs on different games multiply exactly (to 5 decimals, before margin)', () => {
    const tick = fc.integer({ min: 1, max: 998 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(tick, fc.integer({ min: 1, max: 10_000 })), { minLength: 2, maxLength: 12 }),
        (legs) => {
          const books = new FakeBooks();
          const ids: string[] = [];
          let product = 1;
          for (const [bidOther, qty] of legs) {
            const m = single(books, null, bidOther, qty);
            ids.push(m.outcomeIds[0]);
            product *= (1000 - bidOther) / 1000;
          }
          const q = ok(price(books, ids, NO_MARGIN));
          assert.ok(Math.abs(q.shaded - product) <= 1e-15 * Math.max(1, product));
          assert.equal(q.priceText, formatPrice(product));
          assert.equal(q.maxQty, Math.min(...legs.map((l) => l[1])));
          // With a margin the same product is scaled by (1 + margin).
          const withMargin = ok(price(books, ids, PARAMS));
          assert.equal(withMargin.priceText, formatPrice(product * 1.05));
        },
      ),
      { seed: 1, numRuns: 200 },
    );
  });

  test('prices are strictly inside (0, 1) with 5 decimals even at the extremes', () => {
    const books = new FakeBooks();
    const cheap = Array.from({ length: 12 }, () => single(books, null, 999).outcomeIds[0]); // asks 0.001
    const q = ok(price(books, cheap, pricingParams({ margin: 0.5 })));
    assert.equal(q.priceText, '0.00001');
    const dear = Array.from({ length: 2 }, () => single(books, null, 1).outcomeIds[0]); // asks 0.999
    const q2 = ok(price(books, dear, pricingParams({ margin: 0.5 })));
    assert.equal(q2.priceText, '0.99999');
  });

  test('the requested currency reads that currency’s books', () => {
    const books = new FakeBooks();
    const a = single(books, null, 500);
    const b = single(books, null, 500);
    books.setBid(a.outcomeIds[1], { price: 300, qty: 7 }, 'COIN');
    books.setBid(b.outcomeIds[1], { price: 600, qty: 9 }, 'COIN');
    const q = ok(price(books, [a.outcomeIds[0], b.outcomeIds[0]], NO_MARGIN, 'COIN'));
    assert.equal(q.priceText, '0.28000');
    assert.equal(q.currency, 'COIN');
    assert.equal(q.maxQty, 7);
  });
});

describe('same-game model', () => {
  const nfl = DEFAULT_LEAGUE_MODELS.NFL!; // a default league: the table holds it

  test('fit recovers the means the books were quoted from', () => {
    const books = new FakeBooks();
    const g = modelGame(books, { muM: 4, muT: 46, sdM: nfl.sdMargin, sdT: nfl.sdTotal, halfSpread: 0 });
    const fit = fitGame(books, g.event, 'CASH', nfl.sdMargin, nfl.sdTotal);
    // Tick rounding (0.005 steps) moves each mid by at most 0.0025 → well under half a point.
    assert.ok(Math.abs(fit.muMargin! - 4) < 0.4, `μ_M = ${fit.muMargin}`);
    assert.ok(Math.abs(fit.muTotal! - 46) < 0.4, `μ_T = ${fit.muTotal}`);
    assert.equal(fit.marginMarkets, 4);
    assert.equal(fit.totalMarkets, 3);
  });

  test('home moneyline + home −x spread prices above the independent product', () => {
    for (const mu of [-3, 0, 2.5, 6, 10]) {
      const books = new FakeBooks();
      const g = modelGame(books, { muM: mu, muT: 45, sdM: 13.5, sdT: 13.5, spreads: [-3.5, -7.5] });
      for (const s of [-3.5, -7.5]) {
        const ml = g.money.outcomeIds[0];
        const sp = g.spreads.get(s)!.outcomeIds[0];
        const q = ok(price(books, [ml, sp], NO_MARGIN));
        const independent = askOf(books, ml) * askOf(books, sp);
        assert.ok(q.shaded > independent, `μ=${mu} s=${s}: ${q.shaded} ≤ ${independent}`);
        // Covering −x implies winning: the pair is worth the spread leg alone (M > x ⊂ M > 0).
        assert.ok(Math.abs(q.shaded - Math.min(askOf(books, ml), askOf(books, sp))) < 1e-12);
        const withMargin = ok(price(books, [ml, sp], PARAMS));
        assert.ok(withMargin.price > Number(formatPrice(independent * 1.05)));
      }
    }
  });

  test('favourite covers + over is priced above the product, underdog covers + over below', () => {
    const books = new FakeBooks();
    const g = modelGame(books, { muM: 7, muT: 47, sdM: 13.5, sdT: 13.5, spreads: [-7.5], totals: [47.5] });
    const fav = g.spreads.get(-7.5)!.outcomeIds[0];
    const dog = g.spreads.get(-7.5)!.outcomeIds[1];
    const over = g.totals.get(47.5)!.outcomeIds[0];
    const favOver = ok(price(books, [fav, over], NO_MARGIN));
    assert.ok(favOver.shaded > askOf(books, fav) * askOf(books, over));
    const dogOver = ok(price(books, [dog, over], NO_MARGIN));
    assert.ok(dogOver.shaded < askOf(books, dog) * askOf(books, over));
    assert.ok(favOver.groups[0]!.model!.rho > 0);
  });

  test('fair (mids) ≤ shaded (asks): spreads only make the price dearer', () => {
    const books = new FakeBooks();
    const g = modelGame(books, { muM: 3, muT: 44, sdM: 13.5, sdT: 13.5, halfSpread: 0.02 });
    const q = ok(price(books, [g.money.outcomeIds[0], g.totals.get(44.5)!.outcomeIds[1]], NO_MARGIN));
    assert.ok(q.fair < q.shaded);
  });

  test('adding a leg never raises the price', () => {
    let comparisons = 0;
    fc.assert(
      fc.property(
        fc.record({
          muM: fc.double({ min: -12, max: 12, noNaN: true }),
          muT: fc.double({ min: 36, max: 56, noNaN: true }),
          half: fc.double({ min: 0, max: 0.04, noNaN: true }),
          league: fc.constantFrom('NFL', 'NCAAF'),
        }),
        fc.array(fc.nat(), { minLength: 3, maxLength: 6 }),
        fc.integer({ min: 0, max: 2 }),
        (m, picks, otherGames) => {
          const books = new FakeBooks();
          modelGame(books, {
            league: m.league,
            muM: m.muM,
            muT: m.muT,
            sdM: 13.5,
            sdT: 13.5,
            halfSpread: m.half,
            spreads: [-10.5, -6.5, -2.5, 3.5, 8.5],
            totals: [38.5, 43.5, 47.5, 52.5],
          });
          const all = [...books.outcomes.keys()];
          for (let i = 0; i < otherGames; i++) all.push(single(books, null, 300 + 100 * i).outcomeIds[0]);
          const chosen: string[] = [];
          for (const p of picks) {
            const id = all[p % all.length]!;
            if (!chosen.includes(id)) chosen.push(id);
          }
          let last = Number.POSITIVE_INFINITY;
          for (let n = 2; n <= chosen.length; n++) {
            const r = price(books, chosen.slice(0, n), PARAMS);
            if (!r.ok) break; // a superset of a declined set may only decline too
            assert.ok(r.quote.price <= last, `legs ${n}: ${r.quote.price} > ${last}`);
            if (last !== Number.POSITIVE_INFINITY) comparisons++;
            last = r.quote.price;
          }
        },
      ),
      { seed: 3, numRuns: 300 },
    );
    assert.ok(comparisons >= 200, `only ${comparisons} priced supersets`);
  });

  test('the margin/total correlation follows the fitted favourite and vanishes for a pick’em', () => {
    const fit = (muMargin: number | null) => ({ muMargin, muTotal: 45, marginMarkets: 1, totalMarkets: 1 });
    assert.equal(gameCorrelation(nfl, fit(0)), 0);
    assert.equal(gameCorrelation(nfl, fit(null)), 0);
    assert.ok(gameCorrelation(nfl, fit(7)) > 0);
    assert.ok(Math.abs(gameCorrelation(nfl, fit(-7)) + gameCorrelation(nfl, fit(7))) < 1e-15);
    assert.ok(gameCorrelation(nfl, fit(40)) <= nfl.rhoFavourite);
    assert.ok(gameCorrelation(nfl, fit(40)) > 0.99 * nfl.rhoFavourite);
  });

  test('same game on another league uses that league’s deviations', () => {
    const books = new FakeBooks();
    const g = modelGame(books, {
      league: 'NHL',
      muM: 0.4,
      muT: 6,
      sdM: 2.4,
      sdT: 2.3,
      spreads: [-1.5],
      totals: [5.5],
    });
    const q = ok(price(books, [g.money.outcomeIds[0], g.totals.get(5.5)!.outcomeIds[0]], NO_MARGIN));
    assert.equal(q.groups[0]!.model!.sdMargin, DEFAULT_LEAGUE_MODELS.NHL!.sdMargin);
    assert.ok(Math.abs(q.groups[0]!.model!.fit.muMargin! - 0.4) < 0.2);
  });

  test('league parameters are configurable', () => {
    const books = new FakeBooks();
    const g = modelGame(books, { muM: 6, muT: 47, sdM: 13.5, sdT: 13.5, spreads: [-6.5], totals: [47.5] });
    const ids = [g.spreads.get(-6.5)!.outcomeIds[0], g.totals.get(47.5)!.outcomeIds[0]];
    const base = ok(price(books, ids, NO_MARGIN));
    const strong = ok(
      price(
        books,
        ids,
        pricingParams({ margin: 0, leagues: { NFL: { sdMargin: 13.5, sdTotal: 13.5, rhoFavourite: 0.6 } } }),
      ),
    );
    assert.ok(strong.shaded > base.shaded);
  });
});

describe('declines', () => {
  function game() {
    const books = new FakeBooks();
    const g = modelGame(books, {
      muM: 3,
      muT: 46,
      sdM: 13.5,
      sdT: 13.5,
      spreads: [-7.5, -3.5],
      totals: [44.5, 50.5],
    });
    return { books, g };
  }

  test('TOO_FEW_LEGS and TOO_MANY_LEGS', () => {
    const { books, g } = game();
    declined(price(books, []), 'TOO_FEW_LEGS');
    declined(price(books, [g.money.outcomeIds[0]]), 'TOO_FEW_LEGS');
    const many = Array.from({ length: 13 }, () => single(books, null, 500).outcomeIds[0]);
    const d = declined(price(books, many), 'TOO_MANY_LEGS');
    assert.equal(d.details[0]!.outcomeId, null);
    ok(price(books, many.slice(0, 12)));
    declined(price(books, many.slice(0, 4), pricingParams({ maxLegs: 3 })), 'TOO_MANY_LEGS');
  });

  test('INVALID_OUTCOME_ID and OUTCOME_NOT_FOUND name the leg', () => {
    const { books, g } = game();
    const d = declined(price(books, ['not-a-uuid', g.money.outcomeIds[0]]), 'INVALID_OUTCOME_ID');
    assert.deepEqual(d.details, [
      { outcomeId: 'not-a-uuid', code: 'INVALID_OUTCOME_ID', message: 'Outcome id is not a UUID' },
    ]);
    const unknown = randomUUID();
    const d2 = declined(price(books, [g.money.outcomeIds[0], unknown]), 'OUTCOME_NOT_FOUND');
    assert.equal(d2.details[0]!.outcomeId, unknown);
  });

  test('MARKET_NOT_OPEN, EVENT_NOT_TRADABLE (status and locks)', () => {
    const { books, g } = game();
    const other = single(books, null, 500).outcomeIds[0];
    books.markets.get(g.money.id)!.status = 'CLOSED';
    declined(price(books, [g.money.outcomeIds[0], other]), 'MARKET_NOT_OPEN');
    books.markets.get(g.money.id)!.status = 'OPEN';
    g.event.status = 'FINAL';
    declined(price(books, [g.money.outcomeIds[0], other]), 'EVENT_NOT_TRADABLE');
    g.event.status = 'OPEN_INGAME';
    ok(price(books, [g.money.outcomeIds[0], other]));
    books.lockState = {
      system: null,
      events: [{ id: randomUUID(), eventId: g.event.id, reason: 'review', createdAt: 0, expiresAt: null }],
    };
    declined(price(books, [g.money.outcomeIds[0], other]), 'EVENT_NOT_TRADABLE');
  });

  test('NO_LIQUIDITY when nobody bids on the other outcome', () => {
    const { books } = game();
    const a = single(books, 500, null); // bids on outcome 0 only: outcome 0 cannot be bought
    const b = single(books, null, 500);
    const d = declined(price(books, [a.outcomeIds[0], b.outcomeIds[0]]), 'NO_LIQUIDITY');
    assert.deepEqual(
      d.details.map((x) => x.outcomeId),
      [a.outcomeIds[0]],
    );
    ok(price(books, [a.outcomeIds[1], b.outcomeIds[0]]));
  });

  test('DUPLICATE_OUTCOME and SAME_MARKET (home and away moneyline, over and under)', () => {
    const { books, g } = game();
    declined(price(books, [g.money.outcomeIds[0], g.money.outcomeIds[0]]), 'DUPLICATE_OUTCOME');
    const d = declined(price(books, [g.money.outcomeIds[0], g.money.outcomeIds[1]]), 'SAME_MARKET');
    assert.equal(d.details.length, 2);
    const t = g.totals.get(44.5)!;
    declined(price(books, [t.outcomeIds[0], t.outcomeIds[1]]), 'SAME_MARKET');
  });

  test('CONFLICTING_LEGS: home −7.5 with away +3.5, over 50.5 with under 44.5, home ML with away +0', () => {
    const { books, g } = game();
    const home75 = g.spreads.get(-7.5)!.outcomeIds[0];
    const away35 = g.spreads.get(-3.5)!.outcomeIds[1];
    const d = declined(price(books, [home75, away35]), 'CONFLICTING_LEGS');
    assert.deepEqual(d.details.map((x) => x.outcomeId).sort(), [home75, away35].sort());
    declined(
      price(books, [g.totals.get(50.5)!.outcomeIds[0], g.totals.get(44.5)!.outcomeIds[1]]),
      'CONFLICTING_LEGS',
    );
    const pk = books.addMarket(g.event, 'SPREAD', 0, {
      bid0: { price: 450, qty: 5 },
      bid1: { price: 450, qty: 5 },
    });
    declined(price(books, [g.money.outcomeIds[0], pk.outcomeIds[1]]), 'CONFLICTING_LEGS');
    // The compatible reading — home −3.5 and away +7.5 (3.5 < M < 7.5) — prices.
    ok(price(books, [g.spreads.get(-3.5)!.outcomeIds[0], g.spreads.get(-7.5)!.outcomeIds[1]]));
  });

  test('CONFLICTING_LEGS when the asks themselves leave no room', () => {
    const books = new FakeBooks();
    const e = books.addEvent();
    // home −3.5 can be bought at 0.40 and away +7.5 at 0.55: together ≤ 1, so the books say the
    // 3.5 < M < 7.5 window has no chance at all.
    const s35 = books.addMarket(e, 'SPREAD', -3.5, {
      bid0: { price: 580, qty: 5 },
      bid1: { price: 600, qty: 5 },
    });
    const s75 = books.addMarket(e, 'SPREAD', -7.5, {
      bid0: { price: 450, qty: 5 },
      bid1: { price: 400, qty: 5 },
    });
    declined(price(books, [s35.outcomeIds[0], s75.outcomeIds[1]]), 'CONFLICTING_LEGS');
  });

  test('UNSUPPORTED_COMBINATION: uncovered markets or leagues on a shared game', () => {
    const { books, g } = game();
    for (const type of ['TEAM_TOTAL', 'TOTAL_1H', 'SPREAD_1H', 'MONEY_1H'] as const) {
      const m = books.addMarket(g.event, type, 24.5, {
        bid0: { price: 450, qty: 5 },
        bid1: { price: 450, qty: 5 },
      });
      const d = declined(price(books, [g.money.outcomeIds[0], m.outcomeIds[0]]), 'UNSUPPORTED_COMBINATION');
      assert.deepEqual(
        d.details.map((x) => x.outcomeId),
        [m.outcomeIds[0]],
      );
      // The same market alone on its game next to another game's leg is independent and prices.
      ok(price(books, [m.outcomeIds[0], single(books, null, 500).outcomeIds[0]]));
    }
    const fut = books.addEvent({ type: 'Future', league: 'NFL', game: false });
    const y1 = books.addMarket(fut, 'YES_NO', null, {
      bid0: { price: 100, qty: 5 },
      bid1: { price: 850, qty: 5 },
    });
    const y2 = books.addMarket(fut, 'YES_NO', null, {
      bid0: { price: 100, qty: 5 },
      bid1: { price: 850, qty: 5 },
    });
    declined(price(books, [y1.outcomeIds[0], y2.outcomeIds[0]]), 'UNSUPPORTED_COMBINATION');
    const ufc = books.addEvent({ league: 'UFC' });
    const u1 = books.addMarket(ufc, 'MONEY', null, {
      bid0: { price: 450, qty: 5 },
      bid1: { price: 450, qty: 5 },
    });
    const u2 = books.addMarket(ufc, 'TOTAL', 2.5, {
      bid0: { price: 450, qty: 5 },
      bid1: { price: 450, qty: 5 },
    });
    declined(price(books, [u1.outcomeIds[0], u2.outcomeIds[0]]), 'UNSUPPORTED_COMBINATION');
  });

  test('structural problems are reported before the books are read', () => {
    const { books, g } = game();
    books.setBid(g.money.outcomeIds[1], null);
    books.bestBidCalls = 0;
    declined(price(books, [g.money.outcomeIds[0], g.money.outcomeIds[1]]), 'SAME_MARKET');
    assert.equal(books.bestBidCalls, 0);
  });
});
