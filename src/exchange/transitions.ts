// Allowed event status transitions (docs/exchange.md), as data. Anything not listed is
// INVALID_TRANSITION. CANCELED is reachable from every non-final state; FINAL and CANCELED are final.
// DELAYED → FINAL is allowed too: a suspended game can be called final without resuming.

import type { EventStatus } from './types.ts';

export const EVENT_TRANSITIONS: Readonly<Record<EventStatus, readonly EventStatus[]>> = {
  INITIAL: ['OPEN_PREGAME', 'CANCELED'],
  OPEN_PREGAME: ['CLOSED_PREGAME', 'OPEN_INGAME', 'CANCELED'],
  CLOSED_PREGAME: ['OPEN_PREGAME', 'OPEN_INGAME', 'CANCELED'],
  OPEN_INGAME: ['DELAYED', 'FINAL', 'CANCELED'],
  DELAYED: ['OPEN_INGAME', 'FINAL', 'CANCELED'],
  FINAL: [],
  CANCELED: [],
};

export function canTransition(from: EventStatus, to: EventStatus): boolean {
  return EVENT_TRANSITIONS[from].includes(to);
}

/** The game status that mirrors an event status (Game.status is derived, never set directly). */
export function gameStatusFor(
  s: EventStatus,
): 'SCHEDULED' | 'IN_PROGRESS' | 'DELAYED' | 'FINAL' | 'CANCELED' {
  switch (s) {
    case 'OPEN_INGAME':
      return 'IN_PROGRESS';
    case 'DELAYED':
      return 'DELAYED';
    case 'FINAL':
      return 'FINAL';
    case 'CANCELED':
      return 'CANCELED';
    default:
      return 'SCHEDULED';
  }
}
