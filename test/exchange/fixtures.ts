// Shared builders for the exchange tests: a league, two teams, one game event with two markets,
// funded accounts. Ids are readable strings (the engine treats ids as opaque).

import assert from 'node:assert/strict';
import { Exchange } from '../../src/exchange/exchange.ts';
import type {
  Command,
  CommandResult,
  Currency,
  DomainEvent,
  EventStatus,
  MarketSpec,
} from '../../src/exchange/types.ts';

export const T0 = 1_700_000_000_000;

export function market(
  id: string,
  type: MarketSpec['type'] = 'MONEY',
  strike: number | null = null,
): MarketSpec {
  return {
    id,
    type,
    strike,
    description: `${id} ${type}`,
    outcomes: [
      { id: `${id}-a`, description: `${id} home` },
      { id: `${id}-b`, description: `${id} away` },
    ],
  };
}

export function ok(r: CommandResult): DomainEvent[] {
  if (!r.ok) assert.fail(`expected acceptance, got ${r.code}: ${r.message}`);
  return r.events;
}

export function rejected(r: CommandResult, code: string): void {
  assert.equal(r.ok, false, `expected rejection ${code}`);
  if (!r.ok) assert.equal(r.code, code, r.message);
}

/** Exchange with league NFL, teams H and A, event E1 (game G1) with markets M1, M2 in `status`. */
export function setup(
  status: EventStatus = 'OPEN_PREGAME',
  accounts: string[] = ['alice', 'bob', 'carol'],
): Exchange {
  const x = new Exchange();
  const ts = T0;
  const cmds: Command[] = [
    { type: 'CreateLeague', ts, code: 'NFL', name: 'National Football League' },
    {
      type: 'CreateTeam',
      ts,
      team: { id: 'H', league: 'NFL', name: 'Home', shortName: 'H', symbol: 'HOM', mascot: 'H' },
    },
    {
      type: 'CreateTeam',
      ts,
      team: { id: 'A', league: 'NFL', name: 'Away', shortName: 'A', symbol: 'AWY', mascot: 'A' },
    },
    {
      type: 'CreateEvent',
      ts,
      event: {
        id: 'E1',
        type: 'Game',
        status,
        description: 'A @ H',
        league: 'NFL',
        scheduledStart: T0 + 3_600_000,
      },
      game: { id: 'G1', homeTeamId: 'H', awayTeamId: 'A' },
      markets: [market('M1'), market('M2', 'TOTAL', 47.5)],
    },
  ];
  for (const c of cmds) ok(x.apply(c));
  for (const id of accounts) {
    ok(x.apply({ type: 'CreateAccount', ts, accountId: id }));
    for (const currency of ['CASH', 'COIN'] as Currency[]) {
      ok(x.apply({ type: 'Deposit', ts, accountId: id, currency, amount: 1_000_000_000 }));
    }
  }
  return x;
}

let n = 0;
export function bid(
  accountId: string,
  outcomeId: string,
  price: number,
  qty: number,
  extra: Partial<Extract<Command, { type: 'PlaceOrder' }>> = {},
): Extract<Command, { type: 'PlaceOrder' }> {
  n++;
  return {
    type: 'PlaceOrder',
    ts: T0 + n,
    orderId: `o${n}`,
    accountId,
    outcomeId,
    currency: 'CASH',
    price,
    qty,
    tif: 'GTC',
    ...extra,
  };
}

export function kinds(evs: DomainEvent[]): string[] {
  return evs.map((e) => e.kind);
}

/** Money conservation and book sanity; call after any command. */
export function assertInvariants(x: Exchange, accounts: string[]): void {
  const t = x.totals();
  for (const cur of ['CASH', 'COIN'] as Currency[]) {
    assert.equal(t[cur].imbalance, 0, `${cur} money not conserved: ${JSON.stringify(t[cur])}`);
    for (const id of accounts) {
      const w = x.wallet(id, cur);
      if (!w) continue;
      assert.ok(w.available >= 0 && w.reserved >= 0, `${id} ${cur} negative wallet ${JSON.stringify(w)}`);
      assert.equal(w.reserved, x.expectedReserved(id, cur), `${id} ${cur} reserved != resting cost`);
    }
  }
}

/**
 * A ParlayRequest command: alice asks for M1-a (0.50) and M2-b (0.40) at T0 + 10, open 30 s, no
 * stake or boost; `extra` changes any field (other legs, reference price, stake, boost…).
 */
export function parlayRequest(extra: Partial<Extract<Command, { type: 'ParlayRequest' }>> = {}): Command {
  return {
    type: 'ParlayRequest',
    ts: T0 + 10,
    requestId: 'R1',
    accountId: 'alice',
    currency: 'CASH',
    legs: [
      { outcomeId: 'M1-a', price: 500_000 },
      { outcomeId: 'M2-b', price: 400_000 },
    ],
    refPrice: 220_000,
    stake: null,
    expiresAt: T0 + 30_010,
    ...extra,
  };
}

/**
 * A ParlayQuote command: bob quotes request R1 at 0.25 for up to 2,000 units, at T0 + 10, firm for
 * a minute; `extra` changes any field.
 */
export function parlayQuote(extra: Partial<Extract<Command, { type: 'ParlayQuote' }>> = {}): Command {
  return {
    type: 'ParlayQuote',
    ts: T0 + 10,
    quoteId: 'q1',
    requestId: 'R1',
    accountId: 'bob',
    price: 250_000,
    maxQty: 2_000,
    expiresAt: T0 + 60_010,
    ...extra,
  };
}

/** A ParlayWager command: alice stakes 0.25 on request R1 at up to 0.30, no key; `extra` changes any field. */
export function parlayWager(extra: Partial<Extract<Command, { type: 'ParlayWager' }>> = {}): Command {
  return {
    type: 'ParlayWager',
    ts: T0 + 10,
    requestId: 'R1',
    accountId: 'alice',
    stake: 250_000,
    maxPrice: 300_000,
    clientOrderId: null,
    ...extra,
  };
}
