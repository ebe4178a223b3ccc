// Parlay pricing (docs/http.md "Parlay price", docs/pricing.md): a pure function of the exchange's read API, the
// requested outcomes and the pricing parameters. No clock, no ids, no HTTP: the route adds those.
//
// The price, step by step (docs/pricing.md has the derivation and the reasons):
// 1. Leg price (ask) a_i = 1 − best bid on the other outcome of the leg's market, in the requested
//    currency; mid m_i = (best bid on the leg's outcome + a_i)/2, or a_i when that side is empty.
//    maxQty = smallest size resting at those best bids.
// 2. Legs are grouped by game (event.gameId, else the event). Groups are independent: the parlay is
//    the product of the group values, and a group of one leg is worth exactly its price.
// 3. A group of several legs is priced with the same-game model: home margin M and total T are a
//    bivariate normal with the league's σ_M, σ_T and a correlation ρ that follows the favourite
//    fitted from the game's books (fit.ts, league-models.ts). Each leg is a half-line on M or T
//    (half-lines.ts). The model places each leg's line where its probability equals the leg's
//    price, i.e. at the standardized line z_i = Φ⁻¹(1 − a_i) for "V > line" and Φ⁻¹(a_i) for
//    "V < line" (a Gaussian copula with the books' own marginals); the group's value is the
//    bivariate normal rectangle those lines cut out (bivariate-normal.ts). Computed from the mids
//    this is the fair joint price; from the asks it is the fair price shaded by the legs' spreads.
// 4. price = shaded × (1 + margin), rounded half-up to 5 decimals and held inside [0.00001, 0.99999].
//
// Consequences the tests check: legs on different games multiply exactly; a group of one leg is
// its ask; adding a leg never raises the price (it only narrows a rectangle or multiplies by a
// price ≤ 1); a moneyline with the same side's spread is worth the tighter of the two, above the
// independent product; legs whose half-lines cannot all hold are declined before any book is read.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { Currency, EventRecord, MarketRecord, OutcomeRecord } from '../exchange/types.ts';
import { isUuid } from '../ids.ts';
import { bvnRectangle } from './bivariate-normal.ts';
import { type DeclineDetail, declineDetail, type ParlayDeclineCode } from './declines.ts';
import { fitGameCached, type GameFit } from './fit.ts';
import { type HalfLine, halfLineOf, intersect } from './half-lines.ts';
import type { LeagueModel, PricingParams } from './league-models.ts';
import { normCdf, Z_OF_HALF_TICK } from './normal.ts';
import { americanOdds, decimalOdds, formatPriceSteps, toPriceSteps } from './odds.ts';

/** The part of the exchange's read API the pricer uses. */
export type PricingReader = Pick<ExchangeReader, 'outcome' | 'market' | 'event' | 'bestBid' | 'locks'> &
  Partial<Pick<ExchangeReader, 'lastSeq'>>;

export interface ParlayRequest {
  /** Outcome ids in request order (any strings; malformed ones decline as INVALID_OUTCOME_ID). */
  outcomeIds: readonly string[];
  currency: Currency;
}

export interface QuotedLeg {
  outcomeId: string;
  outcome: OutcomeRecord;
  market: MarketRecord;
  event: EventRecord;
  /** Cost to buy the outcome now (1 − best bid on the other outcome), probability. */
  price: number;
  /** That price as its 5-decimal wire string. */
  priceText: string;
  /** Mid price used for the fair value. */
  mid: number;
  /** Price and mid in half ticks (1/2000), the exact integers the model looks z-scores up by. */
  priceHalfTicks: number;
  midHalfTicks: number;
  /** Payout (MCU) resting at the best bid on the other outcome. */
  depth: number;
}

/** How one game's legs were priced (diagnostics, tests, docs). */
export interface GroupQuote {
  key: string;
  outcomeIds: string[];
  /** Fair and spread-shaded value of the group, probability. */
  fair: number;
  shaded: number;
  /** Present for same-game groups of two or more legs. */
  model?: { league: string; sdMargin: number; sdTotal: number; rho: number; fit: GameFit };
}

export interface ParlayQuote {
  currency: Currency;
  legs: QuotedLeg[];
  groups: GroupQuote[];
  /** Fair joint price (from mids). */
  fair: number;
  /** Joint price from the legs' asks, before the house margin. */
  shaded: number;
  /** The offered price, rounded to 5 decimals, in (0, 1). */
  price: number;
  priceText: string;
  maxQty: number;
  decimalOdds: number;
  americanOdds: number;
}

export interface ParlayDecline {
  /** The first detail's code (or the request-level code). */
  code: ParlayDeclineCode;
  details: DeclineDetail[];
}

export type ParlayResult = { ok: true; quote: ParlayQuote } | { ok: false; decline: ParlayDecline };

/** Leg prices are whole ticks: their 5-decimal strings, precomputed. */
const TICK_TEXT: string[] = Array.from({ length: 1001 }, (_, t) => formatPriceSteps(Math.max(1, t) * 100));

interface Leg {
  outcomeId: string;
  outcome: OutcomeRecord;
  market: MarketRecord;
  event: EventRecord;
  /** Game id, or the event id for game-less events: legs with one key are priced together. */
  groupKey: string;
  /** Index into the request's groups (first appearance order). */
  group: number;
  halfLine: HalfLine | null;
  quote: QuotedLeg | null;
}

/** Every caller passes at least one detail (a non-empty `problems`), so `details[0]` exists. */
function decline(details: DeclineDetail[]): ParlayResult {
  return { ok: false, decline: { code: details[0]!.code, details } };
}

// Imported hot-path helpers, bound once: under the tsx loader every access to an imported binding
// goes through a getter, which showed up in profiles of bench/parlay.ts.
const Z = Z_OF_HALF_TICK;
const rectangle = bvnRectangle;
const lineOf = halfLineOf;

/** Prices a parlay or says why it cannot. Pure: same reader state and request, same answer. */
export function priceParlay(reader: PricingReader, req: ParlayRequest, params: PricingParams): ParlayResult {
  const ids = req.outcomeIds;
  const n = ids.length;
  if (n < 2) return decline([declineDetail(null, 'TOO_FEW_LEGS')]);
  if (n > params.maxLegs) {
    return decline([
      declineDetail(null, 'TOO_MANY_LEGS', `A parlay may hold at most ${params.maxLegs} legs`),
    ]);
  }

  // Stage 1: each leg on its own — identity and trading status.
  const problems: DeclineDetail[] = [];
  const legs: Leg[] = [];
  const locks = reader.locks();
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    if (typeof id !== 'string' || !isUuid(id)) {
      problems.push(declineDetail(typeof id === 'string' ? id : null, 'INVALID_OUTCOME_ID'));
      continue;
    }
    const outcome = reader.outcome(id);
    const market = outcome && reader.market(outcome.marketId);
    const event = market && reader.event(market.eventId);
    if (!outcome || !market || !event) {
      problems.push(declineDetail(id, 'OUTCOME_NOT_FOUND'));
      continue;
    }
    if (market.status !== 'OPEN') {
      problems.push(declineDetail(id, 'MARKET_NOT_OPEN'));
      continue;
    }
    // TRADABLE_EVENT_STATUSES (types.ts), spelled out on this hot path.
    if (event.status !== 'OPEN_PREGAME' && event.status !== 'OPEN_INGAME') {
      problems.push(declineDetail(id, 'EVENT_NOT_TRADABLE'));
      continue;
    }
    // A locked event cannot be hedged on the exchange, so it cannot be offered either.
    if (
      locks.system !== null ||
      (locks.events.length > 0 && locks.events.some((l) => l.eventId === event.id))
    ) {
      problems.push(declineDetail(id, 'EVENT_NOT_TRADABLE', 'Trading is locked'));
      continue;
    }
    legs.push({
      outcomeId: id,
      outcome,
      market,
      event,
      groupKey: event.gameId ?? event.id,
      group: -1,
      halfLine: lineOf(market, outcome.index),
      quote: null,
    });
  }
  if (problems.length > 0) return decline(problems);

  // Stage 2: pairs — the same outcome twice, both outcomes of one market. At most a dozen legs, so
  // plain scans beat building sets. Stage 1 returned on any problem, so legs.length === n and the
  // index assertions in this and later stages are type-only (this is the hot path).
  for (let i = 0; i < n; i++) {
    const leg = legs[i]!;
    for (let j = 0; j < i; j++) {
      const other = legs[j]!;
      if (other.outcomeId === leg.outcomeId) {
        problems.push(declineDetail(leg.outcomeId, 'DUPLICATE_OUTCOME'));
        break;
      }
      if (other.market.id === leg.market.id) {
        if (!problems.some((p) => p.outcomeId === other.outcomeId && p.code === 'SAME_MARKET')) {
          problems.push(declineDetail(other.outcomeId, 'SAME_MARKET'));
        }
        problems.push(declineDetail(leg.outcomeId, 'SAME_MARKET'));
        break;
      }
    }
  }
  if (problems.length > 0) return decline(problems);

  // Group legs by game, in order of first appearance.
  const groupFirst: number[] = []; // leg index of each group's first leg
  const groupSize: number[] = [];
  for (let i = 0; i < n; i++) {
    const leg = legs[i]!;
    let g = 0;
    while (g < groupFirst.length && legs[groupFirst[g]!]!.groupKey !== leg.groupKey) g++;
    if (g === groupFirst.length) {
      groupFirst.push(i);
      groupSize.push(0);
    }
    leg.group = g;
    groupSize[g]!++; // g < groupFirst.length === groupSize.length
  }
  const groupCount = groupFirst.length;

  // Stage 3: groups of legs on one game must be covered by the model.
  for (const leg of legs) {
    if (groupSize[leg.group]! < 2) continue;
    const league = leg.event.league;
    if (!params.leagues[league]) {
      problems.push(
        declineDetail(leg.outcomeId, 'UNSUPPORTED_COMBINATION', `No same-game model for league ${league}`),
      );
    } else if (leg.halfLine === null) {
      problems.push(
        declineDetail(
          leg.outcomeId,
          'UNSUPPORTED_COMBINATION',
          `${leg.market.type} markets cannot be combined with other legs on the same game`,
        ),
      );
    }
  }
  if (problems.length > 0) return decline(problems);

  // Stage 4: half-lines of one game that leave an empty region.
  for (let g = 0; g < groupCount; g++) {
    if (groupSize[g]! < 2) continue;
    const lines: HalfLine[] = [];
    for (const leg of legs) if (leg.group === g) lines.push(leg.halfLine!);
    for (const v of VARIABLES) {
      const { lo, hi } = intersect(lines, v);
      if (lo < hi) continue;
      for (const leg of legs) {
        if (leg.group === g && leg.halfLine!.variable === v) {
          problems.push(
            declineDetail(
              leg.outcomeId,
              'CONFLICTING_LEGS',
              v === 'M' ? 'These margins cannot all happen' : 'These totals cannot all happen',
            ),
          );
        }
      }
    }
  }
  if (problems.length > 0) return decline(problems);

  // Stage 5: the books — every leg needs someone to sell it.
  let maxQty = Number.POSITIVE_INFINITY;
  for (const leg of legs) {
    const otherId = leg.market.outcomeIds[leg.outcome.index === 0 ? 1 : 0];
    const other = reader.bestBid(otherId, req.currency);
    if (!other || other.qty <= 0) {
      problems.push(declineDetail(leg.outcomeId, 'NO_LIQUIDITY'));
      continue;
    }
    const askTick = 1000 - other.price;
    const own = reader.bestBid(leg.outcomeId, req.currency);
    const midHalfTicks = own && own.price < askTick ? own.price + askTick : 2 * askTick;
    leg.quote = {
      outcomeId: leg.outcomeId,
      outcome: leg.outcome,
      market: leg.market,
      event: leg.event,
      price: askTick / 1000,
      priceText: TICK_TEXT[askTick]!, // askTick = 1000 − a book price, in [1, 999]
      mid: midHalfTicks / 2000,
      priceHalfTicks: 2 * askTick,
      midHalfTicks,
      depth: other.qty,
    };
    if (other.qty < maxQty) maxQty = other.qty;
  }
  if (problems.length > 0) return decline(problems);

  // Stage 6: value each group and multiply.
  let fair = 1;
  let shaded = 1;
  const groupQuotes: GroupQuote[] = [];
  for (let g = 0; g < groupCount; g++) {
    const first = legs[groupFirst[g]!]!;
    if (groupSize[g]! === 1) {
      const q = first.quote!;
      fair *= q.mid;
      shaded *= q.price;
      groupQuotes.push({ key: first.groupKey, outcomeIds: [q.outcomeId], fair: q.mid, shaded: q.price });
      continue;
    }
    const event = first.event;
    // Stage 3 declined every group of two or more legs whose league has no model.
    const model = params.leagues[event.league]!;
    const fit = fitGameCached(reader, event, req.currency, model.sdMargin, model.sdTotal);
    const rho = gameCorrelation(model, fit);
    const s = copulaRectangle(legs, g, rho, true);
    if (s === 0) {
      // The asks themselves say these legs exclude each other (e.g. home −3.5 and away +7.5 priced
      // so that their asks add up to 1 or less): nothing left to sell.
      for (const leg of legs) {
        if (leg.group === g) {
          problems.push(
            declineDetail(
              leg.outcomeId,
              'CONFLICTING_LEGS',
              'The books price these legs as mutually exclusive',
            ),
          );
        }
      }
      return decline(problems);
    }
    const f = copulaRectangle(legs, g, rho, false);
    fair *= f;
    shaded *= s;
    const outcomeIds: string[] = [];
    for (const leg of legs) if (leg.group === g) outcomeIds.push(leg.outcomeId);
    groupQuotes.push({
      key: first.groupKey,
      outcomeIds,
      fair: f,
      shaded: s,
      model: { league: event.league, sdMargin: model.sdMargin, sdTotal: model.sdTotal, rho, fit },
    });
  }

  const steps = toPriceSteps(shaded * (1 + params.margin));
  const quoted: QuotedLeg[] = [];
  for (const leg of legs) quoted.push(leg.quote!);
  return {
    ok: true,
    quote: {
      currency: req.currency,
      legs: quoted,
      groups: groupQuotes,
      fair,
      shaded,
      price: steps / 100_000,
      priceText: formatPriceSteps(steps),
      maxQty,
      decimalOdds: decimalOdds(steps),
      americanOdds: americanOdds(steps),
    },
  };
}

const VARIABLES = ['M', 'T'] as const;

/**
 * Correlation of (home margin, total) for a game: the league's favourite/total correlation, signed
 * by the fitted favourite and faded to 0 for a pick'em (league-models.ts explains why).
 */
export function gameCorrelation(model: LeagueModel, fit: GameFit): number {
  if (fit.muMargin === null || fit.muTotal === null) return 0;
  return model.rhoFavourite * (2 * normCdf((3 * fit.muMargin) / model.sdMargin) - 1);
}

/**
 * The group's probability: each leg's line is placed where the standard normal gives it the leg's
 * price (ask, or mid for the fair value), and the bivariate normal rectangle of all lines is
 * evaluated. Bounds on one variable only tighten (max of lower, min of upper), so another leg can
 * only shrink the rectangle.
 */
function copulaRectangle(legs: Leg[], group: number, rho: number, ask: boolean): number {
  let loM = Number.NEGATIVE_INFINITY;
  let hiM = Number.POSITIVE_INFINITY;
  let loT = Number.NEGATIVE_INFINITY;
  let hiT = Number.POSITIVE_INFINITY;
  let cap = 2000;
  for (const leg of legs) {
    if (leg.group !== group) continue;
    const h = leg.halfLine!;
    const p = ask ? leg.quote!.priceHalfTicks : leg.quote!.midHalfTicks;
    if (p < cap) cap = p;
    if (h.side === 'above') {
      const z = Z[2000 - p]!; // P(Z > z) = p; p is a half-tick count in [2, 2000]
      if (h.variable === 'M') loM = Math.max(loM, z);
      else loT = Math.max(loT, z);
    } else {
      const z = Z[p]!; // P(Z < z) = p
      if (h.variable === 'M') hiM = Math.min(hiM, z);
      else hiT = Math.min(hiT, z);
    }
  }
  // The joint can never exceed its least likely leg; the min guards the last bit of rounding.
  return Math.min(cap / 2000, rectangle(loM, hiM, loT, hiT, rho));
}
