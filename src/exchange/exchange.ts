// The exchange state machine (principle 2 of docs/architecture.md "Principles"; docs/exchange.md): catalog, books, accounts,
// positions, settlement, fees and locks, deterministic and pure. `apply` validates a command
// completely before touching anything, so a rejection changes nothing; an accepted command mutates
// and returns its DomainEvents. Time comes from `cmd.ts`, ids from the command; fill ids are derived
// from the taker order id. No clock, randomness or I/O (node:crypto hashes bytes only).
//
// This class is the facade: it owns one ExchangeState (state.ts) and dispatches each command to the
// module that holds its behaviour; reads go to queries.ts. Where each behaviour lives:
// docs/architecture.md "The engine". Design notes and the money rules: docs/exchange.md.

import { createAccount, deposit, withdraw } from './accounts.ts';
import { amendOrder, queuePosition } from './amend.ts';
import { cancelOrder, cancelOrders, expire } from './cancels.ts';
import {
  addMarkets,
  createEvent,
  createLeague,
  createTeam,
  setEventStatus,
  setGameScore,
  setMarketStatus,
} from './catalog-commands.ts';
import { flushTouched } from './change-tracking.ts';
import { clientOrderIdsDue, expireClientOrderIds } from './client-order-ids.ts';
import { reject } from './command-checks.ts';
import { clearLock, setFeeCoefficient, setLock } from './locks-and-fees.ts';
import { massQuote } from './mass-quote.ts';
import { placeOrder } from './matching.ts';
import { mmpView, resetMmp, setMmp } from './mmp.ts';
import { claimBoost, createBoost, endBoost } from './parlay-boosts.ts';
import { parlayWager } from './parlay-fills.ts';
import { parlayCancel, parlayQuote, parlayRequest } from './parlay-requests.ts';
import { dueMarkets, settleParlays } from './parlay-settlement.ts';
import { type PlacedTerms, placedTerms } from './placed-terms.ts';
import * as q from './queries.ts';
import type { ExchangeReader } from './reader.ts';
import { settleMarket } from './settlement.ts';
import { hash, restore, snapshot, snapshotSlices } from './snapshot.ts';
import { ExchangeState } from './state.ts';
import { type ExchangeTotals, expectedReserved, totals } from './totals.ts';
import type {
  BoostClaimRecord,
  BoostRecord,
  Command,
  CommandResult,
  Currency,
  EventRecord,
  Game,
  Id,
  League,
  Level,
  MarketRecord,
  MmpView,
  Money,
  OrderRecord,
  OutcomeRecord,
  ParlayPage,
  ParlayRecord,
  ParlayRequestRecord,
  Position,
  RequestPage,
  StateMachine,
  Team,
  Tick,
  TradingLock,
  Wallet,
} from './types.ts';
import { PPM } from './units.ts';

export type { CurrencyTotals, ExchangeTotals } from './totals.ts';

export class Exchange implements StateMachine<Command, CommandResult>, ExchangeReader {
  private s: ExchangeState;

  /**
   * `events: false` is replay mode (journal recovery, replicas catching up, benchmarks of the
   * matching core): state changes are identical — same hash — but accepted results carry no events,
   * so no event objects are built on the hot path.
   */
  constructor(options: { events?: boolean; recordHandles?: boolean } = {}) {
    this.s = new ExchangeState(options.events ?? true, options.recordHandles ?? false);
  }

  /**
   * Switches between replay mode and building events, between two commands (state is identical in
   * both). Recovery replays what the history projection already holds without events and turns
   * them on for the commands whose results it still needs (docs/journal.md "Recovery").
   */
  setEvents(on: boolean): void {
    this.s.emitEvents = on;
  }

  get lastSeq(): number {
    return this.s.lastSeq;
  }
  get catalogVersion(): number {
    return this.s.catalogVersion;
  }
  get feeCoefficient(): number {
    return this.s.feePpm / PPM;
  }

  /** Applies `cmd` as sequence number lastSeq + 1. */
  apply(cmd: Command): CommandResult {
    return this.applySeq(this.s.lastSeq + 1, cmd);
  }

  /** Applies `cmd` as sequence number `seq`; lastSeq becomes `seq` when it is accepted. */
  applySeq(seq: number, cmd: Command): CommandResult {
    const s = this.s;
    s.stamp++;
    s.seq = seq;
    s.ev.clear();
    const r = dispatch(s, cmd);
    if (r.ok) {
      s.lastSeq = seq;
      flushTouched(s);
      // r is the shared accepted result (state.ts ok); replay mode returns it, events are dropped
      if (s.emitEvents) return { ok: true, events: s.ev.take() };
      s.ev.clear();
    } else {
      // Handlers validate before mutating, so nothing was touched; clear defensively anyway.
      s.nBooks = 0;
      s.nWallets = 0;
      s.nPos = 0;
      s.ev.clear();
    }
    return r;
  }

  // ------------------------------------------------------------------ reads (queries.ts)
  leagues(): readonly League[] {
    return q.leagues(this.s);
  }
  team(id: Id): Team | undefined {
    return q.team(this.s, id);
  }
  teams(league?: string): readonly Team[] {
    return q.teams(this.s, league);
  }
  game(id: Id): Game | undefined {
    return q.game(this.s, id);
  }
  event(id: Id): EventRecord | undefined {
    return q.event(this.s, id);
  }
  eventsSorted(): readonly EventRecord[] {
    return q.eventsSorted(this.s);
  }
  market(id: Id): MarketRecord | undefined {
    return q.market(this.s, id);
  }
  outcome(id: Id): OutcomeRecord | undefined {
    return q.outcome(this.s, id);
  }
  bookSeq(marketId: Id, currency: Currency): number {
    return q.bookSeq(this.s, marketId, currency);
  }
  bookLevels(marketId: Id, currency: Currency): { bids: Level[]; asks: Level[] } {
    return q.bookLevels(this.s, marketId, currency);
  }
  restingOrders(outcomeId: Id, currency: Currency): OrderRecord[] {
    return q.restingOrders(this.s, outcomeId, currency);
  }
  bestBid(outcomeId: Id, currency: Currency): { price: Tick; qty: number } | null {
    return q.bestBid(this.s, outcomeId, currency);
  }
  hasAccount(accountId: Id): boolean {
    return q.hasAccount(this.s, accountId);
  }
  wallet(accountId: Id, currency: Currency): Wallet | undefined {
    return q.wallet(this.s, accountId, currency);
  }
  openOrders(accountId: Id, currency?: Currency): OrderRecord[] {
    return q.openOrders(this.s, accountId, currency);
  }
  order(orderId: Id): OrderRecord | undefined {
    return q.order(this.s, orderId);
  }
  queuePosition(orderId: Id): { ordersAhead: number; qtyAhead: number } | undefined {
    return queuePosition(this.s, orderId);
  }
  positions(accountId: Id, currency?: Currency): Position[] {
    return q.positions(this.s, accountId, currency);
  }
  orderIdForClientOrderId(accountId: Id, clientOrderId: string): Id | undefined {
    return q.orderIdForClientOrderId(this.s, accountId, clientOrderId);
  }
  placedTerms(accountId: Id, clientOrderId: string): PlacedTerms | undefined {
    return placedTerms(this.s, accountId, clientOrderId);
  }
  nextExpiry(): number | null {
    return q.nextExpiry(this.s);
  }
  clientOrderIdsDue(now: number, windowMs: number): boolean {
    return clientOrderIdsDue(this.s, now, windowMs);
  }
  locks(): { system: TradingLock | null; events: TradingLock[] } {
    return q.locks(this.s);
  }
  mmp(accountId: Id): MmpView | undefined {
    return mmpView(this.s, accountId);
  }
  parlayRequest(id: Id): ParlayRequestRecord | undefined {
    return q.parlayRequest(this.s, id);
  }
  parlayRequests(accountId: Id, page?: RequestPage): ParlayRequestRecord[] {
    return q.parlayRequests(this.s, accountId, page);
  }
  openParlayRequests(): ParlayRequestRecord[] {
    return q.openParlayRequests(this.s);
  }
  openParlayRequestCount(accountId: Id, now: number): number {
    return q.openParlayRequestCount(this.s, accountId, now);
  }
  parlay(id: Id): ParlayRecord | undefined {
    return q.parlay(this.s, id);
  }
  parlays(accountId: Id, page?: ParlayPage): ParlayRecord[] {
    return q.parlays(this.s, accountId, page);
  }
  parlaySettlementsDue(): { marketId: Id; parlays: number }[] {
    return dueMarkets(this.s);
  }
  parlayForClientOrderId(accountId: Id, clientOrderId: string): Id | undefined {
    return q.parlayForClientOrderId(this.s, accountId, clientOrderId);
  }
  boosts(): BoostRecord[] {
    return q.boosts(this.s);
  }
  boostClaims(accountId: Id): BoostClaimRecord[] {
    return q.boostClaims(this.s, accountId);
  }
  /** Number of resting orders. */
  get restingCount(): number {
    return this.s.pool.size;
  }

  // ------------------------------------------------------------------ accounting (totals.ts)
  totals(): ExchangeTotals {
    return totals(this.s);
  }
  expectedReserved(accountId: Id, currency: Currency): Money {
    return expectedReserved(this.s, accountId, currency);
  }

  // ------------------------------------------------------------------ snapshot.ts
  snapshot(): Uint8Array {
    return snapshot(this.s);
  }
  /**
   * snapshot()'s bytes in slices of bounded work (snapshot.ts): the state must not change until
   * the generator returns (the sequencer holds commands meanwhile, docs/journal.md).
   */
  snapshotSlices(sliceWork?: number): Generator<void, Uint8Array, void> {
    return snapshotSlices(this.s, sliceWork);
  }
  /** Replaces the whole state with a snapshot's (unchanged if the bytes are not a valid snapshot). */
  restore(bytes: Uint8Array): void {
    this.s = restore(bytes, this.s.emitEvents, this.s.recordHandles);
  }
  /** SHA-256 (hex) of the canonical snapshot: equal hashes ⇔ identical state. */
  hash(): string {
    return hash(this.s);
  }
}

/** Routes a command to the module that holds its behaviour. */
function dispatch(s: ExchangeState, c: Command): CommandResult {
  if (c === null || typeof c !== 'object' || !Number.isSafeInteger(c.ts)) {
    return reject('VALIDATION_FAILED', 'command needs an integer ts');
  }
  switch (c.type) {
    case 'PlaceOrder':
      return placeOrder(s, c);
    case 'CancelOrder':
      return cancelOrder(s, c);
    case 'CancelOrders':
      return cancelOrders(s, c);
    case 'AmendOrder':
      return amendOrder(s, c);
    case 'MassQuote':
      return massQuote(s, c);
    case 'Expire':
      return expire(s, c);
    case 'ExpireClientOrderIds':
      return expireClientOrderIds(s, c);
    case 'CreateLeague':
      return createLeague(s, c);
    case 'CreateTeam':
      return createTeam(s, c);
    case 'CreateEvent':
      return createEvent(s, c);
    case 'AddMarkets':
      return addMarkets(s, c);
    case 'SetEventStatus':
      return setEventStatus(s, c);
    case 'SetGameScore':
      return setGameScore(s, c);
    case 'SetMarketStatus':
      return setMarketStatus(s, c);
    case 'SettleMarket':
      return settleMarket(s, c);
    case 'CreateAccount':
      return createAccount(s, c);
    case 'Deposit':
      return deposit(s, c);
    case 'Withdraw':
      return withdraw(s, c);
    case 'SetLock':
      return setLock(s, c);
    case 'ClearLock':
      return clearLock(s, c);
    case 'SetFeeCoefficient':
      return setFeeCoefficient(s, c);
    case 'SetMmp':
      return setMmp(s, c);
    case 'ResetMmp':
      return resetMmp(s, c);
    case 'ParlayRequest':
      return parlayRequest(s, c);
    case 'ParlayCancel':
      return parlayCancel(s, c);
    case 'ParlayQuote':
      return parlayQuote(s, c);
    case 'ParlayWager':
      return parlayWager(s, c);
    case 'SettleParlays':
      return settleParlays(s, c);
    case 'CreateBoost':
      return createBoost(s, c);
    case 'EndBoost':
      return endBoost(s, c);
    case 'ClaimBoost':
      return claimBoost(s, c);
    default:
      return reject('VALIDATION_FAILED', `unknown command type ${(c as { type?: unknown }).type}`);
  }
}
