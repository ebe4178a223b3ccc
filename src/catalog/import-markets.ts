// The market rows of an import file (docs/import-format.md): one market of an event, with its
// outcomes given or named from the event's teams, checked and turned into a MarketSpec. Split from
// ./import.ts, which reads the leagues, teams and events around them; the row helpers both use
// are here.

import type { Id, MarketSpec, MarketType, OutcomeSpec, Team } from '../exchange/types.ts';
import { MARKET_TYPES } from '../exchange/types.ts';
import { isUuid, uuidFor } from '../ids.ts';
import { signed } from './descriptions.ts';

export type Obj = Record<string, unknown>;
export const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
export const isText = (x: unknown, max = 200): x is string =>
  typeof x === 'string' && x.trim().length > 0 && x.length <= max;

/** Market types whose strike is required (a half-line on margin or total). */
const STRIKED: ReadonlySet<MarketType> = new Set(['SPREAD', 'TOTAL', 'TEAM_TOTAL', 'SPREAD_1H', 'TOTAL_1H']);

export interface MarketContext {
  eventId: Id;
  league: string;
  home: Team | undefined;
  away: Team | undefined;
  findTeam: (league: string, ref: unknown) => Team | undefined;
}

export function parseMarket(
  m: unknown,
  mp: string,
  err: (p: string, message: string) => void,
  ctx: MarketContext,
): MarketSpec | null {
  if (!isObj(m)) {
    err(mp, 'a market must be an object {type, strike?, description?, outcomes?}');
    return null;
  }
  let ok = true;
  const bad = (p: string, message: string) => {
    ok = false;
    err(`${mp}.${p}`, message);
  };
  const type = m.type as MarketType;
  if (!MARKET_TYPES.includes(type)) {
    bad('type', `type must be one of ${MARKET_TYPES.join(', ')}`);
    return null;
  }
  let strike: number | null = null;
  if (STRIKED.has(type)) {
    if (typeof m.strike !== 'number' || !Number.isFinite(m.strike) || !Number.isInteger(m.strike * 2)) {
      bad('strike', `bad strike: a ${type} needs a numeric strike in half points (e.g. -2.5, 47.5)`);
    } else if (type !== 'SPREAD' && type !== 'SPREAD_1H' && m.strike <= 0) {
      bad('strike', `bad strike: a ${type} strike must be positive`);
    } else if (Math.abs(m.strike) > 1000) {
      bad('strike', 'bad strike: out of range');
    } else {
      strike = m.strike;
    }
  } else if (m.strike !== undefined && m.strike !== null) {
    bad('strike', `bad strike: a ${type} market has no strike`);
  }
  if (m.id !== undefined && !isUuid(m.id)) bad('id', 'id must be a UUID');
  if (m.description !== undefined && !isText(m.description, 300))
    bad('description', 'description must be a non-empty string');

  const { home, away } = ctx;
  const auto = autoOutcomes(type, strike, home, away);
  let outcomes: { description: string; id?: string; competitorTeamId: Id | null }[] | null = null;
  if (m.outcomes !== undefined) {
    if (!Array.isArray(m.outcomes) || m.outcomes.length !== 2) {
      bad('outcomes', 'a market must have exactly two outcomes (index 0 = home/over/yes, 1 = away/under/no)');
    } else {
      outcomes = [];
      for (const [k, o] of (m.outcomes as unknown[]).entries()) {
        const op = `outcomes[${k}]`;
        if (!isObj(o) || !isText(o.description)) {
          bad(op, 'an outcome needs a description');
          continue;
        }
        if (o.id !== undefined && !isUuid(o.id)) {
          bad(`${op}.id`, 'id must be a UUID');
          continue;
        }
        let competitorTeamId: Id | null = auto?.[k]?.competitorTeamId ?? null;
        if (o.competitor !== undefined && o.competitor !== null) {
          const t = ctx.findTeam(ctx.league, o.competitor);
          if (!t) {
            bad(`${op}.competitor`, `unknown team ${JSON.stringify(o.competitor)} in league ${ctx.league}`);
            continue;
          }
          competitorTeamId = t.id;
        }
        outcomes!.push({
          description: o.description.trim(),
          id: o.id as string | undefined,
          competitorTeamId,
        });
      }
    }
  } else if (auto) {
    outcomes = auto;
  } else if (ok) {
    bad('outcomes', `a ${type} market here needs its two outcomes listed`);
  }
  if (!ok || !outcomes) return null;

  const id = (m.id as string | undefined) ?? uuidFor('import', 'market', ctx.eventId, type, strike ?? '');
  const prefix = home && away ? `${away.symbol} @ ${home.symbol} ` : '';
  const description =
    (m.description as string | undefined)?.trim() ??
    `${prefix}${DEFAULT_NAMES[type]}${strike === null ? '' : ` ${strike}`}`;
  const specOutcomes = outcomes.map(
    (o, k): OutcomeSpec => ({
      id: o.id ?? uuidFor('import', 'outcome', id, k),
      description: o.description,
      competitorTeamId: o.competitorTeamId,
    }),
  ) as [OutcomeSpec, OutcomeSpec];
  return { id, type, strike, description, outcomes: specOutcomes };
}

const DEFAULT_NAMES: Record<MarketType, string> = {
  MONEY: 'Moneyline',
  SPREAD: 'Spread',
  TOTAL: 'Total',
  TEAM_TOTAL: 'Team Total',
  MONEY_1H: '1st Half Moneyline',
  SPREAD_1H: '1st Half Spread',
  TOTAL_1H: '1st Half Total',
  YES_NO: 'Yes/No',
};

/** Outcome descriptions the importer can write itself ("BUF -2.5" / "KC +2.5", "Over 47.5" …). */
function autoOutcomes(
  type: MarketType,
  strike: number | null,
  home: Team | undefined,
  away: Team | undefined,
): { description: string; competitorTeamId: Id | null }[] | null {
  if (type === 'YES_NO')
    return [
      { description: 'Yes', competitorTeamId: null },
      { description: 'No', competitorTeamId: null },
    ];
  if ((type === 'TOTAL' || type === 'TOTAL_1H') && strike !== null) {
    return [
      { description: `Over ${strike}`, competitorTeamId: null },
      { description: `Under ${strike}`, competitorTeamId: null },
    ];
  }
  if (!home || !away) return null;
  if (type === 'MONEY' || type === 'MONEY_1H') {
    return [
      { description: home.symbol, competitorTeamId: home.id },
      { description: away.symbol, competitorTeamId: away.id },
    ];
  }
  if ((type === 'SPREAD' || type === 'SPREAD_1H') && strike !== null) {
    return [
      { description: `${home.symbol} ${signed(strike)}`, competitorTeamId: home.id },
      { description: `${away.symbol} ${signed(-strike)}`, competitorTeamId: away.id },
    ];
  }
  return null; // TEAM_TOTAL: which team is ambiguous, outcomes must be listed
}
