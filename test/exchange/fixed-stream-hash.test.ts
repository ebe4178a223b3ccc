// Pins the engine's behaviour on a fixed, deterministic 300,000-command stream: the state hash at
// checkpoints and a digest of every result (codes and events) are compared with literal values that
// were computed before the engine was split into modules (docs/architecture.md "The engine"). A
// refactor of src/exchange must leave both unchanged; a deliberate change of behaviour must update
// them and say why in its commit.
//
// The stream exercises every command type (checked against the `case` labels of `dispatch`, so a
// new command fails here until it joins; draw it from a generator of its own, as `r2` below, then
// re-pin: empty PINNED's values, run this test, copy the actual ones): catalog growth (events, markets, teams), status changes
// (live trading with taker fees, closes, settlement with wins and pushes), funding and withdrawals,
// locks, the fee coefficient, and trading in both currencies with every time in force, client order
// ids, self-trades, netting, batch and scoped cancels, amends, mass quotes and expiry sweeps;
// parlays (requests, makers' quotes, wagers, cancels, expiry, and settlement as their legs'
// markets settle); and, drawn from a second generator so the main stream's draws are unchanged,
// the self-trade prevention modes, the post-only reprice, market-maker protection (SetMmp,
// ResetMmp, protected orders, breaches) and parlay settlement in chunks (budgets on SettleMarket,
// SettleParlays); and, from a third, the idempotency window (ExpireClientOrderIds).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import { TICKS } from '../../src/exchange/ticks.ts';
import type { Command, Currency, EventStatus, MarketSpec, TimeInForce } from '../../src/exchange/types.ts';
import { rng } from '../helpers/prng.ts';

const N = 300_000;
const ACCOUNTS = 60;
const T0 = 1_800_000_000_000;
const TIFS: TimeInForce[] = ['GTC', 'GTC', 'GTC', 'GTC', 'GTT', 'IOC', 'FOK', 'PO'];

function marketsFor(e: number): MarketSpec[] {
  return [0, 1, 2].map((m) => ({
    id: `e${e}-m${m}`,
    type: m === 0 ? 'MONEY' : m === 1 ? 'SPREAD' : 'TOTAL',
    strike: m === 0 ? null : m === 1 ? -3.5 : 44.5,
    description: `event ${e} market ${m}`,
    outcomes: [
      { id: `e${e}-m${m}-0`, description: 'home/over' },
      { id: `e${e}-m${m}-1`, description: 'away/under' },
    ],
  }));
}

/** The fixed stream, generated lazily (a server parses, applies and drops its commands). */
function* stream(): Generator<Command> {
  const r = rng(20_261_124);
  const r2 = rng(20_261_126); // the options added later (see the header)
  const r3 = rng(20_261_127); // the idempotency window (see the header)
  const STP = ['CANCEL_BOTH', 'CANCEL_TAKER', 'CANCEL_MAKER'] as const;
  const mmpConfig = () => ({
    intervalMs: 500 + Math.floor(r2() * 3_000),
    qtyLimit: r2() < 0.2 ? 0 : 2_000 + Math.floor(r2() * 20_000),
    netLimit: 1_000 + Math.floor(r2() * 8_000),
    freezeMs: r2() < 0.3 ? 0 : Math.floor(r2() * 4_000),
  });
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  let ts = T0;
  yield { type: 'CreateLeague', ts, code: 'NFL', name: 'National Football League' };
  for (let a = 0; a < ACCOUNTS; a++) {
    yield { type: 'CreateAccount', ts, accountId: `acct-${a}` };
    yield { type: 'Deposit', ts, accountId: `acct-${a}`, currency: 'CASH', amount: 5_000_000_000 };
    yield { type: 'Deposit', ts, accountId: `acct-${a}`, currency: 'COIN', amount: 2_000_000_000 };
  }
  // market-maker protection: defaults of the first 12 accounts (per-event ones come with events)
  for (let a = 0; a < 12; a++) {
    const currency: Currency = a % 3 === 0 ? 'COIN' : 'CASH';
    yield { type: 'SetMmp', ts, accountId: `acct-${a}`, eventId: null, currency, config: mmpConfig() };
  }
  /** Events in play: id and status. */
  const live: { e: number; status: EventStatus }[] = [];
  let nextEvent = 0;
  const newEvent = function* (): Generator<Command> {
    const e = nextEvent++;
    for (const side of ['h', 'a']) {
      yield {
        type: 'CreateTeam',
        ts,
        team: {
          id: `t${e}${side}`,
          league: 'NFL',
          name: `Team ${e}${side}`,
          shortName: `${e}${side}`,
          symbol: `T${side}`,
          mascot: 'M',
        },
      };
    }
    yield {
      type: 'CreateEvent',
      ts,
      event: {
        id: `e${e}`,
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: `game ${e}`,
        league: 'NFL',
        scheduledStart: ts + 3_600_000,
      },
      game: { id: `g${e}`, homeTeamId: `t${e}h`, awayTeamId: `t${e}a` },
      markets: marketsFor(e).slice(0, 2),
    };
    live.push({ e, status: 'OPEN_PREGAME' });
    const mm = Math.floor(r2() * 12);
    yield {
      type: 'SetMmp',
      ts,
      accountId: `acct-${mm}`,
      eventId: `e${e}`,
      currency: 'CASH',
      config: mmpConfig(),
    };
  };
  for (let i = 0; i < 4; i++) yield* newEvent();

  const placed: { id: string; acct: string; e: number }[] = [];
  /** Parlay requests made (docs/parlays.md): quotes, wagers and cancels name recent ones. */
  const requests: { id: string; acct: string; currency: Currency }[] = [];
  let lastQuoted: (typeof requests)[number] | undefined;
  /** Parlay boosts (docs/parlays.md "Boosts"): created, claimed, ended, carried by requests. */
  let boosts = 0;
  /** The boost each account claimed last (its requests may carry it). */
  const claimed = new Map<string, string>();
  const recentBoost = (): string => `pb${Math.max(0, boosts - 1 - Math.floor(r() * 4))}`;
  const boostCommand = (ts: number, acct: string): Command => {
    const y = r();
    if (y < 0.3 || boosts === 0) {
      const kind = r() < 0.5 ? 'PERCENT' : 'MULTIPLIER';
      return {
        type: 'CreateBoost',
        ts,
        boostId: `pb${boosts++}`,
        kind,
        value:
          kind === 'PERCENT' ? 50_000 + Math.floor(r() * 200_000) : 1_100_000 + Math.floor(r() * 400_000),
        leagues: r() < 0.7 ? [] : r() < 0.7 ? ['NFL'] : ['NBA'],
        minLegs: r() < 0.8 ? 2 : 3,
        maxStake: r() < 0.5 ? null : 1_500_000,
        validFrom: ts - Math.floor(r() * 2) * 1_000 + (r() < 0.1 ? 5_000 : 0),
        validTo: ts + 5_000 + Math.floor(r() * 200_000),
        claimLimit: 1 + Math.floor(r() * 3),
        fundingAccountId: `acct-${Math.floor(r() * 3)}`,
      };
    }
    if (y < 0.95) {
      const boostId = recentBoost();
      claimed.set(acct, boostId);
      return { type: 'ClaimBoost', ts, boostId, accountId: acct };
    }
    return { type: 'EndBoost', ts, boostId: recentBoost() };
  };
  const parlayCommand = (ts: number, acct: string): Command => {
    const y = r();
    if (y < 0.12) return boostCommand(ts, acct);
    const recent = requests[Math.max(0, requests.length - 1 - Math.floor(r() * 6))];
    if (y < 0.3 || recent === undefined) {
      const open = live.filter((l) => l.status !== 'FINAL');
      const a = pick(open.length > 0 ? open : live);
      const b = pick(open.length > 0 ? open : live);
      const currency: Currency = r() < 0.8 ? 'CASH' : 'COIN';
      const id = `pr${n++}`;
      requests.push({ id, acct, currency });
      if (requests.length > 200) requests.splice(0, 100);
      return {
        type: 'ParlayRequest',
        ts,
        requestId: id,
        accountId: acct,
        currency,
        legs: [
          { outcomeId: `e${a.e}-m0-${Math.floor(r() * 2)}`, price: 300_000 + Math.floor(r() * 400_000) },
          { outcomeId: `e${b.e}-m1-${Math.floor(r() * 2)}`, price: 300_000 + Math.floor(r() * 400_000) },
        ],
        refPrice: 150_000 + Math.floor(r() * 200_000),
        stake: r() < 0.5 ? null : 1_000_000,
        expiresAt: ts + 1 + Math.floor(r() * 60_000),
        boostId: boosts === 0 || r() < 0.4 ? null : r() < 0.8 ? (claimed.get(acct) ?? null) : recentBoost(),
      };
    }
    if (y < 0.7) {
      lastQuoted = recent;
      return {
        type: 'ParlayQuote',
        ts,
        quoteId: `pq${n++}`,
        requestId: recent.id,
        accountId: acct,
        price: 150_000 + Math.floor(r() * 200_000),
        maxQty: (recent.currency === 'CASH' ? 1000 : 10) * (1 + Math.floor(r() * 20)),
        expiresAt: ts + 1 + Math.floor(r() * 20_000),
      };
    }
    const target = lastQuoted !== undefined && r() < 0.7 ? lastQuoted : recent;
    if (y < 0.95)
      return {
        type: 'ParlayWager',
        ts,
        requestId: target.id,
        accountId: r() < 0.9 ? target.acct : acct,
        stake: (target.currency === 'CASH' ? 1 : 100) * (10_000 + Math.floor(r() * 2_000_000)),
        maxPrice: 150_000 + Math.floor(r() * 250_000),
        clientOrderId: r() < 0.5 ? null : `pc${Math.floor(r() * 400)}`,
      };
    return { type: 'ParlayCancel', ts, requestId: recent.id, accountId: recent.acct };
  };
  let n = 0;
  let emitted = 1 + 3 * ACCOUNTS + 12 + 4 * 4;
  while (emitted < N) {
    ts += 1 + Math.floor(r() * 40);
    const x = r();
    const acct = `acct-${Math.floor(r() * ACCOUNTS)}`;
    let batch: Command[];
    if (x >= 0.64 && x < 0.7) {
      // amends (same price smaller: keeps priority; else re-queues, may take) and mass quotes
      const open = live.filter((l) => l.status !== 'FINAL');
      const ev = open.length > 0 ? pick(open) : pick(live);
      if (x < 0.675 && placed.length > 0) {
        const o = placed[Math.max(0, placed.length - 1 - Math.floor(r() * 200))] as (typeof placed)[number];
        const y = r();
        const amend: Command = {
          type: 'AmendOrder',
          ts,
          accountId: r() < 0.97 ? o.acct : acct,
          orderId: o.id,
        };
        if (y < 0.4) amend.qty = 100 * (1 + Math.floor(r() * 20));
        else if (y < 0.8) amend.price = TICKS[128 + Math.floor(r() * 25)] as number;
        else if (y < 0.98) {
          amend.price = TICKS[128 + Math.floor(r() * 25)] as number;
          amend.qty = 100 * (1 + Math.floor(r() * 40));
        } else if (y < 0.99) amend.price = 502; // invalid: off the tick table
        batch = [amend];
      } else {
        const currency: Currency = r() < 0.8 ? 'CASH' : 'COIN';
        const unit = currency === 'CASH' ? 100 : 1;
        const m = Math.floor(r() * 2);
        const quotes = (r() < 0.6 ? [0, 1] : [Math.floor(r() * 2)]).map((side) => ({
          outcomeId: `e${ev.e}-m${m}-${side}`,
          levels: Array.from({ length: Math.floor(r() * 6) }, (_, k) => {
            const id = `q${n++}`;
            placed.push({ id, acct, e: ev.e });
            return {
              price: TICKS[120 + side * 5 + k * 2 + Math.floor(r() * 2)] as number,
              qty: r() < 0.1 ? 0 : unit * (1 + Math.floor(r() * 30)),
              orderId: id,
            };
          }),
        }));
        batch = [{ type: 'MassQuote', ts, accountId: acct, marketId: `e${ev.e}-m${m}`, currency, quotes }];
      }
    } else if (x < 0.7) {
      // a bid near the middle of the table, mostly on an event open for trading
      const open = live.filter((l) => l.status !== 'FINAL');
      const ev = open.length > 0 && r() < 0.97 ? pick(open) : pick(live);
      const m = r() < 0.9 ? Math.floor(r() * 2) : 2;
      const side = r() < 0.5 ? 0 : 1;
      const currency: Currency = r() < 0.8 ? 'CASH' : 'COIN';
      const tif = pick(TIFS);
      const mid = 140 + Math.floor(r() * 60) - 30;
      const price = TICKS[mid + Math.floor(r() * 25) - 12] as number;
      const id = `o${n++}`;
      placed.push({ id, acct, e: ev.e });
      if (placed.length > 4000) placed.splice(0, 2000);
      const cmd: Command = {
        type: 'PlaceOrder',
        ts,
        orderId: id,
        accountId: acct,
        outcomeId: `e${ev.e}-m${m}-${side}`,
        currency,
        price,
        qty: (currency === 'CASH' ? 100 : 1) * (1 + Math.floor(r() * 50)),
        tif,
      };
      if (tif === 'GTT') cmd.ttl = 1 + Math.floor(r() * 3_000);
      if (r() < 0.1) cmd.clientOrderId = `c${Math.floor(r() * 500)}`;
      if (r() < 0.05) cmd.flags = 'bench';
      if (r() < 0.002) cmd.qty = r() < 0.5 ? 0 : 1.5; // invalid: rejected
      const o = r2();
      if (o < 0.12) cmd.stp = STP[Math.floor(o * 25) % 3]!;
      if (tif === 'PO' && r2() < 0.5) cmd.reprice = true;
      if (Number(acct.slice(5)) < 12 && r2() < 0.6) cmd.mmp = true;
      batch = [cmd];
      if (r2() < 0.004) {
        const ev = pick(live);
        batch.push({ type: 'ResetMmp', ts, accountId: acct, eventId: r2() < 0.5 ? null : `e${ev.e}` });
      }
    } else if (x < 0.85 && placed.length > 0) {
      const o = placed[Math.max(0, placed.length - 1 - Math.floor(r() * 300))] as (typeof placed)[number];
      batch = [{ type: 'CancelOrder', ts, accountId: r() < 0.95 ? o.acct : acct, orderId: o.id }];
    } else if (x < 0.87 && placed.length > 0) {
      const ids = [pick(placed).id, pick(placed).id, `missing-${n}`];
      batch = [{ type: 'CancelOrders', ts, accountId: acct, scope: 'all', orderIds: ids }];
    } else if (x < 0.875) {
      const ev = pick(live);
      const y = r();
      batch =
        y < 0.4
          ? [{ type: 'CancelOrders', ts, accountId: acct, scope: 'all' }]
          : y < 0.7
            ? [{ type: 'CancelOrders', ts, accountId: acct, scope: 'event', scopeId: `e${ev.e}` }]
            : [
                {
                  type: 'CancelOrders',
                  ts,
                  accountId: acct,
                  scope: 'market',
                  scopeId: `e${ev.e}-m${Math.floor(r() * 3)}`,
                },
              ];
    } else if (x < 0.92) {
      batch = [{ type: 'Expire', ts }];
    } else if (x < 0.94) {
      const currency: Currency = r() < 0.7 ? 'CASH' : 'COIN';
      const amount = Math.floor(r() * 50_000_000);
      batch = [{ type: r() < 0.5 ? 'Deposit' : 'Withdraw', ts, accountId: acct, currency, amount }];
    } else if (x < 0.945) {
      const ev = pick(live);
      batch = [
        {
          type: 'SetLock',
          ts,
          lock: {
            id: `L${n}`,
            eventId: r() < 0.2 ? null : `e${ev.e}`,
            reason: 'halt',
            createdAt: ts,
            expiresAt: ts + Math.floor(r() * 500),
          },
        } as Command,
      ];
    } else if (x < 0.947) {
      batch = [{ type: 'ClearLock', ts, lockId: `L${Math.max(0, n - Math.floor(r() * 50))}` }];
    } else if (x < 0.948) {
      batch = [{ type: 'SetFeeCoefficient', ts, coefficient: pick([0.01, 0.03, 0.05, 0.1]) }];
    } else if (x < 0.951) {
      // the event lifecycle: pregame → live → final → settled, then a new event replaces it
      const ev = pick(live);
      const out: Command[] = [];
      if (ev.status === 'OPEN_PREGAME') {
        ev.status = 'OPEN_INGAME';
        out.push({ type: 'SetEventStatus', ts, eventId: `e${ev.e}`, status: 'OPEN_INGAME' });
        out.push({
          type: 'SetGameScore',
          ts,
          gameId: `g${ev.e}`,
          homeScore: Math.floor(r() * 30),
          awayScore: Math.floor(r() * 30),
        });
      } else if (ev.status === 'OPEN_INGAME') {
        if (r() < 0.3) out.push({ type: 'SetMarketStatus', ts, marketId: `e${ev.e}-m1`, status: 'CLOSED' });
        else {
          ev.status = 'FINAL';
          out.push({ type: 'SetEventStatus', ts, eventId: `e${ev.e}`, status: 'FINAL' });
        }
      } else {
        for (let m = 0; m < 3; m++) {
          const y = r();
          // settlement in chunks (second generator): a budget leaves parlays due, SettleParlays
          // advances them a few at a time (one past the end is refused)
          const budget = r2() < 0.5 ? 1 + Math.floor(r2() * 3) : undefined;
          out.push({
            type: 'SettleMarket',
            ts,
            marketId: `e${ev.e}-m${m}`,
            result: y < 0.1 ? 'PUSH' : `e${ev.e}-m${m}-${y < 0.55 ? 0 : 1}`,
            ...(budget === undefined ? {} : { parlayBudget: budget }),
          });
        }
        for (let m = 0; m < 3; m++)
          for (let k = 0; k < 3; k++)
            if (r2() < 0.6)
              out.push({
                type: 'SettleParlays',
                ts,
                marketId: `e${ev.e}-m${m}`,
                max: 1 + Math.floor(r2() * 3),
              });
        live.splice(live.indexOf(ev), 1);
        for (const c of newEvent()) out.push(c);
        // (second generator) a burst of parlays on the new game, so that its settlement has parlays
        // to advance in chunks
        if (r2() < 0.5) {
          const e = nextEvent - 1;
          for (let k = 0; k < 6; k++) {
            const id = `pz${e}-${k}`;
            const taker = `acct-${Math.floor(r2() * ACCOUNTS)}`;
            const maker = `acct-${Math.floor(r2() * ACCOUNTS)}`;
            out.push(
              {
                type: 'ParlayRequest',
                ts,
                requestId: id,
                accountId: taker,
                currency: 'CASH',
                legs: [
                  { outcomeId: `e${e}-m0-${k % 2}`, price: 400_000 + Math.floor(r2() * 200_000) },
                  { outcomeId: `e${e}-m1-${(k >> 1) % 2}`, price: 400_000 + Math.floor(r2() * 200_000) },
                ],
                refPrice: 250_000,
                stake: null,
                expiresAt: ts + 1_000,
              },
              {
                type: 'ParlayQuote',
                ts,
                quoteId: `${id}q`,
                requestId: id,
                accountId: maker,
                price: 200_000 + Math.floor(r2() * 100_000),
                maxQty: 20_000,
                expiresAt: ts + 1_000,
              },
              {
                type: 'ParlayWager',
                ts,
                requestId: id,
                accountId: taker,
                stake: 1_000_000,
                maxPrice: 400_000,
                clientOrderId: null,
              },
            );
          }
        }
      }
      batch = out;
    } else if (x < 0.9513) {
      const ev = pick(live);
      batch = [{ type: 'AddMarkets', ts, eventId: `e${ev.e}`, markets: marketsFor(ev.e).slice(2) }];
    } else if (x < 0.975) {
      batch = [parlayCommand(ts, acct)];
    } else {
      // a self-trade attempt: the same account bids both outcomes of one market
      const ev = pick(live);
      const id = `o${n++}`;
      batch = [
        {
          type: 'PlaceOrder',
          ts,
          orderId: id,
          accountId: acct,
          outcomeId: `e${ev.e}-m0-0`,
          currency: 'CASH',
          price: 520,
          qty: 500,
          tif: 'GTC',
        },
        {
          type: 'PlaceOrder',
          ts,
          orderId: `${id}w`,
          accountId: acct,
          outcomeId: `e${ev.e}-m0-1`,
          currency: 'CASH',
          price: 500,
          qty: 300,
          tif: 'GTC',
          ...(r2() < 0.6 ? { stp: STP[Math.floor(r2() * 3)]! } : {}),
        },
      ];
      placed.push({ id, acct, e: ev.e });
    }
    // (third generator) the idempotency window: keys aged every ten minutes of the stream's time
    // (its ts moves ~20 ms a step), the older generation swept in small chunks; some not due, some
    // with an invalid max
    if (r3() < 0.004) {
      const max = r3() < 0.05 ? 0 : 1 + Math.floor(r3() * 400);
      batch.push({ type: 'ExpireClientOrderIds', ts, windowMs: 600_000, max });
    }
    for (const c of batch) {
      yield c;
      emitted++;
    }
  }
}

/** Values computed on the engine before it was split (see the header), re-pinned when the stream
 * gained amends, mass quotes, parlays and boosts, the self-trade prevention modes, the post-only
 * reprice, market-maker protection, parlay settlement in chunks, and the placed terms of amended
 * and repriced keyed orders (their snapshot section moves the hashes, not the results digest), and
 * the idempotency window (ExpireClientOrderIds: keys freed for reuse change results). */
const PINNED = {
  commands: 300_000,
  accepted: 180_618,
  hashAt100k: 'a67580572fc278acd574ff7a1a8de20a7ec27709ac9d9db35720309e364e4fb2',
  hashAt200k: '10134b5150062d948867ec494dd8b1c474ff607056202babe6a4541c242f355b',
  finalHash: 'bdacfcadbd6996824c5d08b2b675f5823de841d6fd1cc8980b3b26e447edde3b',
  resultsDigest: 'b186722bf7dc98c5e9c75b51e03d17c820e6fb44c60af60b553cd46940c1a4a8',
};

describe('fixed 300k-command stream', () => {
  test('state hash and results digest are pinned', () => {
    let x = new Exchange();
    const digest = createHash('sha256');
    let commands = 0;
    let accepted = 0;
    let chunks = 0;
    let ageings = 0;
    const hashes: string[] = [];
    const types = new Set<string>();
    for (const c of stream()) {
      types.add(c.type);
      const res = x.apply(c);
      commands++;
      if (res.ok) {
        accepted++;
        if (c.type === 'SettleParlays') chunks++;
        if (c.type === 'ExpireClientOrderIds') ageings++;
        digest.update(JSON.stringify(res.events));
      } else digest.update(`!${res.code}`);
      digest.update('\n');
      if (commands % 100_000 === 0) hashes.push(x.hash());
      if (commands === 150_000) {
        // continue on a restored copy: snapshot and restore are part of what is pinned
        const copy = new Exchange();
        copy.restore(x.snapshot());
        assert.equal(copy.hash(), x.hash());
        x = copy;
      }
    }
    const t = x.totals();
    assert.equal(t.CASH.imbalance, 0);
    assert.equal(t.COIN.imbalance, 0);
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.hash(), x.hash());
    // Every command type the engine dispatches is in the stream (docs/contributing.md "An engine
    // command"): a new command that is not would leave this pin blind to it. Read from the `case`
    // labels of `dispatch`, the one list of command types that exists at run time.
    const engine = readFileSync(new URL('../../src/exchange/exchange.ts', import.meta.url), 'utf8');
    const dispatched = [...engine.slice(engine.indexOf('function dispatch(')).matchAll(/case '(\w+)':/g)];
    assert.ok(dispatched.length > 20, 'the case labels of dispatch were found');
    assert.deepEqual(
      dispatched.map((m) => m[1]).filter((t) => !types.has(t!)),
      [],
      'command types missing from the fixed stream',
    );
    const actual = {
      commands,
      accepted,
      hashAt100k: hashes[0],
      hashAt200k: hashes[1],
      finalHash: x.hash(),
      resultsDigest: digest.digest('hex'),
    };
    assert.deepEqual(actual, PINNED);
    assert.ok(chunks > 100, `the stream reached only ${chunks} settlement chunks`);
    assert.ok(ageings > 20, `the stream aged its keys only ${ageings} times`);
  });
});
