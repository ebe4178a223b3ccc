// Page-wide state shared by the explorer, the parlay slip and the trading panel.
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
