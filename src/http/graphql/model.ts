// The tables the GraphQL read interface exposes (docs/graphql.md), described once: columns with
// their scalar type and how to read them from the in-memory records, and the relations between
// tables. schema.ts derives the SDL (object types, `<table>_bool_exp`, `<table>_order_by`,
// `<table>_select_column`) and the resolvers from this description, and filter.ts evaluates
// `where`, `order_by` and `distinct_on` against it, so a column exists in all three or in none.
// Everything is read from the ExchangeReader of the request: the database is never queried.
// Columns follow the production schema's names (Hasura over its tables); a column Tickbook has no
// data for (players, child events, the game clock) is there and null, so production queries that
// select it still run.

import { LEAGUES } from '../../catalog/leagues.ts';
import type { ExchangeReader } from '../../exchange/reader.ts';
import {
  CURRENCIES,
  type Currency,
  type EventRecord,
  type Game,
  type MarketRecord,
  type OrderRecord,
  type OutcomeRecord,
  type Team,
} from '../../exchange/types.ts';
import { tickToPrice } from '../../exchange/units.ts';
import { isConsensusMarket, teamToWire } from '../../wire/catalog.ts';
import { isoMillis, isoOrNull, marketTypeName, outcomeTypeName } from '../../wire/names.ts';
import type { RegexState } from './regex.ts';

export type ScalarType = 'String' | 'Int' | 'Float' | 'Boolean' | 'jsonb' | 'uuid' | 'timestamptz';

/** Per-request context: the state every resolver reads, and the request's regular expressions. */
export interface GqlContext {
  reader: ExchangeReader;
  regex: RegexState;
}

// biome-ignore lint/suspicious/noExplicitAny: rows of the six tables differ; each column knows its own.
type Row = any;

export interface Column {
  type: ScalarType;
  /** Value of the column for a row; `currency` for the columns that depend on one. */
  get(row: Row, r: ExchangeReader, currency: Currency): unknown;
  /** Takes a `currency` argument (volume, last, available; default CASH, which `where`,
   * `order_by` and `distinct_on` use). */
  byCurrency?: boolean;
  description?: string;
}

export interface Relation {
  table: TableName;
  /** Object relation: one row or null. Array relation: rows, in their natural order. */
  kind: 'object' | 'array';
  get(row: Row, r: ExchangeReader): Row | Row[] | undefined;
}

export interface Table {
  description: string;
  columns: Record<string, Column>;
  relations: Record<string, Relation>;
}

export type TableName =
  | 'event'
  | 'game'
  | 'team'
  | 'market'
  | 'market_detail'
  | 'player'
  | 'outcome'
  | 'order';

const str = (f: (row: Row) => unknown): Column => ({ type: 'String', get: f });
const uuid = (f: (row: Row) => unknown): Column => ({ type: 'uuid', get: f });
const time = (f: (row: Row) => unknown): Column => ({ type: 'timestamptz', get: f });
/** A production column Tickbook holds no data for: always null. */
const none = (type: ScalarType, description: string): Column => ({ type, get: () => null, description });

/** The sport of a league of the catalog (`LEAGUES`), or null for an operator's own league. */
const SPORTS = new Map<string, string>(LEAGUES.map((l) => [l.code, l.sport]));

/** The `market_detail` row of a market: a proposition's question, which a future's event holds. */
interface MarketDetail {
  market_id: string;
  question: string;
}

function marketDetail(m: MarketRecord, r: ExchangeReader): MarketDetail | undefined {
  if (m.type !== 'YES_NO') return undefined;
  const e = r.event(m.eventId);
  return e === undefined ? undefined : { market_id: m.id, question: e.description };
}

/** Whether an operator's trading lock names the event (the system lock is not per event). */
function eventLocked(e: EventRecord, r: ExchangeReader): boolean {
  for (const l of r.locks().events) if (l.eventId === e.id) return true;
  return false;
}

/** `last` of an outcome in `currency` as a price, or null before its first trade there. */
function lastPrice(o: OutcomeRecord, currency: Currency): number | null {
  const t = o.last[currency];
  return t === null || t === undefined ? null : tickToPrice(t);
}

function eventMarkets(e: EventRecord, r: ExchangeReader): MarketRecord[] {
  const out: MarketRecord[] = [];
  for (const id of e.marketIds) {
    const m = r.market(id);
    if (m) out.push(m);
  }
  return out;
}

function marketOutcomes(m: MarketRecord, r: ExchangeReader): OutcomeRecord[] {
  const out: OutcomeRecord[] = [];
  for (const id of m.outcomeIds) {
    const o = r.outcome(id);
    if (o) out.push(o);
  }
  return out;
}

/** Price to buy the outcome now: 1 − the best bid on the other outcome (docs/exchange.md "Books and matching"), or null. */
function available(o: OutcomeRecord, r: ExchangeReader, currency: Currency): number | null {
  const m = r.market(o.marketId);
  if (!m) return null;
  const best = r.bestBid(m.outcomeIds[o.index === 0 ? 1 : 0], currency);
  return best === null ? null : tickToPrice(1000 - best.price);
}

export const TABLES: Record<TableName, Table> = {
  event: {
    description: 'An event (a game or a future) with its markets',
    columns: {
      id: uuid((e: EventRecord) => e.id),
      type: str((e: EventRecord) => e.type),
      status: str((e: EventRecord) => e.status),
      description: str((e: EventRecord) => e.description),
      league: str((e: EventRecord) => e.league),
      scheduled_start: time((e: EventRecord) => isoMillis(e.scheduledStart)),
      game_id: uuid((e: EventRecord) => e.gameId),
      parent_event_id: none('uuid', 'The enclosing event; Tickbook events have none'),
      is_visible_pregame: { type: 'Boolean', get: (e: EventRecord) => e.pregameVisible },
      is_visible_live: { type: 'Boolean', get: (e: EventRecord) => e.liveVisible },
      is_status_locked: {
        type: 'Boolean',
        get: eventLocked,
        description: 'Whether an operator trading lock holds the event',
      },
      created_at: time((e: EventRecord) => isoMillis(e.createdAt)),
      updated_at: time((e: EventRecord) => isoMillis(e.updatedAt)),
    },
    relations: {
      game: {
        table: 'game',
        kind: 'object',
        get: (e: EventRecord, r) => (e.gameId === null ? undefined : r.game(e.gameId)),
      },
      markets: { table: 'market', kind: 'array', get: eventMarkets },
      // Child events (periods, prop groups) of the production schema: Tickbook events have none.
      events: { table: 'event', kind: 'array', get: () => [] },
    },
  },
  game: {
    description: 'The game behind an event of type Game',
    columns: {
      id: uuid((g: Game) => g.id),
      league: str((g: Game) => g.league),
      sport: {
        type: 'String',
        get: (g: Game) => SPORTS.get(g.league) ?? null,
        description: "The league's sport (FOOTBALL, BASKETBALL, …); null for a league outside the catalog",
      },
      status: str((g: Game) => g.status),
      scheduled_start: time((g: Game) => isoMillis(g.scheduledStart)),
      period: {
        type: 'Int',
        get: (g: Game) => g.period ?? null,
        description: 'The running period (1-based), null until the game clock is known',
      },
      time_remaining: {
        type: 'String',
        get: (g: Game) => g.timeRemaining ?? null,
        description: 'Time left in the period (m:ss), null until the game clock is known',
      },
      home_team_id: uuid((g: Game) => g.homeTeamId),
      away_team_id: uuid((g: Game) => g.awayTeamId),
      home_score: {
        type: 'Int',
        get: (g: Game) => g.homeScore,
        description: 'Running or final score, null before one is known',
      },
      away_score: {
        type: 'Int',
        get: (g: Game) => g.awayScore,
        description: 'Running or final score, null before one is known',
      },
    },
    relations: {
      homeTeam: { table: 'team', kind: 'object', get: (g: Game, r) => r.team(g.homeTeamId) },
      awayTeam: { table: 'team', kind: 'object', get: (g: Game, r) => r.team(g.awayTeamId) },
    },
  },
  team: {
    description: 'A team',
    columns: {
      id: uuid((t: Team) => t.id),
      league: str((t: Team) => t.league),
      name: str((t: Team) => t.name),
      short_name: str((t: Team) => t.shortName),
      symbol: str((t: Team) => t.symbol),
      mascot: str((t: Team) => t.mascot),
      primary_color: none('String', "The team's colour; the catalog holds none"),
    },
    relations: {},
  },
  market: {
    description: 'A binary market of an event',
    columns: {
      id: uuid((m: MarketRecord) => m.id),
      event_id: uuid((m: MarketRecord) => m.eventId),
      league: { type: 'String', get: (m: MarketRecord, r) => r.event(m.eventId)?.league ?? null },
      type: {
        type: 'String',
        get: (m: MarketRecord) => marketTypeName(m.type),
        description: 'Type code, as the REST routes ("SPREAD")',
      },
      description: str((m: MarketRecord) => m.description),
      status: str((m: MarketRecord) => m.status),
      strike: { type: 'Float', get: (m: MarketRecord) => m.strike },
      is_consensus: {
        type: 'Boolean',
        get: (m: MarketRecord, r) => isConsensusMarket(r, m, r.event(m.eventId)),
      },
      settled_at: time((m: MarketRecord) => isoOrNull(m.settledAt)),
      competitorId: none('uuid', 'The team a market is about; null, as the REST market `competitor`'),
      playerId: none('uuid', 'The player a prop is about; Tickbook lists no players'),
      competitor: none('jsonb', 'The team a market is about; null, as the REST market'),
      volume: {
        type: 'Float',
        byCurrency: true,
        get: (m: MarketRecord, _r, c) => m.volume[c] ?? 0,
        description: 'Traded payout in `currency`, MCU',
      },
    },
    relations: {
      event: { table: 'event', kind: 'object', get: (m: MarketRecord, r) => r.event(m.eventId) },
      outcomes: { table: 'outcome', kind: 'array', get: marketOutcomes },
      player: { table: 'player', kind: 'object', get: () => undefined },
      market_detail: { table: 'market_detail', kind: 'object', get: marketDetail },
    },
  },
  market_detail: {
    description: "A proposition's detail: YES_NO markets carry their event's question",
    columns: {
      market_id: uuid((d: MarketDetail) => d.market_id),
      question: str((d: MarketDetail) => d.question),
    },
    relations: {},
  },
  player: {
    description: 'A player of a prop market. Tickbook lists no players, so `market.player` is null',
    columns: {
      id: uuid(() => null),
      full_name: str(() => null),
      first_name: str(() => null),
      last_name: str(() => null),
      position: str(() => null),
      league: str(() => null),
      team_id: uuid(() => null),
    },
    relations: {},
  },
  outcome: {
    description: 'One side of a market',
    columns: {
      id: uuid((o: OutcomeRecord) => o.id),
      market_id: uuid((o: OutcomeRecord) => o.marketId),
      description: str((o: OutcomeRecord) => o.description),
      index: { type: 'Int', get: (o: OutcomeRecord) => o.index },
      type: {
        type: 'String',
        get: (o: OutcomeRecord, r) => {
          const m = r.market(o.marketId);
          return m ? outcomeTypeName(m.type, o.index) : null;
        },
      },
      status: str((o: OutcomeRecord) => o.status),
      last: {
        type: 'Float',
        byCurrency: true,
        get: (o: OutcomeRecord, _r, c) => lastPrice(o, c),
        description: 'Last traded price in `currency`, or null',
      },
      available: {
        type: 'Float',
        byCurrency: true,
        get: available,
        description:
          'Price to buy this outcome now in `currency`: 1 − best bid on the other outcome; null without one',
      },
      altLast: {
        type: 'Float',
        get: (o: OutcomeRecord) => lastPrice(o, 'COIN'),
        description: 'Last traded price in the other currency (COIN), or null',
      },
      altAvailable: {
        type: 'Float',
        get: (o: OutcomeRecord, r) => available(o, r, 'COIN'),
        description: 'Price to buy this outcome now in the other currency (COIN), or null',
      },
      competitorId: uuid((o: OutcomeRecord) => o.competitorTeamId),
      competitor: {
        type: 'jsonb',
        get: (o: OutcomeRecord, r) => {
          if (o.competitorTeamId === null) return null;
          const t = r.team(o.competitorTeamId);
          return t ? teamToWire(t) : null;
        },
        description: 'The team this outcome backs ({id,name,shortName,symbol,mascot}) or null, as REST',
      },
    },
    relations: {
      market: { table: 'market', kind: 'object', get: (o: OutcomeRecord, r) => r.market(o.marketId) },
      orders: {
        table: 'order',
        kind: 'array',
        get: (o: OutcomeRecord, r) => {
          const out: OrderRecord[] = [];
          for (const c of CURRENCIES) for (const ord of r.restingOrders(o.id, c)) out.push(ord);
          return out;
        },
      },
    },
  },
  order: {
    description: 'An open (resting) bid on an outcome; owners are not shown',
    columns: {
      id: uuid((o: OrderRecord) => o.id),
      outcome_id: uuid((o: OrderRecord) => o.outcomeId),
      market_id: uuid((o: OrderRecord) => o.marketId),
      currency: str((o: OrderRecord) => o.currency),
      price: { type: 'Float', get: (o: OrderRecord) => tickToPrice(o.price) },
      qty: { type: 'Float', get: (o: OrderRecord) => o.qty, description: 'Unfilled payout, MCU' },
      original_qty: { type: 'Float', get: (o: OrderRecord) => o.originalQty },
      originalQty: {
        type: 'Float',
        get: (o: OrderRecord) => o.originalQty,
        description: 'Payout when placed, MCU (camelCase, as the production schema and the REST ladder)',
      },
      status: str((o: OrderRecord) => o.status),
      created_at: time((o: OrderRecord) => isoMillis(o.createdAt)),
    },
    relations: {},
  },
};

/** Rows of a root field, in the REST listing order. Games, markets and outcomes follow events. */
export function rootRows(table: TableName, r: ExchangeReader): Row[] {
  const events = r.eventsSorted();
  switch (table) {
    case 'event':
      return events as EventRecord[];
    case 'game': {
      const out: Game[] = [];
      for (const e of events) {
        const g = e.gameId === null ? undefined : r.game(e.gameId);
        if (g) out.push(g);
      }
      return out;
    }
    case 'market': {
      const out: MarketRecord[] = [];
      for (const e of events) for (const m of eventMarkets(e, r)) out.push(m);
      return out;
    }
    case 'outcome': {
      const out: OutcomeRecord[] = [];
      for (const e of events)
        for (const m of eventMarkets(e, r)) for (const o of marketOutcomes(m, r)) out.push(o);
      return out;
    }
    default:
      return [];
  }
}

export const ROOT_TABLES: readonly TableName[] = ['event', 'game', 'market', 'outcome'];
