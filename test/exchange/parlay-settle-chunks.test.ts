// Parlay settlement in chunks (docs/parlays.md "Settlement in chunks"): a settling command with a
// parlayBudget advances at most that many of the market's parlays, in fill order; SettleParlays
// advances the rest, `max` at a time. Money stays conserved between chunks (a due parlay's money is
// still collateral), a due parlay reads as open, a snapshot between chunks restores the due work,
// replay reproduces the hash, and the chunks end where one unbounded command would have.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Exchange } from '../../src/exchange/exchange.ts';
import type { Command, CommandResult } from '../../src/exchange/types.ts';
import {
  assertInvariants,
  ok,
  parlayQuote,
  parlayRequest,
  parlayWager,
  rejected,
  setup,
  T0,
} from './fixtures.ts';

const ACCTS = ['alice', 'bob', 'carol'];
const N = 7;

/** Records every accepted command, for replay. */
class Journaled {
  readonly x = setup();
  readonly log: Command[] = [];
  apply(c: Command): CommandResult {
    const r = this.x.apply(c);
    if (r.ok) this.log.push(structuredClone(c));
    return r;
  }
}

/** N parlays R0..R6 (legs M1-a, M2-b), alice's and carol's as takers, bob the maker of all. */
function world(): Journaled {
  const j = new Journaled();
  for (let i = 0; i < N; i++) {
    const ts = T0 + 10 + i;
    const taker = i % 2 === 0 ? 'alice' : 'carol';
    const requestId = `R${i}`;
    const currency = i === 3 ? 'COIN' : 'CASH';
    ok(j.apply(parlayRequest({ ts, requestId, accountId: taker, currency, expiresAt: ts + 60_000 })));
    ok(j.apply(parlayQuote({ ts, quoteId: `q${i}`, requestId, expiresAt: ts + 60_000 })));
    ok(j.apply(parlayWager({ ts, requestId, accountId: taker, stake: 250_000 + i })));
  }
  for (const m of ['M1', 'M2'])
    ok(j.apply({ type: 'SetMarketStatus', ts: T0 + 100, marketId: m, status: 'CLOSED' }));
  return j;
}

const settled = (x: Exchange) =>
  [...Array(N).keys()].filter((i) => x.parlay(`R${i}`)!.status === 'SETTLED').map((i) => `R${i}`);

/** Money conserved, and the parlay collateral is exactly the payout of the parlays still open. */
function conserved(x: Exchange): void {
  assertInvariants(x, ACCTS);
  const open = { CASH: 0, COIN: 0 };
  for (const p of x.parlays('bob', { status: 'OPEN' }))
    open[p.currency] += p.qty * (p.currency === 'CASH' ? 1_000 : 100_000);
  const t = x.totals();
  assert.equal(t.CASH.parlayCollateral, open.CASH);
  assert.equal(t.COIN.parlayCollateral, open.COIN);
}

describe('parlay settlement in chunks', () => {
  test('a budgeted SettleMarket advances the first parlays in fill order; SettleParlays the rest', () => {
    const j = world();
    const { x } = j;
    // M1-b wins: every parlay's M1 leg lost, so each advanced parlay settles (the maker is paid)
    ok(j.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b', parlayBudget: 3 }));
    conserved(x);
    assert.deepEqual(settled(x), ['R0', 'R1', 'R2']);
    assert.deepEqual(x.parlaySettlementsDue(), [{ marketId: 'M1', parlays: 4 }]);
    // a due parlay reads as open, its leg there still TBD: settled or not, never half
    const due = x.parlay('R3')!;
    assert.equal(due.status, 'OPEN');
    assert.deepEqual(
      due.legs.map((l) => l.status),
      ['TBD', 'TBD'],
    );
    const ev = ok(j.apply({ type: 'SettleParlays', ts: T0 + 102, marketId: 'M1', max: 3 }));
    assert.deepEqual(
      ev
        .filter((e) => e.kind === 'ParlayChanged')
        .map((e) => (e.kind === 'ParlayChanged' ? e.parlay.id : '')),
      ['R3', 'R4', 'R5'],
    );
    conserved(x);
    assert.deepEqual(x.parlaySettlementsDue(), [{ marketId: 'M1', parlays: 1 }]);
    ok(j.apply({ type: 'SettleParlays', ts: T0 + 103, marketId: 'M1', max: 3 }));
    conserved(x);
    assert.equal(settled(x).length, N);
    assert.deepEqual(x.parlaySettlementsDue(), []);
    assert.equal(x.parlay('R6')!.settledAt, T0 + 103);
    // nothing left: refused, nothing changes
    const h = x.hash();
    rejected(j.apply({ type: 'SettleParlays', ts: T0 + 104, marketId: 'M1', max: 3 }), 'INVALID_TRANSITION');
    rejected(j.apply({ type: 'SettleParlays', ts: T0 + 104, marketId: 'M2', max: 3 }), 'INVALID_TRANSITION');
    rejected(j.apply({ type: 'SettleParlays', ts: T0 + 104, marketId: 'nope', max: 3 }), 'MARKET_NOT_FOUND');
    assert.equal(x.hash(), h);
    // replay of the journaled commands, in replay mode, reproduces the state
    const y = setup();
    y.setEvents(false);
    for (const c of j.log) assert.equal(y.apply(c).ok, true, c.type);
    assert.equal(y.hash(), x.hash());
  });

  test('chunks at one ts end in the state one unbounded SettleMarket gives', () => {
    const a = world();
    ok(a.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b' }));
    const b = world();
    ok(b.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b', parlayBudget: 2 }));
    while (b.x.parlaySettlementsDue().length > 0)
      ok(b.apply({ type: 'SettleParlays', ts: T0 + 101, marketId: 'M1', max: 2 }));
    // the same records, wallets and totals (the hash differs only by the commands' count, lastSeq)
    for (const id of ACCTS) {
      assert.deepEqual(b.x.parlays(id), a.x.parlays(id));
      for (const c of ['CASH', 'COIN'] as const) assert.deepEqual(b.x.wallet(id, c), a.x.wallet(id, c));
    }
    assert.deepEqual(b.x.totals(), a.x.totals());
  });

  test('a leg that wins: the parlays advance without settling, and stop being due', () => {
    const j = world();
    const { x } = j;
    ok(j.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-a', parlayBudget: 4 }));
    assert.deepEqual(x.parlaySettlementsDue(), [{ marketId: 'M1', parlays: 3 }]);
    assert.deepEqual(
      x.parlay('R0')!.legs.map((l) => l.status),
      ['WIN', 'TBD'],
    );
    assert.deepEqual(
      x.parlay('R6')!.legs.map((l) => l.status),
      ['TBD', 'TBD'],
    );
    ok(j.apply({ type: 'SettleParlays', ts: T0 + 102, marketId: 'M1', max: 10 }));
    assert.deepEqual(x.parlaySettlementsDue(), []);
    assert.equal(settled(x).length, 0);
    conserved(x);
    // M2-b wins too: every parlay wins, in two chunks
    ok(j.apply({ type: 'SettleMarket', ts: T0 + 103, marketId: 'M2', result: 'M2-b', parlayBudget: 5 }));
    assert.equal(settled(x).length, 5);
    conserved(x);
    ok(j.apply({ type: 'SettleParlays', ts: T0 + 104, marketId: 'M2', max: 5 }));
    assert.equal(settled(x).length, N);
    const r0 = x.parlay('R0')!;
    assert.equal(r0.takerPayout, r0.qty * 1_000);
    conserved(x);
  });

  test('two settled markets due at once: a parlay is decided by whichever chunk sees its last leg', () => {
    const j = world();
    const { x } = j;
    ok(j.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-a', parlayBudget: 1 }));
    ok(j.apply({ type: 'SettleMarket', ts: T0 + 102, marketId: 'M2', result: 'PUSH', parlayBudget: 1 }));
    // R0 saw both its legs (M1 WIN, then M2 PUSH): settled at the leg's recorded price
    assert.deepEqual(settled(x), ['R0']);
    assert.deepEqual(x.parlaySettlementsDue(), [
      { marketId: 'M1', parlays: 6 },
      { marketId: 'M2', parlays: 6 },
    ]);
    conserved(x);
    ok(j.apply({ type: 'SettleParlays', ts: T0 + 103, marketId: 'M2', max: 100 }));
    assert.deepEqual(settled(x), ['R0']); // their M1 legs are still due
    ok(j.apply({ type: 'SettleParlays', ts: T0 + 104, marketId: 'M1', max: 100 }));
    assert.equal(settled(x).length, N);
    assert.deepEqual(x.parlaySettlementsDue(), []);
    const r1 = x.parlay('R1')!;
    assert.equal(r1.takerPayout, Math.floor((r1.qty * 1_000 * 400_000) / 1_000_000));
    conserved(x);
    const y = setup();
    y.setEvents(false);
    for (const c of j.log) ok(y.apply(c));
    assert.equal(y.hash(), x.hash());
  });

  test('a snapshot between chunks restores the due work; the next chunk after a restore matches', () => {
    const j = world();
    const { x } = j;
    ok(j.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b', parlayBudget: 2 }));
    const y = new Exchange();
    y.restore(x.snapshot());
    assert.equal(y.hash(), x.hash());
    assert.deepEqual(y.parlaySettlementsDue(), x.parlaySettlementsDue());
    const next: Command = { type: 'SettleParlays', ts: T0 + 102, marketId: 'M1', max: 3 };
    const ex = ok(x.apply(next));
    const ey = ok(y.apply(next));
    assert.deepEqual(ey, ex);
    assert.equal(y.hash(), x.hash());
    assert.deepEqual(settled(y), ['R0', 'R1', 'R2', 'R3', 'R4']);
  });

  test('a cancelled event voids its markets within one budget', () => {
    const j = world();
    const { x } = j;
    ok(j.apply({ type: 'SetEventStatus', ts: T0 + 101, eventId: 'E1', status: 'CANCELED', parlayBudget: 9 }));
    // 9 visits: M1's 7 (each leg PUSH, none decided), then 2 of M2's (decided: both legs void)
    assert.deepEqual(settled(x), ['R0', 'R1']);
    assert.deepEqual(x.parlaySettlementsDue(), [{ marketId: 'M2', parlays: 5 }]);
    conserved(x);
    ok(j.apply({ type: 'SettleParlays', ts: T0 + 102, marketId: 'M2', max: 5 }));
    assert.equal(settled(x).length, N);
    const r0 = x.parlay('R0')!;
    assert.equal(r0.takerPayout, Number((BigInt(r0.qty * 1_000) * 500_000n * 400_000n) / 1_000_000_000_000n));
    conserved(x);
  });

  test('a bad budget or max is refused and changes nothing', () => {
    const j = world();
    const { x } = j;
    const h = x.hash();
    for (const parlayBudget of [0, -1, 1.5, Number.NaN, '3' as unknown as number])
      rejected(
        j.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b', parlayBudget }),
        'VALIDATION_FAILED',
      );
    rejected(
      j.apply({ type: 'SetEventStatus', ts: T0 + 101, eventId: 'E1', status: 'CANCELED', parlayBudget: 0 }),
      'VALIDATION_FAILED',
    );
    assert.equal(x.hash(), h);
    ok(j.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b', parlayBudget: 1 }));
    const h2 = x.hash();
    for (const max of [0, -2, 2.5])
      rejected(j.apply({ type: 'SettleParlays', ts: T0 + 102, marketId: 'M1', max }), 'VALIDATION_FAILED');
    assert.equal(x.hash(), h2);
  });
});

describe('parlay reads by account', () => {
  test('newest first, filtered and paged over the account’s own items', () => {
    const j = world();
    const { x } = j;
    assert.deepEqual(
      x.parlays('alice').map((p) => p.id),
      ['R6', 'R4', 'R2', 'R0'],
    );
    assert.equal(x.parlays('bob').length, N);
    assert.deepEqual(
      x.parlays('bob', { offset: 2, limit: 2 }).map((p) => p.id),
      ['R4', 'R3'],
    );
    assert.deepEqual(
      x.parlayRequests('carol', { limit: 2 }).map((r) => r.id),
      ['R5', 'R3'],
    );
    assert.deepEqual(
      x.parlayRequests('carol', { where: (r) => r.currency === 'COIN' }).map((r) => r.id),
      ['R3'],
    );
    assert.deepEqual(x.parlays('nobody'), []);
    ok(j.apply({ type: 'SettleMarket', ts: T0 + 101, marketId: 'M1', result: 'M1-b', parlayBudget: 3 }));
    assert.deepEqual(
      x.parlays('bob', { status: 'OPEN' }).map((p) => p.id),
      ['R6', 'R5', 'R4', 'R3'],
    );
    assert.deepEqual(
      x.parlays('bob', { status: 'SETTLED', limit: 2 }).map((p) => p.id),
      ['R2', 'R1'],
    );
    assert.deepEqual(
      x.parlays('alice', { status: 'OPEN', where: (p) => p.currency === 'CASH' }).map((p) => p.id),
      ['R6', 'R4'],
    );
    // the same after a restore (the indexes are rebuilt from the records)
    const y = new Exchange();
    y.restore(x.snapshot());
    for (const a of ACCTS) {
      assert.deepEqual(y.parlays(a), x.parlays(a));
      assert.deepEqual(y.parlays(a, { status: 'OPEN' }), x.parlays(a, { status: 'OPEN' }));
      assert.deepEqual(y.parlayRequests(a), x.parlayRequests(a));
    }
  });
});
