// A small in-memory stand-in for the parts of ExchangeReader the pricer calls (outcome, market,
// event, bestBid, locks), so pricing tests can set up any book state directly. The real Exchange is
// exercised in exchange-integration.test.ts.

import { randomUUID } from 'node:crypto';
import type { ExchangeReader } from '../../src/exchange/reader.ts';
import { TICKS } from '../../src/exchange/ticks.ts';
import type {
  Currency,
  EventRecord,
  EventStatus,
  EventType,
  Game,
  MarketRecord,
  MarketStatus,
  MarketType,
  OutcomeRecord,
  TradingLock,
} from '../../src/exchange/types.ts';
import { normCdf } from '../../src/pricing/normal.ts';
import type { PricingReader } from '../../src/pricing/parlay.ts';

export interface Bid {
  price: number; // tick
  qty: number;
}

export class FakeBooks implements PricingReader {
  readonly outcomes = new Map<string, OutcomeRecord>();
  readonly markets = new Map<string, MarketRecord>();
  readonly events = new Map<string, EventRecord>();
  readonly games = new Map<string, Game>();
  readonly bids = new Map<string, Bid>();
  lockState: { system: TradingLock | null; events: TradingLock[] } = { system: null, events: [] };
  bestBidCalls = 0;

  outcome(id: string) {
    return this.outcomes.get(id);
  }
  market(id: string) {
    return this.markets.get(id);
  }
  event(id: string) {
    return this.events.get(id);
  }
  /** The route writes each leg's market with its event and game (wire/catalog.ts); no teams here. */
  game(id: string) {
    return this.games.get(id);
  }
  team(_id: string) {
    return undefined;
  }
  bestBid(outcomeId: string, currency: Currency) {
    this.bestBidCalls++;
    return this.bids.get(`${currency}:${outcomeId}`) ?? null;
  }
  locks() {
    return this.lockState;
  }

  /** The route takes a full ExchangeReader; it only ever calls the methods above. */
  asReader(): ExchangeReader {
    return this as unknown as ExchangeReader;
  }

  addEvent(
    opts: {
      league?: string;
      status?: EventStatus;
      type?: EventType;
      game?: boolean;
      description?: string;
    } = {},
  ): EventRecord {
    const id = randomUUID();
    const e: EventRecord = {
      id,
      type: opts.type ?? 'Game',
      status: opts.status ?? 'OPEN_PREGAME',
      description: opts.description ?? 'Kansas City Chiefs @ Buffalo Bills',
      league: opts.league ?? 'NFL',
      scheduledStart: 1_800_000_000_000,
      gameId: opts.game === false ? null : randomUUID(),
      marketIds: [],
      pregameVisible: true,
      liveVisible: true,
      createdAt: 0,
      updatedAt: 0,
    };
    this.events.set(id, e);
    if (e.gameId !== null) {
      this.games.set(e.gameId, {
        id: e.gameId,
        league: e.league,
        status: 'SCHEDULED',
        scheduledStart: e.scheduledStart,
        homeTeamId: randomUUID(),
        awayTeamId: randomUUID(),
        homeScore: null,
        awayScore: null,
      });
    }
    return e;
  }

  addMarket(
    event: EventRecord,
    type: MarketType,
    strike: number | null,
    bids: { bid0?: Bid | null; bid1?: Bid | null; currency?: Currency } = {},
    status: MarketStatus = 'OPEN',
  ): MarketRecord {
    const id = randomUUID();
    const o0 = randomUUID();
    const o1 = randomUUID();
    const m: MarketRecord = {
      id,
      eventId: event.id,
      type,
      strike,
      description: `${type} ${strike ?? ''}`.trim(),
      status,
      outcomeIds: [o0, o1],
      volume: { CASH: 0, COIN: 0 },
      settledAt: null,
      result: null,
    };
    this.markets.set(id, m);
    event.marketIds.push(id);
    const desc = (i: 0 | 1) =>
      type === 'TOTAL'
        ? `${i === 0 ? 'Over' : 'Under'} ${strike}`
        : `${i === 0 ? 'BUF' : 'KC'} ${type} ${strike ?? ''}`;
    for (const [i, oid] of [o0, o1].entries()) {
      this.outcomes.set(oid, {
        id: oid,
        marketId: id,
        index: i as 0 | 1,
        description: desc(i as 0 | 1),
        status: 'TBD',
        last: { CASH: null, COIN: null },
        competitorTeamId: null,
      });
    }
    const cur = bids.currency ?? 'CASH';
    if (bids.bid0) this.setBid(o0, bids.bid0, cur);
    if (bids.bid1) this.setBid(o1, bids.bid1, cur);
    return m;
  }

  setBid(outcomeId: string, bid: Bid | null, currency: Currency = 'CASH'): void {
    if (bid === null) this.bids.delete(`${currency}:${outcomeId}`);
    else this.bids.set(`${currency}:${outcomeId}`, bid);
  }
}

/** The largest tick of the table at or below p·1000 (a bid that does not overpay). */
export function tickAtOrBelow(p: number): number {
  const t = Math.floor(p * 1000 + 1e-9);
  let best = TICKS[0]!;
  for (const x of TICKS) if (x <= t) best = x;
  return best;
}

export interface ModelGame {
  event: EventRecord;
  money: MarketRecord;
  spreads: Map<number, MarketRecord>;
  totals: Map<number, MarketRecord>;
}

/**
 * A game whose books are quoted around a known normal model: for each market the fair probability
 * of outcome 0 is Φ((μ − line)/σ), and both outcomes are bid `halfSpread` below their fair price.
 */
export function modelGame(
  books: FakeBooks,
  opts: {
    league?: string;
    muM: number;
    muT: number;
    sdM: number;
    sdT: number;
    spreads?: number[];
    totals?: number[];
    halfSpread?: number;
    qty?: number;
  },
): ModelGame {
  const event = books.addEvent({ league: opts.league ?? 'NFL' });
  const h = opts.halfSpread ?? 0.01;
  const qty = opts.qty ?? 1000;
  const quote = (p0: number) => ({
    bid0: { price: tickAtOrBelow(p0 - h), qty },
    bid1: { price: tickAtOrBelow(1 - p0 - h), qty },
  });
  const money = books.addMarket(event, 'MONEY', null, quote(normCdf(opts.muM / opts.sdM)));
  const spreads = new Map<number, MarketRecord>();
  for (const s of opts.spreads ?? [-3.5, -7.5, 3.5]) {
    spreads.set(s, books.addMarket(event, 'SPREAD', s, quote(normCdf((opts.muM + s) / opts.sdM))));
  }
  const totals = new Map<number, MarketRecord>();
  for (const t of opts.totals ?? [44.5, 47.5, 50.5]) {
    totals.set(t, books.addMarket(event, 'TOTAL', t, quote(normCdf((opts.muT - t) / opts.sdT))));
  }
  return { event, money, spreads, totals };
}

/** Ask (probability) of an outcome in these books: 1 − best bid on the other outcome. */
export function askOf(books: FakeBooks, outcomeId: string, currency: Currency = 'CASH'): number {
  const o = books.outcome(outcomeId)!;
  const m = books.market(o.marketId)!;
  const other = books.bestBid(m.outcomeIds[o.index === 0 ? 1 : 0], currency)!;
  return (1000 - other.price) / 1000;
}
