// The exchange state machine (DESIGN.md §1 principle 2, §2–§4): catalog, books, accounts,
// positions, settlement, fees and locks in one deterministic, pure object. `apply` validates a
// command completely before touching anything, so a rejection changes nothing; an accepted command
// mutates and returns its DomainEvents. Time comes from `cmd.ts`, ids from the command; fill ids are
// derived from the taker order id. No clock, randomness or I/O (node:crypto hashes bytes only).
//
// Hot-path layout: resting orders live in OrderPool's typed-array columns; a book per
// (market, currency) holds, per side, 279 price levels indexed by tick index, each a FIFO queue as an
// intrusive doubly linked list of handles. Matching reads and writes numbers only.
// Design notes and the money rules: docs/exchange.md.

import { createHash } from 'node:crypto';
import { type ErrorCode, ErrorCodes } from '../errors.ts';
import { BinReader, BinWriter } from './codec.ts';
import { ExpiryHeap } from './expiry-heap.ts';
import { IdIndex } from './id-index.ts';
import {
  F_CREATED_AT,
  F_EXPIRES_AT,
  F_ORIGINAL_QTY,
  F_QTY,
  F_SEQ_NO,
  F_UPDATED_AT,
  FW,
  I_ACCOUNT,
  I_ANEXT,
  I_APREV,
  I_BOOK,
  I_HASH,
  I_LEVEL,
  I_NEXT,
  I_PREV,
  I_SIDE,
  I_TIF,
  IW,
  NIL,
  OrderPool,
} from './order-pool.ts';
import type { ExchangeReader } from './reader.ts';
import { isTick, ONE, TICK_COUNT, TICK_INDEX, TICKS } from './ticks.ts';
import { canTransition, gameStatusFor } from './transitions.ts';
import {
  type Command,
  type CommandResult,
  CURRENCIES,
  type Currency,
  type DomainEvent,
  EVENT_STATUSES,
  EVENT_TYPES,
  type EventRecord,
  type Fill,
  type Game,
  type Id,
  type League,
  type Level,
  MARKET_TYPES,
  type MarketRecord,
  type MarketSpec,
  type Money,
  type OrderRecord,
  type OrderStatus,
  type OutcomeRecord,
  type Position,
  type StateMachine,
  type Team,
  TIFS,
  type Tick,
  type TradingLock,
  type Wallet,
} from './types.ts';
import {
  bidCost,
  coefficientToPpm,
  feeDenominator,
  feeNumerator,
  MONEY_PER_MCU,
  MONEY_PER_TICK_MCU,
  maxTakerFee,
  PPM,
  roundHalfUp,
} from './units.ts';

type Cmd<T extends Command['type']> = Extract<Command, { type: T }>;
type CancelReason = 'USER' | 'IOC' | 'WASH' | 'EXPIRED' | 'LIFECYCLE';

const DEFAULT_FEE_PPM = 30_000; // 0.03 (DESIGN.md §4)
const SNAPSHOT_MAGIC = 'tickbook-exchange/1';
const CUR_INDEX: Record<string, number> = { CASH: 0, COIN: 1 };
/**
 * Wallets live in one Float64Array, WS slots per account index: available at +ci, reserved at
 * +2+ci, the touch stamp at +4+ci (ci = currency index; 2 slots spare). One account's whole wallet
 * is one 64-byte line, read without a pointer chase: as two [number, number] arrays on the Account
 * object, the funds check alone cost three dependent loads per taker and per maker (~10% of
 * placement in the profile, docs/bench-engine.md). Money stays integer-valued (safe integers).
 */
const WS = 8;

interface MarketState {
  idx: number;
  rec: MarketRecord;
  event: EventRecord;
  outcomes: [OutcomeRecord, OutcomeRecord];
  /** Collateral locked in this market's open positions, per currency index (Money). */
  collateral: [number, number];
}

/** One (market, currency) book: per side, price levels indexed by tick index. */
interface Book {
  /** Level slot = side × TICK_COUNT + tick index. */
  head: Int32Array;
  tail: Int32Array;
  qty: Float64Array;
  /** Best (highest) non-empty level index per side, or -1. */
  best: Int32Array;
}

interface Pos {
  /** (market index × 2 + side) × 2 + currency index. */
  key: number;
  size: number;
  cost: number;
  stamp: number;
  /** The same account's position on the market's other outcome (same currency), once both exist:
   * netting checks it after every fill without a second Map lookup. */
  twin: Pos | null;
}

interface Account {
  idx: number;
  id: Id;
  /** Open-order list (acceptance order). */
  head: number;
  tail: number;
  positions: Map<number, Pos>;
  clientOrders: Map<string, Id>;
}

/** Per-currency money totals; see docs/exchange.md "Conservation". */
export interface CurrencyTotals {
  deposits: Money;
  withdrawals: Money;
  available: Money;
  reserved: Money;
  /** Collateral held by open positions (sum over markets). */
  collateral: Money;
  /** Sum of open positions' recorded cost (equals collateral unless netting realized P&L). */
  positionsCost: Money;
  fees: Money;
  /** Paid back to wallets from collateral: netting, settlement wins, void refunds. */
  paidOut: Money;
  /** available + reserved + collateral + fees − (deposits − withdrawals): always 0. */
  imbalance: Money;
}

export interface ExchangeTotals {
  CASH: CurrencyTotals;
  COIN: CurrencyTotals;
}

/** The events of every accepted command in replay mode (frozen: shared by all results). */
const NO_EVENTS: DomainEvent[] = Object.freeze([]) as unknown as DomainEvent[];

/** Fill id suffixes `:${n}:m` / `:${n}:t` for the first matches of an order, built once: a fill id
 * is then one concatenation (taker id + suffix) instead of three. */
const FILL_SUFFIXES = 256;
const MAKER_SUFFIX = Array.from({ length: FILL_SUFFIXES }, (_, i) => `:${i + 1}:m`);
const TAKER_SUFFIX = Array.from({ length: FILL_SUFFIXES }, (_, i) => `:${i + 1}:t`);

/** Reserves OrderPlaced's slot at the head of a PlaceOrder's events; always overwritten. */
const PLACEHOLDER: DomainEvent = { kind: 'LocksChanged' };

function reject(code: ErrorCode, message?: string, details?: unknown): CommandResult {
  const r: CommandResult = { ok: false, code, message: message ?? ErrorCodes[code].message };
  if (details !== undefined) r.details = details;
  return r;
}

const isSafeNonNeg = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const isSafePos = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
const isStr = (s: unknown): s is string => typeof s === 'string' && s.length > 0;

/** floor(a × b / c) for non-negative safe integers, exact. */
function mulDivFloor(a: number, b: number, c: number): number {
  const p = a * b;
  if (Number.isSafeInteger(p)) return Math.floor(p / c) - (Math.floor(p / c) * c > p ? 1 : 0);
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}

export class Exchange implements StateMachine<Command, CommandResult>, ExchangeReader {
  // ------------------------------------------------------------------ counters
  private _lastSeq = 0;
  private _catalogVersion = 0;
  private feePpm = DEFAULT_FEE_PPM;
  /** Next order acceptance number (time priority). */
  private orderSeq = 0;
  private deposits = [0, 0];
  private withdrawals = [0, 0];
  private fees = [0, 0];
  private paidOut = [0, 0];

  // ------------------------------------------------------------------ catalog
  private leagueMap = new Map<string, League>();
  private teamMap = new Map<Id, Team>();
  private gameMap = new Map<Id, Game>();
  private gameEvent = new Map<Id, Id>();
  private eventMap = new Map<Id, EventRecord>();
  private markets: MarketState[] = [];
  private marketIdx = new Map<Id, number>();
  private outcomeMap = new Map<Id, OutcomeRecord>();
  /** Outcome id → market index × 2 + side. */
  private outcomeRef = new Map<Id, number>();
  private sortedEvents: EventRecord[] | null = null;

  // ------------------------------------------------------------------ books and orders
  private books: (Book | undefined)[] = [];
  private bookSeqs: number[] = [];
  private pool = new OrderPool();
  private orderIdx = new IdIndex(this.pool.ids);
  private expiries = new ExpiryHeap();
  private gttLive = 0;

  // ------------------------------------------------------------------ accounts and locks
  private accounts: Account[] = [];
  /** Wallet slots by account index (see WS). */
  private wal = new Float64Array(WS * 64);
  private accountIdx = new Map<Id, number>();
  private lockMap = new Map<Id, TradingLock>();

  // ------------------------------------------------------------------ per-command scratch
  private stamp = 0;
  private ev: DomainEvent[] = [];
  private seq = 0;
  // touched lists are reused across commands: n* counts the live prefix (no per-command arrays)
  private touchedBooks: number[] = [];
  private nBooks = 0;
  private nWallets = 0;
  private nPos = 0;
  /** Event sink of replay mode: rare catalog events land here and are dropped. */
  private readonly scratchEv: DomainEvent[] = [];
  private bookStamp: number[] = [];
  private touchedWallets: number[] = []; // account index × 2 + currency index
  private touchedPos: Pos[] = [];
  private touchedPosAcct: number[] = [];
  // fills of the current PlaceOrder, written in the matching loop without allocation
  private fMaker = new Int32Array(64);
  private fQty = new Float64Array(64);
  private fLevel = new Int32Array(64);
  private fFee = new Float64Array(64);
  private fWash = new Uint8Array(64);

  /**
   * `events: false` is replay mode (journal recovery, replicas catching up, benchmarks of the
   * matching core): state changes are identical — same hash — but accepted results carry no events,
   * so no event objects are built on the hot path.
   */
  constructor(options: { events?: boolean } = {}) {
    this.emitEvents = options.events ?? true;
  }

  private emitEvents: boolean;

  // ================================================================== StateMachine

  get lastSeq(): number {
    return this._lastSeq;
  }
  get catalogVersion(): number {
    return this._catalogVersion;
  }
  get feeCoefficient(): number {
    return this.feePpm / PPM;
  }

  /** Applies `cmd` as sequence number lastSeq + 1. */
  apply(cmd: Command): CommandResult {
    return this.applySeq(this._lastSeq + 1, cmd);
  }

  /** Applies `cmd` as sequence number `seq`; lastSeq becomes `seq` when it is accepted. */
  applySeq(seq: number, cmd: Command): CommandResult {
    this.stamp++;
    this.seq = seq;
    if (this.emitEvents) this.ev = [];
    else {
      this.ev = this.scratchEv;
      if (this.scratchEv.length > 0) this.scratchEv.length = 0;
    }
    const r = this.dispatch(cmd);
    if (r.ok) {
      this._lastSeq = seq;
      this.flushTouched();
      if (!this.emitEvents) r.events = NO_EVENTS;
    } else {
      // Handlers validate before mutating, so nothing was touched; clear defensively anyway.
      this.nBooks = 0;
      this.nWallets = 0;
      this.nPos = 0;
    }
    return r;
  }

  private dispatch(c: Command): CommandResult {
    if (c === null || typeof c !== 'object' || !Number.isSafeInteger(c.ts)) {
      return reject('VALIDATION_FAILED', 'command needs an integer ts');
    }
    switch (c.type) {
      case 'PlaceOrder':
        return this.placeOrder(c);
      case 'CancelOrder':
        return this.cancelOrder(c);
      case 'CancelOrders':
        return this.cancelOrders(c);
      case 'Expire':
        return this.expire(c);
      case 'CreateLeague':
        return this.createLeague(c);
      case 'CreateTeam':
        return this.createTeam(c);
      case 'CreateEvent':
        return this.createEvent(c);
      case 'AddMarkets':
        return this.addMarkets(c);
      case 'SetEventStatus':
        return this.setEventStatus(c);
      case 'SetGameScore':
        return this.setGameScore(c);
      case 'SetMarketStatus':
        return this.setMarketStatus(c);
      case 'SettleMarket':
        return this.settleMarket(c);
      case 'CreateAccount':
        return this.createAccount(c);
      case 'Deposit':
        return this.deposit(c);
      case 'Withdraw':
        return this.withdraw(c);
      case 'SetLock':
        return this.setLock(c);
      case 'ClearLock':
        return this.clearLock(c);
      case 'SetFeeCoefficient':
        return this.setFeeCoefficient(c);
      default:
        return reject('VALIDATION_FAILED', `unknown command type ${(c as { type?: unknown }).type}`);
    }
  }

  private ok(): CommandResult {
    return { ok: true, events: this.ev };
  }

  // ================================================================== catalog

  private catalogChanged(eventIds: Id[], marketIds: Id[]): void {
    this._catalogVersion++;
    this.ev.push({ kind: 'CatalogChanged', eventIds, marketIds });
  }

  private createLeague(c: Cmd<'CreateLeague'>): CommandResult {
    if (!isStr(c.code) || typeof c.name !== 'string')
      return reject('VALIDATION_FAILED', 'league needs code and name');
    if (this.leagueMap.has(c.code)) return reject('ALREADY_EXISTS', `league ${c.code} exists`);
    this.leagueMap.set(c.code, { code: c.code, name: c.name });
    this.catalogChanged([], []);
    return this.ok();
  }

  private createTeam(c: Cmd<'CreateTeam'>): CommandResult {
    const t = c.team;
    if (!t || !isStr(t.id)) return reject('VALIDATION_FAILED', 'team needs an id');
    if (this.teamMap.has(t.id)) return reject('ALREADY_EXISTS', `team ${t.id} exists`);
    if (!this.leagueMap.has(t.league)) return reject('LEAGUE_NOT_FOUND', `league ${t.league} not found`);
    this.teamMap.set(t.id, {
      id: t.id,
      league: t.league,
      name: t.name,
      shortName: t.shortName,
      symbol: t.symbol,
      mascot: t.mascot,
    });
    this.catalogChanged([], []);
    return this.ok();
  }

  /** Validates market specs against the catalog and each other; null when fine. */
  private checkMarketSpecs(specs: MarketSpec[]): CommandResult | null {
    if (!Array.isArray(specs)) return reject('VALIDATION_FAILED', 'markets must be an array');
    const seen = new Set<Id>();
    for (const m of specs) {
      if (!m || !isStr(m.id)) return reject('VALIDATION_FAILED', 'market needs an id');
      if (!MARKET_TYPES.includes(m.type)) return reject('VALIDATION_FAILED', `unknown market type ${m.type}`);
      if (m.strike !== null && !(typeof m.strike === 'number' && Number.isFinite(m.strike))) {
        return reject('VALIDATION_FAILED', 'strike must be a finite number or null');
      }
      if (!Array.isArray(m.outcomes) || m.outcomes.length !== 2) {
        return reject('VALIDATION_FAILED', `market ${m.id} needs exactly two outcomes`);
      }
      if (this.marketIdx.has(m.id) || seen.has(m.id))
        return reject('ALREADY_EXISTS', `market ${m.id} exists`);
      seen.add(m.id);
      for (const o of m.outcomes) {
        if (!o || !isStr(o.id)) return reject('VALIDATION_FAILED', 'outcome needs an id');
        if (this.outcomeMap.has(o.id) || seen.has(o.id))
          return reject('ALREADY_EXISTS', `outcome ${o.id} exists`);
        seen.add(o.id);
        if (o.competitorTeamId != null && !this.teamMap.has(o.competitorTeamId)) {
          return reject('TEAM_NOT_FOUND', `team ${o.competitorTeamId} not found`);
        }
      }
    }
    return null;
  }

  private addMarketRecords(ev: EventRecord, specs: MarketSpec[]): Id[] {
    const ids: Id[] = [];
    for (const m of specs) {
      const idx = this.markets.length;
      const rec: MarketRecord = {
        id: m.id,
        eventId: ev.id,
        type: m.type,
        strike: m.strike,
        description: m.description,
        status: 'OPEN',
        outcomeIds: [m.outcomes[0].id, m.outcomes[1].id],
        volume: { CASH: 0, COIN: 0 },
        settledAt: null,
        result: null,
      };
      const outs = m.outcomes.map(
        (o, i): OutcomeRecord => ({
          id: o.id,
          marketId: m.id,
          index: i as 0 | 1,
          description: o.description,
          status: 'TBD',
          last: { CASH: null, COIN: null },
          competitorTeamId: o.competitorTeamId ?? null,
        }),
      ) as [OutcomeRecord, OutcomeRecord];
      this.markets.push({ idx, rec, event: ev, outcomes: outs, collateral: [0, 0] });
      this.marketIdx.set(m.id, idx);
      outs.forEach((o, i) => {
        this.outcomeMap.set(o.id, o);
        this.outcomeRef.set(o.id, idx * 2 + i);
      });
      this.bookSeqs.push(0, 0);
      this.books.push(undefined, undefined);
      this.bookStamp.push(0, 0);
      ev.marketIds.push(m.id);
      ids.push(m.id);
    }
    return ids;
  }

  private createEvent(c: Cmd<'CreateEvent'>): CommandResult {
    const e = c.event;
    if (!e || !isStr(e.id)) return reject('VALIDATION_FAILED', 'event needs an id');
    if (this.eventMap.has(e.id)) return reject('ALREADY_EXISTS', `event ${e.id} exists`);
    if (!EVENT_TYPES.includes(e.type)) return reject('VALIDATION_FAILED', `unknown event type ${e.type}`);
    if (!EVENT_STATUSES.includes(e.status))
      return reject('VALIDATION_FAILED', `unknown event status ${e.status}`);
    if (!Number.isSafeInteger(e.scheduledStart))
      return reject('VALIDATION_FAILED', 'scheduledStart must be ms');
    if (!this.leagueMap.has(e.league)) return reject('LEAGUE_NOT_FOUND', `league ${e.league} not found`);
    const g = c.game;
    if (g) {
      if (!isStr(g.id)) return reject('VALIDATION_FAILED', 'game needs an id');
      if (this.gameMap.has(g.id)) return reject('ALREADY_EXISTS', `game ${g.id} exists`);
      for (const t of [g.homeTeamId, g.awayTeamId]) {
        if (!this.teamMap.has(t)) return reject('TEAM_NOT_FOUND', `team ${t} not found`);
      }
    }
    const bad = this.checkMarketSpecs(c.markets);
    if (bad) return bad;

    const rec: EventRecord = {
      id: e.id,
      type: e.type,
      status: e.status,
      description: e.description,
      league: e.league,
      scheduledStart: e.scheduledStart,
      gameId: g ? g.id : null,
      marketIds: [],
      pregameVisible: e.pregameVisible ?? true,
      liveVisible: e.liveVisible ?? true,
      createdAt: c.ts,
      updatedAt: c.ts,
    };
    if (g) {
      this.gameMap.set(g.id, {
        id: g.id,
        league: e.league,
        status: gameStatusFor(e.status),
        scheduledStart: e.scheduledStart,
        homeTeamId: g.homeTeamId,
        awayTeamId: g.awayTeamId,
        homeScore: null,
        awayScore: null,
      });
      this.gameEvent.set(g.id, e.id);
    }
    this.eventMap.set(e.id, rec);
    this.sortedEvents = null;
    const mids = this.addMarketRecords(rec, c.markets);
    this.catalogChanged([e.id], mids);
    return this.ok();
  }

  private addMarkets(c: Cmd<'AddMarkets'>): CommandResult {
    const ev = this.eventMap.get(c.eventId);
    if (!ev) return reject('EVENT_NOT_FOUND');
    if (ev.status === 'FINAL' || ev.status === 'CANCELED') {
      return reject('INVALID_TRANSITION', `event is ${ev.status}: no new markets`);
    }
    const bad = this.checkMarketSpecs(c.markets);
    if (bad) return bad;
    const mids = this.addMarketRecords(ev, c.markets);
    ev.updatedAt = c.ts;
    this.catalogChanged([ev.id], mids);
    return this.ok();
  }

  private setEventStatus(c: Cmd<'SetEventStatus'>): CommandResult {
    const ev = this.eventMap.get(c.eventId);
    if (!ev) return reject('EVENT_NOT_FOUND');
    if (!EVENT_STATUSES.includes(c.status)) return reject('VALIDATION_FAILED', `unknown status ${c.status}`);
    const from = ev.status;
    if (!canTransition(from, c.status))
      return reject('INVALID_TRANSITION', `${from} → ${c.status} not allowed`);
    ev.status = c.status;
    ev.updatedAt = c.ts;
    if (ev.gameId) {
      const g = this.gameMap.get(ev.gameId);
      if (g) g.status = gameStatusFor(c.status);
    }
    const touched: Id[] = [];
    // Going live (also back from DELAYED) and ending clear the books (DESIGN.md §4 lifecycle):
    // pregame orders must not trade against in-game information.
    if (c.status === 'OPEN_INGAME' || c.status === 'FINAL' || c.status === 'CANCELED') {
      for (const mid of ev.marketIds) this.cancelMarketOrders(this.marketIdx.get(mid)!, c.ts);
    }
    if (c.status === 'CANCELED') {
      // A canceled event voids every unsettled market.
      for (const mid of ev.marketIds) {
        const ms = this.markets[this.marketIdx.get(mid)!];
        if (ms.rec.status !== 'SETTLED') {
          this.doSettle(ms, 'PUSH', c.ts);
          touched.push(mid);
        }
      }
    }
    this.ev.push({ kind: 'EventStatusChanged', eventId: ev.id, from, to: c.status });
    this.catalogChanged([ev.id], touched);
    return this.ok();
  }

  private setGameScore(c: Cmd<'SetGameScore'>): CommandResult {
    const g = this.gameMap.get(c.gameId);
    if (!g) return reject('EVENT_NOT_FOUND', `game ${c.gameId} not found`);
    if (!isSafeNonNeg(c.homeScore) || !isSafeNonNeg(c.awayScore)) {
      return reject('VALIDATION_FAILED', 'scores must be non-negative integers');
    }
    g.homeScore = c.homeScore;
    g.awayScore = c.awayScore;
    const eid = this.gameEvent.get(g.id)!;
    this.eventMap.get(eid)!.updatedAt = c.ts;
    this.catalogChanged([eid], []);
    return this.ok();
  }

  private setMarketStatus(c: Cmd<'SetMarketStatus'>): CommandResult {
    const mi = this.marketIdx.get(c.marketId);
    if (mi === undefined) return reject('MARKET_NOT_FOUND');
    const ms = this.markets[mi];
    if (c.status !== 'OPEN' && c.status !== 'CLOSED')
      return reject('VALIDATION_FAILED', 'status: OPEN or CLOSED');
    if (ms.rec.status === 'SETTLED') return reject('ALREADY_SETTLED');
    if (ms.rec.status === c.status) return reject('INVALID_TRANSITION', `market is already ${c.status}`);
    ms.rec.status = c.status;
    if (c.status === 'CLOSED') this.cancelMarketOrders(mi, c.ts);
    this.catalogChanged([ms.event.id], [ms.rec.id]);
    return this.ok();
  }

  /**
   * Settlement rule: the market must be CLOSED, or its event FINAL or CANCELED (then an OPEN market
   * may be settled directly). Remaining orders are cancelled first.
   */
  private settleMarket(c: Cmd<'SettleMarket'>): CommandResult {
    const mi = this.marketIdx.get(c.marketId);
    if (mi === undefined) return reject('MARKET_NOT_FOUND');
    const ms = this.markets[mi];
    if (ms.rec.status === 'SETTLED') return reject('ALREADY_SETTLED');
    const es = ms.event.status;
    if (ms.rec.status !== 'CLOSED' && es !== 'FINAL' && es !== 'CANCELED') {
      return reject('INVALID_TRANSITION', 'close the market (or finish the event) before settling');
    }
    if (c.result !== 'PUSH' && !ms.rec.outcomeIds.includes(c.result)) {
      return reject('OUTCOME_NOT_FOUND', `result must be one of the market's outcomes or PUSH`);
    }
    this.doSettle(ms, c.result, c.ts);
    this.catalogChanged([ms.event.id], [ms.rec.id]);
    return this.ok();
  }

  /**
   * Pays out a market. A win pays each winning position its full payout (the market's collateral is
   * exactly the winners' payout). PUSH (void) returns the collateral pro rata to cost: each position
   * gets floor(cost × collateral / Σcost) and the few Money left by flooring go one each to the first
   * positions in account order. Without netting in the market collateral = Σcost, so every position
   * gets exactly its cost back; netting may have realized P&L, and pro rata keeps money conserved.
   */
  private doSettle(ms: MarketState, result: Id | 'PUSH', ts: number): void {
    this.cancelMarketOrders(ms.idx, ts);
    const win = result === 'PUSH' ? -1 : ms.rec.outcomeIds.indexOf(result);
    for (let ci = 0; ci < 2; ci++) {
      const holders: { a: Account; p: Pos }[] = [];
      let sumCost = 0;
      for (const a of this.accounts) {
        for (let side = 0; side < 2; side++) {
          const key = (ms.idx * 2 + side) * 2 + ci;
          const p = a.positions.get(key);
          if (p && p.size === 0)
            this.dropPos(a, p); // netted-out entry: nothing to pay
          else if (p) {
            holders.push({ a, p });
            sumCost += p.cost;
          }
        }
      }
      const pool = ms.collateral[ci];
      let left = pool;
      const pays: number[] = holders.map(({ p }) => {
        let pay = 0;
        if (win >= 0) pay = (p.key >> 1) % 2 === win ? p.size * MONEY_PER_MCU[ci] : 0;
        else if (sumCost > 0) pay = mulDivFloor(p.cost, pool, sumCost);
        left -= pay;
        return pay;
      });
      if (win < 0) for (let i = 0; left > 0 && i < pays.length; i++, left--) pays[i]++;
      holders.forEach(({ a, p }, i) => {
        const pay = pays[i];
        if (pay > 0) {
          this.wal[a.idx * WS + ci] += pay;
          this.paidOut[ci] += pay;
          this.touchWallet(a, ci);
          this.ev.push({
            kind: 'LedgerEntry',
            accountId: a.id,
            currency: CURRENCIES[ci],
            entryKind: win >= 0 ? 'SETTLEMENT' : 'REFUND',
            amount: pay,
            ref: ms.rec.id,
          });
        }
        p.size = 0;
        p.cost = 0;
        this.touchPos(a, p);
        this.dropPos(a, p);
      });
      ms.collateral[ci] = 0;
    }
    ms.rec.status = 'SETTLED';
    ms.rec.settledAt = ts;
    ms.rec.result = result;
    ms.outcomes.forEach((o, i) => {
      o.status = win < 0 ? 'PUSH' : i === win ? 'WIN' : 'LOSS';
    });
    this.ev.push({ kind: 'MarketSettled', marketId: ms.rec.id, result });
  }

  // ================================================================== accounts

  private createAccount(c: Cmd<'CreateAccount'>): CommandResult {
    if (!isStr(c.accountId)) return reject('VALIDATION_FAILED', 'accountId required');
    if (this.accountIdx.has(c.accountId)) return reject('ALREADY_EXISTS', `account ${c.accountId} exists`);
    this.newAccount(c.accountId);
    return this.ok();
  }

  private newAccount(id: Id): Account {
    const a: Account = {
      idx: this.accounts.length,
      id,
      head: NIL,
      tail: NIL,
      positions: new Map(),
      clientOrders: new Map(),
    };
    if ((a.idx + 1) * WS > this.wal.length) {
      const grown = new Float64Array(this.wal.length * 2);
      grown.set(this.wal);
      this.wal = grown;
    }
    this.accounts.push(a);
    this.accountIdx.set(id, a.idx);
    return a;
  }

  private moneyCmd(c: Cmd<'Deposit'> | Cmd<'Withdraw'>): { a: Account; ci: number } | CommandResult {
    const ai = this.accountIdx.get(c.accountId);
    if (ai === undefined) return reject('ACCOUNT_NOT_FOUND');
    const ci = CUR_INDEX[c.currency];
    if (ci === undefined) return reject('INVALID_CURRENCY');
    if (!isSafePos(c.amount))
      return reject('INVALID_AMOUNT', 'amount must be a positive integer of 1e-5 units');
    return { a: this.accounts[ai], ci };
  }

  private deposit(c: Cmd<'Deposit'>): CommandResult {
    const r = this.moneyCmd(c);
    if ('ok' in r) return r;
    const { a, ci } = r;
    if (!Number.isSafeInteger(this.wal[a.idx * WS + ci] + this.wal[a.idx * WS + 2 + ci] + c.amount)) {
      return reject('INVALID_AMOUNT', 'balance would leave the safe integer range');
    }
    this.wal[a.idx * WS + ci] += c.amount;
    this.deposits[ci] += c.amount;
    this.touchWallet(a, ci);
    this.ev.push({
      kind: 'LedgerEntry',
      accountId: a.id,
      currency: c.currency,
      entryKind: 'DEPOSIT',
      amount: c.amount,
      ref: null,
    });
    return this.ok();
  }

  private withdraw(c: Cmd<'Withdraw'>): CommandResult {
    const r = this.moneyCmd(c);
    if ('ok' in r) return r;
    const { a, ci } = r;
    if (this.wal[a.idx * WS + ci] < c.amount) return reject('INSUFFICIENT_FUNDS');
    this.wal[a.idx * WS + ci] -= c.amount;
    this.withdrawals[ci] += c.amount;
    this.touchWallet(a, ci);
    this.ev.push({
      kind: 'LedgerEntry',
      accountId: a.id,
      currency: c.currency,
      entryKind: 'WITHDRAWAL',
      amount: -c.amount,
      ref: null,
    });
    return this.ok();
  }

  // ================================================================== locks and fees

  private lockActive(l: TradingLock | undefined, ts: number): boolean {
    return l !== undefined && (l.expiresAt === null || l.expiresAt > ts);
  }

  private isLocked(eventId: Id, ts: number): boolean {
    if (this.lockMap.size === 0) return false;
    for (const l of this.lockMap.values()) {
      if ((l.eventId === null || l.eventId === eventId) && this.lockActive(l, ts)) return true;
    }
    return false;
  }

  private setLock(c: Cmd<'SetLock'>): CommandResult {
    const l = c.lock;
    if (!l || !isStr(l.id)) return reject('VALIDATION_FAILED', 'lock needs an id');
    if (l.expiresAt !== null && !Number.isSafeInteger(l.expiresAt)) {
      return reject('VALIDATION_FAILED', 'expiresAt must be ms or null');
    }
    if (this.lockMap.has(l.id)) return reject('ALREADY_EXISTS', `lock ${l.id} exists`);
    if (l.eventId !== null && !this.eventMap.has(l.eventId)) return reject('EVENT_NOT_FOUND');
    if (l.eventId === null) {
      for (const o of this.lockMap.values()) {
        if (o.eventId === null) return reject('ALREADY_EXISTS', 'a system lock is already set');
      }
    }
    this.lockMap.set(l.id, {
      id: l.id,
      eventId: l.eventId,
      reason: String(l.reason ?? ''),
      createdAt: Number.isSafeInteger(l.createdAt) ? l.createdAt : c.ts,
      expiresAt: l.expiresAt,
    });
    this.ev.push({ kind: 'LocksChanged' });
    return this.ok();
  }

  private clearLock(c: Cmd<'ClearLock'>): CommandResult {
    if (!this.lockMap.has(c.lockId)) return reject('LOCK_NOT_FOUND');
    this.lockMap.delete(c.lockId);
    this.ev.push({ kind: 'LocksChanged' });
    return this.ok();
  }

  private setFeeCoefficient(c: Cmd<'SetFeeCoefficient'>): CommandResult {
    const ppm = coefficientToPpm(c.coefficient);
    if (ppm === null) return reject('VALIDATION_FAILED', 'coefficient: 0..1 with at most 6 decimals');
    this.feePpm = ppm;
    return this.ok();
  }

  // ================================================================== trading

  private book(bi: number): Book {
    let b = this.books[bi];
    if (!b) {
      const n = 2 * TICK_COUNT;
      b = {
        head: new Int32Array(n).fill(NIL),
        tail: new Int32Array(n).fill(NIL),
        qty: new Float64Array(n),
        best: new Int32Array([-1, -1]),
      };
      this.books[bi] = b;
    }
    return b;
  }

  private placeOrder(c: Cmd<'PlaceOrder'>): CommandResult {
    // ---- validation: nothing is touched until every check has passed
    const ai = this.accountIdx.get(c.accountId);
    if (ai === undefined) return reject('ACCOUNT_NOT_FOUND');
    const a = this.accounts[ai];
    const ci = CUR_INDEX[c.currency];
    if (ci === undefined) return reject('INVALID_CURRENCY');
    const wal = this.wal;
    const aw = ai * WS + ci; // the taker's available slot; reserved is aw + 2
    const tifCode = TIFS.indexOf(c.tif);
    if (tifCode < 0) return reject('INVALID_TIF');
    const tick = c.price;
    if (!isTick(tick)) return reject('INVALID_PRICE');
    const qty = c.qty;
    const cost = tick * qty * MONEY_PER_TICK_MCU[ci];
    if (!isSafePos(qty) || !Number.isSafeInteger(qty * MONEY_PER_MCU[ci])) return reject('INVALID_QTY');
    let expiresAt = -1;
    if (c.tif === 'GTT') {
      if (!isSafePos(c.ttl) || !Number.isSafeInteger(c.ts + c.ttl)) {
        return reject('VALIDATION_FAILED', 'GTT needs a positive integer ttl (ms)');
      }
      expiresAt = c.ts + c.ttl;
    }
    if (c.flags != null && (typeof c.flags !== 'string' || c.flags.length > 8)) {
      return reject('VALIDATION_FAILED', 'flags: at most 8 characters');
    }
    if (!isStr(c.orderId)) return reject('VALIDATION_FAILED', 'orderId required');
    const idHash = IdIndex.hashOf(c.orderId);
    if (this.orderIdx.getHashed(c.orderId, idHash) >= 0)
      return reject('ALREADY_EXISTS', `order ${c.orderId} exists`);
    const coid = c.clientOrderId ?? null;
    if (coid !== null && (typeof coid !== 'string' || coid.length === 0)) {
      return reject('VALIDATION_FAILED', 'clientOrderId must be a non-empty string');
    }
    if (coid !== null && a.clientOrders.has(coid)) return reject('DUPLICATE_CLIENT_ORDER_ID');
    const ref = this.outcomeRef.get(c.outcomeId);
    if (ref === undefined) return reject('OUTCOME_NOT_FOUND');
    const mi = ref >> 1;
    const side = ref & 1;
    const ms = this.markets[mi];
    if (ms.rec.status !== 'OPEN') return reject('MARKET_NOT_OPEN');
    const es = ms.event.status;
    // TRADABLE_EVENT_STATUSES (types.ts), spelled out on the order path.
    if (es !== 'OPEN_PREGAME' && es !== 'OPEN_INGAME') return reject('EVENT_NOT_TRADABLE');
    if (this.isLocked(ms.event.id, c.ts)) return reject('TRADING_LOCKED');
    // Live fills pay a taker fee; its worst case is reserved with the cost so the wallet can never
    // go negative (DESIGN.md §4; docs/exchange.md "Fees").
    const live = es === 'OPEN_INGAME' && this.feePpm > 0;
    const feeCap = live ? maxTakerFee(this.feePpm, tick, qty, c.currency) : 0;
    if (wal[aw] < cost + feeCap) return reject('INSUFFICIENT_FUNDS');

    const bi = mi * 2 + ci;
    const b = this.book(bi);
    const opp = side ^ 1;
    const oppBase = opp * TICK_COUNT;
    const minTick = ONE - tick; // resting bids on the other outcome at q >= this cross
    const bestOpp = b.best[opp];
    const crosses = bestOpp >= 0 && TICKS[bestOpp] >= minTick;
    if (c.tif === 'PO' && crosses) return reject('POST_ONLY_WOULD_TAKE');
    if (c.tif === 'FOK' && this.fillable(b, opp, minTick, qty, ai) < qty) return reject('FOK_NOT_FILLED');

    // ---- accepted: reserve, match, rest or cancel the remainder
    const pool = this.pool;
    const taker = c.orderId;
    const seqNo = this.orderSeq++;
    wal[aw] -= cost + feeCap;
    wal[aw + 2] += cost + feeCap;
    this.touchWallet(a, ci);
    const emit = this.emitEvents;
    const placedAt = this.ev.length; // OrderPlaced goes first; filled in once the outcome is known
    if (emit) this.ev.push(PLACEHOLDER);
    if (coid !== null) a.clientOrders.set(coid, taker);

    let rem = qty;
    let nFills = 0;
    let washed = false;
    let feeNum = 0n;
    let feeSoFar = 0;
    const mpt = MONEY_PER_TICK_MCU[ci];
    if (crosses) {
      const feeDen = live ? feeDenominator(c.currency) : 1n;
      const takerKey = (mi * 2 + side) * 2 + ci;
      const makerKey = (mi * 2 + opp) * 2 + ci;
      let takerPos: Pos | null = null;
      let li = bestOpp;
      while (rem > 0 && li >= 0 && TICKS[li] >= minTick) {
        const slot = oppBase + li;
        const q = TICKS[li];
        let h = b.head[slot];
        while (rem > 0 && h !== NIL) {
          const mAi = pool.i32[h * IW + I_ACCOUNT];
          const makerQty = pool.f64[h * FW + F_QTY];
          const m = Math.min(rem, makerQty);
          if (nFills === this.fMaker.length) this.growFills();
          this.fMaker[nFills] = h;
          this.fQty[nFills] = m;
          this.fLevel[nFills] = li;
          if (mAi === ai) {
            // Self-trade prevention: both orders are cancelled, no money moves (DESIGN.md §4).
            this.fWash[nFills] = 1;
            this.fFee[nFills] = 0;
            nFills++;
            washed = true;
            break;
          }
          this.fWash[nFills] = 0;
          const mk = this.accounts[mAi];
          const makerCost = q * m * mpt;
          const takerCost = (ONE - q) * m * mpt;
          // maker: reserved collateral becomes position cost
          wal[mAi * WS + 2 + ci] -= makerCost;
          this.touchWallet(mk, ci);
          // taker: reserved at its limit, pays 1000 − q; the improvement goes back to available
          wal[aw + 2] -= tick * m * mpt;
          wal[aw] += (tick - (ONE - q)) * m * mpt;
          ms.collateral[ci] += makerCost + takerCost;
          let fee = 0;
          if (live) {
            // Cumulative rounding: fees of one order sum to round(Σ exact) ≤ the reserved cap.
            feeNum += feeNumerator(this.feePpm, ONE - q, m);
            const total = roundHalfUp(feeNum, feeDen);
            fee = total - feeSoFar;
            feeSoFar = total;
            wal[aw + 2] -= fee;
            this.fees[ci] += fee;
          }
          this.fFee[nFills] = fee;
          nFills++;
          this.addPosition(mk, this.posFor(mk, makerKey), m, makerCost, ms);
          if (takerPos === null) takerPos = this.posFor(a, takerKey);
          this.addPosition(a, takerPos, m, takerCost, ms);
          rem -= m;
          const next = pool.i32[h * IW + I_NEXT];
          const left = makerQty - m;
          b.qty[slot] -= m;
          pool.f64[h * FW + F_UPDATED_AT] = c.ts;
          if (left === 0) this.unlink(h, b, slot);
          else pool.f64[h * FW + F_QTY] = left;
          h = next;
        }
        if (washed || rem === 0) break;
        li = b.best[opp]; // the level emptied: unlink moved best to the next one down
      }
    }

    // ---- events for the fills (materialized after the loop)
    const bookTouched = nFills > 0;
    if (nFills > 0) {
      const outA = ms.outcomes[side];
      const outB = ms.outcomes[opp];
      let filledQty = 0;
      let washMaker = NIL;
      const feeCoef = live ? this.feeCoefficient : 0;
      for (let i = 0; i < nFills; i++) {
        const h = this.fMaker[i];
        const m = this.fQty[i];
        const q = TICKS[this.fLevel[i]];
        const wash = this.fWash[i] === 1;
        if (!wash) {
          filledQty += m;
          outA.last[c.currency] = ONE - q;
          outB.last[c.currency] = q;
        } else {
          // the maker half of the wash: cancel the resting order (after its fill record below)
          washMaker = h;
        }
        if (!emit) continue;
        const few = i < FILL_SUFFIXES;
        const mkId = this.accounts[pool.i32[h * IW + I_ACCOUNT]].id;
        const makerFill: Fill = {
          id: few ? taker + MAKER_SUFFIX[i] : `${taker}:${i + 1}:m`,
          seq: this.seq,
          accountId: mkId,
          orderId: pool.ids[h],
          outcomeId: outB.id,
          marketId: ms.rec.id,
          currency: c.currency,
          price: q,
          qty: m,
          isTaker: false,
          isWash: wash,
          fee: 0,
          feeCoefficient: 0,
          ts: c.ts,
        };
        const takerFill: Fill = {
          id: few ? taker + TAKER_SUFFIX[i] : `${taker}:${i + 1}:t`,
          seq: this.seq,
          accountId: a.id,
          orderId: taker,
          outcomeId: outA.id,
          marketId: ms.rec.id,
          currency: c.currency,
          price: ONE - q,
          qty: m,
          isTaker: true,
          isWash: wash,
          fee: this.fFee[i],
          feeCoefficient: feeCoef,
          ts: c.ts,
        };
        this.ev.push({ kind: 'OrderFilled', fill: makerFill }, { kind: 'OrderFilled', fill: takerFill });
      }
      if (washMaker !== NIL) this.cancelHandle(washMaker, 'WASH', c.ts);
      ms.rec.volume[c.currency] += filledQty;
      if (feeSoFar > 0 && emit) {
        this.ev.push({
          kind: 'LedgerEntry',
          accountId: a.id,
          currency: c.currency,
          entryKind: 'FEE',
          amount: -feeSoFar,
          ref: taker,
        });
      }
    }
    if (live) {
      // release the unused part of the fee reservation
      wal[aw + 2] -= feeCap - feeSoFar;
      wal[aw] += feeCap - feeSoFar;
    }

    const rests = rem > 0 && !washed && (tifCode === 0 || tifCode === 1 || tifCode === 4);
    if (rests) {
      const h = pool.alloc();
      pool.ids[h] = taker;
      pool.i32[h * IW + I_BOOK] = bi;
      pool.i32[h * IW + I_ACCOUNT] = ai;
      pool.i32[h * IW + I_SIDE] = side;
      pool.i32[h * IW + I_TIF] = tifCode;
      pool.i32[h * IW + I_LEVEL] = TICK_INDEX[tick];
      pool.f64[h * FW + F_QTY] = rem;
      pool.f64[h * FW + F_ORIGINAL_QTY] = qty;
      pool.f64[h * FW + F_CREATED_AT] = c.ts;
      pool.f64[h * FW + F_UPDATED_AT] = c.ts;
      pool.f64[h * FW + F_EXPIRES_AT] = expiresAt;
      pool.f64[h * FW + F_SEQ_NO] = seqNo;
      if (c.flags != null) pool.flags.set(h, c.flags);
      if (coid !== null) pool.clientOrderId.set(h, coid);
      pool.i32[h * IW + I_HASH] = idHash;
      this.link(h, b, a);
      if (expiresAt >= 0) {
        this.expiries.push(expiresAt, seqNo, h);
        this.gttLive++;
      }
      if (emit) this.ev[placedAt] = { kind: 'OrderPlaced', order: this.orderRecord(h, 'RESTING') };
    } else {
      // IOC remainder, wash, or fully filled: release what is still reserved for the remainder
      if (rem > 0) {
        wal[aw + 2] -= tick * rem * mpt;
        wal[aw] += tick * rem * mpt;
      }
      if (emit) this.placedNotResting(placedAt, c, a, ms, rem, expiresAt, coid, washed);
    }
    if (rests || bookTouched) this.touchBook(bi);
    return this.ok();
  }

  /** OrderPlaced (and OrderCanceled for a remainder) of an order that did not rest. */
  private placedNotResting(
    placedAt: number,
    c: Cmd<'PlaceOrder'>,
    a: Account,
    ms: MarketState,
    rem: number,
    expiresAt: number,
    coid: string | null,
    washed: boolean,
  ): void {
    const rec: OrderRecord = {
      id: c.orderId,
      accountId: a.id,
      outcomeId: c.outcomeId,
      marketId: ms.rec.id,
      currency: c.currency,
      price: c.price,
      qty: rem,
      originalQty: c.qty,
      tif: c.tif,
      expiresAt: expiresAt >= 0 ? expiresAt : null,
      flags: c.flags ?? null,
      clientOrderId: coid,
      status: rem === 0 ? 'FILLED' : 'CANCELED',
      createdAt: c.ts,
      updatedAt: c.ts,
    };
    this.ev[placedAt] = { kind: 'OrderPlaced', order: rec };
    if (rem > 0) this.ev.push({ kind: 'OrderCanceled', order: rec, reason: washed ? 'WASH' : 'IOC' });
  }

  private growFills(): void {
    const n = this.fMaker.length * 2;
    const g = <T extends Int32Array | Float64Array | Uint8Array>(o: T, a: T): T => {
      a.set(o as never);
      return a;
    };
    this.fMaker = g(this.fMaker, new Int32Array(n));
    this.fQty = g(this.fQty, new Float64Array(n));
    this.fLevel = g(this.fLevel, new Int32Array(n));
    this.fFee = g(this.fFee, new Float64Array(n));
    this.fWash = g(this.fWash, new Uint8Array(n));
  }

  /** Quantity an order could take now before reaching its limit or its own account's order (FOK). */
  private fillable(b: Book, opp: number, minTick: number, want: number, ai: number): number {
    let got = 0;
    for (let li = b.best[opp]; li >= 0 && TICKS[li] >= minTick; li--) {
      for (let h = b.head[opp * TICK_COUNT + li]; h !== NIL; h = this.pool.i32[h * IW + I_NEXT]) {
        if (this.pool.i32[h * IW + I_ACCOUNT] === ai) return got;
        got += this.pool.f64[h * FW + F_QTY];
        if (got >= want) return got;
      }
    }
    return got;
  }

  /** The account's position `key`, created empty (and linked to its twin) when absent. */
  private posFor(a: Account, key: number): Pos {
    let p = a.positions.get(key);
    if (p === undefined) p = this.newPos(a, key, 0, 0);
    return p;
  }

  private newPos(a: Account, key: number, size: number, cost: number): Pos {
    const o = a.positions.get(key ^ 2); // same market and currency, other outcome
    const p: Pos = { key, size, cost, stamp: 0, twin: o ?? null };
    if (o !== undefined) o.twin = p;
    a.positions.set(key, p);
    return p;
  }

  /** Removes a position entry (settlement), unlinking it from its twin. */
  private dropPos(a: Account, p: Pos): void {
    if (p.twin !== null) p.twin.twin = null;
    p.twin = null;
    a.positions.delete(p.key);
  }

  /** Adds a fill to a position, then nets it against the same account's other outcome. */
  private addPosition(a: Account, p: Pos, size: number, cost: number, ms: MarketState): void {
    p.size += size;
    p.cost += cost;
    this.touchPos(a, p);
    const o = p.twin;
    if (o === null || o.size === 0) return;
    // Netting (DESIGN.md §4): pairs of both outcomes pay exactly one payout, whatever happens, so
    // they are merged and the payout returns to the wallet now. Each side's cost shrinks pro rata.
    const pairs = Math.min(p.size, o.size);
    const ci = p.key & 1;
    const pay = pairs * MONEY_PER_MCU[ci];
    this.shrinkPosition(a, p, pairs);
    this.shrinkPosition(a, o, pairs);
    this.wal[a.idx * WS + ci] += pay;
    ms.collateral[ci] -= pay;
    this.paidOut[ci] += pay;
    this.touchWallet(a, ci);
    if (this.emitEvents)
      this.ev.push({
        kind: 'LedgerEntry',
        accountId: a.id,
        currency: CURRENCIES[ci],
        entryKind: 'NET',
        amount: pay,
        ref: ms.rec.id,
      });
  }

  /** A position netted to zero keeps its (empty) entry until settlement: no Map churn when an
   * account keeps trading both sides. Readers skip empty positions. */
  private shrinkPosition(a: Account, x: Pos, pairs: number): void {
    x.cost -= x.size === pairs ? x.cost : mulDivFloor(x.cost, pairs, x.size);
    x.size -= pairs;
    this.touchPos(a, x);
  }

  /** Appends a resting order to its level, its account's list and the id index
   * (the caller has set every slot, I_HASH = IdIndex.hashOf(id) included). */
  private link(h: number, b: Book, a: Account): void {
    const pool = this.pool;
    const slot = pool.i32[h * IW + I_SIDE] * TICK_COUNT + pool.i32[h * IW + I_LEVEL];
    const t = b.tail[slot];
    pool.i32[h * IW + I_PREV] = t;
    pool.i32[h * IW + I_NEXT] = NIL;
    if (t === NIL) b.head[slot] = h;
    else pool.i32[t * IW + I_NEXT] = h;
    b.tail[slot] = h;
    b.qty[slot] += pool.f64[h * FW + F_QTY];
    const side = pool.i32[h * IW + I_SIDE];
    if (pool.i32[h * IW + I_LEVEL] > b.best[side]) b.best[side] = pool.i32[h * IW + I_LEVEL];

    const at = a.tail;
    pool.i32[h * IW + I_APREV] = at;
    pool.i32[h * IW + I_ANEXT] = NIL;
    if (at === NIL) a.head = h;
    else pool.i32[at * IW + I_ANEXT] = h;
    a.tail = h;

    this.orderIdx.setHashed(pool.i32[h * IW + I_HASH], h);
  }

  /** Removes a resting order from its lists and the id index and frees its handle (level qty is the
   * caller's). */
  private unlink(h: number, b: Book, slot: number): void {
    const pool = this.pool;
    const p = pool.i32[h * IW + I_PREV];
    const n = pool.i32[h * IW + I_NEXT];
    if (p === NIL) b.head[slot] = n;
    else pool.i32[p * IW + I_NEXT] = n;
    if (n === NIL) b.tail[slot] = p;
    else pool.i32[n * IW + I_PREV] = p;
    if (b.head[slot] === NIL) {
      b.qty[slot] = 0;
      const side = pool.i32[h * IW + I_SIDE];
      if (b.best[side] === pool.i32[h * IW + I_LEVEL]) {
        let li = pool.i32[h * IW + I_LEVEL] - 1;
        const base = side * TICK_COUNT;
        while (li >= 0 && b.head[base + li] === NIL) li--;
        b.best[side] = li;
      }
    }
    const a = this.accounts[pool.i32[h * IW + I_ACCOUNT]];
    const ap = pool.i32[h * IW + I_APREV];
    const an = pool.i32[h * IW + I_ANEXT];
    if (ap === NIL) a.head = an;
    else pool.i32[ap * IW + I_ANEXT] = an;
    if (an === NIL) a.tail = ap;
    else pool.i32[an * IW + I_APREV] = ap;

    if (pool.f64[h * FW + F_EXPIRES_AT] >= 0) this.gttLive--;
    this.orderIdx.deleteHashed(pool.i32[h * IW + I_HASH], h);
    pool.release(h);
  }

  /** Cancels a resting order: releases its collateral, emits OrderCanceled, frees the handle. */
  private cancelHandle(h: number, reason: CancelReason, ts: number): void {
    const pool = this.pool;
    const bi = pool.i32[h * IW + I_BOOK];
    const ci = bi & 1;
    const b = this.books[bi]!;
    const slot = pool.i32[h * IW + I_SIDE] * TICK_COUNT + pool.i32[h * IW + I_LEVEL];
    const qty = pool.f64[h * FW + F_QTY];
    const a = this.accounts[pool.i32[h * IW + I_ACCOUNT]];
    const release = TICKS[pool.i32[h * IW + I_LEVEL]] * qty * MONEY_PER_TICK_MCU[ci];
    this.wal[a.idx * WS + 2 + ci] -= release;
    this.wal[a.idx * WS + ci] += release;
    this.touchWallet(a, ci);
    pool.f64[h * FW + F_UPDATED_AT] = ts;
    if (this.emitEvents)
      this.ev.push({ kind: 'OrderCanceled', order: this.orderRecord(h, 'CANCELED'), reason });
    b.qty[slot] -= qty;
    this.unlink(h, b, slot);
    this.touchBook(bi);
  }

  private cancelMarketOrders(mi: number, ts: number): void {
    for (let ci = 0; ci < 2; ci++) {
      const b = this.books[mi * 2 + ci];
      if (!b) continue;
      for (let side = 0; side < 2; side++) {
        while (b.best[side] >= 0) {
          this.cancelHandle(b.head[side * TICK_COUNT + b.best[side]], 'LIFECYCLE', ts);
        }
      }
    }
  }

  private cancelOrder(c: Cmd<'CancelOrder'>): CommandResult {
    // the order must be resting and the account's (no { ai, h } object per cancel: hot path)
    const ai = this.accountIdx.get(c.accountId);
    if (ai === undefined) return reject('ACCOUNT_NOT_FOUND');
    const h = this.orderIdx.get(c.orderId);
    if (h < 0 || this.pool.i32[h * IW + I_ACCOUNT] !== ai) return reject('ORDER_NOT_FOUND');
    this.cancelHandle(h, 'USER', c.ts);
    return this.ok();
  }

  /**
   * Cancels the account's resting orders in scope (all / event / market), optionally only the
   * listed ids. Unknown or out-of-scope ids are skipped: they are exactly the requested ids without
   * an OrderCanceled event in the result.
   */
  private cancelOrders(c: Cmd<'CancelOrders'>): CommandResult {
    const ai = this.accountIdx.get(c.accountId);
    if (ai === undefined) return reject('ACCOUNT_NOT_FOUND');
    let inScope: (h: number) => boolean;
    if (c.scope === 'all') inScope = () => true;
    else if (c.scope === 'event') {
      const ev = c.scopeId === undefined ? undefined : this.eventMap.get(c.scopeId);
      if (!ev) return reject('EVENT_NOT_FOUND');
      inScope = (h) => this.markets[this.pool.i32[h * IW + I_BOOK] >> 1].event === ev;
    } else if (c.scope === 'market') {
      const mi = c.scopeId === undefined ? undefined : this.marketIdx.get(c.scopeId);
      if (mi === undefined) return reject('MARKET_NOT_FOUND');
      inScope = (h) => this.pool.i32[h * IW + I_BOOK] >> 1 === mi;
    } else return reject('VALIDATION_FAILED', 'scope: all, event or market');
    if (c.orderIds !== undefined && !Array.isArray(c.orderIds))
      return reject('VALIDATION_FAILED', 'orderIds: array');
    const a = this.accounts[ai];
    if (c.orderIds) {
      for (const id of c.orderIds) {
        const h = this.orderIdx.get(id);
        if (h >= 0 && this.pool.i32[h * IW + I_ACCOUNT] === ai && inScope(h))
          this.cancelHandle(h, 'USER', c.ts);
      }
    } else {
      for (let h = a.head; h !== NIL; ) {
        const n = this.pool.i32[h * IW + I_ANEXT];
        if (inScope(h)) this.cancelHandle(h, 'USER', c.ts);
        h = n;
      }
    }
    return this.ok();
  }

  /** Cancels GTT orders with expiresAt ≤ ts (in (expiresAt, acceptance) order) and drops expired locks. */
  private expire(c: Cmd<'Expire'>): CommandResult {
    const pool = this.pool;
    while (this.expiries.peekTime() <= c.ts) {
      const [s, h] = this.expiries.pop();
      if (pool.f64[h * FW + F_QTY] > 0 && pool.f64[h * FW + F_SEQ_NO] === s)
        this.cancelHandle(h, 'EXPIRED', c.ts);
    }
    // Stale heap entries (cancelled or filled GTT orders) are compacted when they dominate.
    if (this.expiries.length > 1024 && this.expiries.length > 4 * this.gttLive) this.rebuildExpiries();
    let locksChanged = false;
    for (const [id, l] of this.lockMap) {
      if (l.expiresAt !== null && l.expiresAt <= c.ts) {
        this.lockMap.delete(id);
        locksChanged = true;
      }
    }
    if (locksChanged) this.ev.push({ kind: 'LocksChanged' });
    return this.ok();
  }

  private rebuildExpiries(): void {
    this.expiries.clear();
    this.gttLive = 0;
    const pool = this.pool;
    for (let h = 0; h < pool.top; h++) {
      if (pool.f64[h * FW + F_QTY] > 0 && pool.f64[h * FW + F_EXPIRES_AT] >= 0) {
        this.expiries.push(pool.f64[h * FW + F_EXPIRES_AT], pool.f64[h * FW + F_SEQ_NO], h);
        this.gttLive++;
      }
    }
  }

  // ================================================================== per-command change tracking

  private touchBook(bi: number): void {
    if (this.bookStamp[bi] !== this.stamp) {
      this.bookStamp[bi] = this.stamp;
      this.touchedBooks[this.nBooks++] = bi;
    }
  }

  private touchWallet(a: Account, ci: number): void {
    if (this.wal[a.idx * WS + 4 + ci] !== this.stamp) {
      this.wal[a.idx * WS + 4 + ci] = this.stamp;
      this.touchedWallets[this.nWallets++] = a.idx * 2 + ci;
    }
  }

  private touchPos(a: Account, p: Pos): void {
    if (p.stamp !== this.stamp) {
      p.stamp = this.stamp;
      this.touchedPos[this.nPos] = p;
      this.touchedPosAcct[this.nPos++] = a.idx;
    }
  }

  /** Emits one BookChanged / WalletChanged / PositionChanged per thing touched, after the rest. */
  private flushTouched(): void {
    const nb = this.nBooks;
    const nw = this.nWallets;
    const np = this.nPos;
    this.nBooks = 0;
    this.nWallets = 0;
    this.nPos = 0;
    if (!this.emitEvents) {
      for (let i = 0; i < nb; i++) this.bookSeqs[this.touchedBooks[i]]++;
      return;
    }
    for (let i = 0; i < nb; i++) {
      const bi = this.touchedBooks[i];
      this.bookSeqs[bi]++;
      this.ev.push({
        kind: 'BookChanged',
        marketId: this.markets[bi >> 1].rec.id,
        currency: CURRENCIES[bi & 1],
      });
    }
    for (let i = 0; i < nw; i++) {
      const w = this.touchedWallets[i];
      this.ev.push({
        kind: 'WalletChanged',
        accountId: this.accounts[w >> 1].id,
        currency: CURRENCIES[w & 1],
      });
    }
    for (let i = 0; i < np; i++) {
      this.ev.push({
        kind: 'PositionChanged',
        position: this.positionRecord(this.accounts[this.touchedPosAcct[i]], this.touchedPos[i]),
      });
    }
  }

  // ================================================================== materialization

  private orderRecord(h: number, status: OrderStatus): OrderRecord {
    const pool = this.pool;
    const ms = this.markets[pool.i32[h * IW + I_BOOK] >> 1];
    const exp = pool.f64[h * FW + F_EXPIRES_AT];
    return {
      id: pool.ids[h],
      accountId: this.accounts[pool.i32[h * IW + I_ACCOUNT]].id,
      outcomeId: ms.outcomes[pool.i32[h * IW + I_SIDE]].id,
      marketId: ms.rec.id,
      currency: CURRENCIES[pool.i32[h * IW + I_BOOK] & 1],
      price: TICKS[pool.i32[h * IW + I_LEVEL]],
      qty: pool.f64[h * FW + F_QTY],
      originalQty: pool.f64[h * FW + F_ORIGINAL_QTY],
      tif: TIFS[pool.i32[h * IW + I_TIF]]!,
      expiresAt: exp >= 0 ? exp : null,
      // both maps are usually empty: skip the lookups then
      flags: pool.flags.size > 0 ? (pool.flags.get(h) ?? null) : null,
      clientOrderId: pool.clientOrderId.size > 0 ? (pool.clientOrderId.get(h) ?? null) : null,
      status,
      createdAt: pool.f64[h * FW + F_CREATED_AT],
      updatedAt: pool.f64[h * FW + F_UPDATED_AT],
    };
  }

  private positionRecord(a: Account, p: Pos): Position {
    const ms = this.markets[p.key >> 2];
    return {
      accountId: a.id,
      outcomeId: ms.outcomes[(p.key >> 1) & 1].id,
      marketId: ms.rec.id,
      currency: CURRENCIES[p.key & 1],
      size: p.size,
      cost: p.cost,
    };
  }

  // ================================================================== ExchangeReader

  leagues(): readonly League[] {
    return [...this.leagueMap.values()];
  }
  team(id: Id): Team | undefined {
    return this.teamMap.get(id);
  }
  teams(league?: string): readonly Team[] {
    const all = [...this.teamMap.values()];
    return league === undefined ? all : all.filter((t) => t.league === league);
  }
  game(id: Id): Game | undefined {
    return this.gameMap.get(id);
  }
  event(id: Id): EventRecord | undefined {
    return this.eventMap.get(id);
  }
  /** Cached; rebuilt only after an event was added (scheduledStart and id never change). */
  eventsSorted(): readonly EventRecord[] {
    if (!this.sortedEvents) {
      this.sortedEvents = [...this.eventMap.values()].sort((x, y) =>
        x.scheduledStart !== y.scheduledStart
          ? x.scheduledStart - y.scheduledStart
          : x.id < y.id
            ? -1
            : x.id > y.id
              ? 1
              : 0,
      );
    }
    return this.sortedEvents;
  }
  market(id: Id): MarketRecord | undefined {
    const mi = this.marketIdx.get(id);
    return mi === undefined ? undefined : this.markets[mi].rec;
  }
  outcome(id: Id): OutcomeRecord | undefined {
    return this.outcomeMap.get(id);
  }

  bookSeq(marketId: Id, currency: Currency): number {
    const mi = this.marketIdx.get(marketId);
    return mi === undefined ? 0 : this.bookSeqs[mi * 2 + CUR_INDEX[currency]];
  }

  private sideLevels(b: Book, side: number, toOne: boolean): Level[] {
    const out: Level[] = [];
    const base = side * TICK_COUNT;
    for (let li = b.best[side]; li >= 0; li--) {
      if (b.head[base + li] !== NIL)
        out.push({ price: toOne ? ONE - TICKS[li] : TICKS[li], qty: b.qty[base + li] });
    }
    return out;
  }

  bookLevels(marketId: Id, currency: Currency): { bids: Level[]; asks: Level[] } {
    const mi = this.marketIdx.get(marketId);
    const b = mi === undefined ? undefined : this.books[mi * 2 + CUR_INDEX[currency]];
    if (!b) return { bids: [], asks: [] };
    return { bids: this.sideLevels(b, 0, false), asks: this.sideLevels(b, 1, true) };
  }

  restingOrders(outcomeId: Id, currency: Currency): OrderRecord[] {
    const ref = this.outcomeRef.get(outcomeId);
    const b = ref === undefined ? undefined : this.books[(ref >> 1) * 2 + CUR_INDEX[currency]];
    if (!b || ref === undefined) return [];
    const side = ref & 1;
    const out: OrderRecord[] = [];
    for (let li = b.best[side]; li >= 0; li--) {
      for (let h = b.head[side * TICK_COUNT + li]; h !== NIL; h = this.pool.i32[h * IW + I_NEXT]) {
        out.push(this.orderRecord(h, 'RESTING'));
      }
    }
    return out;
  }

  bestBid(outcomeId: Id, currency: Currency): { price: Tick; qty: number } | null {
    const ref = this.outcomeRef.get(outcomeId);
    const b = ref === undefined ? undefined : this.books[(ref >> 1) * 2 + CUR_INDEX[currency]];
    if (!b || ref === undefined) return null;
    const side = ref & 1;
    const li = b.best[side];
    return li < 0 ? null : { price: TICKS[li], qty: b.qty[side * TICK_COUNT + li] };
  }

  hasAccount(accountId: Id): boolean {
    return this.accountIdx.has(accountId);
  }

  wallet(accountId: Id, currency: Currency): Wallet | undefined {
    const ai = this.accountIdx.get(accountId);
    const ci = CUR_INDEX[currency];
    if (ai === undefined || ci === undefined) return undefined;
    const a = this.accounts[ai];
    return { available: this.wal[a.idx * WS + ci], reserved: this.wal[a.idx * WS + 2 + ci] };
  }

  openOrders(accountId: Id, currency?: Currency): OrderRecord[] {
    const ai = this.accountIdx.get(accountId);
    if (ai === undefined) return [];
    const out: OrderRecord[] = [];
    const want = currency === undefined ? -1 : CUR_INDEX[currency];
    for (let h = this.accounts[ai].head; h !== NIL; h = this.pool.i32[h * IW + I_ANEXT]) {
      if (want < 0 || (this.pool.i32[h * IW + I_BOOK] & 1) === want) out.push(this.orderRecord(h, 'RESTING'));
    }
    return out;
  }

  order(orderId: Id): OrderRecord | undefined {
    const h = this.orderIdx.get(orderId);
    return h < 0 ? undefined : this.orderRecord(h, 'RESTING');
  }

  positions(accountId: Id, currency?: Currency): Position[] {
    const ai = this.accountIdx.get(accountId);
    if (ai === undefined) return [];
    const a = this.accounts[ai];
    const want = currency === undefined ? -1 : CUR_INDEX[currency];
    const out: Position[] = [];
    for (const p of a.positions.values()) {
      if (p.size > 0 && (want < 0 || (p.key & 1) === want)) out.push(this.positionRecord(a, p));
    }
    return out;
  }

  orderIdForClientOrderId(accountId: Id, clientOrderId: string): Id | undefined {
    const ai = this.accountIdx.get(accountId);
    return ai === undefined ? undefined : this.accounts[ai].clientOrders.get(clientOrderId);
  }

  /**
   * Earliest time at which an `Expire` command has work: the first live GTT expiry or lock expiry,
   * or null. Stale heap entries (orders already gone) are dropped on the way, which is invisible to
   * the state (the heap is derived data, not part of the hash).
   */
  nextExpiry(): number | null {
    const pool = this.pool;
    while (this.expiries.length > 0) {
      const [s, h] = this.expiries.peekEntry();
      if (pool.f64[h * FW + F_QTY] > 0 && pool.f64[h * FW + F_SEQ_NO] === s) break;
      this.expiries.pop();
    }
    let t = this.expiries.peekTime();
    for (const l of this.lockMap.values()) if (l.expiresAt !== null && l.expiresAt < t) t = l.expiresAt;
    return t === Number.POSITIVE_INFINITY ? null : t;
  }

  locks(): { system: TradingLock | null; events: TradingLock[] } {
    let system: TradingLock | null = null;
    const events: TradingLock[] = [];
    for (const l of this.lockMap.values()) {
      if (l.eventId === null) system = l;
      else events.push(l);
    }
    return { system, events };
  }

  /** Number of resting orders. */
  get restingCount(): number {
    return this.pool.size;
  }

  // ================================================================== accounting

  /**
   * Money totals per currency. Conservation (docs/exchange.md): for each currency,
   * Σavailable + Σreserved + Σcollateral + fees = deposits − withdrawals, i.e. imbalance = 0.
   */
  totals(): ExchangeTotals {
    const out = {} as ExchangeTotals;
    CURRENCIES.forEach((cur, ci) => {
      let available = 0;
      let reserved = 0;
      let positionsCost = 0;
      for (const a of this.accounts) {
        available += this.wal[a.idx * WS + ci];
        reserved += this.wal[a.idx * WS + 2 + ci];
        for (const p of a.positions.values()) if ((p.key & 1) === ci) positionsCost += p.cost;
      }
      let collateral = 0;
      for (const m of this.markets) collateral += m.collateral[ci];
      const t: CurrencyTotals = {
        deposits: this.deposits[ci],
        withdrawals: this.withdrawals[ci],
        available,
        reserved,
        collateral,
        positionsCost,
        fees: this.fees[ci],
        paidOut: this.paidOut[ci],
        imbalance:
          available + reserved + collateral + this.fees[ci] - (this.deposits[ci] - this.withdrawals[ci]),
      };
      out[cur] = t;
    });
    return out;
  }

  /**
   * Reserved collateral each account should hold, recomputed from its resting orders (Σ bidCost).
   * Equals wallet.reserved outside a command; tests use it as an invariant.
   */
  expectedReserved(accountId: Id, currency: Currency): Money {
    const ai = this.accountIdx.get(accountId);
    if (ai === undefined) return 0;
    const ci = CUR_INDEX[currency];
    let sum = 0;
    for (let h = this.accounts[ai].head; h !== NIL; h = this.pool.i32[h * IW + I_ANEXT]) {
      if ((this.pool.i32[h * IW + I_BOOK] & 1) === ci)
        sum += bidCost(TICKS[this.pool.i32[h * IW + I_LEVEL]], this.pool.f64[h * FW + F_QTY], currency);
    }
    return sum;
  }

  // ================================================================== snapshot, restore, hash

  /**
   * The whole state as canonical bytes: everything is written in an order that depends only on the
   * command history (insertion order of catalog/accounts/locks; resting orders in acceptance order),
   * never on handle numbers, so replay and snapshot→restore give identical bytes.
   */
  snapshot(): Uint8Array {
    const w = new BinWriter(Math.max(1 << 16, this.pool.size * 112));
    w.str(SNAPSHOT_MAGIC);
    for (const v of [this._lastSeq, this._catalogVersion, this.feePpm, this.orderSeq]) w.f64(v);
    for (const arr of [this.deposits, this.withdrawals, this.fees, this.paidOut]) {
      w.f64(arr[0]);
      w.f64(arr[1]);
    }
    w.json({
      leagues: [...this.leagueMap.values()],
      teams: [...this.teamMap.values()],
      games: [...this.gameMap.values()],
      events: [...this.eventMap.values()],
      markets: this.markets.map((m) => [m.rec, m.outcomes, m.collateral]),
      bookSeqs: this.bookSeqs,
      locks: [...this.lockMap.values()],
    });
    w.u32(this.accounts.length);
    for (const a of this.accounts) {
      w.str(a.id);
      w.f64(this.wal[a.idx * WS + 0]);
      w.f64(this.wal[a.idx * WS + 1]);
      w.f64(this.wal[a.idx * WS + 2 + 0]);
      w.f64(this.wal[a.idx * WS + 2 + 1]);
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
    }
    const pool = this.pool;
    const live = this.liveInAcceptanceOrder();
    w.u32(live.length);
    for (let i = 0; i < live.length; i++) {
      const h = live[i];
      w.str(pool.ids[h]);
      w.u32(pool.i32[h * IW + I_ACCOUNT]);
      w.u32(pool.i32[h * IW + I_BOOK]);
      w.u8(pool.i32[h * IW + I_SIDE]);
      w.u8(pool.i32[h * IW + I_TIF]);
      w.u32(pool.i32[h * IW + I_LEVEL]);
      w.f64(pool.f64[h * FW + F_QTY]);
      w.f64(pool.f64[h * FW + F_ORIGINAL_QTY]);
      w.f64(pool.f64[h * FW + F_CREATED_AT]);
      w.f64(pool.f64[h * FW + F_UPDATED_AT]);
      w.f64(pool.f64[h * FW + F_EXPIRES_AT]);
      w.f64(pool.f64[h * FW + F_SEQ_NO]);
      w.strOrNull(pool.flags.get(h));
      w.strOrNull(pool.clientOrderId.get(h));
    }
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
  private liveInAcceptanceOrder(): Int32Array {
    const pool = this.pool;
    const f64 = pool.f64;
    const cap = pool.capacity; // every handle is < capacity
    const out = new Int32Array(pool.size);
    let k = 0;
    if ((this.orderSeq + 1) * cap <= Number.MAX_SAFE_INTEGER) {
      const keys = new Float64Array(pool.size);
      for (let h = 0; h < pool.top; h++)
        if (f64[h * FW + F_QTY] > 0) keys[k++] = f64[h * FW + F_SEQ_NO] * cap + h;
      keys.sort();
      for (let i = 0; i < k; i++) out[i] = keys[i] % cap;
    } else {
      for (let h = 0; h < pool.top; h++) if (f64[h * FW + F_QTY] > 0) out[k++] = h;
      out.sort((x, y) => f64[x * FW + F_SEQ_NO] - f64[y * FW + F_SEQ_NO]);
    }
    if (k !== out.length) throw new Error(`order pool: ${k} live handles, size ${out.length}`);
    return out;
  }

  /** Replaces the whole state with a snapshot's. */
  restore(bytes: Uint8Array): void {
    const r = new BinReader(bytes);
    if (r.str() !== SNAPSHOT_MAGIC) throw new Error('not an exchange snapshot');
    const fresh = new Exchange({ events: this.emitEvents });
    fresh._lastSeq = r.f64();
    fresh._catalogVersion = r.f64();
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
      const a = fresh.newAccount(r.str());
      fresh.wal[a.idx * WS + 0] = r.f64();
      fresh.wal[a.idx * WS + 1] = r.f64();
      fresh.wal[a.idx * WS + 2 + 0] = r.f64();
      fresh.wal[a.idx * WS + 2 + 1] = r.f64();
      const np = r.u32();
      for (let j = 0; j < np; j++) {
        const key = r.f64();
        const size = r.f64();
        fresh.newPos(a, key, size, r.f64());
      }
      const nc = r.u32();
      for (let j = 0; j < nc; j++) a.clientOrders.set(r.str(), r.str());
    }
    const nOrd = r.u32();
    let cap = 1024;
    while (cap < nOrd) cap *= 2;
    const pool = new OrderPool(cap);
    fresh.pool = pool;
    fresh.orderIdx = new IdIndex(pool.ids);
    for (let i = 0; i < nOrd; i++) {
      const h = pool.alloc();
      pool.ids[h] = r.str();
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
      pool.i32[h * IW + I_HASH] = IdIndex.hashOf(pool.ids[h]);
      fresh.link(h, fresh.book(pool.i32[h * IW + I_BOOK]), fresh.accounts[pool.i32[h * IW + I_ACCOUNT]]);
    }
    if (!r.done()) throw new Error('snapshot has trailing bytes');
    fresh.rebuildExpiries();
    Object.assign(this, fresh);
  }

  /** SHA-256 (hex) of the canonical snapshot: equal hashes ⇔ identical state. */
  hash(): string {
    return createHash('sha256').update(this.snapshot()).digest('hex');
  }
}
