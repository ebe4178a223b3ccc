// The market rows of an import file (docs/import-format.md): one market of an event that passed
// the file's schema (./import-schema.ts), with its outcomes given or named from the event's teams,
// turned into a MarketSpec. Split from ./import.ts, which reads the leagues, teams and events
// around them.

import type { Id, MarketSpec, MarketType, OutcomeSpec, Team } from '../exchange/types.ts';
import { uuidFor } from '../ids.ts';
import { signed } from './descriptions.ts';
import type { MarketRow } from './import-schema.ts';

export interface MarketContext {
  eventId: Id;
  league: string;
  home: Team | undefined;
  away: Team | undefined;
  findTeam: (league: string, ref: unknown) => Team | undefined;
}

/** A market row the schema accepted → its MarketSpec, or null after reporting what it lacks. */
export function parseMarket(
  m: MarketRow,
  mp: string,
  err: (p: string, message: string) => void,
  ctx: MarketContext,
): MarketSpec | null {
  let ok = true;
  const bad = (p: string, message: string) => {
    ok = false;
    err(`${mp}.${p}`, message);
  };
  const type = m.type;
  // The schema held the strike to its type: a half point where one is needed, absent otherwise.
  const strike = typeof m.strike === 'number' ? m.strike : null;
  const { home, away } = ctx;
  const auto = autoOutcomes(type, strike, home, away);
  let outcomes: { description: string; id?: string; competitorTeamId: Id | null }[] | null = null;
  if (m.outcomes !== undefined) {
    outcomes = [];
    for (const [k, o] of m.outcomes.entries()) {
      let competitorTeamId: Id | null = auto?.[k]?.competitorTeamId ?? null;
      if (o.competitor !== undefined && o.competitor !== null) {
        const t = ctx.findTeam(ctx.league, o.competitor);
        if (!t) {
          bad(
            `outcomes[${k}].competitor`,
            `unknown team ${JSON.stringify(o.competitor)} in league ${ctx.league}`,
          );
          continue;
        }
        competitorTeamId = t.id;
      }
      outcomes.push({ description: o.description.trim(), id: o.id, competitorTeamId });
    }
  } else if (auto) {
    outcomes = auto;
  } else {
    bad('outcomes', `a ${type} market here needs its two outcomes listed`);
  }
  if (!ok || !outcomes) return null;

  const id = m.id ?? uuidFor('import', 'market', ctx.eventId, type, strike ?? '');
  const prefix = home && away ? `${away.symbol} @ ${home.symbol} ` : '';
  const description =
    m.description?.trim() ?? `${prefix}${DEFAULT_NAMES[type]}${strike === null ? '' : ` ${strike}`}`;
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
