// Catalog records → wire objects (docs/http.md "Events" and "Markets and
// books"). The only place that decides field names, field order and units of catalog JSON; the
// JSON schemas in ../schemas/catalog.ts describe exactly these shapes.

import type { ExchangeReader } from '../exchange/reader.ts';
import type {
  Currency,
  EventRecord,
  Game,
  Id,
  MarketRecord,
  OutcomeRecord,
  Team,
  TradingLock,
} from '../exchange/types.ts';
import { tickToPrice } from '../exchange/units.ts';
import { isoMillis, isoOrNull, marketTypeName, outcomeTypeName } from './names.ts';

export interface WireTeam {
  id: Id;
  name: string;
  shortName: string;
  symbol: string;
  mascot: string;
}

export interface WireGame {
  id: Id;
  league: string;
  status: string;
  scheduledStart: string;
  homeTeam: WireTeam | null;
  awayTeam: WireTeam | null;
}

export interface WireEvent {
  id: Id;
  type: string;
  status: string;
  description: string;
  league: string;
  scheduledStart: string;
  marketIds: Id[];
  game?: WireGame;
}

export interface WireOutcome {
  id: Id;
  description: string;
  type: string;
  status: string;
  index: 0 | 1;
  /** Last traded price in the requested currency, or null before the first trade. */
  last: number | null;
  competitor: WireTeam | null;
}

export interface WireMarket {
  id: Id;
  type: string;
  description: string;
  status: string;
  eventId: Id;
  strike: number | null;
  league: string;
  /** Traded payout in the requested currency, MCU. */
  volume: number;
  outcomeIds: [Id, Id];
  outcomes: WireOutcome[];
  playerId: null;
  player: null;
  competitor: null;
  settledAt: string | null;
  /** The main line of its type for the event (see isConsensusMarket). */
  isConsensus: boolean;
  /** The market's event, embedded as the production MarketResponseDto carries it. */
  event: WireMarketEvent;
}

/** The event embedded in a market: `game` only for events of type Game (omitted, not null). */
export interface WireMarketEvent {
  id: Id;
  type: string;
  status: string;
  description: string;
  game?: WireGame;
}

export function teamToWire(t: Team): WireTeam {
  return { id: t.id, name: t.name, shortName: t.shortName, symbol: t.symbol, mascot: t.mascot };
}

function teamOrNull(r: ExchangeReader, id: Id | null): WireTeam | null {
  if (id === null) return null;
  const t = r.team(id);
  return t ? teamToWire(t) : null;
}

export function gameToWire(r: ExchangeReader, g: Game): WireGame {
  return {
    id: g.id,
    league: g.league,
    status: g.status,
    scheduledStart: isoMillis(g.scheduledStart),
    homeTeam: teamOrNull(r, g.homeTeamId),
    awayTeam: teamOrNull(r, g.awayTeamId),
  };
}

/** Event wire object; `game` is omitted (not null) for events that are not games. */
export function eventToWire(r: ExchangeReader, e: EventRecord): WireEvent {
  const out: WireEvent = {
    id: e.id,
    type: e.type,
    status: e.status,
    description: e.description,
    league: e.league,
    scheduledStart: isoMillis(e.scheduledStart),
    marketIds: e.marketIds.slice(),
  };
  const g = e.gameId === null ? undefined : r.game(e.gameId);
  if (g) out.game = gameToWire(r, g);
  return out;
}

export function outcomeToWire(
  r: ExchangeReader,
  m: MarketRecord,
  o: OutcomeRecord,
  currency: Currency,
): WireOutcome {
  const last = o.last[currency];
  return {
    id: o.id,
    description: o.description,
    type: outcomeTypeName(m.type, o.index),
    status: o.status,
    index: o.index,
    last: last === null || last === undefined ? null : tickToPrice(last),
    competitor: teamOrNull(r, o.competitorTeamId),
  };
}

/**
 * Whether `m` is the consensus (main) line of its type for its event (docs/production-compat.md):
 * markets without a strike (moneylines, yes/no propositions) have no alternate lines and are always
 * consensus; among an event's markets of one strike-bearing type (spreads, totals, team totals), the
 * consensus line is the first in the event's catalog order, which is the order the importer and the
 * demo slate create them in (main line first). It depends on the catalog only, so answers cached
 * by catalogVersion stay exact.
 */
export function isConsensusMarket(r: ExchangeReader, m: MarketRecord, ev: EventRecord | undefined): boolean {
  if (m.strike === null || ev === undefined) return true;
  for (const mid of ev.marketIds) {
    if (mid === m.id) return true;
    const other = r.market(mid);
    if (other !== undefined && other.type === m.type && other.strike !== null) return false;
  }
  return true;
}

/** The event as embedded in a market object. */
export function marketEventToWire(r: ExchangeReader, e: EventRecord): WireMarketEvent {
  const out: WireMarketEvent = { id: e.id, type: e.type, status: e.status, description: e.description };
  const g = e.gameId === null ? undefined : r.game(e.gameId);
  if (g) out.game = gameToWire(r, g);
  return out;
}

/** The engine creates markets only inside their event (CreateEvent), so a market without one is a broken state. */
function mustEvent(ev: EventRecord | undefined, m: MarketRecord): EventRecord {
  if (ev === undefined) throw new Error(`market ${m.id} has no event ${m.eventId}`);
  return ev;
}

/** Market without its book; `volume` and outcome `last` are those of `currency`. */
export function marketToWire(r: ExchangeReader, m: MarketRecord, currency: Currency): WireMarket {
  const ev = r.event(m.eventId);
  const outcomes: WireOutcome[] = [];
  for (const oid of m.outcomeIds) {
    const o = r.outcome(oid);
    if (o) outcomes.push(outcomeToWire(r, m, o, currency));
  }
  return {
    id: m.id,
    type: marketTypeName(m.type),
    description: m.description,
    status: m.status,
    eventId: m.eventId,
    strike: m.strike,
    league: ev?.league ?? '',
    volume: m.volume[currency] ?? 0,
    outcomeIds: [m.outcomeIds[0], m.outcomeIds[1]],
    outcomes,
    playerId: null,
    player: null,
    competitor: null,
    settledAt: isoOrNull(m.settledAt),
    isConsensus: isConsensusMarket(r, m, ev),
    event: marketEventToWire(r, mustEvent(ev, m)),
  };
}

export interface WireLock {
  id: Id;
  eventId: Id | null;
  reason: string;
  createdAt: string;
  /** Whole or fractional minutes the lock lasts from createdAt; null: until cleared. */
  minuteDuration: number | null;
  expiresAt: string | null;
}

export function lockToWire(l: TradingLock): WireLock {
  return {
    id: l.id,
    eventId: l.eventId,
    reason: l.reason,
    createdAt: isoMillis(l.createdAt),
    minuteDuration: minuteDuration(l),
    expiresAt: isoOrNull(l.expiresAt),
  };
}

/** Minutes a lock lasts from its creation (fractional), or null when it lasts until cleared. */
function minuteDuration(l: TradingLock): number | null {
  return l.expiresAt === null ? null : (l.expiresAt - l.createdAt) / 60_000;
}

/** `GET /nbx/v2/emm/locks` body (docs/http.md "Markets and books") from the reader's active locks. */
export function locksToWire(
  system: TradingLock | null,
  events: readonly TradingLock[],
): {
  systemLock: { id: Id; minuteDuration: number | null; createdAt: string; reason: string } | null;
  lockedEventIds: Id[];
} {
  const ids = new Set<Id>();
  for (const l of events) if (l.eventId !== null) ids.add(l.eventId);
  return {
    systemLock:
      system === null
        ? null
        : {
            id: system.id,
            minuteDuration: minuteDuration(system),
            createdAt: isoMillis(system.createdAt),
            reason: system.reason,
          },
    lockedEventIds: [...ids].sort(),
  };
}
