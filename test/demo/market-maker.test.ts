import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_QUOTE,
  DEPOSITS,
  demoAccounts,
  fundDemoAccounts,
  ladderCost,
  quoteLadder,
  quoteMarket,
  quoteSlate,
} from '../../src/demo/market-maker.ts';
import { buildDemoSlate } from '../../src/demo/slate.ts';
import { isTick, ONE } from '../../src/exchange/ticks.ts';
import { TRADABLE_EVENT_STATUSES } from '../../src/exchange/types.ts';
import { uuidFor } from '../../src/ids.ts';

describe('market-maker quotes', () => {
  test('ladders are on the tick table, two-sided, several levels deep and never crossed', () => {
    for (let f = 0; f <= 1; f += 0.0005) {
      for (const levels of [3, 5]) {
        const [b0, b1] = quoteLadder(f, { ...DEFAULT_QUOTE, levels });
        assert.equal(b0.length, levels, `fair ${f}`);
        assert.equal(b1.length, levels, `fair ${f}`);
        for (const t of [...b0, ...b1]) assert.ok(isTick(t), `${t} not a tick`);
        for (let i = 1; i < levels; i++) {
          assert.ok(b0[i]! < b0[i - 1]! && b1[i]! < b1[i - 1]!, 'best first, strictly descending');
        }
        assert.ok(b0[0]! + b1[0]! < ONE, `crossed at fair ${f}: ${b0[0]} + ${b1[0]}`);
        // centred on the fair price: the fair tick lies between bid0 and 1 − bid1
        const fair = Math.round(f * ONE);
        if (fair >= 30 && fair <= 970) assert.ok(b0[0]! < fair && ONE - b1[0]! > fair);
      }
    }
  });

  test('quoteMarket bids both outcomes in CASH and COIN with different sizes and deterministic ids', () => {
    const market = { marketId: uuidFor('m'), outcomeIds: [uuidFor('o0'), uuidFor('o1')] as [string, string] };
    const opts = { seed: 's', round: 7, accountId: uuidFor('mm') };
    const cmds = quoteMarket(market, 0.62, opts);
    assert.deepEqual(cmds, quoteMarket(market, 0.62, opts));
    assert.equal(cmds.length, 2 * 2 * DEFAULT_QUOTE.levels);
    const orders = cmds.map((c) => {
      assert.equal(c.type, 'PlaceOrder');
      return c as Extract<typeof c, { type: 'PlaceOrder' }>;
    });
    assert.equal(new Set(orders.map((o) => o.orderId)).size, orders.length);
    for (const cur of ['CASH', 'COIN'] as const) {
      for (const side of [0, 1]) {
        assert.equal(
          orders.filter((o) => o.currency === cur && o.outcomeId === market.outcomeIds[side]).length,
          DEFAULT_QUOTE.levels,
        );
      }
    }
    const cash = orders.filter((o) => o.currency === 'CASH').map((o) => o.qty);
    const coin = orders.filter((o) => o.currency === 'COIN').map((o) => o.qty);
    assert.ok(cash.every((q) => Number.isInteger(q) && q % 100 === 0 && q > 0));
    assert.ok(coin.every((q) => Number.isInteger(q) && q > 0));
    assert.notDeepEqual(cash, coin);
    assert.ok(orders.every((o) => o.tif === 'GTC' && o.accountId === opts.accountId));
    // another round mints other ids
    const next = quoteMarket(market, 0.62, { ...opts, round: 8 });
    assert.ok(next.every((c, i) => c.type === 'PlaceOrder' && c.orderId !== orders[i]!.orderId));
  });

  test('the slate is quoted on every market of every tradable event, within the deposits', () => {
    const seed = 'mm-test';
    const slate = buildDemoSlate({ seed, now: Date.UTC(2026, 10, 21, 17, 0) });
    const cmds = quoteSlate(slate, seed);
    const acc = demoAccounts(seed);
    assert.deepEqual(cmds.slice(0, fundDemoAccounts(seed).length), fundDemoAccounts(seed));
    const quoted = new Set(cmds.flatMap((c) => (c.type === 'PlaceOrder' ? [c.outcomeId] : [])));
    let cost = { CASH: 0, COIN: 0 };
    for (const g of slate.games) {
      const tradable = TRADABLE_EVENT_STATUSES.includes(g.status);
      for (const m of g.markets) {
        assert.equal(
          quoted.has(m.outcomeIds[0]) && quoted.has(m.outcomeIds[1]),
          tradable,
          `${g.status} ${m.marketId}`,
        );
        if (tradable) {
          const c = ladderCost(m.fair, seed, m.marketId);
          cost = { CASH: cost.CASH + c.CASH, COIN: cost.COIN + c.COIN };
        }
      }
    }
    assert.ok(cost.CASH < DEPOSITS.marketMaker.CASH / 10 && cost.COIN < DEPOSITS.marketMaker.COIN / 10);
    assert.ok(cmds.every((c) => c.type !== 'PlaceOrder' || c.accountId === acc.marketMaker));
    assert.ok(Number.isSafeInteger(DEPOSITS.marketMaker.CASH));
  });
});
