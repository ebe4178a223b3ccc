// Durability through the whole stack (principle 6 of docs/architecture.md "Principles"): the real
// server runs as a child process taking orders over HTTP from concurrent clients; it is killed
// with SIGKILL at a random moment, restarted on the same data, and then every order it had
// acknowledged (HTTP 201) must be there, and money must be conserved: summed over the traders,
// available + reserved for open orders + cost locked in positions = deposits (pregame: no fees).
// KILL9_CYCLES sets the number of cycles (5 by default, CI).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  bootChild,
  createGame,
  fetchToken,
  fundedClient,
  httpCall,
  rebootAfterKill,
} from '../helpers/child-server.ts';
import { rng } from '../helpers/prng.ts';
import { ADMIN_ID, ADMIN_SECRET, serverPlace } from '../helpers/server.ts';

const child = fileURLToPath(new URL('./server-child.ts', import.meta.url));
const CYCLES = Number(process.env.KILL9_CYCLES ?? 5);

const boot = (env: Record<string, string>) => bootChild(child, env);
const call = httpCall;
const token = fetchToken;

test(`kill -9 under HTTP order flow, ${CYCLES} cycles: acknowledged orders survive, money conserved`, async () => {
  const place = await serverPlace('pglite');
  let running: ChildProcess | undefined;
  after(async () => {
    running?.kill('SIGKILL');
    await place.destroy();
  });

  // Setup on the first boot: a game, two funded traders.
  let { proc, url, exited } = await boot(place.env);
  running = proc;
  let admin = await token(url, ADMIN_ID, ADMIN_SECRET);
  const [outcomes] = await createGame(url, admin, [{ type: 'MONEY', description: 'NYK @ BOS Moneyline' }]);
  assert.ok(outcomes, 'the game has its moneyline');
  const DEPOSIT = 100000;
  const traders = [];
  for (const name of ['t1', 't2']) traders.push(await fundedClient(url, admin, name, DEPOSIT));
  const acked: { trader: number; orderId: string }[] = [];
  const r = rng(7);

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const tokens = await Promise.all(traders.map((t) => token(url, t.clientId, t.clientSecret)));
    let stop = false;
    // Eight concurrent clients placing bids around 0.5, trader 0 on outcome 0 and trader 1 on
    // outcome 1: many cross and trade. One side per trader means no netting, so each account's
    // cost basis is exactly the collateral it put up and the identity below is exact (netting
    // realizes P&L between accounts; the engine's own conservation checks cover it).
    const loops = Array.from({ length: 8 }, async (_, k) => {
      while (!stop) {
        const trader = k % 2;
        const side = trader;
        const price = [0.45, 0.48, 0.5, 0.52, 0.55][Math.floor(r() * 5)];
        try {
          const res = await call(url, 'POST', '/nbx/v2/emm/orders/place', tokens[trader]!, {
            outcomeId: outcomes[side],
            price,
            qty: 100 * (1 + Math.floor(r() * 5)),
            currency: 'CASH',
            tif: 'GTC',
          });
          if (res.status === 201) acked.push({ trader, orderId: res.body.id });
        } catch {
          return; // connection reset by the kill
        }
      }
    });
    await new Promise((res) => setTimeout(res, 300 + Math.floor(r() * 1200)));
    proc.kill('SIGKILL');
    stop = true;
    await Promise.all(loops);
    await exited;

    ({ proc, url, exited } = await rebootAfterKill(child, place.env, cycle));
    running = proc;
    admin = await token(url, ADMIN_ID, ADMIN_SECRET);
    const after = await Promise.all(traders.map((t) => token(url, t.clientId, t.clientSecret)));
    for (const o of acked) {
      const got = await call(url, 'GET', `/nbx/v2/emm/orders/${o.orderId}`, after[o.trader]!);
      assert.equal(got.status, 200, `cycle ${cycle}: acknowledged order ${o.orderId} lost`);
    }
    // Trades and netting move money between the two traders; the sum is what must not change.
    let total = 0;
    for (const t of after) {
      const bal = await call(url, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', t);
      const oc = await call(url, 'GET', '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH', t);
      total += Math.round((bal.body.balance + oc.body.openOrderCost + oc.body.openPositionCost) * 1e5);
    }
    assert.equal(total, traders.length * DEPOSIT * 1e5, `cycle ${cycle}: money not conserved`);
  }
  assert.ok(acked.length > 0, 'no order was acknowledged');
  proc.kill('SIGTERM');
  await exited;
  running = undefined;
});
