// Shapes shared by the catalog's pure producers (demo slate, market maker, living demo, import).
// Everything here returns commands *without* `ts`: the sequencer stamps time (principle 2 of
// docs/architecture.md "Principles"), so a producer never reads a clock and stays deterministic.

export type { CommandInput } from '../exchange/types.ts';

/** A uniform random source on [0, 1). Seeded ones come from ./rng.ts; tests pass those. */
export type Rng = () => number;

/** Static data of one team or competitor, before it gets an id. */
export interface TeamSeed {
  name: string;
  shortName: string;
  symbol: string;
  mascot: string;
}
