// The house quote (docs/parlays.md "The house quote"): the operator's maker account answers every
// new parlay request with a firm quote at the request's reference price — the pricer's price,
// margin included, which the edge computed and the request carries — for as much payout as the
// house bankroll and the per-game exposure limit allow. `houseQuotes` is a pure function of the
// state and the clock that returns ParlayQuote commands, submitted like any maker's. The HouseDesk
// runs it for each new request right after that request is applied, so the quote is in the
// request's 201 and almost always in its group commit (a batch cut at its size bound may leave it
// for the next one; like every read, the 201 shows applied state, docs/journal.md "Model: apply,
// then journal"); the scheduler's pass (scheduler.ts) retries what the desk could not quote (no
// room yet, a refused quote) within the quoting window.

import type { ExchangeReader } from '../exchange/reader.ts';
import {
  boostPrice,
  type Command,
  type CommandResult,
  type Currency,
  type Id,
  type ParlayRecord,
  type ParlayRequestRecord,
} from '../exchange/types.ts';
import { moneyPerMcu, unitsToMoney } from '../exchange/units.ts';
import type { CommandInput } from './exchange-port.ts';

export interface HouseQuoteOptions {
  accountId: string;
  /** Most collateral (Money) the house holds in open parlays, per currency. */
  bankroll: number;
  /** Most collateral (Money) the house holds in open parlays with a leg in one game (event). */
  gameExposure: number;
}

/** A request is quoted by the house within this long after it was made (a refused quote is retried). */
const QUOTE_WINDOW_MS = 5_000;
const PPM = 1_000_000n;

/**
 * The options from config, or undefined when no house account is configured. On a demo install
 * without PARLAY_HOUSE_ACCOUNT the composition root names the demo's house account (funded by the
 * demo slate; `withDemoHouse`, src/demo/market-maker.ts), so a parlay can always be filled in the
 * sandbox; the demo's market maker quotes at its own prices.
 */
export function houseQuoteOptions(config: {
  parlayHouseAccount: string | undefined;
  parlayHouseBankroll: number;
  parlayHouseGameExposure: number;
}): HouseQuoteOptions | undefined {
  const accountId = config.parlayHouseAccount;
  if (accountId === undefined) return undefined;
  return {
    accountId,
    bankroll: unitsToMoney(config.parlayHouseBankroll) ?? 0,
    gameExposure: unitsToMoney(config.parlayHouseGameExposure) ?? 0,
  };
}

/**
 * The house's open exposure: the collateral it holds in open parlays as their maker, in total per
 * currency and per `${currency}:${eventId}` of each game a leg is on.
 */
export interface HouseExposure {
  used: Record<Currency, number>;
  perGame: Map<string, number>;
}

/** The exposure read from the state: a pass over the house account's open parlays (its settled
 * history is not visited, docs/parlays.md "Reads and retention"). */
export function houseExposure(reader: ExchangeReader, accountId: Id): HouseExposure {
  const e: HouseExposure = { used: { CASH: 0, COIN: 0 }, perGame: new Map() };
  for (const p of reader.parlays(accountId, { status: 'OPEN' }))
    if (isHouseOpen(p, accountId)) addParlay(e, p, 1);
  return e;
}

const isHouseOpen = (p: ParlayRecord, accountId: Id): boolean =>
  p.status === 'OPEN' && p.makerAccountId === accountId;

const gamesOf = (p: ParlayRecord): Set<string> => new Set(p.legs.map((l) => `${p.currency}:${l.eventId}`));

function addParlay(e: HouseExposure, p: ParlayRecord, sign: 1 | -1): void {
  const c = sign * p.collateral;
  e.used[p.currency] += c;
  for (const g of gamesOf(p)) {
    const v = (e.perGame.get(g) ?? 0) + c;
    if (v === 0) e.perGame.delete(g);
    else e.perGame.set(g, v);
  }
}

/**
 * The house's quotes due at `now`: one per recent open request it has not quoted — of `requests`
 * when given (the desk's new ones), else of every open request (the scheduler's retry pass).
 * `exposure` defaults to a pass over the house's parlays; the desk passes the one it keeps.
 */
export function houseQuotes(
  reader: ExchangeReader,
  now: number,
  o: HouseQuoteOptions,
  exposure?: HouseExposure,
  requests?: readonly ParlayRequestRecord[],
): CommandInput[] {
  const fresh = (requests ?? reader.openParlayRequests()).filter(
    (r) =>
      r.status === 'Unfilled' &&
      r.expiresAt > now &&
      r.createdAt > now - QUOTE_WINDOW_MS &&
      r.accountId !== o.accountId &&
      !r.quotes.some((q) => q.accountId === o.accountId),
  );
  if (fresh.length === 0 || !reader.hasAccount(o.accountId)) return [];
  const { used, perGame } = exposure ?? houseExposure(reader, o.accountId);
  const out: CommandInput[] = [];
  for (const r of fresh) {
    const maxQty = houseMaxQty(reader, r, o, used[r.currency], perGame);
    if (maxQty < 1) continue;
    out.push({
      type: 'ParlayQuote',
      quoteId: `house:${r.id}`,
      requestId: r.id,
      accountId: o.accountId,
      price: r.refPrice,
      maxQty,
      expiresAt: r.expiresAt,
    });
  }
  return out;
}

type Applied = Extract<CommandResult, { ok: true }>['events'];

/**
 * Quotes each new request as soon as it is applied: an apply listener (apply-tap.ts) notes the
 * request, and a microtask — after the submit that applied it returns, before the group commit
 * forms its batch (the commit loop first yields to the event loop) — submits the house's quote, so
 * the request and its quote are usually made durable together and a taker can wager on the 201.
 * Waiting for the scheduler's 250 ms pass instead made the quote, not the server, the round trip.
 *
 * The exposure is kept from the events (every change of a parlay emits ParlayChanged with the
 * whole record, which the private stream relies on too) rather than read by a pass over every
 * house parlay per request, which grows with the house's book.
 */
export class HouseDesk {
  readonly exposure: HouseExposure;
  /** Requests applied since the last quote pass. */
  private due: Id[] = [];
  /** Open house parlays by id, as last counted in `exposure`. */
  private readonly open = new Map<Id, ParlayRecord>();

  constructor(
    private readonly o: HouseQuoteOptions,
    private readonly reader: ExchangeReader,
    private readonly now: () => number,
    private readonly submit: (cmds: CommandInput[]) => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {
    this.exposure = { used: { CASH: 0, COIN: 0 }, perGame: new Map() };
    // the open ones only, as houseExposure: the settled history is not visited
    for (const p of reader.parlays(o.accountId, { status: 'OPEN' })) this.track(p);
  }

  /** The apply listener: tracks the house's parlays and notes new requests to quote. */
  applied(cmd: Command, events: Applied): void {
    for (const e of events) if (e.kind === 'ParlayChanged') this.track(e.parlay);
    if (cmd.type !== 'ParlayRequest' || cmd.accountId === this.o.accountId) return;
    this.due.push(cmd.requestId);
    if (this.due.length === 1) queueMicrotask(() => this.quote());
  }

  private track(p: ParlayRecord): void {
    const id = this.o.accountId;
    if (p.makerAccountId !== id) return;
    const was = this.open.get(p.id);
    if (was !== undefined) {
      addParlay(this.exposure, was, -1);
      this.open.delete(p.id);
    }
    if (isHouseOpen(p, id)) {
      addParlay(this.exposure, p, 1);
      this.open.set(p.id, p);
    }
  }

  private quote(): void {
    const ids = this.due;
    this.due = [];
    try {
      const requests: ParlayRequestRecord[] = [];
      for (const id of ids) {
        const r = this.reader.parlayRequest(id);
        if (r !== undefined) requests.push(r);
      }
      const cmds = houseQuotes(this.reader, this.now(), this.o, this.exposure, requests);
      if (cmds.length > 0) this.submit(cmds).catch(this.onError);
    } catch (err) {
      this.onError(err);
    }
  }
}

/**
 * The largest payout whose collateral fits the room left: the bankroll, the tightest game of the
 * request's legs, and the house wallet. Collateral of q at price p is ceil(q × k × (1e6 − p) / 1e6)
 * (docs/parlays.md "Money of a fill"), so q ≤ room × 1e6 / (k × (1e6 − p)). A request with a stake
 * is quoted for twice its payout at most: enough for the taker, not the whole book.
 */
function houseMaxQty(
  reader: ExchangeReader,
  r: ParlayRequestRecord,
  o: HouseQuoteOptions,
  used: number,
  perGame: Map<string, number>,
): number {
  let room = Math.min(o.bankroll - used, reader.wallet(o.accountId, r.currency)?.available ?? 0);
  for (const leg of r.legs)
    room = Math.min(room, o.gameExposure - (perGame.get(`${r.currency}:${leg.eventId}`) ?? 0));
  if (room <= 0) return 0;
  const k = BigInt(moneyPerMcu(r.currency));
  let q = (BigInt(room) * PPM) / (k * (PPM - BigInt(r.refPrice)));
  if (r.stake !== null) {
    // a boosted request's stake buys its payout at the boosted price (docs/parlays.md "Boosts")
    const boost = r.boostId === undefined ? undefined : reader.boosts().find((b) => b.id === r.boostId);
    const takerPrice = boost === undefined ? r.refPrice : boostPrice(boost.kind, boost.value, r.refPrice);
    const forStake = ((BigInt(r.stake) + 1n) * PPM - 1n) / (BigInt(takerPrice) * k);
    if (q > 2n * forStake) q = 2n * forStake;
  }
  return Number(q);
}
