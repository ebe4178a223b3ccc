// How a running game's period and clock read on the board: "Q2 12:05", "P3 4:10", "2nd half
// 31:00", "Inning 7", "Hole 12", from the GraphQL `game.period` and `time_remaining` (the engine's
// game clock, docs/graphql.md). Pure.

const QUARTERS = new Set(['NFL', 'NCAAF', 'NBA']);
const HALVES = new Set(['NCAAB', 'MLS', 'EPL']);

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

/** The period in the league's words, with the time left when there is a clock; '' when unknown. */
export function clockText(
  league: string,
  period: number | null | undefined,
  timeRemaining?: string | null,
): string {
  if (period === null || period === undefined) return '';
  const name = QUARTERS.has(league)
    ? `Q${period}`
    : HALVES.has(league)
      ? `${ordinal(period)} half`
      : league === 'NHL'
        ? `P${period}`
        : league === 'MLB'
          ? `Inning ${period}`
          : league === 'PGA'
            ? `Hole ${period}`
            : league === 'UFC'
              ? `Round ${period}`
              : `Period ${period}`;
  return timeRemaining ? `${name} ${timeRemaining}` : name;
}
