// Demo liquidity: one market-maker account rests bids on BOTH outcomes of every
// open market of a tradable event, in CASH and in COIN (different sizes), several levels deep
// around the fair price, so every book is two-sided and never crossed.
//
// Crossing is impossible by construction: with fair price F (ticks of outcome 0), the best bid on
// outcome 0 is at most F − h and the best bid on outcome 1 at most (1000 − F) − h, so their sum is
// at most 1000 − 2h < 1000 (docs/exchange.md "Books and matching": bids cross when p + q ≥ 1). Prices come from the shared
// tick table (src/exchange/ticks.ts). Orders are GTC; the ids derive from (seed, round, market,
// currency, outcome, level), so a quoting round is reproducible.

import { rngFor } from '../catalog/rng.ts';
import type { CommandInput } from '../catalog/types.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import { ONE, TICK_INDEX, TICKS } from '../exchange/ticks.ts';
import {
  CURRENCIES,
  type Currency,
  type Id,
  type Money,
  type Qty,
  type Tick,
  TRADABLE_EVENT_STATUSES,
} from '../exchange/types.ts';
import { bidCost, MONEY_PER_UNIT } from '../exchange/units.ts';
import { uuidFor } from '../ids.ts';
import type { DemoSlate } from './slate.ts';

export interface DemoAccounts {
  /** Rests the quotes. */
  marketMaker: Id;
  /** Takes liquidity now and then in the living demo, so fills and volume appear. */
  trader: Id;
  /**
   * The house quote's maker on a demo install without PARLAY_HOUSE_ACCOUNT (runtime house-quote.ts),
   * apart from the market maker, which answers parlay requests at its own prices (parlay-maker.ts).
   */
  house: Id;
}

export function demoAccounts(seed: string | number): DemoAccounts {
  return {
    marketMaker: uuidFor(String(seed), 'account', 'market-maker'),
    trader: uuidFor(String(seed), 'account', 'demo-trader'),
    house: uuidFor(String(seed), 'account', 'parlay-house'),
  };
}

/**
 * A demo install without an operator-named parlay house: the demo's house account (funded by the
 * slate) is the house, so a parlay can always be filled in the sandbox (docs/parlays.md). The
 * composition root applies it; the runtime only reads the account it is given.
 */
export function withDemoHouse<
  C extends { demo: boolean; demoSeed: number; parlayHouseAccount: string | undefined },
>(config: C): C {
  if (!config.demo || config.parlayHouseAccount !== undefined) return config;
  return { ...config, parlayHouseAccount: demoAccounts(config.demoSeed).house };
}

/**
 * Deposits, Money (1e-5 unit): 100 million Cash and 100 million Coin for the market maker — a full
 * slate's ladders reserve about 1–3 million of each — and 10 million of each for the trader and the
 * parlay house.
 */
export const DEPOSITS: Record<keyof DemoAccounts, Record<Currency, Money>> = {
  marketMaker: { CASH: 100_000_000 * MONEY_PER_UNIT, COIN: 100_000_000 * MONEY_PER_UNIT },
  trader: { CASH: 10_000_000 * MONEY_PER_UNIT, COIN: 10_000_000 * MONEY_PER_UNIT },
  house: { CASH: 10_000_000 * MONEY_PER_UNIT, COIN: 10_000_000 * MONEY_PER_UNIT },
};

/** CreateAccount and Deposit commands for the demo accounts. */
export function fundDemoAccounts(seed: string | number): CommandInput[] {
  const acc = demoAccounts(seed);
  const out: CommandInput[] = [];
  for (const who of ['marketMaker', 'trader', 'house'] as const) {
    out.push({ type: 'CreateAccount', accountId: acc[who] });
    for (const currency of CURRENCIES) {
      out.push({ type: 'Deposit', accountId: acc[who], currency, amount: DEPOSITS[who][currency] });
    }
  }
  return out;
}

export interface QuoteConfig {
  /** Levels per outcome and currency. */
  levels: number;
  /** Distance in ticks between the fair price and the best bid on each side (≥ 1). */
  halfSpread: number;
  /** Base payout per level, MCU (CASH: 100 MCU = 1.00 Cash; COIN: 1 MCU = 1 Coin). */
  sizes: Record<Currency, readonly Qty[]>;
}

export const DEFAULT_QUOTE: QuoteConfig = {
  levels: 3,
  halfSpread: 8,
  sizes: { CASH: [5_000, 10_000, 20_000, 30_000, 40_000], COIN: [100, 250, 500, 750, 1_000] },
};

/** Quotes never centre closer than this to 0 or 1000 ticks, so both sides keep room for their levels. */
const EDGE: Tick = 30;

/** Largest tick ≤ x, or null below the table. */
export function tickAtOrBelow(x: number): Tick | null {
  let t = Math.floor(x);
  if (t >= ONE) t = ONE - 1;
  for (; t >= 1; t--) if (TICK_INDEX[t]! >= 0) return t;
  return null;
}

/** Fair probability of outcome 0 as a whole tick, kept EDGE away from the ends. */
export function fairTick(fair: number): Tick {
  const f = Number.isFinite(fair) ? Math.round(fair * ONE) : ONE / 2;
  return Math.min(ONE - EDGE, Math.max(EDGE, f));
}

/** Bid prices per outcome, best first: `levels` consecutive ticks from (side's fair − halfSpread) down. */
export function quoteLadder(fair: number, cfg: QuoteConfig = DEFAULT_QUOTE): [Tick[], Tick[]] {
  const f = fairTick(fair);
  const side = (center: number): Tick[] => {
    const top = tickAtOrBelow(center - Math.max(1, cfg.halfSpread));
    if (top === null) return [];
    const out: Tick[] = [];
    for (let i = TICK_INDEX[top]!; i >= 0 && out.length < cfg.levels; i--) out.push(TICKS[i]!);
    return out;
  };
  return [side(f), side(ONE - f)];
}

/** Sizes per level for a market and currency: the base sizes with a stable per-market jitter (×0.8–1.25). */
export function quoteSizes(
  seed: string | number,
  marketId: Id,
  currency: Currency,
  cfg: QuoteConfig = DEFAULT_QUOTE,
): Qty[] {
  let bySeed = sizeCache.get(cfg);
  if (!bySeed) {
    bySeed = new Map();
    sizeCache.set(cfg, bySeed);
  }
  const seedKey = String(seed);
  let byMarket = bySeed.get(seedKey);
  if (!byMarket) {
    byMarket = new Map();
    bySeed.set(seedKey, byMarket);
  }
  let hit = byMarket.get(marketId);
  if (!hit) {
    if (byMarket.size > 200_000) byMarket.clear();
    hit = {
      CASH: computeSizes(seedKey, marketId, 'CASH', cfg),
      COIN: computeSizes(seedKey, marketId, 'COIN', cfg),
    };
    byMarket.set(marketId, hit);
  }
  return hit[currency];
}

/**
 * Sizes are a pure function of (config, seed, market, currency); the cache saves a SHA-256 per
 * lookup. Keyed by nested maps, not a concatenated string, so a lookup hashes no fresh string.
 */
const sizeCache = new WeakMap<QuoteConfig, Map<string, Map<Id, Record<Currency, Qty[]>>>>();

function computeSizes(seed: string | number, marketId: Id, currency: Currency, cfg: QuoteConfig): Qty[] {
  const rng = rngFor(String(seed), 'mm-size', marketId, currency);
  const base = cfg.sizes[currency];
  const out: Qty[] = [];
  for (let level = 0; level < cfg.levels; level++) {
    const b = base[Math.min(level, base.length - 1)]!;
    const q = b * (0.8 + 0.45 * rng());
    out.push(currency === 'CASH' ? Math.max(100, Math.round(q / 100) * 100) : Math.max(1, Math.round(q)));
  }
  return out;
}

export interface QuoteOptions {
  seed: string | number;
  /** Quoting round: part of every order id, so successive rounds never reuse one. */
  round: number | string;
  accountId: Id;
  config?: QuoteConfig;
}

interface QuotedMarket {
  marketId: Id;
  outcomeIds: readonly [Id, Id] | readonly Id[];
}

/** PlaceOrder commands for a full two-sided ladder on one market in both currencies. */
export function quoteMarket(market: QuotedMarket, fair: number, opts: QuoteOptions): CommandInput[] {
  const cfg = opts.config ?? DEFAULT_QUOTE;
  const seed = String(opts.seed);
  const ladders = quoteLadder(fair, cfg);
  const out: CommandInput[] = [];
  for (const currency of CURRENCIES) {
    const sizes = quoteSizes(seed, market.marketId, currency, cfg);
    for (const side of [0, 1] as const) {
      ladders[side].forEach((price, level) => {
        out.push({
          type: 'PlaceOrder',
          orderId: uuidFor(seed, 'mm', opts.round, market.marketId, currency, side, level),
          accountId: opts.accountId,
          outcomeId: market.outcomeIds[side]!,
          currency,
          price,
          qty: sizes[level]!,
          tif: 'GTC',
        });
      });
    }
  }
  return out;
}

/** Collateral a market's ladder reserves, Money per currency (for sizing deposits and tests). */
export function ladderCost(
  fair: number,
  seed: string | number,
  marketId: Id,
  cfg: QuoteConfig = DEFAULT_QUOTE,
): Record<Currency, Money> {
  const ladders = quoteLadder(fair, cfg);
  const out = { CASH: 0, COIN: 0 } as Record<Currency, Money>;
  for (const currency of CURRENCIES) {
    const sizes = quoteSizes(seed, marketId, currency, cfg);
    for (const side of [0, 1] as const) {
      ladders[side].forEach((p, level) => {
        out[currency] += bidCost(p, sizes[level]!, currency);
      });
    }
  }
  return out;
}

/** True when orders may rest on the market now: market OPEN, event tradable, no lock. */
export function isQuotable(
  reader: ExchangeReader,
  marketId: Id,
  locks: ReturnType<ExchangeReader['locks']> = reader.locks(),
): boolean {
  const m = reader.market(marketId);
  if (m?.status !== 'OPEN') return false;
  const e = reader.event(m.eventId);
  if (!e || !TRADABLE_EVENT_STATUSES.includes(e.status)) return false;
  if (locks.system) return false;
  return !locks.events.some((l) => l.eventId === e.id);
}

/**
 * Re-quote around new fair prices: for each market that is quotable and whose resting ladder is
 * not already the intended one (new market, a level was hit, the fair price moved), cancel the
 * market maker's orders there and place a fresh ladder. Markets already quoted right are left
 * alone, so a quiet book keeps its time priority and the journal is not flooded.
 *
 * `verified` (optional, kept by the caller across rounds) remembers, per market, the ladder last
 * found resting together with the books' sequence numbers at that time: while neither moved the
 * market is skipped without reading its orders, which keeps a round over thousands of markets cheap.
 */
export function requote(
  reader: ExchangeReader,
  fairByMarket: ReadonlyMap<Id, number>,
  round: number | string,
  opts: Omit<QuoteOptions, 'round'>,
  verified?: Map<Id, string>,
): CommandInput[] {
  const cfg = opts.config ?? DEFAULT_QUOTE;
  const out: CommandInput[] = [];
  const locks = reader.locks();
  for (const [marketId, fair] of fairByMarket) {
    if (!isQuotable(reader, marketId, locks)) continue;
    const m = reader.market(marketId)!;
    // The ladder is a function of the fair tick alone (sizes are fixed per market).
    const sig = `${fairTick(fair)}@${reader.bookSeq(marketId, 'CASH')}:${reader.bookSeq(marketId, 'COIN')}`;
    if (verified?.get(marketId) === sig) continue;
    const ladders = quoteLadder(fair, cfg);
    const sizes = {
      CASH: quoteSizes(opts.seed, marketId, 'CASH', cfg),
      COIN: quoteSizes(opts.seed, marketId, 'COIN', cfg),
    };
    const mine: Id[] = [];
    let matches = true;
    for (const currency of CURRENCIES) {
      for (const side of [0, 1] as const) {
        const resting = reader
          .restingOrders(m.outcomeIds[side], currency)
          .filter((o) => o.accountId === opts.accountId);
        for (const o of resting) mine.push(o.id);
        const want = ladders[side];
        if (
          resting.length !== want.length ||
          resting.some(
            (o, i) => o.price !== want[i] || o.qty !== sizes[currency][i] || o.qty !== o.originalQty,
          )
        ) {
          matches = false;
        }
      }
    }
    if (matches) {
      verified?.set(marketId, sig);
      continue;
    }
    verified?.delete(marketId);
    // Naming the orders keeps the cancel O(orders named) in the engine rather than O(account's orders).
    if (mine.length > 0) {
      out.push({
        type: 'CancelOrders',
        accountId: opts.accountId,
        scope: 'market',
        scopeId: marketId,
        orderIds: mine,
      });
    }
    out.push(...quoteMarket({ marketId, outcomeIds: m.outcomeIds }, fair, { ...opts, round }));
  }
  return out;
}

/**
 * The initial demo liquidity for a freshly built slate: fund the demo accounts, then quote every
 * market of every tradable event (OPEN_PREGAME, OPEN_INGAME) at its fair price. Apply after the
 * slate's commands.
 */
export function quoteSlate(
  slate: DemoSlate,
  seed: string | number,
  config: QuoteConfig = DEFAULT_QUOTE,
): CommandInput[] {
  const acc = demoAccounts(seed);
  const out = fundDemoAccounts(seed);
  for (const g of slate.games) {
    if (!TRADABLE_EVENT_STATUSES.includes(g.status)) continue;
    for (const m of g.markets) {
      out.push(...quoteMarket(m, m.fair, { seed, round: 0, accountId: acc.marketMaker, config }));
    }
  }
  return out;
}
