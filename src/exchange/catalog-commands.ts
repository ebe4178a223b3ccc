import { catalogChanged } from './change-tracking.ts';
import { isSafeNonNeg, isStr, reject } from './command-checks.ts';
import { parlayMarketChanged, takeParlayBudget } from './parlay-settlement.ts';
import { cancelMarketOrders } from './resting-orders.ts';
import { doSettle } from './settlement.ts';
import { type Cmd, type ExchangeState, ok } from './state.ts';
import { canTransition, gameStatusFor } from './transitions.ts';
import {
  type CommandResult,
  EVENT_STATUSES,
  EVENT_TYPES,
  type EventRecord,
  type Id,
  MARKET_TYPES,
  type MarketRecord,
  type MarketSpec,
  type OutcomeRecord,
} from './types.ts';

export function createLeague(s: ExchangeState, c: Cmd<'CreateLeague'>): CommandResult {
  if (!isStr(c.code) || typeof c.name !== 'string')
    return reject('VALIDATION_FAILED', 'league needs code and name');
  if (s.leagueMap.has(c.code)) return reject('ALREADY_EXISTS', `league ${c.code} exists`);
  s.leagueMap.set(c.code, { code: c.code, name: c.name });
  catalogChanged(s, [], []);
  return ok(s);
}

export function createTeam(s: ExchangeState, c: Cmd<'CreateTeam'>): CommandResult {
  const t = c.team;
  if (!t || !isStr(t.id)) return reject('VALIDATION_FAILED', 'team needs an id');
  if (s.teamMap.has(t.id)) return reject('ALREADY_EXISTS', `team ${t.id} exists`);
  if (!s.leagueMap.has(t.league)) return reject('LEAGUE_NOT_FOUND', `league ${t.league} not found`);
  s.teamMap.set(t.id, {
    id: t.id,
    league: t.league,
    name: t.name,
    shortName: t.shortName,
    symbol: t.symbol,
    mascot: t.mascot,
  });
  catalogChanged(s, [], []);
  return ok(s);
}

/** Validates market specs against the catalog and each other; null when fine. */
export function checkMarketSpecs(s: ExchangeState, specs: MarketSpec[]): CommandResult | null {
  if (!Array.isArray(specs)) return reject('VALIDATION_FAILED', 'markets must be an array');
  const seen = new Set<Id>();
  for (const m of specs) {
    if (!m || !isStr(m.id)) return reject('VALIDATION_FAILED', 'market needs an id');
    if (!MARKET_TYPES.includes(m.type)) return reject('VALIDATION_FAILED', `unknown market type ${m.type}`);
    if (m.strike !== null && !(typeof m.strike === 'number' && Number.isFinite(m.strike))) {
      return reject('VALIDATION_FAILED', 'strike must be a finite number or null');
    }
    if (!Array.isArray(m.outcomes) || m.outcomes.length !== 2) {
      return reject('VALIDATION_FAILED', `market ${m.id} needs exactly two outcomes`);
    }
    if (s.marketIdx.has(m.id) || seen.has(m.id)) return reject('ALREADY_EXISTS', `market ${m.id} exists`);
    seen.add(m.id);
    for (const o of m.outcomes) {
      if (!o || !isStr(o.id)) return reject('VALIDATION_FAILED', 'outcome needs an id');
      if (s.outcomeMap.has(o.id) || seen.has(o.id)) return reject('ALREADY_EXISTS', `outcome ${o.id} exists`);
      seen.add(o.id);
      if (o.competitorTeamId != null && !s.teamMap.has(o.competitorTeamId)) {
        return reject('TEAM_NOT_FOUND', `team ${o.competitorTeamId} not found`);
      }
    }
  }
  return null;
}

export function addMarketRecords(s: ExchangeState, ev: EventRecord, specs: MarketSpec[]): Id[] {
  const ids: Id[] = [];
  for (const m of specs) {
    const idx = s.markets.length;
    const rec: MarketRecord = {
      id: m.id,
      eventId: ev.id,
      type: m.type,
      strike: m.strike,
      description: m.description,
      status: 'OPEN',
      outcomeIds: [m.outcomes[0].id, m.outcomes[1].id],
      volume: { CASH: 0, COIN: 0 },
      settledAt: null,
      result: null,
    };
    const outs = m.outcomes.map(
      (o, i): OutcomeRecord => ({
        id: o.id,
        marketId: m.id,
        index: i as 0 | 1,
        description: o.description,
        status: 'TBD',
        last: { CASH: null, COIN: null },
        competitorTeamId: o.competitorTeamId ?? null,
      }),
    ) as [OutcomeRecord, OutcomeRecord];
    s.markets.push({ idx, rec, event: ev, outcomes: outs, collateral: [0, 0] });
    s.marketIdx.set(m.id, idx);
    outs.forEach((o, i) => {
      s.outcomeMap.set(o.id, o);
      s.outcomeRef.set(o.id, idx * 2 + i);
    });
    s.bookSeqs.push(0, 0);
    s.books.push(undefined, undefined);
    s.bookStamp.push(0, 0);
    ev.marketIds.push(m.id);
    ids.push(m.id);
  }
  return ids;
}

export function createEvent(s: ExchangeState, c: Cmd<'CreateEvent'>): CommandResult {
  const e = c.event;
  if (!e || !isStr(e.id)) return reject('VALIDATION_FAILED', 'event needs an id');
  if (s.eventMap.has(e.id)) return reject('ALREADY_EXISTS', `event ${e.id} exists`);
  if (!EVENT_TYPES.includes(e.type)) return reject('VALIDATION_FAILED', `unknown event type ${e.type}`);
  if (!EVENT_STATUSES.includes(e.status))
    return reject('VALIDATION_FAILED', `unknown event status ${e.status}`);
  if (!Number.isSafeInteger(e.scheduledStart))
    return reject('VALIDATION_FAILED', 'scheduledStart must be ms');
  if (!s.leagueMap.has(e.league)) return reject('LEAGUE_NOT_FOUND', `league ${e.league} not found`);
  const g = c.game;
  if (g) {
    if (!isStr(g.id)) return reject('VALIDATION_FAILED', 'game needs an id');
    if (s.gameMap.has(g.id)) return reject('ALREADY_EXISTS', `game ${g.id} exists`);
    for (const t of [g.homeTeamId, g.awayTeamId]) {
      if (!s.teamMap.has(t)) return reject('TEAM_NOT_FOUND', `team ${t} not found`);
    }
  }
  const bad = checkMarketSpecs(s, c.markets);
  if (bad) return bad;

  const rec: EventRecord = {
    id: e.id,
    type: e.type,
    status: e.status,
    description: e.description,
    league: e.league,
    scheduledStart: e.scheduledStart,
    gameId: g ? g.id : null,
    marketIds: [],
    pregameVisible: e.pregameVisible ?? true,
    liveVisible: e.liveVisible ?? true,
    createdAt: c.ts,
    updatedAt: c.ts,
  };
  if (g) {
    s.gameMap.set(g.id, {
      id: g.id,
      league: e.league,
      status: gameStatusFor(e.status),
      scheduledStart: e.scheduledStart,
      homeTeamId: g.homeTeamId,
      awayTeamId: g.awayTeamId,
      homeScore: null,
      awayScore: null,
    });
    s.gameEvent.set(g.id, e.id);
  }
  s.eventMap.set(e.id, rec);
  s.sortedEvents = null;
  const mids = addMarketRecords(s, rec, c.markets);
  catalogChanged(s, [e.id], mids);
  return ok(s);
}

export function addMarkets(s: ExchangeState, c: Cmd<'AddMarkets'>): CommandResult {
  const ev = s.eventMap.get(c.eventId);
  if (!ev) return reject('EVENT_NOT_FOUND');
  if (ev.status === 'FINAL' || ev.status === 'CANCELED') {
    return reject('INVALID_TRANSITION', `event is ${ev.status}: no new markets`);
  }
  const bad = checkMarketSpecs(s, c.markets);
  if (bad) return bad;
  const mids = addMarketRecords(s, ev, c.markets);
  ev.updatedAt = c.ts;
  catalogChanged(s, [ev.id], mids);
  return ok(s);
}

export function setEventStatus(s: ExchangeState, c: Cmd<'SetEventStatus'>): CommandResult {
  const ev = s.eventMap.get(c.eventId);
  if (!ev) return reject('EVENT_NOT_FOUND');
  if (!EVENT_STATUSES.includes(c.status)) return reject('VALIDATION_FAILED', `unknown status ${c.status}`);
  const from = ev.status;
  if (!canTransition(from, c.status))
    return reject('INVALID_TRANSITION', `${from} → ${c.status} not allowed`);
  const budget = takeParlayBudget(s, c.parlayBudget);
  if (budget !== null) return budget;
  ev.status = c.status;
  ev.updatedAt = c.ts;
  if (ev.gameId) {
    const g = s.gameMap.get(ev.gameId);
    if (g) g.status = gameStatusFor(c.status);
  }
  const touched: Id[] = [];
  // Going live (also back from DELAYED) and ending clear the books (docs/lifecycle.md):
  // pregame orders must not trade against in-game information.
  if (c.status === 'OPEN_INGAME' || c.status === 'FINAL' || c.status === 'CANCELED') {
    for (const mid of ev.marketIds) cancelMarketOrders(s, s.marketIdx.get(mid)!, c.ts);
  }
  if (c.status === 'CANCELED') {
    // A canceled event voids every unsettled market.
    for (const mid of ev.marketIds) {
      const market = s.markets[s.marketIdx.get(mid)!]!;
      if (market.rec.status !== 'SETTLED') {
        doSettle(s, market, 'PUSH', c.ts);
        touched.push(mid);
      }
    }
  }
  for (const mid of ev.marketIds) parlayMarketChanged(s, s.marketIdx.get(mid)!, c.ts);
  s.ev.push({ kind: 'EventStatusChanged', eventId: ev.id, from, to: c.status });
  catalogChanged(s, [ev.id], touched);
  return ok(s);
}

export function setGameScore(s: ExchangeState, c: Cmd<'SetGameScore'>): CommandResult {
  const g = s.gameMap.get(c.gameId);
  if (!g) return reject('EVENT_NOT_FOUND', `game ${c.gameId} not found`);
  if (!isSafeNonNeg(c.homeScore) || !isSafeNonNeg(c.awayScore)) {
    return reject('VALIDATION_FAILED', 'scores must be non-negative integers');
  }
  const clock = checkGameClock(c.period, c.timeRemaining);
  if (clock) return clock;
  g.homeScore = c.homeScore;
  g.awayScore = c.awayScore;
  // Set only when given, so a game without a clock keeps the record (and the state hash) it had.
  if (c.period !== undefined) g.period = c.period;
  if (c.timeRemaining !== undefined) g.timeRemaining = c.timeRemaining;
  const eid = s.gameEvent.get(g.id)!;
  s.eventMap.get(eid)!.updatedAt = c.ts;
  catalogChanged(s, [eid], []);
  return ok(s);
}

/** `m:ss` (or `mm:ss`, `mmm:ss`): minutes and seconds left in the period. */
const CLOCK = /^\d{1,3}:[0-5]\d$/;

function checkGameClock(period: unknown, timeRemaining: unknown): CommandResult | null {
  if (
    period !== undefined &&
    (!Number.isSafeInteger(period) || (period as number) < 1 || (period as number) > 99)
  ) {
    return reject('VALIDATION_FAILED', 'period must be an integer from 1 to 99');
  }
  if (timeRemaining !== undefined && (typeof timeRemaining !== 'string' || !CLOCK.test(timeRemaining))) {
    return reject('VALIDATION_FAILED', 'timeRemaining must be minutes:seconds, such as 12:05');
  }
  return null;
}

export function setMarketStatus(s: ExchangeState, c: Cmd<'SetMarketStatus'>): CommandResult {
  const marketIndex = s.marketIdx.get(c.marketId);
  if (marketIndex === undefined) return reject('MARKET_NOT_FOUND');
  const market = s.markets[marketIndex]!;
  if (c.status !== 'OPEN' && c.status !== 'CLOSED')
    return reject('VALIDATION_FAILED', 'status: OPEN or CLOSED');
  if (market.rec.status === 'SETTLED') return reject('ALREADY_SETTLED');
  if (market.rec.status === c.status) return reject('INVALID_TRANSITION', `market is already ${c.status}`);
  market.rec.status = c.status;
  if (c.status === 'CLOSED') cancelMarketOrders(s, marketIndex, c.ts);
  parlayMarketChanged(s, marketIndex, c.ts);
  catalogChanged(s, [market.event.id], [market.rec.id]);
  return ok(s);
}
