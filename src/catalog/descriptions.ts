// How catalog text is written: a game's description and a signed strike, shared by the importer
// (import.ts) and the demo slate (src/demo) so both name games and spread outcomes alike.

import type { Team } from '../exchange/types.ts';

/** "-2.5", "+2.5", "0". */
export function signed(x: number): string {
  return x > 0 ? `+${x}` : x < 0 ? `${x}` : '0';
}

/** "Away @ Home", the production API's game description. */
export function gameDescription(home: Team, away: Team): string {
  return `${away.name} @ ${home.name}`;
}
