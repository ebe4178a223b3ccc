// Boost frames of the /tape stream (docs/stream.md "Channels", docs/parlays.md "Boosts"): the
// shared `boosts` channel announces a boost when an operator creates it and when one ends it early
// (a boost's natural end is its validTo, carried in the frame: no command marks it), and the
// private channel tells an account of each change of its own claims — a claim made, a claim used
// by a boosted fill — with the boost as that account sees it on GET /nbx/v1/boosts.

import type { BoostRecord, Id } from '../exchange/types.ts';
import { boostOfferToWire, traderBoostToWire } from '../wire/boosts.ts';
import type { FrameInput } from './channel-types.ts';
import { type BoostClaimData, type BoostData, envelope } from './messages.ts';

/** The `boosts` channel: a `boost` frame per boost a CreateBoost or an EndBoost changed. */
export function boostFrames({ cmd, events, journalSeq }: FrameInput): string[] | undefined {
  if (cmd.type !== 'CreateBoost' && cmd.type !== 'EndBoost') return undefined;
  const out: string[] = [];
  for (const e of events)
    if (e.kind === 'BoostChanged')
      out.push(envelope('boost', boostOfferToWire(e.boost, cmd.ts) satisfies BoostData, { journalSeq }));
  return out.length > 0 ? out : undefined;
}

/** The private `boostClaim` frames of one command, pushed to the account whose claim changed. */
export function privateBoostFrames(
  { reader, cmd, events, journalSeq }: FrameInput,
  push: (accountId: Id, frame: string) => void,
): void {
  // Only a claim and a boosted wager change claims: every other command (orders) leaves at once.
  if (cmd.type !== 'ClaimBoost' && cmd.type !== 'ParlayWager') return;
  let boosts: Map<Id, BoostRecord> | undefined;
  for (const e of events) {
    if (e.kind !== 'BoostClaimChanged') continue;
    // `reader` is the state right after this command: the boost as the command left it.
    boosts ??= new Map(reader.boosts().map((b) => [b.id, b]));
    const b = boosts.get(e.claim.boostId);
    if (b === undefined) continue;
    push(
      e.claim.accountId,
      envelope('boostClaim', traderBoostToWire(b, e.claim) satisfies BoostClaimData, { journalSeq }),
    );
  }
}
