// The engine's state: one object holding everything the exchange knows (catalog, books and resting
// orders, accounts, wallets, positions, locks, counters) plus the per-command scratch the command
// modules share. Each behaviour lives in a module of functions over this object (catalog-commands,
// accounts, locks-and-fees, matching, cancels, positions, settlement, change-tracking, queries,
// totals, snapshot); `Exchange` (exchange.ts) is the facade that dispatches to them. One concrete
// class keeps every call site monomorphic. Layout and reasons: docs/architecture.md "The engine",
// docs/exchange.md.
//
// Hot-path layout: resting orders live in OrderPool's typed-array columns; a book per
// (market, currency) holds, per side, a window of price levels indexed by tick index, each a FIFO
// queue as an intrusive doubly linked list of handles. Matching reads and writes numbers only.

import { ExpiryHeap } from './expiry-heap.ts';
import { IdIndex } from './id-index.ts';
import { I_ACCOUNT, IW, OrderPool } from './order-pool.ts';
import { ParlayState } from './parlay-state.ts';
import type {
  Command,
  CommandResult,
  DomainEvent,
  EventRecord,
  Game,
  Id,
  League,
  MarketRecord,
  MmpConfig,
  OutcomeRecord,
  Team,
  TradingLock,
} from './types.ts';

export type Cmd<T extends Command['type']> = Extract<Command, { type: T }>;
export type CancelReason = 'USER' | 'IOC' | 'WASH' | 'EXPIRED' | 'LIFECYCLE' | 'MMP';

export const DEFAULT_FEE_PPM = 30_000; // 0.03 (docs/exchange.md "Fees")
export const CUR_INDEX: Record<string, number> = { CASH: 0, COIN: 1 };
/**
 * Wallets live in one Float64Array, WALLET_SLOTS slots per account index: per currency index, the
 * available balance at +currencyIndex, the reserved one at +WALLET_RESERVED+currencyIndex, the
 * touch stamp at +WALLET_STAMP+currencyIndex (2 slots spare). One account's whole wallet
 * is one 64-byte line, read without a pointer chase: as two [number, number] arrays on the Account
 * object, the funds check alone cost three dependent loads per taker and per maker (~10% of
 * placement in the profile, docs/bench-engine.md). Money stays integer-valued (safe integers).
 */
export const WALLET_SLOTS = 8;
/** Offset of the reserved balances in an account's wallet slots (after the two available ones). */
export const WALLET_RESERVED = 2;
/** Offset of the per-command touch stamps (change tracking) in an account's wallet slots. */
export const WALLET_STAMP = 4;

export interface MarketState {
  idx: number;
  rec: MarketRecord;
  event: EventRecord;
  outcomes: [OutcomeRecord, OutcomeRecord];
  /** Collateral locked in this market's open positions, per currency index (Money). */
  collateral: [number, number];
}

/**
 * One (market, currency) book: per side, a window of `span` consecutive price levels starting at
 * tick index `lo[side]`. Every resting order of a side lies inside its window; levels outside it are
 * empty. Level slot = `base[side]` + tick index, where `base[side]` = side × span − lo[side]. Most
 * books hold a few levels near one price, so a window of 16 levels per side is 512 bytes where all
 * 279 were 8.9 KB (docs/exchange.md "Books and matching"); `widen` (resting-orders.ts) moves or grows it.
 */
export interface Book {
  head: Int32Array;
  tail: Int32Array;
  qty: Float64Array;
  /** Best (highest) non-empty level index per side, or -1. */
  best: Int32Array;
  /** First tick index of each side's window. */
  lo: Int32Array;
  /** Slot of tick index 0 per side (may be negative; only tick indexes in the window are used). */
  base: Int32Array;
  /** Levels per side in the window (0 until the first order rests). */
  span: number;
}

export interface Pos {
  /** (market index × 2 + side) × 2 + currency index. */
  key: number;
  size: number;
  cost: number;
  stamp: number;
  /** The same account's position on the market's other outcome (same currency), once both exist:
   * netting checks it after every fill without a second Map lookup. */
  twin: Pos | null;
}

/** Fills of protected orders of one account on one event and currency within the MMP interval. */
export interface MmpWindow {
  accountIndex: number;
  eventId: Id;
  currencyIndex: number;
  /** [ts, qty, signed qty] per fill, oldest first, from index `from`. */
  fills: number[];
  from: number;
  qty: number;
  net: number;
}

/**
 * The terms a keyed order was placed with, once it stops showing them (placed-terms.ts): one entry
 * per (account, clientOrderId).
 */
export interface PlacedEntry {
  accountIndex: number;
  clientOrderId: string;
  price: number;
  qty: number;
}

export interface Account {
  idx: number;
  id: Id;
  /** Open-order list (acceptance order). */
  head: number;
  tail: number;
  positions: Map<number, Pos>;
  /** The current generation of the account's idempotency keys → order (client-order-ids.ts). */
  clientOrders: Map<string, Id>;
  /** The older generation, null while empty: expired in chunks by ExpireClientOrderIds. */
  olderClientOrders: Map<string, Id> | null;
}

export class ExchangeState {
  // ------------------------------------------------------------------ counters
  lastSeq = 0;
  catalogVersion = 0;
  feePpm = DEFAULT_FEE_PPM;
  /** Next order acceptance number (time priority). */
  orderSeq = 0;
  deposits = [0, 0];
  withdrawals = [0, 0];
  fees = [0, 0];
  paidOut = [0, 0];

  // ------------------------------------------------------------------ catalog
  leagueMap = new Map<string, League>();
  teamMap = new Map<Id, Team>();
  gameMap = new Map<Id, Game>();
  gameEvent = new Map<Id, Id>();
  eventMap = new Map<Id, EventRecord>();
  markets: MarketState[] = [];
  marketIdx = new Map<Id, number>();
  outcomeMap = new Map<Id, OutcomeRecord>();
  /** Outcome id → market index × 2 + side. */
  outcomeRef = new Map<Id, number>();
  sortedEvents: EventRecord[] | null = null;

  // ------------------------------------------------------------------ books and orders
  books: (Book | undefined)[] = [];
  bookSeqs: number[] = [];
  pool = new OrderPool();
  orderIdx = new IdIndex(this.pool);
  expiries = new ExpiryHeap();
  gttLive = 0;

  // ------------------------------------------------------------------ accounts and locks
  accounts: Account[] = [];
  /** Wallet slots by account index (see WALLET_SLOTS). */
  wallets = new Float64Array(WALLET_SLOTS * 64);
  accountIdx = new Map<Id, number>();
  lockMap = new Map<Id, TradingLock>();
  /** Market-maker protection (mmp.ts): configs, freezes and fill windows, keyed as mmp.ts says. */
  mmpConfigs = new Map<
    string,
    { accountIndex: number; eventId: Id | null; currencyIndex: number; config: MmpConfig }
  >();
  mmpFrozen = new Map<string, { accountIndex: number; eventId: Id; until: number }>();
  mmpWindows = new Map<string, MmpWindow>();
  /** `${accountIndex}\0${clientOrderId}` → the terms it was placed with, for amended or repriced
   * keyed orders only (placed-terms.ts). */
  placedTerms = new Map<string, PlacedEntry>();
  /** The idempotency window (client-order-ids.ts): when the current generation of keys began (-1:
   * none yet), the keys of the older generations, and the account its sweep resumes at. */
  keysSince = -1;
  olderKeys = 0;
  keysCursor = 0;

  // ------------------------------------------------------------------ parlays (parlay-state.ts)
  parlay = new ParlayState();

  // ------------------------------------------------------------------ per-command scratch
  stamp = 0;
  /** The events of the command being applied (EventBuffer below); its result takes a copy. */
  readonly ev = new EventBuffer();
  seq = 0;
  // touched lists are reused across commands: n* counts the live prefix (no per-command arrays)
  touchedBooks: number[] = [];
  nBooks = 0;
  nWallets = 0;
  nPos = 0;
  /** BookChanged by book index and WalletChanged by account index × 2 + currency index, built
   * once each (change-tracking.ts): the same values every time, frozen, so shared by every result. */
  bookChanged: DomainEvent[] = [];
  walletChanged: DomainEvent[] = [];
  bookStamp: number[] = [];
  touchedWallets: number[] = []; // account index × 2 + currency index
  touchedPos: Pos[] = [];
  touchedPosAcct: number[] = [];
  // fills of the current PlaceOrder, written in the matching loop without allocation
  fMaker = new Int32Array(64);
  fQty = new Float64Array(64);
  fLevel = new Int32Array(64);
  fFee = new Float64Array(64);
  fWash = new Uint8Array(64);

  /** false: replay mode (below); switched on by `Exchange.setEvents` when recovery reaches live. */
  emitEvents: boolean;
  /** Write the handles resolved from ids into the command (`ah`, `oh`), for the journal. */
  readonly recordHandles: boolean;

  /**
   * `events: false` is replay mode (journal recovery, replicas catching up, benchmarks of the
   * matching core): state changes are identical — same hash — but accepted results carry no events,
   * so no event objects are built on the hot path.
   */
  constructor(emitEvents: boolean, recordHandles: boolean) {
    this.emitEvents = emitEvents;
    this.recordHandles = recordHandles;
  }
}

/**
 * The account index of a command: its handle `ah` when that is an account with this very id (a
 * string comparison, no hashing), else the id looked up — and the result then written to `c.ah`
 * when the state records handles, so the journaled command carries it. undefined: no such account.
 */
export function accountOf(s: ExchangeState, c: { accountId: Id; ah?: number }): number | undefined {
  const ah = c.ah;
  if (ah !== undefined && (ah | 0) === ah && ah >= 0) {
    const a = s.accounts[ah];
    if (a !== undefined && a.id === c.accountId) return ah;
  }
  const accountIndex = s.accountIdx.get(c.accountId);
  if (accountIndex !== undefined && s.recordHandles) c.ah = accountIndex;
  return accountIndex;
}

/**
 * The account index of resting order `h` when its account's id is the command's `accountId` (one
 * string comparison, where accountOf hashes the id and probes the account map), recorded in `c.ah`
 * as accountOf would; -1 when it is another account's. Cancels and amends find the order first.
 */
export function ownAccount(s: ExchangeState, c: { accountId: Id; ah?: number }, h: number): number {
  const accountIndex = s.pool.i32[h * IW + I_ACCOUNT]!;
  if (s.accounts[accountIndex]!.id !== c.accountId) return -1;
  if (s.recordHandles) c.ah = accountIndex;
  return accountIndex;
}

/** The outcome reference (market index × 2 + outcome index) of a PlaceOrder, as accountOf. */
export function outcomeOf(s: ExchangeState, c: { outcomeId: Id; oh?: number }): number | undefined {
  const oh = c.oh;
  if (oh !== undefined && (oh | 0) === oh && oh >= 0) {
    const market = s.markets[oh >> 1];
    if (market !== undefined && market.outcomes[oh & 1]!.id === c.outcomeId) return oh;
  }
  const ref = s.outcomeRef.get(c.outcomeId);
  if (ref !== undefined && s.recordHandles) c.oh = ref;
  return ref;
}

/** The events of every accepted command in replay mode (frozen: shared by all results). */
export const NO_EVENTS: DomainEvent[] = Object.freeze([]) as unknown as DomainEvent[];
/** Replay mode's one accepted result (frozen): no object per command where nobody reads events. */
const QUIET_OK: CommandResult = Object.freeze({ ok: true, events: NO_EVENTS }) as CommandResult;

/**
 * What a handler returns when it accepts: the one shared accepted result. `Exchange.applySeq`
 * returns it as it is in replay mode, and with events on builds the command's own result from the
 * buffer once the touches are flushed (a handler's result cannot hold them: they come after it).
 */
export function ok(_s: ExchangeState): CommandResult {
  return QUIET_OK;
}

/**
 * A command's events, collected in one array reused across commands and copied out at the end,
 * at their exact length: a fresh `[]` per command grew to 17 slots at its first push (~185 bytes
 * where three events need ~70) and again past 17, the largest allocation of a command after its
 * records (docs/bench-engine.md "Building events"). Slots past `length` keep the previous
 * commands' events alive until overwritten, so `take` drops the array after a command of more
 * than BUFFER_KEEP events (a settlement's, a cancel-all's): at most that many are kept so.
 */
const BUFFER_KEEP = 64;

export class EventBuffer {
  private buf: DomainEvent[] = [];
  private n = 0;

  get length(): number {
    return this.n;
  }
  push(e: DomainEvent): void {
    this.buf[this.n++] = e;
  }
  at(i: number): DomainEvent {
    return this.buf[i]!;
  }
  set(i: number, e: DomainEvent): void {
    this.buf[i] = e;
  }
  /** Forgets the events collected (replay mode, a rejection). */
  clear(): void {
    this.n = 0;
  }
  /** The events collected, as a new array of their own, and the buffer emptied. */
  take(): DomainEvent[] {
    const n = this.n;
    this.n = 0;
    if (n === 0) return [];
    const out = this.buf.slice(0, n);
    if (n > BUFFER_KEEP) this.buf = [];
    return out;
  }
}
