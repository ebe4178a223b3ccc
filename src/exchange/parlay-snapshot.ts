// The parlay section of a snapshot (snapshot.ts): the records in insertion order as one JSON value
// (written in slices), the collateral per currency, and the indexes rebuilt from the records on
// restore.

import type { BinReader, BinWriter } from './codec.ts';
import { claimKey } from './parlay-boosts.ts';
import { accountParlays, indexAdd, indexParlay, type ParlayState, wagerKey } from './parlay-state.ts';
import type { ExchangeState } from './state.ts';
import type { BoostClaimRecord, BoostRecord, ParlayRecord, ParlayRequestRecord } from './types.ts';

export const PARLAY_MAGIC = 'parlays/1';
/** The same section with boosts after it; written only once a boost exists (parlay-boosts.ts). */
export const PARLAY_BOOSTS_MAGIC = 'parlays/2';

/**
 * Work units of one record in the snapshot's slices (snapshot.ts counts one per account or
 * resting order): a record's JSON costs several times an account's few numbers.
 */
const RECORD_WORK = 4;

/** Records whose JSON the section's estimate reads, the first ones of each map. */
const SAMPLED = 8;

/**
 * Bytes the section's records will take, about: their counts times the longest JSON among the
 * first few records of each kind, with half more. The snapshot's buffer is sized with it, so that
 * it does not grow while the records are written: a growth copies everything written so far at
 * once, 50–100 ms for a section of tens of MB on the loaded machine. (A pass over every record to
 * find a better sample would cost milliseconds of the first slice itself.)
 */
export function parlaySectionBytes(p: ParlayState): number {
  const longest = (m: Map<string, unknown>): number => {
    let n = 0;
    let seen = 0;
    for (const r of m.values()) {
      n = Math.max(n, JSON.stringify(r).length);
      if (++seen === SAMPLED) break;
    }
    return n;
  };
  return Math.ceil(1.5 * (p.requests.size * longest(p.requests) + p.parlays.size * longest(p.parlays)));
}

/**
 * The section, yielding every `sliceWork` units as the snapshot's other sections do. Requests and
 * parlays are kept for good (docs/parlays.md "Reads and retention"), so this section grows with
 * every parlay ever made: written as one JSON.stringify it was one turn of the event loop of
 * ~0.1 s per 30,000 parlays, 0.4–1.7 s in the parlay bench's loaded server, every
 * SNAPSHOT_EVERY commands (docs/bench-parlay-trading.md "Fifth pass"). The value is written a
 * record at a time, with the same bytes as `w.json({requests: [...], parlays: [...]})`:
 * JSON.stringify writes an array's elements as it writes each alone, joined by commas, so the
 * state hash does not move.
 */
export function* writeParlays(w: BinWriter, p: ParlayState, sliceWork: number): Generator<void, void, void> {
  const boosts = p.boosts.size > 0;
  w.str(boosts ? PARLAY_BOOSTS_MAGIC : PARLAY_MAGIC);
  w.f64(p.collateral[0]!);
  w.f64(p.collateral[1]!);
  const at = w.strStart();
  let work = 0;
  for (const [open, records] of [
    ['{"requests":[', p.requests.values()],
    ['],"parlays":[', p.parlays.values()],
  ] as const) {
    w.strPart(open);
    let first = true;
    for (const r of records) {
      w.strPart(first ? JSON.stringify(r) : `,${JSON.stringify(r)}`);
      first = false;
      work += RECORD_WORK;
      if (work >= sliceWork) {
        work = 0;
        yield;
      }
    }
  }
  w.strPart(']}');
  w.strEnd(at);
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
