// Money conservation with the order options and market-maker protection (docs/exchange.md
// "Exact money", "Self-trade prevention", "Market-maker protection"): random sequences of SetMmp,
// ResetMmp, placements with random stp modes, post-only reprice and protection, cancels, expiry,
// deposits and withdrawals. After every step the invariants hold (money conserved, computed in
// BigInt; no negative balance; reserved = cost of resting orders), a rejection changed nothing, and
// no protected order is accepted where a breach froze the account. At the end, replaying the
// accepted commands and restoring a snapshot both give the same hash.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Exchange } from '../../src/exchange/exchange.ts';
import { TICKS } from '../../src/exchange/ticks.ts';
import type { Command, StpMode, TimeInForce } from '../../src/exchange/types.ts';
import { assertInvariants, setup, T0 } from '../exchange/fixtures.ts';

const ACCOUNTS = ['a0', 'a1', 'a2', 'a3'];
const OUTCOMES = ['M1-a', 'M1-b', 'M2-a', 'M2-b'];
const TIFS: TimeInForce[] = ['GTC', 'GTC', 'IOC', 'FOK', 'PO', 'GTT'];
const STPS: (StpMode | undefined)[] = [undefined, 'CANCEL_BOTH', 'CANCEL_TAKER', 'CANCEL_MAKER'];

type Step =
  | {
      k: 'place';
      acct: number;
      out: number;
      tick: number;
      qty: number;
      tif: number;
      stp: number;
      opt: number;
      cur: number;
    }
  | {
      k: 'mmp';
      acct: number;
      event: boolean;
      cur: number;
      interval: number;
      qty: number;
      net: number;
      freeze: number;
    }
  | { k: 'reset'; acct: number; event: boolean }
  | { k: 'cancel'; acct: number; back: number }
  | { k: 'money'; acct: number; deposit: boolean; amount: number; cur: number }
  | { k: 'expire' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      k: fc.constant('place' as const),
      acct: fc.nat(3),
      out: fc.nat(3),
      tick: fc.integer({ min: 100, max: 180 }),
      qty: fc.integer({ min: 1, max: 400 }),
      tif: fc.nat(TIFS.length - 1),
      stp: fc.nat(3),
      opt: fc.nat(7),
      cur: fc.nat(4),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('mmp' as const),
      acct: fc.nat(3),
      event: fc.boolean(),
      cur: fc.nat(1),
      interval: fc.integer({ min: 1, max: 400 }),
      qty: fc.integer({ min: 0, max: 900 }),
      net: fc.integer({ min: 1, max: 600 }),
      freeze: fc.integer({ min: 0, max: 300 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constant('reset' as const), acct: fc.nat(3), event: fc.boolean() }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ k: fc.constant('cancel' as const), acct: fc.nat(3), back: fc.nat(20) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('money' as const),
      acct: fc.nat(3),
      deposit: fc.boolean(),
      amount: fc.integer({ min: 0, max: 2_000_000 }),
      cur: fc.nat(1),
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('expire' as const) }) },
);

test('money is conserved and state is exact under STP modes, reprice and MMP', () => {
  const seen = { breaches: 0, mmpCancels: 0, washes: 0, repriced: 0 };
  fc.assert(
    fc.property(fc.array(step, { minLength: 20, maxLength: 160 }), (steps) => {
      const x = setup('OPEN_PREGAME', ACCOUNTS);
      const start = x.snapshot();
      const accepted: Command[] = [];
      const ids: { id: string; acct: string }[] = [];
      let ts = T0 + 1_000;
      let n = 0;
      for (const st of steps) {
        ts += 7;
        let c: Command;
        if (st.k === 'place') {
          const tif = TIFS[st.tif]!;
          const stp = STPS[st.stp];
          const id = `o${n++}`;
          // tick index 100..180 of the table, around the middle; either outcome
          c = {
            type: 'PlaceOrder',
            ts,
            orderId: id,
            accountId: ACCOUNTS[st.acct]!,
            outcomeId: OUTCOMES[st.out]!,
            currency: st.cur === 0 ? 'COIN' : 'CASH',
            price: TICKS[st.tick]!,
            qty: st.qty,
            tif,
            ...(tif === 'GTT' ? { ttl: 50 } : {}),
            ...(stp !== undefined ? { stp } : {}),
            ...(tif === 'PO' && st.opt % 2 === 0 ? { reprice: true } : {}),
            ...(st.opt >= 3 ? { mmp: true } : {}),
          };
          ids.push({ id, acct: c.accountId });
        } else if (st.k === 'mmp') {
          c = {
            type: 'SetMmp',
            ts,
            accountId: ACCOUNTS[st.acct]!,
            eventId: st.event ? 'E1' : null,
            currency: st.cur === 0 ? 'COIN' : 'CASH',
            config: { intervalMs: st.interval, qtyLimit: st.qty, netLimit: st.net, freezeMs: st.freeze },
          };
        } else if (st.k === 'reset') {
          c = { type: 'ResetMmp', ts, accountId: ACCOUNTS[st.acct]!, eventId: st.event ? 'E1' : null };
        } else if (st.k === 'cancel') {
          const o = ids[Math.max(0, ids.length - 1 - st.back)];
          if (o === undefined) continue;
          c = { type: 'CancelOrder', ts, accountId: o.acct, orderId: o.id };
        } else if (st.k === 'money') {
          c = {
            type: st.deposit ? 'Deposit' : 'Withdraw',
            ts,
            accountId: ACCOUNTS[st.acct]!,
            currency: st.cur === 0 ? 'COIN' : 'CASH',
            amount: st.amount,
          };
        } else c = { type: 'Expire', ts };
        const before = x.hash();
        const frozenBefore = x.mmp(c.type === 'PlaceOrder' ? c.accountId : 'a0')!.frozen;
        const r = x.apply(c);
        if (!r.ok) {
          assert.equal(x.hash(), before, `${c.type} rejected ${r.code} but changed state`);
          continue;
        }
        accepted.push(structuredClone(c));
        for (const e of r.events) {
          if (e.kind === 'MmpTriggered') seen.breaches++;
          else if (e.kind === 'OrderCanceled' && e.reason === 'MMP') seen.mmpCancels++;
          else if (e.kind === 'OrderCanceled' && e.reason === 'WASH') seen.washes++;
          else if (e.kind === 'OrderPlaced' && c.type === 'PlaceOrder' && e.order.price !== c.price)
            seen.repriced++;
        }
        if (c.type === 'PlaceOrder' && c.mmp === true) {
          const f = frozenBefore.find((z) => z.eventId === 'E1');
          assert.ok(
            f === undefined || (f.until !== null && f.until <= c.ts),
            'protected order accepted while frozen',
          );
        }
        assertInvariants(x, ACCOUNTS);
      }
      const y = new Exchange();
      y.restore(start);
      for (const c of accepted) assert.ok(y.apply(c).ok, `replay of ${c.type} rejected`);
      assert.equal(y.hash(), x.hash(), 'replay');
      const z = new Exchange();
      z.restore(x.snapshot());
      assert.equal(z.hash(), x.hash(), 'restore');
      for (const a of ACCOUNTS) assert.deepEqual(z.mmp(a), x.mmp(a));
    }),
    { numRuns: 60, seed: 20261126, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
  );
  // the runs reached what they are about
  for (const [k, v] of Object.entries(seen)) assert.ok(v > 0, `no ${k} in any run: ${JSON.stringify(seen)}`);
});
