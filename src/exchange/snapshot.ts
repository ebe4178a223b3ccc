// Snapshot, restore and hash: the whole state as canonical bytes (independent of handle numbers), its
// SHA-256, and rebuilding a state from the bytes (principle 2 of docs/architecture.md "Principles"; docs/journal.md).

import { createHash } from 'node:crypto';
import { newAccount } from './accounts.ts';
import {
  CLIENT_ORDER_IDS_SECTION,
  readClientOrderIds,
  writeClientOrderIds,
} from './client-order-ids-snapshot.ts';
import { BinReader, BinWriter } from './codec.ts';
import { IdIndex } from './id-index.ts';
import { MMP_SECTION, readMmp, writeMmp } from './mmp-snapshot.ts';
import {
  F_CREATED_AT,
  F_EXPIRES_AT,
  F_ORIGINAL_QTY,
  F_QTY,
  F_SEQ_NO,
  F_UPDATED_AT,
  FW,
  I_ACCOUNT,
  I_BOOK,
  I_LEVEL,
  I_SIDE,
  I_TIF,
  IW,
  OrderPool,
  PROTECTED,
  TIF_MASK,
} from './order-pool.ts';
import {
  PARLAY_BOOSTS_MAGIC,
  PARLAY_MAGIC,
  parlaySectionBytes,
  readParlays,
  writeParlays,
} from './parlay-snapshot.ts';
import { PLACED_TERMS_SECTION, readPlacedTerms, writePlacedTerms } from './placed-terms.ts';
import { newPos } from './positions.ts';
import { book, link, rebuildExpiries } from './resting-orders.ts';
import { ExchangeState, WALLET_RESERVED, WALLET_SLOTS } from './state.ts';
import type { EventRecord, Game, League, MarketRecord, OutcomeRecord, Team, TradingLock } from './types.ts';

const SNAPSHOT_MAGIC = 'tickbook-exchange/1';

/**
 * The whole state as canonical bytes: everything is written in an order that depends only on the
 * command history (insertion order of catalog/accounts/locks; resting orders in acceptance order),
 * never on handle numbers, so replay and snapshot→restore give identical bytes.
 */
export function snapshot(s: ExchangeState): Uint8Array {
  const it = snapshotSlices(s, Number.POSITIVE_INFINITY);
  let step = it.next();
  while (!step.done) step = it.next();
  return step.value;
}

/** Default work per slice of snapshotSlices: a few ms of encoding (measured, docs/journal.md). */
export const SNAPSHOT_SLICE_WORK = 2_000;

/**
 * The same bytes as snapshot(), produced in slices: the generator yields after about `sliceWork`
 * units of work (one unit per account, position, client order id or resting order) and returns
 * the bytes when done. The caller may run other work between slices (docs/journal.md,
 * "Snapshots"), provided nothing mutates the state until the generator has returned: the bytes
 * must show one state, the one at the snapshot's seq. snapshot() is this generator run without
 * pauses, so both give identical bytes by construction.
 */
export function* snapshotSlices(
  s: ExchangeState,
  sliceWork: number = SNAPSHOT_SLICE_WORK,
): Generator<void, Uint8Array, void> {
  // Sized from the state so the buffer (almost) never grows: a growth copies everything written
  // so far in one go, the longest pause of a sliced snapshot when it happened near the end.
  // allocUnsafe does not touch the pages, so the margin costs address space, not memory.
  let entries = 0;
  let clientOrders = 0;
  for (const a of s.accounts) {
    entries += a.positions.size;
    clientOrders += a.clientOrders.size;
  }
  const w = new BinWriter(
    (1 << 16) +
      s.accounts.length * 96 +
      entries * 24 +
      clientOrders * 160 +
      s.pool.size * 192 +
      s.placedTerms.size * 128 +
      parlaySectionBytes(s.parlay),
  );
  let work = 0;
  w.str(SNAPSHOT_MAGIC);
  for (const v of [s.lastSeq, s.catalogVersion, s.feePpm, s.orderSeq]) w.f64(v);
  for (const arr of [s.deposits, s.withdrawals, s.fees, s.paidOut]) {
    w.f64(arr[0]!);
    w.f64(arr[1]!);
  }
  w.json({
    leagues: [...s.leagueMap.values()],
    teams: [...s.teamMap.values()],
    games: [...s.gameMap.values()],
    events: [...s.eventMap.values()],
    markets: s.markets.map((m) => [m.rec, m.outcomes, m.collateral]),
    bookSeqs: s.bookSeqs,
    locks: [...s.lockMap.values()],
  });
  w.u32(s.accounts.length);
  for (const a of s.accounts) {
    w.str(a.id);
    w.f64(s.wallets[a.idx * WALLET_SLOTS + 0]!);
    w.f64(s.wallets[a.idx * WALLET_SLOTS + 1]!);
    w.f64(s.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + 0]!);
    w.f64(s.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + 1]!);
    w.u32(a.positions.size);
    for (const p of a.positions.values()) {
      w.f64(p.key);
      w.f64(p.size);
      w.f64(p.cost);
    }
    w.u32(a.clientOrders.size);
    for (const [k, v] of a.clientOrders) {
      w.str(k);
      w.str(v);
    }
    work += 1 + a.positions.size + a.clientOrders.size;
    if (work >= sliceWork) {
      work = 0;
      yield;
    }
  }
  const pool = s.pool;
  const live = yield* liveInAcceptanceOrderSlices(s, sliceWork);
  w.u32(live.length);
  for (let i = 0; i < live.length; i++) {
    const h = live[i]!;
    w.str(s.orderIdx.idOf(h));
    w.u32(pool.i32[h * IW + I_ACCOUNT]!);
    w.u32(pool.i32[h * IW + I_BOOK]!);
    w.u8(pool.i32[h * IW + I_SIDE]!);
    w.u8(pool.i32[h * IW + I_TIF]! & (TIF_MASK | PROTECTED));
    w.u32(pool.i32[h * IW + I_LEVEL]!);
    w.f64(pool.f64[h * FW + F_QTY]!);
    w.f64(pool.f64[h * FW + F_ORIGINAL_QTY]!);
    w.f64(pool.f64[h * FW + F_CREATED_AT]!);
    w.f64(pool.f64[h * FW + F_UPDATED_AT]!);
    w.f64(pool.f64[h * FW + F_EXPIRES_AT]!);
    w.f64(pool.f64[h * FW + F_SEQ_NO]!);
    w.strOrNull(pool.flags.get(h));
    w.strOrNull(pool.clientOrderId.get(h));
    if (++work >= sliceWork) {
      work = 0;
      yield;
    }
  }
  writeMmp(s, w);
  yield* writePlacedTerms(s, w, sliceWork);
  writeClientOrderIds(s, w);
  // Parlays (parlay-state.ts), after everything else and only once a request was ever made: a state
  // without parlays keeps its bytes, and so its hash, from before parlays existed.
  if (!s.parlay.empty) yield* writeParlays(w, s.parlay, sliceWork);
  return w.bytes();
}

/**
 * Live handles in acceptance order (ascending F_SEQ_NO, unique per order): the canonical order of
 * snapshots, and the order `restore` links them in. Orders used to sit on a global list in this
 * order, but unlinking from it cost two random cache misses per fill or cancel on the hot path;
 * sorting here costs little next to encoding the bytes. A live handle has qty > 0 (release zeroes
 * it). Keys pack (seq, handle) into one exact double when they fit, so the sort is a native
 * numeric sort; otherwise a comparator sort gives the same order.
 */
export function liveInAcceptanceOrder(s: ExchangeState): Int32Array {
  const it = liveInAcceptanceOrderSlices(s, Number.POSITIVE_INFINITY);
  let step = it.next();
  while (!step.done) step = it.next();
  return step.value;
}

/**
 * liveInAcceptanceOrder in slices: the keys are sorted in runs of `sliceWork` (one native sort
 * per slice), then the runs are merged, yielding every `sliceWork` keys. Keys are unique, so the
 * merge gives exactly the order of one sort.
 */
function* liveInAcceptanceOrderSlices(
  s: ExchangeState,
  sliceWork: number,
): Generator<void, Int32Array, void> {
  const pool = s.pool;
  const f64 = pool.f64;
  const cap = pool.capacity; // every handle is < capacity
  const out = new Int32Array(pool.size);
  let k = 0;
  if ((s.orderSeq + 1) * cap <= Number.MAX_SAFE_INTEGER) {
    const keys = new Float64Array(pool.size);
    for (let h = 0; h < pool.top; h++)
      if (f64[h * FW + F_QTY]! > 0) keys[k++] = f64[h * FW + F_SEQ_NO]! * cap + h;
    if (k !== out.length) throw new Error(`order pool: ${k} live handles, size ${out.length}`);
    const run = Math.max(1, Math.min(k, sliceWork * 4));
    if (run >= k) {
      keys.sort();
      for (let i = 0; i < k; i++) out[i] = keys[i]! % cap;
      return out;
    }
    const starts: number[] = [];
    for (let from = 0; from < k; from += run) {
      keys.subarray(from, Math.min(k, from + run)).sort();
      starts.push(from);
      yield;
    }
    // k-way merge of the sorted runs (few: one per `run` keys), a linear scan of their heads.
    const heads = starts.slice();
    const ends = starts.map((from) => Math.min(k, from + run));
    let work = 0;
    for (let i = 0; i < k; i++) {
      let best = -1;
      let bestKey = Number.POSITIVE_INFINITY;
      for (let r = 0; r < heads.length; r++) {
        if (heads[r]! < ends[r]! && keys[heads[r]!]! < bestKey) {
          bestKey = keys[heads[r]!]!;
          best = r;
        }
      }
      heads[best]!++;
      out[i] = bestKey % cap;
      if (++work >= sliceWork * 4) {
        work = 0;
        yield;
      }
    }
    return out;
  }
  for (let h = 0; h < pool.top; h++) if (f64[h * FW + F_QTY]! > 0) out[k++] = h;
  if (k !== out.length) throw new Error(`order pool: ${k} live handles, size ${out.length}`);
  out.sort((x, y) => f64[x * FW + F_SEQ_NO]! - f64[y * FW + F_SEQ_NO]!);
  return out;
}

/** A new state from a snapshot's bytes (the caller replaces its state with it). */
export function restore(bytes: Uint8Array, emitEvents: boolean, recordHandles: boolean): ExchangeState {
  const r = new BinReader(bytes);
  if (r.str() !== SNAPSHOT_MAGIC) throw new Error('not an exchange snapshot');
  const fresh = new ExchangeState(emitEvents, recordHandles);
  fresh.lastSeq = r.f64();
  fresh.catalogVersion = r.f64();
  fresh.feePpm = r.f64();
  fresh.orderSeq = r.f64();
  for (const arr of [fresh.deposits, fresh.withdrawals, fresh.fees, fresh.paidOut]) {
    arr[0] = r.f64();
    arr[1] = r.f64();
  }
  const cat = r.json<{
    leagues: League[];
    teams: Team[];
    games: Game[];
    events: EventRecord[];
    markets: [MarketRecord, [OutcomeRecord, OutcomeRecord], [number, number]][];
    bookSeqs: number[];
    locks: TradingLock[];
  }>();
  for (const l of cat.leagues) fresh.leagueMap.set(l.code, l);
  for (const t of cat.teams) fresh.teamMap.set(t.id, t);
  for (const g of cat.games) fresh.gameMap.set(g.id, g);
  for (const e of cat.events) {
    fresh.eventMap.set(e.id, e);
    if (e.gameId) fresh.gameEvent.set(e.gameId, e.id);
  }
  for (const [rec, outs, coll] of cat.markets) {
    const idx = fresh.markets.length;
    fresh.markets.push({
      idx,
      rec,
      event: fresh.eventMap.get(rec.eventId)!,
      outcomes: outs,
      collateral: coll,
    });
    fresh.marketIdx.set(rec.id, idx);
    outs.forEach((o, i) => {
      fresh.outcomeMap.set(o.id, o);
      fresh.outcomeRef.set(o.id, idx * 2 + i);
    });
    fresh.books.push(undefined, undefined);
    fresh.bookStamp.push(0, 0);
  }
  fresh.bookSeqs = cat.bookSeqs;
  for (const l of cat.locks) fresh.lockMap.set(l.id, l);
  const nAcc = r.u32();
  for (let i = 0; i < nAcc; i++) {
    const a = newAccount(fresh, r.str());
    fresh.wallets[a.idx * WALLET_SLOTS + 0] = r.f64();
    fresh.wallets[a.idx * WALLET_SLOTS + 1] = r.f64();
    fresh.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + 0] = r.f64();
    fresh.wallets[a.idx * WALLET_SLOTS + WALLET_RESERVED + 1] = r.f64();
    const np = r.u32();
    for (let j = 0; j < np; j++) {
      const key = r.f64();
      const size = r.f64();
      newPos(a, key, size, r.f64());
    }
    const nc = r.u32();
    for (let j = 0; j < nc; j++) a.clientOrders.set(r.str(), r.str());
  }
  const nOrd = r.u32();
  let cap = 1024;
  while (cap < nOrd) cap *= 2;
  const pool = new OrderPool(cap);
  fresh.pool = pool;
  fresh.orderIdx = new IdIndex(pool);
  for (let i = 0; i < nOrd; i++) {
    const h = pool.alloc();
    const idHash = fresh.orderIdx.key(r.str());
    pool.i32[h * IW + I_ACCOUNT] = r.u32();
    pool.i32[h * IW + I_BOOK] = r.u32();
    pool.i32[h * IW + I_SIDE] = r.u8();
    pool.i32[h * IW + I_TIF] = r.u8();
    pool.i32[h * IW + I_LEVEL] = r.u32();
    pool.f64[h * FW + F_QTY] = r.f64();
    pool.f64[h * FW + F_ORIGINAL_QTY] = r.f64();
    pool.f64[h * FW + F_CREATED_AT] = r.f64();
    pool.f64[h * FW + F_UPDATED_AT] = r.f64();
    pool.f64[h * FW + F_EXPIRES_AT] = r.f64();
    pool.f64[h * FW + F_SEQ_NO] = r.f64();
    const f = r.strOrNull();
    if (f !== null) pool.flags.set(h, f);
    const co = r.strOrNull();
    if (co !== null) pool.clientOrderId.set(h, co);
    fresh.orderIdx.insertKey(idHash, h); // after I_TIF (it adds ID_STR there)
    link(fresh, h, book(fresh, pool.i32[h * IW + I_BOOK]!), fresh.accounts[pool.i32[h * IW + I_ACCOUNT]!]!);
  }
  // Optional trailing sections, each tagged and written only when its state exists, so a state
  // without them keeps its bytes (and hash) from before they existed.
  while (!r.done()) {
    const at = r.off;
    const tag = r.str();
    r.off = at;
    if (tag === MMP_SECTION) readMmp(fresh, r);
    else if (tag === PLACED_TERMS_SECTION) readPlacedTerms(fresh, r);
    else if (tag === CLIENT_ORDER_IDS_SECTION) readClientOrderIds(fresh, r);
    else if (tag === PARLAY_MAGIC || tag === PARLAY_BOOSTS_MAGIC) readParlays(r, fresh);
    else throw new Error('snapshot: unknown section');
  }
  if (!r.done()) throw new Error('snapshot has trailing bytes');
  rebuildExpiries(fresh);
  return fresh;
}

/** SHA-256 (hex) of the canonical snapshot: equal hashes ⇔ identical state. */
export function hash(s: ExchangeState): string {
  return createHash('sha256').update(snapshot(s)).digest('hex');
}
