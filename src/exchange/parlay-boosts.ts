// Parlay boosts (docs/parlays.md "Boosts"): an operator creates a boost (CreateBoost) funded by a
// named account and may end it early (EndBoost); a trader claims it (ClaimBoost, up to the boost's
// per-account limit); a request carrying a claimed boost is checked for eligibility here, and its
// fill (parlay-fills.ts) charges the taker the boosted price, pays the maker its quoted price and
// takes the difference — the boost's cost — from the funding account, so money is conserved.

import { BOOST_KINDS, boostPrice } from './boost-types.ts';
import { isSafePos, isStr, reject } from './command-checks.ts';
import { fillMoney, PARLAY_ENGINE_MAX_LEGS } from './parlay-state.ts';
import { accountOf, type Cmd, type ExchangeState, ok } from './state.ts';
import type { BoostClaimRecord, BoostRecord, CommandResult, Id, Money, Qty } from './types.ts';

/** The largest time value ECMAScript's Date represents (ECMA-262 §21.4.1.1). */
const MAX_TIME_MS = 8.64e15;
/** The largest odds multiplier, ppm (× 100). */
export const BOOST_MAX_MULTIPLIER = 100_000_000;

export const claimKey = (boostId: Id, accountId: Id): string => `${boostId}\u0000${accountId}`;

export function createBoost(s: ExchangeState, c: Cmd<'CreateBoost'>): CommandResult {
  if (!isStr(c.boostId)) return reject('VALIDATION_FAILED', 'boostId required');
  if (s.parlay.boosts.has(c.boostId)) return reject('ALREADY_EXISTS', `boost ${c.boostId} exists`);
  if (!BOOST_KINDS.includes(c.kind)) return reject('VALIDATION_FAILED', 'kind: PERCENT or MULTIPLIER');
  const v = c.value;
  const valueOk =
    Number.isSafeInteger(v) &&
    (c.kind === 'PERCENT' ? v > 0 && v < 1_000_000 : v > 1_000_000 && v <= BOOST_MAX_MULTIPLIER);
  if (!valueOk)
    return reject('VALIDATION_FAILED', 'value: PERCENT 1..999999 ppm, MULTIPLIER 1000001..100000000 ppm');
  if (
    !Array.isArray(c.leagues) ||
    c.leagues.length > 64 ||
    !c.leagues.every((l) => isStr(l) && l.length <= 16)
  )
    return reject('VALIDATION_FAILED', 'leagues: up to 64 league codes');
  if (!Number.isSafeInteger(c.minLegs) || c.minLegs < 2 || c.minLegs > PARLAY_ENGINE_MAX_LEGS)
    return reject('VALIDATION_FAILED', `minLegs: 2..${PARLAY_ENGINE_MAX_LEGS}`);
  if (c.maxStake !== null && !isSafePos(c.maxStake))
    return reject('INVALID_AMOUNT', 'maxStake: positive Money or null');
  const timeOk = (t: number) => Number.isSafeInteger(t) && t >= 0 && t <= MAX_TIME_MS;
  if (!timeOk(c.validFrom) || !timeOk(c.validTo) || c.validTo <= c.validFrom || c.validTo <= c.ts)
    return reject('VALIDATION_FAILED', 'validity: validFrom < validTo, validTo after now');
  if (!isSafePos(c.claimLimit) || c.claimLimit > 1_000_000)
    return reject('VALIDATION_FAILED', 'claimLimit: 1..1000000');
  if (typeof c.fundingAccountId !== 'string' || !s.accountIdx.has(c.fundingAccountId))
    return reject('ACCOUNT_NOT_FOUND', 'funding account not found', { fundingAccountId: c.fundingAccountId });
  const b: BoostRecord = {
    id: c.boostId,
    kind: c.kind,
    value: v,
    leagues: [...c.leagues],
    minLegs: c.minLegs,
    maxStake: c.maxStake,
    validFrom: c.validFrom,
    validTo: c.validTo,
    claimLimit: c.claimLimit,
    fundingAccountId: c.fundingAccountId,
    createdAt: c.ts,
    endedAt: null,
    fills: 0,
    cost: [0, 0],
  };
  s.parlay.boosts.set(b.id, b);
  boostChanged(s, b);
  return ok(s);
}

export function endBoost(s: ExchangeState, c: Cmd<'EndBoost'>): CommandResult {
  const b = typeof c.boostId === 'string' ? s.parlay.boosts.get(c.boostId) : undefined;
  if (b === undefined) return reject('BOOST_NOT_FOUND');
  const why = inactive(b, c.ts);
  if (why !== null) return reject(why);
  b.endedAt = c.ts;
  boostChanged(s, b);
  return ok(s);
}

export function claimBoost(s: ExchangeState, c: Cmd<'ClaimBoost'>): CommandResult {
  const accountIndex = accountOf(s, c);
  if (accountIndex === undefined) return reject('ACCOUNT_NOT_FOUND');
  const b = typeof c.boostId === 'string' ? s.parlay.boosts.get(c.boostId) : undefined;
  if (b === undefined) return reject('BOOST_NOT_FOUND');
  const why = inactive(b, c.ts);
  if (why !== null) return reject(why);
  const accountId = s.accounts[accountIndex]!.id;
  const key = claimKey(b.id, accountId);
  const claim = s.parlay.boostClaims.get(key);
  if ((claim?.claimed ?? 0) >= b.claimLimit)
    return reject('BOOST_CLAIM_LIMIT', `at most ${b.claimLimit} claims per account`, {
      claimLimit: b.claimLimit,
    });
  const next: BoostClaimRecord = claim ?? { boostId: b.id, accountId, claimed: 0, used: 0 };
  next.claimed++;
  s.parlay.boostClaims.set(key, next);
  if (s.emitEvents) s.ev.push({ kind: 'BoostClaimChanged', claim: { ...next } });
  return ok(s);
}

/** Why the boost cannot be used at `ts`, or null when it is valid. */
export function inactive(b: BoostRecord, ts: number): 'BOOST_NOT_STARTED' | 'BOOST_EXPIRED' | null {
  if (ts < b.validFrom) return 'BOOST_NOT_STARTED';
  if (ts >= b.validTo || (b.endedAt !== null && ts >= b.endedAt)) return 'BOOST_EXPIRED';
  return null;
}

/**
 * A boost the account may use now: known, valid, with a claim not yet used, for a parlay of these
 * leagues and legs and (when known) this stake — or the rejection.
 */
export function usableBoost(
  s: ExchangeState,
  boostId: unknown,
  accountId: Id,
  leagues: readonly string[],
  stake: Money | null,
  ts: number,
): BoostRecord | CommandResult {
  const b = typeof boostId === 'string' ? s.parlay.boosts.get(boostId) : undefined;
  if (b === undefined) return reject('BOOST_NOT_FOUND', undefined, { boostId });
  const why = inactive(b, ts);
  if (why !== null) return reject(why, undefined, { boostId: b.id });
  const claim = s.parlay.boostClaims.get(claimKey(b.id, accountId));
  if (claim === undefined || claim.used >= claim.claimed)
    return reject('BOOST_NOT_CLAIMED', 'no unused claim of this boost', { boostId: b.id });
  if (leagues.length < b.minLegs)
    return reject('BOOST_MIN_LEGS', `the boost needs at least ${b.minLegs} legs`, { minLegs: b.minLegs });
  if (b.leagues.length > 0) {
    const off = leagues.filter((l) => !b.leagues.includes(l));
    if (off.length > 0)
      return reject('BOOST_LEAGUE_INELIGIBLE', `the boost is for ${b.leagues.join(', ')}`, {
        leagues: b.leagues,
      });
  }
  if (stake !== null && b.maxStake !== null && stake > b.maxStake)
    return reject('BOOST_MAX_STAKE', 'stake above the boost’s maximum', { maxStake: b.maxStake });
  return b;
}

/**
 * The money of a boosted fill of `qty` payout on a quote at `quotePrice` (docs/parlays.md "Boosts"):
 * the taker pays the boosted price's stake and its fee as at that price, the maker locks the
 * collateral of its own quoted price, and the boost's cost makes up the payout:
 * takerStake + boostCost + makerCollateral = payout.
 */
export function boostedFillMoney(
  b: BoostRecord,
  quotePrice: number,
  qty: Qty,
  moneyPerMcu: number,
): { payout: Money; stake: Money; collateral: Money; fee: Money; boostCost: Money; price: number } {
  const price = boostPrice(b.kind, b.value, quotePrice);
  const taker = fillMoney(price, qty, moneyPerMcu);
  const maker = fillMoney(quotePrice, qty, moneyPerMcu);
  return {
    payout: taker.payout,
    stake: taker.stake,
    collateral: maker.collateral,
    fee: taker.fee,
    boostCost: taker.payout - taker.stake - maker.collateral,
    price,
  };
}

/** A boosted fill used the taker's claim: one claim fewer, the boost's tallies grow. */
export function useBoost(
  s: ExchangeState,
  b: BoostRecord,
  accountId: Id,
  currencyIndex: number,
  cost: Money,
): void {
  const claim = s.parlay.boostClaims.get(claimKey(b.id, accountId))!;
  claim.used++;
  b.fills++;
  b.cost[currencyIndex]! += cost;
  if (s.emitEvents) s.ev.push({ kind: 'BoostClaimChanged', claim: { ...claim } });
  boostChanged(s, b);
}

function boostChanged(s: ExchangeState, b: BoostRecord): void {
  if (s.emitEvents) s.ev.push({ kind: 'BoostChanged', boost: boostView(b) });
}

export const boostView = (b: BoostRecord): BoostRecord => ({
  ...b,
  leagues: [...b.leagues],
  cost: [b.cost[0], b.cost[1]],
});
