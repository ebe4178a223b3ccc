// Parlay boosts in the exchange's domain contract (docs/parlays.md "Boosts"): an operator's offer of
// a better parlay price, funded by a named operator account, that traders claim and then use on a
// request. Re-exported by types.ts (which imports this file, never the other way round).
//
// A boost's value is an integer in parts per million: for PERCENT the share of the price taken off
// (100_000 = 10 %), for MULTIPLIER the factor on the decimal odds (1_250_000 = × 1.25).

import type { Id, Millis, Money } from './vocabulary.ts';

export const BOOST_KINDS = ['PERCENT', 'MULTIPLIER'] as const;
export type BoostKind = (typeof BOOST_KINDS)[number];

/** A boost's terms, as CreateBoost states them and the record keeps them. */
export interface BoostTerms {
  kind: BoostKind;
  /** Parts per million (see above). */
  value: number;
  /** League codes a leg must belong to; empty = every league. */
  leagues: string[];
  /** Fewest legs a boosted parlay has. */
  minLegs: number;
  /** Largest taker stake (Money) a boosted wager may put up, or null. */
  maxStake: Money | null;
  /** Valid over [validFrom, validTo). */
  validFrom: Millis;
  validTo: Millis;
  /** Claims one account may make (each claim boosts one fill). */
  claimLimit: number;
  /** The operator account that pays the boost's cost at each fill. */
  fundingAccountId: Id;
}

export interface BoostRecord extends BoostTerms {
  id: Id;
  createdAt: Millis;
  /** Set by EndBoost: the boost stops being valid from then on. */
  endedAt: Millis | null;
  /** Fills boosted so far, and their total cost per currency (Money, [CASH, COIN]). */
  fills: number;
  cost: [Money, Money];
}

/** One account's claims of one boost. */
export interface BoostClaimRecord {
  boostId: Id;
  accountId: Id;
  /** Claims made (≤ the boost's claimLimit). */
  claimed: number;
  /** Claims used by boosted fills (≤ claimed). */
  used: number;
}

interface Base {
  ts: Millis;
}

export type BoostCommand =
  | (Base & BoostTerms & { type: 'CreateBoost'; boostId: Id })
  | (Base & { type: 'EndBoost'; boostId: Id })
  | (Base & { type: 'ClaimBoost'; boostId: Id; accountId: Id; ah?: number });

export type BoostEvent =
  | { kind: 'BoostChanged'; boost: BoostRecord }
  | { kind: 'BoostClaimChanged'; claim: BoostClaimRecord };

/** Ledger kind of the boost's cost, paid by the funding account at a boosted fill. */
export type BoostLedgerKind = 'FILL_PARLAY_BOOST_FUNDS';

/** Parts per million (prices and boost values). */
const PPM = 1_000_000;

/**
 * The boosted price of a parlay priced `price` ppm (docs/parlays.md "Boosts"), integers only:
 * PERCENT p' = floor(p × (1e6 − value) / 1e6); MULTIPLIER p' = floor(p × 1e6 / value) (the decimal
 * odds 1/p times value/1e6). Rounded down — in the taker's favour, the funding account pays the
 * rounding — and at least 1 ppm.
 */
export function boostPrice(kind: BoostKind, value: number, price: number): number {
  const p =
    kind === 'PERCENT'
      ? Math.floor((price * (PPM - value)) / PPM) // < 2^53: price, value < 1e6
      : Math.floor((price * PPM) / value);
  return Math.max(1, p);
}
