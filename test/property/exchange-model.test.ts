// Model-based property test (fast-check): random command sequences run through the
// engine and through a deliberately simple reference model (plain arrays, sorting and filtering, no
// linked lists, handles or caches). After every step both must agree on acceptance, rejection code,
// wallets, positions and every book in priority order, and the engine must keep its invariants:
// money conserved, books never crossed, no negative balance, reserved = cost of resting orders, and
// snapshot→restore reproduces the hash. Amends and mass quotes run against the model's own rule
// of queue priority (a seqNo kept or renewed, docs/exchange.md "Amend and queue priority"), so the
// books compared in priority order check that priority is kept or lost exactly as specified (a restored twin in replay mode, without events, keeps
// receiving the same commands and must keep the same hash). At the end, replaying the accepted commands into a fresh Exchange gives the same hash.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Exchange } from '../../src/exchange/exchange.ts';
import { isTick } from '../../src/exchange/ticks.ts';
import { EVENT_TRANSITIONS } from '../../src/exchange/transitions.ts';
import type { Command, CommandResult, Currency, EventStatus, TimeInForce } from '../../src/exchange/types.ts';
import { feeDenominator, feeNumerator, maxTakerFee, roundHalfUp } from '../../src/exchange/units.ts';
import { assertInvariants, setup, T0 } from '../exchange/fixtures.ts';

const ACCOUNTS = ['a0', 'a1', 'a2', 'a3'];
const MARKETS = ['M1', 'M2'];
const CURS: Currency[] = ['CASH', 'COIN'];
const K = [1, 100]; // Money per tick·MCU
const UNIT = [1_000, 100_000]; // Money per MCU

interface MOrder {
  id: string;
  acct: string;
  m: number;
  side: number;
  cur: number;
  tick: number;
  qty: number;
  seqNo: number;
  expiresAt: number | null;
}
interface MPos {
  acct: string;
  m: number;
  side: number;
  cur: number;
  size: number;
  cost: number;
}

/** The reference model: same rules, simplest possible data. */
class Model {
  av: Record<string, number[]> = {};
  res: Record<string, number[]> = {};
  orders: MOrder[] = [];
  pos: MPos[] = [];
  coll = [
    [0, 0],
    [0, 0],
  ];
  eventStatus: EventStatus = 'OPEN_PREGAME';
  marketStatus = ['OPEN', 'OPEN'];
  locks: { id: string; expiresAt: number | null }[] = [];
  feePpm = 30_000;
  seqNo = 0;
  /** Time in force of each order that rested (an amend re-enters with it). */
  tifOf = new Map<string, TimeInForce>();
  /** The idempotency window (docs/exchange.md "Idempotency window"): keys by account in two
   * generations, the key of each keyed order, and when the current generation began (-1: none). */
  keys: Record<string, { cur: Map<string, string>; old: Map<string, string> }> = {};
  keyOf = new Map<string, string>();
  keysSince = -1;

  constructor() {
    for (const a of ACCOUNTS) {
      this.av[a] = [0, 0];
      this.res[a] = [0, 0];
      this.keys[a] = { cur: new Map(), old: new Map() };
    }
  }

  private cancel(o: MOrder): void {
    const c = o.tick * o.qty * K[o.cur]!;
    this.res[o.acct]![o.cur]! -= c;
    this.av[o.acct]![o.cur]! += c;
    this.orders = this.orders.filter((x) => x !== o);
  }

  private cancelMarket(m: number): void {
    for (const o of this.orders.filter((x) => x.m === m)) this.cancel(o);
  }

  private addPos(acct: string, m: number, side: number, cur: number, size: number, cost: number): void {
    let p = this.pos.find((x) => x.acct === acct && x.m === m && x.side === side && x.cur === cur);
    if (!p) {
      p = { acct, m, side, cur, size: 0, cost: 0 };
      this.pos.push(p);
    }
    p.size += size;
    p.cost += cost;
    const o = this.pos.find((x) => x.acct === acct && x.m === m && x.side !== side && x.cur === cur);
    if (!o) return;
    const pairs = Math.min(p.size, o.size);
    for (const x of [p, o]) {
      x.cost -= x.size === pairs ? x.cost : Math.floor((x.cost * pairs) / x.size);
      x.size -= pairs;
    }
    this.av[acct]![cur]! += pairs * UNIT[cur]!;
    this.coll[m]![cur]! -= pairs * UNIT[cur]!;
    this.pos = this.pos.filter((x) => x.size > 0);
  }

  private settle(m: number, win: number): void {
    this.cancelMarket(m);
    for (let cur = 0; cur < 2; cur++) {
      const holders = ACCOUNTS.flatMap((a) =>
        [0, 1].flatMap((side) =>
          this.pos.filter((p) => p.acct === a && p.m === m && p.side === side && p.cur === cur),
        ),
      );
      const pool = this.coll[m]![cur]!;
      const sumCost = holders.reduce((s, p) => s + p.cost, 0);
      const pays = holders.map((p) =>
        win >= 0
          ? p.side === win
            ? p.size * UNIT[cur]!
            : 0
          : sumCost > 0
            ? Math.floor((p.cost * pool) / sumCost)
            : 0,
      );
      let left = pool - pays.reduce((s, x) => s + x, 0);
      if (win < 0) for (let i = 0; left > 0 && i < pays.length; i++, left--) pays[i]!++;
      holders.forEach((p, i) => {
        this.av[p.acct]![cur]! += pays[i]!;
      });
      this.pos = this.pos.filter((p) => !(p.m === m && p.cur === cur));
      this.coll[m]![cur] = 0;
    }
    this.marketStatus[m] = 'SETTLED';
  }

  apply(c: Command): string | null {
    switch (c.type) {
      case 'Deposit':
        this.av[c.accountId]![CURS.indexOf(c.currency)]! += c.amount;
        return null;
      case 'Withdraw': {
        const ci = CURS.indexOf(c.currency);
        if (this.av[c.accountId]![ci]! < c.amount) return 'INSUFFICIENT_FUNDS';
        this.av[c.accountId]![ci]! -= c.amount;
        return null;
      }
      case 'CancelOrder': {
        const o = this.orders.find((x) => x.id === c.orderId && x.acct === c.accountId);
        if (!o) return 'ORDER_NOT_FOUND';
        this.cancel(o);
        return null;
      }
      case 'CancelOrders':
        for (const o of this.orders.filter((x) => x.acct === c.accountId)) this.cancel(o);
        return null;
      case 'Expire':
        for (const o of this.orders.filter((x) => x.expiresAt !== null && x.expiresAt <= c.ts))
          this.cancel(o);
        this.locks = this.locks.filter((l) => l.expiresAt === null || l.expiresAt > c.ts);
        return null;
      case 'SetLock':
        if (this.locks.length > 0) return 'ALREADY_EXISTS'; // the generator only sets the system lock
        this.locks.push({ id: c.lock.id, expiresAt: c.lock.expiresAt });
        return null;
      case 'ClearLock':
        if (!this.locks.some((l) => l.id === c.lockId)) return 'LOCK_NOT_FOUND';
        this.locks = this.locks.filter((l) => l.id !== c.lockId);
        return null;
      case 'SetEventStatus': {
        if (!EVENT_TRANSITIONS[this.eventStatus].includes(c.status)) return 'INVALID_TRANSITION';
        this.eventStatus = c.status;
        if (['OPEN_INGAME', 'FINAL', 'CANCELED'].includes(c.status))
          for (const m of [0, 1]) this.cancelMarket(m);
        if (c.status === 'CANCELED')
          for (const m of [0, 1]) if (this.marketStatus[m] !== 'SETTLED') this.settle(m, -1);
        return null;
      }
      case 'SetMarketStatus': {
        const m = MARKETS.indexOf(c.marketId);
        if (this.marketStatus[m] === 'SETTLED') return 'ALREADY_SETTLED';
        if (this.marketStatus[m] === c.status) return 'INVALID_TRANSITION';
        this.marketStatus[m] = c.status;
        if (c.status === 'CLOSED') this.cancelMarket(m);
        return null;
      }
      case 'SettleMarket': {
        const m = MARKETS.indexOf(c.marketId);
        if (this.marketStatus[m] === 'SETTLED') return 'ALREADY_SETTLED';
        if (
          this.marketStatus[m] !== 'CLOSED' &&
          this.eventStatus !== 'FINAL' &&
          this.eventStatus !== 'CANCELED'
        ) {
          return 'INVALID_TRANSITION';
        }
        const win = c.result === 'PUSH' ? -1 : [`${c.marketId}-a`, `${c.marketId}-b`].indexOf(c.result);
        if (c.result !== 'PUSH' && win < 0) return 'OUTCOME_NOT_FOUND';
        this.settle(m, win);
        return null;
      }
      case 'PlaceOrder': {
        const r = this.place(c);
        if (r === null && c.clientOrderId) {
          this.keys[c.accountId]!.cur.set(c.clientOrderId, c.orderId);
          this.keyOf.set(c.orderId, c.clientOrderId);
        }
        return r;
      }
      case 'AmendOrder':
        return this.amend(c);
      case 'ExpireClientOrderIds':
        return this.expireKeys(c);
      case 'MassQuote':
        return this.massQuote(c);
      default:
        throw new Error(`model: unexpected ${c.type}`);
    }
  }

  /** The generator's max exceeds every key the model can hold, so a sweep empties the older
   * generation in one command: which keys a partial sweep reaches is the unit test's subject. */
  private expireKeys(c: Extract<Command, { type: 'ExpireClientOrderIds' }>): string | null {
    if (c.max < 1 || c.max > 100_000) return 'VALIDATION_FAILED';
    if (this.keysSince >= 0 && c.ts - this.keysSince < c.windowMs) return 'VALIDATION_FAILED';
    const accounts = Object.values(this.keys);
    if (accounts.some((k) => k.old.size > 0)) {
      for (const k of accounts) {
        for (const [key, id] of k.old) if (this.orders.some((o) => o.id === id)) k.cur.set(key, id);
        k.old.clear();
      }
      return null;
    }
    if (this.keysSince >= 0) {
      for (const k of accounts) {
        k.old = k.cur;
        k.cur = new Map();
      }
    }
    this.keysSince = c.ts;
    return null;
  }

  keyed(a: string, key: string): string | null {
    return this.keys[a]!.cur.get(key) ?? this.keys[a]!.old.get(key) ?? null;
  }

  private tradingRefusal(m: number, ts: number): string | null {
    if (this.marketStatus[m] !== 'OPEN') return 'MARKET_NOT_OPEN';
    if (this.eventStatus !== 'OPEN_PREGAME' && this.eventStatus !== 'OPEN_INGAME')
      return 'EVENT_NOT_TRADABLE';
    if (this.locks.some((l) => l.expiresAt === null || l.expiresAt > ts)) return 'TRADING_LOCKED';
    return null;
  }

  /** docs/exchange.md "Amend and queue priority": a smaller qty at the same price keeps seqNo;
   * anything else is the order cancelled and placed again under its id (a new seqNo). */
  private amend(c: Extract<Command, { type: 'AmendOrder' }>): string | null {
    const o = this.orders.find((x) => x.id === c.orderId && x.acct === c.accountId);
    if (!o) return 'ORDER_NOT_FOUND';
    if (c.price === undefined && c.qty === undefined) return 'VALIDATION_FAILED';
    const price = c.price ?? o.tick;
    const qty = c.qty ?? o.qty;
    if (!isTick(price)) return 'INVALID_PRICE';
    if (!Number.isSafeInteger(qty) || qty <= 0) return 'INVALID_QTY';
    if (price === o.tick && qty === o.qty) return 'AMEND_NO_CHANGE';
    const refused = this.tradingRefusal(o.m, c.ts);
    if (refused) return refused;
    if (price === o.tick && qty < o.qty) {
      const release = o.tick * (o.qty - qty) * K[o.cur]!;
      this.res[o.acct]![o.cur]! -= release;
      this.av[o.acct]![o.cur]! += release;
      o.qty = qty;
      return null;
    }
    if (o.expiresAt !== null && o.expiresAt <= c.ts) return 'ORDER_NOT_FOUND';
    const tif = this.tifOf.get(o.id) ?? 'GTC';
    const crossing = this.orders.some(
      (x) => x.m === o.m && x.cur === o.cur && x.side !== o.side && x.tick + price >= 1000,
    );
    if (tif === 'PO' && crossing) return 'POST_ONLY_WOULD_TAKE';
    const live = this.eventStatus === 'OPEN_INGAME' && this.feePpm > 0;
    const cap = live ? maxTakerFee(this.feePpm, price, qty, CURS[o.cur]!) : 0;
    if (this.av[o.acct]![o.cur]! + o.tick * o.qty * K[o.cur]! < price * qty * K[o.cur]! + cap)
      return 'INSUFFICIENT_FUNDS';
    this.cancel(o);
    const r = this.place({
      type: 'PlaceOrder',
      ts: c.ts,
      orderId: o.id,
      accountId: o.acct,
      outcomeId: `${MARKETS[o.m]}-${o.side ? 'b' : 'a'}`,
      currency: CURS[o.cur]!,
      price,
      qty,
      tif,
      ...(o.expiresAt !== null ? { ttl: o.expiresAt - c.ts } : {}),
    });
    assert.equal(r, null, 'model: a re-queue the checks passed was refused');
    const key = this.keyOf.get(o.id);
    if (key !== undefined) {
      // re-queued: the engine maps the key again, in the current generation
      this.keys[o.acct]!.old.delete(key);
      this.keys[o.acct]!.cur.delete(key);
      this.keys[o.acct]!.cur.set(key, o.id);
    }
    return null;
  }

  /** docs/exchange.md "Mass quotes", on plain arrays. */
  private massQuote(c: Extract<Command, { type: 'MassQuote' }>): string | null {
    const ci = CURS.indexOf(c.currency);
    const m = MARKETS.indexOf(c.marketId);
    if (m < 0) return 'MARKET_NOT_FOUND';
    const refused = this.tradingRefusal(m, c.ts);
    if (refused) return refused;
    const sides: number[] = c.quotes.map((q) => (q.outcomeId === `${c.marketId}-a` ? 0 : 1));
    const want: { price: number; qty: number; orderId: string }[][] = [[], []];
    c.quotes.forEach((q, k) => {
      want[sides[k]!] = q.levels;
    });
    for (const q of c.quotes) {
      if (q.levels.length > 10) return 'VALIDATION_FAILED';
      for (const l of q.levels) {
        if (!isTick(l.price)) return 'INVALID_PRICE';
        if (l.qty > 0 && this.orders.some((x) => x.id === l.orderId)) return 'ALREADY_EXISTS';
      }
    }
    const mine = (side: number) =>
      this.orders
        .filter((x) => x.acct === c.accountId && x.m === m && x.cur === ci && x.side === side)
        .sort((x, y) => x.seqNo - y.seqNo);
    const top = [0, 1].map((side) =>
      sides.includes(side)
        ? Math.max(-1, ...want[side]!.filter((l) => l.qty > 0).map((l) => l.price))
        : Math.max(-1, ...mine(side).map((x) => x.tick)),
    );
    if (top[0]! >= 0 && top[1]! >= 0 && top[0]! + top[1]! >= 1000) return 'POST_ONLY_WOULD_TAKE';
    for (const side of sides) {
      const t = top[side]!;
      if (
        t >= 0 &&
        this.orders.some(
          (x) => x.acct !== c.accountId && x.m === m && x.cur === ci && x.side !== side && x.tick + t >= 1000,
        )
      )
        return 'POST_ONLY_WOULD_TAKE';
    }
    let need = 0;
    for (const side of sides) {
      for (const x of mine(side)) need -= x.tick * x.qty * K[ci]!;
      for (const l of want[side]!) need += l.price * l.qty * K[ci]!;
    }
    if (need > this.av[c.accountId]![ci]!) return 'INSUFFICIENT_FUNDS';
    const reserve = (price: number, qty: number) => {
      this.av[c.accountId]![ci]! -= price * qty * K[ci]!;
      this.res[c.accountId]![ci]! += price * qty * K[ci]!;
    };
    for (const side of [0, 1]) {
      if (!sides.includes(side)) continue;
      const kept = new Map<number, MOrder>();
      for (const x of mine(side)) {
        const l = want[side]!.find((w) => w.price === x.tick);
        if (!l || l.qty === 0 || kept.has(x.tick)) this.cancel(x);
        else kept.set(x.tick, x);
      }
      for (const l of want[side]!) {
        const x = kept.get(l.price);
        if (x && l.qty < x.qty) {
          reserve(x.tick, l.qty - x.qty);
          x.qty = l.qty;
        }
      }
    }
    for (const side of [0, 1]) {
      if (!sides.includes(side)) continue;
      for (const l of want[side]!) {
        if (l.qty === 0) continue;
        const x = mine(side).find((o) => o.tick === l.price);
        if (x && l.qty === x.qty) continue;
        if (x) {
          reserve(x.tick, l.qty - x.qty);
          x.qty = l.qty;
          x.seqNo = this.seqNo++; // more qty: to the back of the level
        } else {
          reserve(l.price, l.qty);
          this.orders.push({
            id: l.orderId,
            acct: c.accountId,
            m,
            side,
            cur: ci,
            tick: l.price,
            qty: l.qty,
            seqNo: this.seqNo++,
            expiresAt: null,
          });
        }
      }
    }
    return null;
  }

  private place(c: Extract<Command, { type: 'PlaceOrder' }>): string | null {
    const ci = CURS.indexOf(c.currency);
    if (!isTick(c.price)) return 'INVALID_PRICE';
    if (!Number.isSafeInteger(c.qty) || c.qty <= 0) return 'INVALID_QTY';
    if (c.clientOrderId && this.keyed(c.accountId, c.clientOrderId) !== null)
      return 'DUPLICATE_CLIENT_ORDER_ID';
    const [mid, o] = c.outcomeId.split('-');
    const m = MARKETS.indexOf(mid!);
    if (m < 0 || (o !== 'a' && o !== 'b')) return 'OUTCOME_NOT_FOUND';
    const side = o === 'a' ? 0 : 1;
    if (this.marketStatus[m] !== 'OPEN') return 'MARKET_NOT_OPEN';
    if (this.eventStatus !== 'OPEN_PREGAME' && this.eventStatus !== 'OPEN_INGAME')
      return 'EVENT_NOT_TRADABLE';
    if (this.locks.some((l) => l.expiresAt === null || l.expiresAt > c.ts)) return 'TRADING_LOCKED';
    const live = this.eventStatus === 'OPEN_INGAME' && this.feePpm > 0;
    const cost = c.price * c.qty * K[ci]!;
    const cap = live ? maxTakerFee(this.feePpm, c.price, c.qty, c.currency) : 0;
    if (this.av[c.accountId]![ci]! < cost + cap) return 'INSUFFICIENT_FUNDS';
    const book = this.orders
      .filter((x) => x.m === m && x.cur === ci && x.side !== side && x.tick + c.price >= 1000)
      .sort((x, y) => y.tick - x.tick || x.seqNo - y.seqNo);
    if (c.tif === 'PO' && book.length > 0) return 'POST_ONLY_WOULD_TAKE';
    if (c.tif === 'FOK') {
      let got = 0;
      for (const x of book) {
        if (x.acct === c.accountId) break;
        got += x.qty;
      }
      if (got < c.qty) return 'FOK_NOT_FILLED';
    }
    const a = c.accountId;
    this.av[a]![ci]! -= cost + cap;
    this.res[a]![ci]! += cost + cap;
    let rem = c.qty;
    let washed = false;
    let feeNum = 0n;
    let feeSoFar = 0;
    for (const mk of book) {
      if (rem === 0) break;
      if (mk.acct === a) {
        this.cancel(mk);
        washed = true;
        break;
      }
      const q = mk.tick;
      const f = Math.min(rem, mk.qty);
      this.res[mk.acct]![ci]! -= q * f * K[ci]!;
      this.res[a]![ci]! -= c.price * f * K[ci]!;
      this.av[a]![ci]! += (c.price - (1000 - q)) * f * K[ci]!;
      this.coll[m]![ci]! += f * UNIT[ci]!;
      if (live) {
        feeNum += feeNumerator(this.feePpm, 1000 - q, f);
        const total = roundHalfUp(feeNum, feeDenominator(c.currency));
        this.res[a]![ci]! -= total - feeSoFar;
        feeSoFar = total;
      }
      this.addPos(mk.acct, m, 1 - side, ci, f, q * f * K[ci]!);
      this.addPos(a, m, side, ci, f, (1000 - q) * f * K[ci]!);
      rem -= f;
      mk.qty -= f;
      if (mk.qty === 0) this.orders = this.orders.filter((x) => x !== mk);
    }
    this.res[a]![ci]! -= cap - feeSoFar;
    this.av[a]![ci]! += cap - feeSoFar;
    const seqNo = this.seqNo++;
    if (rem > 0 && !washed && (c.tif === 'GTC' || c.tif === 'GTT' || c.tif === 'PO')) {
      this.tifOf.set(c.orderId, c.tif);
      this.orders.push({
        id: c.orderId,
        acct: a,
        m,
        side,
        cur: ci,
        tick: c.price,
        qty: rem,
        seqNo,
        expiresAt: c.tif === 'GTT' ? c.ts + (c.ttl ?? 0) : null,
      });
    } else if (rem > 0) {
      this.res[a]![ci]! -= c.price * rem * K[ci]!;
      this.av[a]![ci]! += c.price * rem * K[ci]!;
    }
    return null;
  }
}

// ------------------------------------------------------------------ command generators

const TICK_CHOICES = [1, 50, 300, 400, 450, 450, 500, 500, 500, 550, 550, 600, 700, 950, 999];
const BAD_TICKS = [502, 0, 1000, 500.5];
const TIF_CHOICES: TimeInForce[] = ['GTC', 'GTC', 'GTT', 'IOC', 'FOK', 'PO'];
const STATUS_CHOICES: EventStatus[] = [
  'OPEN_PREGAME',
  'CLOSED_PREGAME',
  'OPEN_INGAME',
  'OPEN_INGAME',
  'DELAYED',
  'FINAL',
  'CANCELED',
];

/** `md`: the model before the step, for commands that aim at a resting order (amends). */
type Gen = (i: number, md?: Model) => Command;
/** Labels a generator so a counterexample prints as data, not as function source. */
const named = (label: string, f: Gen): Gen => Object.assign(f, { [fc.toStringMethod]: () => label });
const acct = fc.constantFrom(...ACCOUNTS);
/** A few idempotency keys, so that repeats (duplicates) and the window's ageing both happen. */
const KEYS = ['k1', 'k2', 'k3', 'k4'];
const cur = fc.constantFrom<Currency>('CASH', 'CASH', 'CASH', 'COIN');
const outcome = fc.oneof(
  { weight: 19, arbitrary: fc.constantFrom('M1-a', 'M1-b', 'M2-a', 'M2-b') },
  { weight: 1, arbitrary: fc.constant('M3-a') },
);

const place = fc
  .record({
    a: acct,
    o: outcome,
    c: cur,
    p: fc.oneof(
      { weight: 19, arbitrary: fc.constantFrom(...TICK_CHOICES) },
      { weight: 1, arbitrary: fc.constantFrom(...BAD_TICKS) },
    ),
    q: fc.oneof(
      { weight: 30, arbitrary: fc.integer({ min: 1, max: 60 }) },
      { weight: 1, arbitrary: fc.constantFrom(0, -3, 2.5) },
      { weight: 1, arbitrary: fc.constant(200_000) },
    ),
    tif: fc.constantFrom(...TIF_CHOICES),
    ttl: fc.integer({ min: 1, max: 40 }),
    key: fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...KEYS) },
    ),
  })
  .map((r) =>
    named(`place ${JSON.stringify(r)}`, (i) => ({
      type: 'PlaceOrder',
      ts: T0 + i,
      orderId: `o${i}`,
      accountId: r.a,
      outcomeId: r.o,
      currency: r.c,
      price: r.p,
      qty: r.q,
      tif: r.tif,
      ...(r.tif === 'GTT' ? { ttl: r.ttl } : {}),
      ...(r.key !== null ? { clientOrderId: r.key } : {}),
    })),
  );
const cancel = fc.record({ a: acct, back: fc.integer({ min: 1, max: 12 }) }).map((r) =>
  named(`cancel ${JSON.stringify(r)}`, (i) => ({
    type: 'CancelOrder',
    ts: T0 + i,
    accountId: r.a,
    orderId: `o${Math.max(0, i - r.back)}`,
  })),
);
const cancelAll = acct.map((a) =>
  named(`cancelAll ${a}`, (i) => ({ type: 'CancelOrders', ts: T0 + i, accountId: a, scope: 'all' })),
);
const money = fc
  .record({ a: acct, c: cur, amt: fc.integer({ min: 1, max: 3_000_000 }), w: fc.boolean() })
  .map((r) =>
    named(`money ${JSON.stringify(r)}`, (i) => ({
      type: r.w ? 'Withdraw' : 'Deposit',
      ts: T0 + i,
      accountId: r.a,
      currency: r.c,
      amount: r.amt,
    })),
  );
const status = fc
  .constantFrom(...STATUS_CHOICES)
  .map((s) => named(`event ${s}`, (i) => ({ type: 'SetEventStatus', ts: T0 + i, eventId: 'E1', status: s })));
const mstatus = fc
  .record({ m: fc.constantFrom(...MARKETS), s: fc.constantFrom('OPEN' as const, 'CLOSED' as const) })
  .map((r) =>
    named(`market ${r.m} ${r.s}`, (i) => ({
      type: 'SetMarketStatus',
      ts: T0 + i,
      marketId: r.m,
      status: r.s,
    })),
  );
const settle = fc
  .record({ m: fc.constantFrom(...MARKETS), r: fc.constantFrom('a', 'b', 'PUSH', 'x') })
  .map((r) =>
    named(`settle ${r.m} ${r.r}`, (i) => ({
      type: 'SettleMarket',
      ts: T0 + i,
      marketId: r.m,
      result: r.r === 'PUSH' ? 'PUSH' : r.r === 'x' ? 'M9-a' : `${r.m}-${r.r}`,
    })),
  );
const expire = fc.constant(named('expire', (i) => ({ type: 'Expire', ts: T0 + i })));
const expireKeys = fc
  .record({
    w: fc.integer({ min: 1, max: 30 }),
    bad: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  })
  .map((r) =>
    named(`expireKeys ${JSON.stringify(r)}`, (i) => ({
      type: 'ExpireClientOrderIds',
      ts: T0 + i,
      windowMs: r.w,
      max: r.bad ? 0 : 100_000,
    })),
  );
const lock = fc
  .record({ set: fc.boolean(), ttl: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }) })
  .map((r) =>
    named(`lock ${JSON.stringify(r)}`, (i) =>
      r.set
        ? {
            type: 'SetLock',
            ts: T0 + i,
            lock: {
              id: `L${i}`,
              eventId: null,
              reason: 'test',
              createdAt: T0 + i,
              expiresAt: r.ttl === null ? null : T0 + i + r.ttl,
            },
          }
        : { type: 'ClearLock', ts: T0 + i, lockId: `L${i - 3}` },
    ),
  );

const amend = fc
  .record({
    a: acct,
    back: fc.integer({ min: 1, max: 12 }),
    quote: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
    p: fc.option(
      fc.oneof(
        { weight: 19, arbitrary: fc.constantFrom(...TICK_CHOICES) },
        { weight: 1, arbitrary: fc.constant(502) },
      ),
      {
        nil: undefined,
      },
    ),
    q: fc.option(
      fc.oneof(
        { weight: 19, arbitrary: fc.integer({ min: 1, max: 60 }) },
        { weight: 1, arbitrary: fc.constant(0) },
      ),
      {
        nil: undefined,
      },
    ),
  })
  .map((r) =>
    named(`amend ${JSON.stringify(r)}`, (i, md) => {
      // Mostly a resting order of its own account (the model's, before this step), else any id.
      const resting = md?.orders ?? [];
      const target =
        r.back < 11 && resting.length > 0 ? resting[(r.back * 7 + i) % resting.length] : undefined;
      return {
        type: 'AmendOrder',
        ts: T0 + i,
        accountId: target?.acct ?? r.a,
        orderId: target?.id ?? `o${Math.max(0, i - r.back)}${r.quote === null ? '' : `-${r.quote}`}`,
        ...(r.p !== undefined ? { price: r.p } : {}),
        ...(r.q !== undefined ? { qty: r.q } : {}),
      };
    }),
  );
const QUOTE_TICKS = [300, 400, 450, 500, 550];
const levels = fc.uniqueArray(
  fc.record({
    p: fc.oneof(
      { weight: 29, arbitrary: fc.constantFrom(...QUOTE_TICKS) },
      { weight: 1, arbitrary: fc.constant(502) },
    ),
    q: fc.oneof(
      { weight: 5, arbitrary: fc.integer({ min: 1, max: 40 }) },
      { weight: 1, arbitrary: fc.constant(0) },
    ),
  }),
  { maxLength: 4, selector: (l) => l.p },
);
const massQuote = fc
  .record({
    a: acct,
    m: fc.constantFrom(...MARKETS),
    c: cur,
    sides: fc.constantFrom(['a'], ['b'], ['a', 'b'], ['b', 'a']),
    a0: levels,
    b0: levels,
  })
  .map((r) =>
    named(`massQuote ${JSON.stringify(r)}`, (i) => ({
      type: 'MassQuote',
      ts: T0 + i,
      accountId: r.a,
      marketId: r.m,
      currency: r.c,
      quotes: r.sides.map((sd) => ({
        outcomeId: `${r.m}-${sd}`,
        levels: (sd === 'a' ? r.a0 : r.b0).map((l, k) => ({
          price: l.p,
          qty: l.q,
          orderId: `o${i}-${sd === 'a' ? k : k + 4}`,
        })),
      })),
    })),
  );

const step = fc.oneof(
  { weight: 40, arbitrary: place },
  { weight: 4, arbitrary: cancel },
  { weight: 1, arbitrary: cancelAll },
  { weight: 5, arbitrary: money },
  { weight: 1, arbitrary: status },
  { weight: 1, arbitrary: mstatus },
  { weight: 1, arbitrary: settle },
  { weight: 2, arbitrary: expire },
  { weight: 2, arbitrary: expireKeys },
  { weight: 1, arbitrary: lock },
  { weight: 8, arbitrary: amend },
  { weight: 6, arbitrary: massQuote },
);

// ------------------------------------------------------------------ comparison helpers

function engineView(x: Exchange) {
  const wallets = ACCOUNTS.map((a) => CURS.map((c) => x.wallet(a, c)));
  const positions = ACCOUNTS.flatMap((a) =>
    x.positions(a).map((p) => `${a}:${p.outcomeId}:${p.currency}:${p.size}:${p.cost}`),
  ).sort();
  const books = MARKETS.flatMap((m) =>
    ['a', 'b'].flatMap((s) =>
      CURS.map((c) => x.restingOrders(`${m}-${s}`, c).map((o) => `${o.id}:${o.price}:${o.qty}`)),
    ),
  );
  const keys = ACCOUNTS.flatMap((a) => KEYS.map((k) => x.orderIdForClientOrderId(a, k) ?? null));
  return { wallets, positions, books, keys };
}

function modelView(md: Model) {
  const wallets = ACCOUNTS.map((a) =>
    [0, 1].map((ci) => ({ available: md.av[a]![ci], reserved: md.res[a]![ci] })),
  );
  const positions = md.pos
    .map((p) => `${p.acct}:${MARKETS[p.m]}-${p.side ? 'b' : 'a'}:${CURS[p.cur]}:${p.size}:${p.cost}`)
    .sort();
  const books = MARKETS.flatMap((_, m) =>
    [0, 1].flatMap((side) =>
      [0, 1].map((ci) =>
        md.orders
          .filter((o) => o.m === m && o.side === side && o.cur === ci)
          .sort((x, y) => y.tick - x.tick || x.seqNo - y.seqNo)
          .map((o) => `${o.id}:${o.tick}:${o.qty}`),
      ),
    ),
  );
  const keys = ACCOUNTS.flatMap((a) => KEYS.map((k) => md.keyed(a, k)));
  return { wallets, positions, books, keys };
}

/** The shared invariants (money conserved, wallets non-negative, reserved = resting cost), plus:
 * every account has both wallets (the shared check skips missing ones) and no book is crossed. */
function checkInvariants(x: Exchange): void {
  assertInvariants(x, ACCOUNTS);
  for (const c of CURS) {
    for (const a of ACCOUNTS) assert.ok(x.wallet(a, c), `missing wallet ${a} ${c}`);
    for (const m of MARKETS) {
      const { bids, asks } = x.bookLevels(m, c);
      if (bids.length && asks.length) assert.ok(bids[0]!.price < asks[0]!.price, `crossed book ${m} ${c}`);
    }
  }
}

function fresh(): { x: Exchange; boot: Command[] } {
  const boot: Command[] = ACCOUNTS.map((a) => ({ type: 'CreateAccount', ts: T0, accountId: a }));
  const x = setup('OPEN_PREGAME', []);
  for (const c of boot) assert.ok(x.apply(c).ok);
  // Funded so most orders are affordable (CASH ≈ 50 Cash, COIN ≈ 5000 Coin), some are not.
  const funding: Command[] = ACCOUNTS.flatMap((a) => [
    { type: 'Deposit', ts: T0, accountId: a, currency: 'CASH', amount: 5_000_000 },
    { type: 'Deposit', ts: T0, accountId: a, currency: 'COIN', amount: 500_000_000 },
  ]);
  return { x, boot: funding };
}

test('engine agrees with the reference model under random command sequences', () => {
  fc.assert(
    fc.property(
      fc.array(step, { minLength: 20, maxLength: 150 }),
      fc.integer({ min: 0, max: 99 }),
      (gens, seed) => {
        const { x, boot } = fresh();
        const md = new Model();
        for (const c of boot) {
          assert.ok(x.apply(c).ok);
          md.apply(c);
        }
        // The twin runs in replay mode (no events): it must keep the same state hash anyway.
        let twin = new Exchange({ events: false });
        twin.restore(x.snapshot());
        const accepted: Command[] = [];
        // Finale: close and settle both markets, so payouts run after every random history.
        const results = ['a', 'b', 'PUSH'];
        const finale: Gen[] = MARKETS.flatMap((m, k): Gen[] => [
          (i) => ({ type: 'SetMarketStatus', ts: T0 + i, marketId: m, status: 'CLOSED' }),
          (i) => {
            const r = results[(seed + k) % 3];
            return {
              type: 'SettleMarket',
              ts: T0 + i,
              marketId: m,
              result: r === 'PUSH' ? 'PUSH' : `${m}-${r}`,
            };
          },
        ]);
        [...gens, ...finale].forEach((g, i) => {
          const c = g(i + 1, md);
          const want = md.apply(c);
          const r: CommandResult = x.apply(c);
          assert.equal(
            r.ok ? null : r.code,
            want,
            `step ${i} ${c.type}: engine ${r.ok ? 'ok' : r.code}, model ${want}`,
          );
          if (r.ok) accepted.push(c);
          const rt = twin.apply(c);
          assert.equal(rt.ok, r.ok);
          if (rt.ok) assert.equal(rt.events.length, 0);
          assert.deepEqual(engineView(x), modelView(md), `state differs after step ${i} ${c.type}`);
          checkInvariants(x);
          const h = x.hash();
          assert.equal(twin.hash(), h, `restored twin diverged at step ${i}`);
          const copy = new Exchange({ events: false });
          copy.restore(x.snapshot());
          assert.equal(copy.hash(), h, 'snapshot→restore changes the hash');
          if ((i + seed) % 7 === 0) twin = copy; // keep applying commands to a freshly restored state
        });
        // Replaying the accepted commands into a fresh Exchange reproduces the state exactly.
        const { x: y } = fresh();
        for (const c of boot) assert.ok(y.apply(c).ok);
        const seqBase = y.lastSeq;
        accepted.forEach((c, k) => {
          assert.ok(y.applySeq(seqBase + k + 1, c).ok);
        });
        assert.equal(y.hash(), x.hash(), 'replay diverged');
      },
    ),
    // Bounded: a few seconds when green; shrinking a failure stops after 60 s.
    { numRuns: 40, seed: 20261121, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
  );
});
