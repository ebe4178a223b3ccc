// The parlay section of a snapshot (snapshot.ts): the records in insertion order as one JSON value,
// the collateral per currency, and the indexes rebuilt from the records on restore.

import type { BinReader, BinWriter } from './codec.ts';
import { claimKey } from './parlay-boosts.ts';
import { accountParlays, indexAdd, indexParlay, type ParlayState, wagerKey } from './parlay-state.ts';
import type { ExchangeState } from './state.ts';
import type { BoostClaimRecord, BoostRecord, ParlayRecord, ParlayRequestRecord } from './types.ts';

export const PARLAY_MAGIC = 'parlays/1';
/** The same section with boosts after it; written only once a boost exists (parlay-boosts.ts). */
export const PARLAY_BOOSTS_MAGIC = 'parlays/2';

export function writeParlays(w: BinWriter, p: ParlayState): void {
  const boosts = p.boosts.size > 0;
  w.str(boosts ? PARLAY_BOOSTS_MAGIC : PARLAY_MAGIC);
  w.f64(p.collateral[0]!);
  w.f64(p.collateral[1]!);
  w.json({ requests: [...p.requests.values()], parlays: [...p.parlays.values()] });
  if (boosts) w.json({ boosts: [...p.boosts.values()], claims: [...p.boostClaims.values()] });
}

export function readParlays(r: BinReader, fresh: ExchangeState): void {
  const magic = r.str();
  if (magic !== PARLAY_MAGIC && magic !== PARLAY_BOOSTS_MAGIC) throw new Error('snapshot: unknown section');
  const p = fresh.parlay;
  p.collateral[0] = r.f64();
  p.collateral[1] = r.f64();
  const body = r.json<{ requests: ParlayRequestRecord[]; parlays: ParlayRecord[] }>();
  if (magic === PARLAY_BOOSTS_MAGIC) {
    const b = r.json<{ boosts: BoostRecord[]; claims: BoostClaimRecord[] }>();
    for (const x of b.boosts) p.boosts.set(x.id, x);
    for (const x of b.claims) p.boostClaims.set(claimKey(x.boostId, x.accountId), x);
  }
  for (const q of body.requests) {
    p.requests.set(q.id, q);
    accountParlays(p, q.accountId).requests.push(q.id);
    if (q.status === 'Unfilled') {
      p.open.set(q.id, q);
      for (const leg of q.legs) indexAdd(p.openByMarket, fresh.marketIdx.get(leg.marketId)!, q.id);
    }
  }
  for (const x of body.parlays) {
    p.parlays.set(x.id, x);
    if (x.clientOrderId !== null) p.clientWagers.set(wagerKey(x.takerAccountId, x.clientOrderId), x.id);
    indexParlay(p, x, (marketId) => fresh.marketIdx.get(marketId)!);
  }
  // parlays still due on a settled market (a snapshot between two SettleParlays chunks)
  for (const m of p.liveByMarket.keys()) if (fresh.markets[m]!.rec.status === 'SETTLED') p.due.add(m);
}
