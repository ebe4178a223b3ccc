// Which games the board lists, in what order: games only (futures have no lines), the chosen
// league, a team search over names and symbols; live games first, then by start time. Pure.
import type { EventWire } from './api.ts';

export const LIVE_STATUSES: ReadonlySet<string> = new Set(['OPEN_INGAME', 'DELAYED']);

/** Live first, then by start time; a game's teams are searched by name and symbol. */
export function boardOrder(events: EventWire[], league: string, search: string): EventWire[] {
  const q = search.trim().toLowerCase();
  return events
    .filter((e) => e.game !== undefined && (league === '' || e.league === league))
    .filter((e) => {
      if (q === '') return true;
      const g = e.game!;
      return [e.description, g.homeTeam.name, g.awayTeam.name, g.homeTeam.symbol, g.awayTeam.symbol].some(
        (t) => t.toLowerCase().includes(q),
      );
    })
    .sort(
      (a, b) =>
        Number(LIVE_STATUSES.has(b.status)) - Number(LIVE_STATUSES.has(a.status)) ||
        a.scheduledStart.localeCompare(b.scheduledStart),
    );
}
