// The house quote (docs/parlays.md "The house quote"): the operator's maker account answers every
// new parlay request with a firm quote at the request's reference price — the pricer's price,
// margin included, which the edge computed and the request carries — for as much payout as the
// house bankroll and the per-game exposure limit allow. It runs in the scheduler's pass
// (scheduler.ts): a pure function of the state and the clock that returns ParlayQuote commands,
// submitted like any maker's.

import type { ExchangeReader } from '../exchange/reader.ts';
import { boostPrice, type ParlayRequestRecord } from '../exchange/types.ts';
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

/** The house's quotes due at `now`: one per recent open request it has not quoted. */
export function houseQuotes(reader: ExchangeReader, now: number, o: HouseQuoteOptions): CommandInput[] {
  const fresh = reader
    .openParlayRequests()
    .filter(
      (r) =>
        r.expiresAt > now &&
        r.createdAt > now - QUOTE_WINDOW_MS &&
        r.accountId !== o.accountId &&
        !r.quotes.some((q) => q.accountId === o.accountId),
    );
  if (fresh.length === 0 || !reader.hasAccount(o.accountId)) return [];
  // The house's open exposure: its collateral in open parlays, in total and per game.
  const used = { CASH: 0, COIN: 0 };
  const perGame = new Map<string, number>();
  for (const p of reader.parlays(o.accountId)) {
    if (p.status !== 'OPEN' || p.makerAccountId !== o.accountId) continue;
    used[p.currency] += p.collateral;
    for (const leg of new Set(p.legs.map((l) => `${p.currency}:${l.eventId}`)))
      perGame.set(leg, (perGame.get(leg) ?? 0) + p.collateral);
  }
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
