// Futures of the demo slate: "Will the Chiefs win Super Bowl LXI?" — one YES_NO market each
// (outcome 0 = yes), for the two strongest teams (by seeded rating) of the NFL, NBA, NHL, MLB and
// EPL. The fair price is the team's share of title chances, a softmax over the league's ratings.
// The event's scheduledStart is when the title is decided (approximate, for sorting).

import { leagueInfo, teamRecords } from '../catalog/leagues.ts';
import type { CommandInput } from '../catalog/types.ts';
import type { Id, Team } from '../exchange/types.ts';
import { uuidFor } from '../ids.ts';
import type { DemoGameInfo } from './game-info.ts';
import type { DemoMarketInfo } from './game-markets.ts';
import { leagueModel, teamRating } from './rating-model.ts';

function roman(n: number): string {
  const table: [number, string][] = [
    [1000, 'M'],
    [900, 'CM'],
    [500, 'D'],
    [400, 'CD'],
    [100, 'C'],
    [90, 'XC'],
    [50, 'L'],
    [40, 'XL'],
    [10, 'X'],
    [9, 'IX'],
    [5, 'V'],
    [4, 'IV'],
    [1, 'I'],
  ];
  let out = '';
  for (const [v, s] of table) {
    while (n >= v) {
      out += s;
      n -= v;
    }
  }
  return out;
}

interface TitleSpec {
  league: string;
  /** Question and market description for a team. */
  question: (t: Team) => string;
  title: string;
  decidedAt: number;
}

/** The titles still to be decided as of `now` (seasons roll over by month). */
function titles(now: number): TitleSpec[] {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  // NFL season Y starts in September and ends with Super Bowl (Y − 1965) in February Y + 1.
  const nflSeason = month >= 3 ? y : y - 1;
  const sb = `Super Bowl ${roman(nflSeason - 1965)}`;
  const winterFinal = month >= 7 ? y + 1 : y; // NBA Finals / Stanley Cup in June
  const ws = month >= 11 ? y + 1 : y; // World Series in late October
  const eplStart = month >= 6 ? y : y - 1;
  const epl = `${eplStart}–${String((eplStart + 1) % 100).padStart(2, '0')} Premier League`;
  return [
    {
      league: 'NFL',
      title: sb,
      question: (t) => `Will the ${t.shortName} win ${sb}?`,
      decidedAt: Date.UTC(nflSeason + 1, 1, 14, 23, 30),
    },
    {
      league: 'NBA',
      title: `${winterFinal} NBA Finals`,
      question: (t) => `Will the ${t.shortName} win the ${winterFinal} NBA Finals?`,
      decidedAt: Date.UTC(winterFinal, 5, 20, 0, 30),
    },
    {
      league: 'NHL',
      title: `${winterFinal} Stanley Cup`,
      question: (t) => `Will the ${t.shortName} win the ${winterFinal} Stanley Cup?`,
      decidedAt: Date.UTC(winterFinal, 5, 18, 0, 0),
    },
    {
      league: 'MLB',
      title: `${ws} World Series`,
      question: (t) => `Will the ${t.shortName} win the ${ws} World Series?`,
      decidedAt: Date.UTC(ws, 9, 30, 0, 0),
    },
    {
      league: 'EPL',
      title: epl,
      question: (t) => `Will ${t.shortName} win the ${epl}?`,
      decidedAt: Date.UTC(eplStart + 1, 4, 24, 15, 0),
    },
  ];
}

/** Title chances from ratings: softmax of 1.3 × rating/ratingSd, clamped to [0.01, 0.6]. */
export function titleChance(seed: string, league: string, teamId: Id, teams: readonly Team[]): number {
  const sd = leagueModel(league).ratingSd;
  const w = (id: Id) => Math.exp((1.3 * teamRating(seed, league, id).rating) / sd);
  let sum = 0;
  for (const t of teams) sum += w(t.id);
  const p = w(teamId) / sum;
  return Math.min(0.6, Math.max(0.01, p));
}

export function futureEvents(
  seed: string,
  now: number,
  leagues?: readonly string[],
): { command: CommandInput; info: DemoGameInfo }[] {
  const out: { command: CommandInput; info: DemoGameInfo }[] = [];
  for (const spec of titles(now)) {
    if (leagues && !leagues.includes(spec.league)) continue;
    const teams = teamRecords(leagueInfo(spec.league)!);
    const ranked = teams
      .map((t) => ({ t, r: teamRating(seed, spec.league, t.id).rating }))
      .sort((a, b) => b.r - a.r || (a.t.id < b.t.id ? -1 : 1))
      .slice(0, 2);
    for (const { t } of ranked) {
      const key = `future:${spec.league}:${spec.title}:${t.symbol}`;
      const eventId = uuidFor(seed, 'event', key);
      const marketId = uuidFor(seed, 'market', key, 'YES_NO');
      const outcomeIds: [Id, Id] = [uuidFor(seed, 'outcome', key, 0), uuidFor(seed, 'outcome', key, 1)];
      const question = spec.question(t);
      const fair = titleChance(seed, spec.league, t.id, teams);
      const market: DemoMarketInfo = { marketId, type: 'YES_NO', strike: null, outcomeIds, fair };
      out.push({
        command: {
          type: 'CreateEvent',
          event: {
            id: eventId,
            type: 'Future',
            status: 'OPEN_PREGAME',
            description: question,
            league: spec.league,
            scheduledStart: spec.decidedAt,
            pregameVisible: true,
            liveVisible: false,
          },
          game: null,
          markets: [
            {
              id: marketId,
              type: 'YES_NO',
              strike: null,
              description: `${t.name} to win the ${spec.title}`.replace('the Super Bowl', 'Super Bowl'),
              outcomes: [
                { id: outcomeIds[0], description: 'Yes', competitorTeamId: t.id },
                { id: outcomeIds[1], description: 'No', competitorTeamId: null },
              ],
            },
          ],
        },
        info: {
          key,
          eventId,
          gameId: null,
          type: 'Future',
          league: spec.league,
          description: question,
          scheduledStart: spec.decidedAt,
          durationMs: 0,
          homeTeamId: null,
          awayTeamId: null,
          line: null,
          status: 'OPEN_PREGAME',
          score: null,
          markets: [market],
        },
      });
    }
  }
  return out;
}
