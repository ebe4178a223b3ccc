// Durability of order entry over the `/trade` socket (docs/order-entry.md "Acknowledgements"): the
// real server runs as a child process taking pipelined orders from several sockets at once; it is
// killed with SIGKILL mid-stream, restarted on the same data, and every order it had acknowledged
// (a `place` answer, sent only once the journal is durable) must be there, with money conserved as
// in test/integration/kill9.test.ts. Each cycle kills only after at least MIN_ACKS_PER_CYCLE
// acknowledgements, so every cycle checks hundreds of orders, not one. KILL9_CYCLES sets the
// number of cycles (3 by default).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
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
const CYCLES = Number(process.env.KILL9_CYCLES ?? 3);
const DEPOSIT = 100000;
/** Acknowledged orders each cycle must have before the kill: every one of them is then checked. */
const MIN_ACKS_PER_CYCLE = 200;

/** Keeps `window` place requests in flight on one socket until it closes; records every ack. */
function pipeline(
  url: string,
  token: string,
  order: () => Record<string, unknown>,
  acked: string[],
  window = 16,
): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/trade`, {
      headers: { authorization: `Bearer ${token}` },
    });
    let n = 0;
    const send = () => ws.send(JSON.stringify({ type: 'place', id: n++, data: order() }));
    ws.on('open', () => {
      for (let i = 0; i < window; i++) send();
    });
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString());
      if (f.type === 'place') acked.push(f.result.id);
      if (ws.readyState === WebSocket.OPEN) send();
    });
    ws.on('error', () => {});
    ws.on('close', () => resolve());
  });
}

test(`kill -9 under pipelined /trade order flow, ${CYCLES} cycles: acknowledged orders survive`, async () => {
  const place = await serverPlace('pglite');
  let running: ChildProcess | undefined;
  after(async () => {
    running?.kill('SIGKILL');
    await place.destroy();
  });
  let { proc, url, exited } = await bootChild(child, place.env);
  running = proc;
  const admin = await fetchToken(url, ADMIN_ID, ADMIN_SECRET);
  const [outcomes] = await createGame(url, admin, [{ type: 'MONEY', description: 'NYK @ BOS Moneyline' }]);
  assert.ok(outcomes);
  const traders = [];
  for (const name of ['w1', 'w2']) traders.push(await fundedClient(url, admin, name, DEPOSIT));
  const acked: string[][] = [[], []];
  const r = rng(11);

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const tokens = await Promise.all(traders.map((t) => fetchToken(url, t.clientId, t.clientSecret)));
    // Four sockets, two per trader, each trader on its own outcome (see kill9.test.ts for why).
    const streams = [0, 1, 0, 1].map((trader) =>
      pipeline(
        url,
        tokens[trader]!,
        () => ({
          outcomeId: outcomes[trader],
          price: [0.45, 0.48, 0.5, 0.52, 0.55][Math.floor(r() * 5)],
          qty: 10 * (1 + Math.floor(r() * 5)),
          currency: 'CASH',
          tif: 'GTC',
        }),
        acked[trader]!,
      ),
    );
    // The kill comes only once this cycle has many acknowledged orders (a loaded machine may take
    // a while to get there), then after a random further delay, so it lands mid-stream.
    const before = acked[0]!.length + acked[1]!.length;
    const ackedNow = () => acked[0]!.length + acked[1]!.length - before;
    const deadline = Date.now() + 60_000;
    while (ackedNow() < MIN_ACKS_PER_CYCLE && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 20));
    assert.ok(
      ackedNow() >= MIN_ACKS_PER_CYCLE,
      `cycle ${cycle}: only ${ackedNow()} orders acknowledged in 60 s`,
    );
    await new Promise((res) => setTimeout(res, Math.floor(r() * 500)));
    proc.kill('SIGKILL');
    await Promise.all(streams);
    await exited;

    ({ proc, url, exited } = await rebootAfterKill(child, place.env, cycle));
    running = proc;
    const after = await Promise.all(traders.map((t) => fetchToken(url, t.clientId, t.clientSecret)));
    for (const trader of [0, 1]) {
      for (const id of acked[trader]!) {
        const got = await httpCall(url, 'GET', `/nbx/v2/emm/orders/${id}`, after[trader]!);
        assert.equal(got.status, 200, `cycle ${cycle}: acknowledged order ${id} lost`);
      }
    }
    let total = 0;
    for (const t of after) {
      const bal = await httpCall(url, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', t);
      const oc = await httpCall(url, 'GET', '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH', t);
      total += Math.round((bal.body.balance + oc.body.openOrderCost + oc.body.openPositionCost) * 1e5);
    }
    assert.equal(total, traders.length * DEPOSIT * 1e5, `cycle ${cycle}: money not conserved`);
  }
  assert.ok(
    acked[0]!.length + acked[1]!.length >= CYCLES * MIN_ACKS_PER_CYCLE,
    'too few orders acknowledged',
  );
  proc.kill('SIGTERM');
  await exited;
  running = undefined;
});
