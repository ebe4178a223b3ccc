// Durability of parlays under kill -9 (docs/parlays.md, docs/order-entry.md "Acknowledgements"): the
// real server runs as a child process while a taker makes parlay requests, a maker quotes each over
// the `/trade` socket and the taker wagers over REST, several in flight at once; it is killed with
// SIGKILL mid-stream and restarted on the same data. Every wager it acknowledged (a 201, sent only
// once the journal is durable) must be there with its stake, collateral and fee, and each side's
// ledger must sum to its wallet. Copies test/integration/kill9-socket.test.ts; KILL9_CYCLES sets the
// number of cycles (2 by default).

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { bootChild, fetchToken, fundedClient, httpCall, rebootAfterKill } from '../helpers/child-server.ts';
import { kcAtBufEvent } from '../helpers/parlay-desk.ts';
import { ADMIN_ID, ADMIN_SECRET, serverPlace } from '../helpers/server.ts';

const child = fileURLToPath(new URL('./server-child.ts', import.meta.url));
const CYCLES = Number(process.env.KILL9_CYCLES ?? 2);

const money = (s: string | number): number => {
  const t = String(s);
  const neg = t.startsWith('-');
  const [w, f = ''] = t.replace('-', '').split('.') as [string, string?];
  const v = Number(w) * 100_000 + Number(f.padEnd(5, '0'));
  return neg ? -v : v;
};
const units = (x: number): number => Math.round(x * 100_000);

/** Every row of a paged list (limit 1000, offset). */
async function all(url: string, path: string, tok: string): Promise<Record<string, never>[]> {
  const out: Record<string, never>[] = [];
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await httpCall(url, 'GET', `${path}${sep}limit=1000&offset=${out.length}`, tok);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    out.push(...r.body);
    if (r.body.length < 1000) return out;
  }
}

interface Acked {
  id: string;
  stake: number;
  collateral: number;
  fee: number;
  qty: number;
}

/** A maker's `/trade` socket: quotes a request, resolves with the answer (or null when it closed). */
function quoter(url: string, token: string) {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/trade`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const waiting = new Map<number, (f: unknown) => void>();
  let n = 0;
  const open = new Promise<void>((res) => ws.once('open', () => res()));
  ws.on('message', (d) => {
    const f = JSON.parse(d.toString());
    waiting.get(f.id)?.(f);
    waiting.delete(f.id);
  });
  ws.on('error', () => {});
  ws.on('close', () => {
    for (const w of waiting.values()) w(null);
    waiting.clear();
  });
  return {
    open,
    quote(requestId: string): Promise<{ type: string } | null> {
      if (ws.readyState !== WebSocket.OPEN) return Promise.resolve(null);
      const id = n++;
      return new Promise((res) => {
        waiting.set(id, res as (f: unknown) => void);
        ws.send(
          JSON.stringify({
            type: 'parlayQuote',
            id,
            data: { requestId, price: 0.3, maxQty: 1000, expiresInMs: 60_000 },
          }),
        );
      });
    },
    close: () => ws.terminate(),
  };
}

test(`kill -9 during parlay requests, quotes and wagers, ${CYCLES} cycles: acknowledged wagers survive`, async () => {
  const place = await serverPlace('pglite', {
    PARLAY_MAX_OPEN_REQUESTS: '10000',
    PARLAY_QUOTE_RATE: '100000',
  });
  let running: ChildProcess | undefined;
  after(async () => {
    running?.kill('SIGKILL');
    await place.destroy();
  });
  let { proc, url, exited } = await bootChild(child, place.env);
  running = proc;
  const admin = await fetchToken(url, ADMIN_ID, ADMIN_SECRET);
  const ok = async (path: string, body: unknown) => {
    const r = await httpCall(url, 'POST', path, admin, body);
    assert.ok(r.status === 201 || r.status === 200, `POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await ok('/admin/v1/leagues', { code: 'NFL', name: 'National Football League' });
  const home = await ok('/admin/v1/teams', { league: 'NFL', name: 'Buffalo Bills', symbol: 'BUF' });
  const away = await ok('/admin/v1/teams', { league: 'NFL', name: 'Kansas City Chiefs', symbol: 'KC' });
  const ev = await ok('/admin/v1/events', kcAtBufEvent(home.id, away.id));
  const markets = ev.markets as { outcomeIds: [string, string] }[];
  const clients: Record<string, { clientId: string; clientSecret: string }> = {
    taker: await fundedClient(url, admin, 'taker', 100_000),
    maker: await fundedClient(url, admin, 'maker', 100_000, ['make:parlay', 'execute:trader', 'read:trader']),
    liquidity: await fundedClient(url, admin, 'liquidity', 100_000),
  };
  const token = (name: string) => fetchToken(url, clients[name]!.clientId, clients[name]!.clientSecret);
  const liq = await token('liquidity');
  for (const m of markets)
    for (const o of m.outcomeIds) {
      const r = await httpCall(url, 'POST', '/nbx/v2/emm/orders/place', liq, {
        outcomeId: o,
        price: 0.45,
        qty: 1000,
        currency: 'CASH',
        tif: 'GTC',
      });
      assert.equal(r.status, 201);
    }
  const outcomes = [{ id: markets[0]!.outcomeIds[0] }, { id: markets[1]!.outcomeIds[1] }];
  const acked: Acked[] = [];
  let n = 0;

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const [taker, maker] = [await token('taker'), await token('maker')];
    const q = quoter(url, maker);
    await q.open;
    let alive = true;
    /** One flow: request → quote over the socket → wager; until the server dies. */
    const flow = async () => {
      while (alive) {
        try {
          const req = await httpCall(url, 'POST', '/nbx/v1/parlay/request', taker, { outcomes });
          if (req.status !== 201) return;
          const answer = await q.quote(req.body[0].id);
          if (answer?.type !== 'parlayQuote') return;
          const w = await httpCall(url, 'POST', `/nbx/v1/parlay/request/${req.body[0].id}/wager`, taker, {
            stake: 3,
            maxPrice: 0.3,
            clientOrderId: `k9-${n++}`,
          });
          if (w.status !== 201) return;
          const b = w.body;
          acked.push({ id: b.id, stake: b.stake, collateral: b.collateral, fee: b.fee, qty: b.qty });
        } catch {
          return; // the connection died with the server
        }
      }
    };
    const flows = [flow(), flow(), flow(), flow()];
    await new Promise((res) => setTimeout(res, 1500 + cycle * 500));
    alive = false;
    proc.kill('SIGKILL');
    await Promise.all(flows);
    q.close();
    await exited;

    ({ proc, url, exited } = await rebootAfterKill(child, place.env, cycle));
    running = proc;
    const t = await token('taker');
    const mine = (await all(url, '/nbx/v1/parlays', t)) as unknown as (Acked & { role: string })[];
    const byId = new Map(mine.map((p) => [p.id, p]));
    for (const a of acked) {
      const p = byId.get(a.id);
      assert.ok(p, `cycle ${cycle}: acknowledged wager ${a.id} lost`);
      assert.deepEqual(
        { stake: p.stake, collateral: p.collateral, fee: p.fee, qty: p.qty },
        { stake: a.stake, collateral: a.collateral, fee: a.fee, qty: a.qty },
      );
      assert.equal(p.role, 'TAKER');
    }
    for (const name of ['taker', 'maker']) {
      const tk = await token(name);
      const rows = (await all(url, '/nbx/v2/emm/transactions?currency=CASH', tk)) as unknown as {
        amount: string;
      }[];
      const bal = await httpCall(url, 'GET', '/nbx/v2/emm/account/balance?currency=CASH', tk);
      const oc = await httpCall(url, 'GET', '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH', tk);
      assert.equal(
        rows.reduce((s, r) => s + money(r.amount), 0),
        units(bal.body.balance) + units(oc.body.openOrderCost),
        `cycle ${cycle}: ${name}'s ledger ≠ wallet`,
      );
    }
  }
  assert.ok(acked.length > 0, 'no wager was acknowledged');
  proc.kill('SIGTERM');
  await exited;
  running = undefined;
});
