// Page-wide state shared by the explorer, the parlay slip and the trading panel.
import type { OddsMode } from './format.ts';
import type { Boost } from './parlay-bet.ts';
import { Store } from './store.ts';

export interface Leg {
  outcomeId: string;
  label: string;
}

/** The parlay slip's legs, in the order they were added. */
export const slip = new Store<Leg[]>([]);

export function toggleLeg(leg: Leg): void {
  slip.update((legs) =>
    legs.some((l) => l.outcomeId === leg.outcomeId)
      ? legs.filter((l) => l.outcomeId !== leg.outcomeId)
      : [...legs, leg],
  );
}

/** What the order ticket is set to (filled by clicking a ladder price). */
export interface Ticket {
  outcomeId: string;
  label: string;
  price: number;
}
export const ticket = new Store<Ticket | undefined>(undefined);

/** Bumped after the viewer's own order or cancel, so the open page refetches at once. */
export const ownAction = new Store<number>(0);

export const signedIn = new Store<string | undefined>(undefined);

/** The boosts the server offers the trader; undefined when it has no boosts route (or signed out). */
export const boosts = new Store<Boost[] | undefined>(undefined);

/** Bumped when the trader places a parlay, so "My parlays" reads again at once. */
export const myParlaysChanged = new Store<number>(0);

const ODDS_KEY = 'tickbook.odds';

function savedOdds(): OddsMode {
  try {
    const v = localStorage.getItem(ODDS_KEY);
    return v === 'american' || v === 'decimal' ? v : 'probability';
  } catch {
    return 'probability';
  }
}

/** How prices are shown, remembered across visits (a storage that refuses just forgets it). */
export const oddsMode = new Store<OddsMode>(savedOdds());
oddsMode.subscribe((m) => {
  try {
    localStorage.setItem(ODDS_KEY, m);
  } catch {
    // Private mode or storage off: the choice lasts for this page only.
  }
});
