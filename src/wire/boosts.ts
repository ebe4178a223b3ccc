// Parlay boosts on the wire (docs/parlays.md "Boosts"): values as fractions or multipliers, money in
// currency units, times as ISO strings.

import type { BoostClaimRecord, BoostRecord } from '../exchange/types.ts';
import { moneyToUnits } from '../exchange/units.ts';
import { isoMillis, isoOrNull } from './names.ts';

/** Whether the boost is valid at `now` (inside [validFrom, validTo) and not ended). */
export const boostActive = (b: BoostRecord, now: number): boolean =>
  now >= b.validFrom && now < b.validTo && (b.endedAt === null || now < b.endedAt);

function common(b: BoostRecord) {
  return {
    id: b.id,
    kind: b.kind,
    value: b.value / 1_000_000,
    leagues: b.leagues,
    minLegs: b.minLegs,
    maxStake: b.maxStake === null ? null : moneyToUnits(b.maxStake),
    validFrom: isoMillis(b.validFrom),
    validTo: isoMillis(b.validTo),
    endedAt: isoOrNull(b.endedAt),
    claimLimit: b.claimLimit,
  };
}

export function boostToWire(b: BoostRecord, now: number) {
  return {
    ...common(b),
    fundingAccountId: b.fundingAccountId,
    createdAt: isoMillis(b.createdAt),
    active: boostActive(b, now),
    fills: b.fills,
    cost: { CASH: moneyToUnits(b.cost[0]), COIN: moneyToUnits(b.cost[1]) },
  };
}

export function traderBoostToWire(b: BoostRecord, claim: BoostClaimRecord | undefined) {
  const claimed = claim?.claimed ?? 0;
  const used = claim?.used ?? 0;
  return {
    ...common(b),
    claimed,
    used,
    remainingClaims: b.claimLimit - claimed,
    available: claimed - used,
  };
}

/**
 * A boost as every trader sees it on the stream's `boosts` channel (docs/stream.md): the offer
 * without its funding account or tallies, and whether it is valid at `now` (the command's time).
 */
export function boostOfferToWire(b: BoostRecord, now: number) {
  return { ...common(b), active: boostActive(b, now) };
}
