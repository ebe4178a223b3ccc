// Catalog records → wire objects (docs/http.md "Events" and "Markets and
// books"). The only place that decides field names, field order and units of catalog JSON; the
// shapes are declared, as their JSON schemas, in ./catalog-schemas.ts.

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
import type {
  WireEvent,
  WireGame,
  WireLock,
  WireLocks,
  WireMarket,
  WireMarketEvent,
  WireOutcome,
  WireTeam,
} from './catalog-schemas.ts';
import { isoMillis, isoOrNull, marketTypeName, outcomeTypeName } from './names.ts';

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
export function locksToWire(system: TradingLock | null, events: readonly TradingLock[]): WireLocks {
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
