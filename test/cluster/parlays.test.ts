// Parlays on a PostgreSQL deployment (docs/cluster.md, docs/parlays.md "Replicas"): a leader and a
// replica as separate processes on one schema, with the house quote configured on both. Through the
// replica a trader requests a parlay, receives the house's and an external maker's firm quotes,
// bets (one fill at the maker's price, one at the house's, one with a claimed boost) and cancels;
// every write is forwarded to the leader and read back on the replica at the ack's seq; the
// replica's /tape carries the makers' `parlayRequests` channel and both sides' private parlay
// frames; the house quotes each request exactly once. Then kill -9 of the leader with open
// requests and open positions: the promoted replica holds the same parlays, quotes and boosts at
// the same seq and state hash, a restarted process follows it (recovering from a snapshot that
// holds the parlays), the open request is still fillable at the house's quote, and settling the
// legs on the new leader pays the winners to the unit. Needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { fetchToken } from '../helpers/child-server.ts';
import { kcAtBufEvent } from '../helpers/parlay-desk.ts';
import { ADMIN_ID, ADMIN_SECRET, type ServerPlace, serverPlace } from '../helpers/server.ts';
import { TradeClient } from '../helpers/trade-client.ts';
import { Client, isEvent } from '../stream/helpers.ts';
import { type Answer, converged, type Proc, req, sleep, startProc, status, until } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';

interface Who {
  name: string;
  clientId: string;
  clientSecret: string;
  accountId: string;
  token: string;
}

let place: ServerPlace;
const procs: Proc[] = [];
const clients: Client[] = [];
const people: Record<'taker' | 'maker' | 'house' | 'liquidity', Who> = {} as never;
/** Two markets of one game: [moneyline, total], each [outcome 0, outcome 1]. */
let markets: { id: string; outcomeIds: [string, string] }[] = [];
let admin = '';
/** Seq of the first parlay fill (the first test's), which a later snapshot holds. */
let firstFillSeq = Number.POSITIVE_INFINITY;

/** Money in a ledger row ("-5.00000") → integer units of 1e-5. */
const money = (s: string): number => {
  const neg = s.startsWith('-');
  const [w, f = ''] = s.replace('-', '').split('.') as [string, string?];
  const v = Number(w) * 100_000 + Number(f.padEnd(5, '0'));
  return neg ? -v : v;
};
const units = (x: number): number => Math.round(x * 100_000);
const seqOf = (a: Answer): number => Number(a.headers.get('x-tickbook-seq'));
/** A price `by` below `p`, on the 6-decimal grid. */
const under = (p: number, by: number): number => Math.round((p - by) * 1e6) / 1e6;

function ok(a: Answer, ...codes: number[]): Answer {
  assert.ok((codes.length ? codes : [200, 201]).includes(a.status), `${a.status} ${JSON.stringify(a.body)}`);
  return a;
}

/** A read on `url` that waits until that process has applied `seq` (read-your-writes). */
function readAt(url: string, path: string, token: string, seq: number): Promise<Answer> {
  return req(url, 'GET', path, { token, headers: { 'x-tickbook-min-seq': String(seq) } });
}

before(async () => {
  if (skip) return;
  place = await serverPlace('postgres', {
    // Nothing expires during the test: a failover must find every request and quote open.
    PARLAY_REQUEST_TTL_MS: '600000',
    PARLAY_MAX_OPEN_REQUESTS: '100',
    // A process that (re)starts recovers from a snapshot holding the parlays, then follows.
    SNAPSHOT_EVERY: '20',
  });
  // The house account must exist before a process is told to quote with it: a first process
  // sets up the catalog and the accounts, then the leader and the replica start with the house.
  const setup = await startProc(place, `parlay-setup-${process.pid}`);
  const u = setup.url;
  admin = await fetchToken(u, ADMIN_ID, ADMIN_SECRET);
  const post = async (path: string, body: unknown) =>
    ok(await req(u, 'POST', path, { token: admin, body })).body;
  await post('/admin/v1/leagues', { code: 'NFL', name: 'National Football League' });
  const home = await post('/admin/v1/teams', { league: 'NFL', name: 'Buffalo Bills', symbol: 'BUF' });
  const away = await post('/admin/v1/teams', { league: 'NFL', name: 'Kansas City Chiefs', symbol: 'KC' });
  const ev = await post('/admin/v1/events', kcAtBufEvent(home.id, away.id));
  markets = ev.markets;
  for (const [name, scopes] of [
    ['taker', undefined],
    ['maker', ['make:parlay', 'read:trader', 'execute:trader']],
    ['house', undefined],
    ['liquidity', undefined],
  ] as const) {
    const c = await post('/admin/v1/clients', { name, ...(scopes ? { scopes } : {}) });
    await post(`/admin/v1/accounts/${c.accountId}/deposits`, { currency: 'CASH', amount: 100_000 });
    people[name] = { name, ...c, token: '' };
  }
  // Books on every leg: the pricer prices a leg from its market.
  const liq = await fetchToken(u, people.liquidity.clientId, people.liquidity.clientSecret);
  for (const m of markets)
    for (const o of m.outcomeIds)
      ok(
        await req(u, 'POST', '/nbx/v2/emm/orders/place', {
          token: liq,
          body: { outcomeId: o, price: 0.45, qty: 1000, currency: 'CASH', tif: 'GTC' },
        }),
      );
  setup.proc.kill('SIGKILL');
  await setup.exited;
  const env = { PARLAY_HOUSE_ACCOUNT: people.house.accountId };
  procs.push(await startProc(place, `pa-${process.pid}`, env));
  procs.push(await startProc(place, `pb-${process.pid}`, env));
  const [, b] = procs.map((p) => p.url) as [string, string];
  // Every token is issued through the replica (forwarded to the leader).
  admin = await fetchToken(b, ADMIN_ID, ADMIN_SECRET);
  for (const w of Object.values(people)) w.token = await fetchToken(b, w.clientId, w.clientSecret);
});

after(async () => {
  for (const c of clients) c.ws.terminate();
  for (const p of procs) p.proc.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exited));
  await place?.destroy();
});

async function tape(url: string, token: string): Promise<Client> {
  const c = await Client.open(`${url.replace(/^http/, 'ws')}/tape`, { token });
  clients.push(c);
  return c;
}

const legs = () => [{ id: markets[0]!.outcomeIds[0] }, { id: markets[1]!.outcomeIds[1] }];

interface WireQuote {
  id: string;
  price: number;
  maxQty: number;
  mine: boolean;
}

/** A parlay request through `url`; answers the 201 body's request and the ack's seq. */
async function request(url: string, body: Record<string, unknown> = {}) {
  const r = ok(
    await req(url, 'POST', '/nbx/v1/parlay/request', {
      token: people.taker.token,
      body: { outcomes: legs(), boostId: null, ...body },
    }),
    201,
  );
  return { r: r.body[0], seq: seqOf(r) };
}

/** The request as the taker reads it on `url` once that process has applied `seq`. */
async function readRequest(url: string, id: string, seq: number) {
  return ok(await readAt(url, `/nbx/v1/parlay/request/${id}`, people.taker.token, seq)).body;
}

/** Waits until the house has quoted request `id` (read on `url`); answers its quote. */
async function houseQuote(url: string, id: string): Promise<WireQuote> {
  return until(
    async () => {
      const r = await readRequest(url, id, 0);
      return (r.quotes as WireQuote[]).find((q) => q.id === `house:${id}`);
    },
    10_000,
    `the house quote on ${id}`,
  );
}

async function ledgerMatchesWallet(url: string, who: Who, seq: number, label: string): Promise<void> {
  const rows = ok(
    await readAt(url, '/nbx/v2/emm/transactions?currency=CASH&limit=1000', who.token, seq),
  ).body;
  const bal = ok(await readAt(url, '/nbx/v2/emm/account/balance?currency=CASH', who.token, seq)).body;
  const oc = ok(
    await readAt(url, '/nbx/v2/emm/account/open-costs-and-credit?currency=CASH', who.token, seq),
  ).body;
  assert.equal(
    (rows as { amount: string }[]).reduce((s, t) => s + money(t.amount), 0),
    units(bal.balance) + units(oc.openOrderCost),
    `${label}: ${who.name}'s ledger ≠ wallet on ${url}`,
  );
}

test('a parlay bet end to end through a replica', { skip }, async () => {
  const [a, b] = procs.map((p) => p.url) as [string, string];
  assert.deepEqual(await Promise.all([a, b].map(async (u) => (await status(u, admin)).mode)), [
    'leader',
    'replica',
  ]);
  const { taker, maker, house } = people;

  // The replica's stream: the makers' channel, and the taker's and the maker's private channels.
  const makerTape = await tape(b, maker.token);
  makerTape.send({ event: 'subscribe', data: 'parlayRequests' });
  await makerTape.next(isEvent('subscribed'));
  const takerTape = await tape(b, taker.token);

  // 1. The request, forwarded; read back on the replica at the ack's seq.
  const made = await request(b, { stake: 10 });
  const id: string = made.r.id;
  assert.equal(made.r.status, 'Unfilled');
  assert.equal(made.r.traderId, taker.accountId);
  const onB = await readRequest(b, id, made.seq);
  assert.equal(onB.status, 'Unfilled');
  assert.equal(onB.price, made.r.price);
  const open = ok(await readAt(b, '/nbx/v1/parlay/requests?status=Unfilled', taker.token, made.seq)).body;
  assert.ok(open.some((r: { id: string }) => r.id === id));
  const announced = await makerTape.next(isEvent('parlayRequest', (d) => d.id === id));
  assert.equal(announced.data.status, 'Unfilled');
  assert.equal(announced.data.refPrice.toFixed(5), made.r.price);

  // 2. The house quotes it (on the leader: a replica runs no scheduler), at the reference price.
  const hq = await houseQuote(b, id);
  assert.equal(hq.price.toFixed(5), made.r.price);
  await takerTape.next(isEvent('parlayQuote', (d) => d.id === hq.id));

  // 3. The external maker quotes over REST through the replica, under the house; the second quote
  // replaces the first; then over its /trade socket on the replica (relayed to the leader), which
  // replaces the REST one.
  const best = under(hq.price, 0.02);
  const q1 = ok(
    await req(b, 'POST', '/nbx/v1/parlay/quotes', {
      token: maker.token,
      body: { requestId: id, price: under(hq.price, 0.01), maxQty: 10_000, expiresInMs: 3_600_000 },
    }),
    201,
  );
  const q2 = ok(
    await req(b, 'POST', '/nbx/v1/parlay/quotes', {
      token: maker.token,
      body: { requestId: id, price: under(hq.price, 0.015), maxQty: 10_000, expiresInMs: 3_600_000 },
    }),
    201,
  );
  assert.equal(q2.body.mine, true);
  const afterRest = await readRequest(b, id, seqOf(q2));
  assert.deepEqual(
    (afterRest.quotes as WireQuote[]).map((q) => q.id).sort(),
    [hq.id, q2.body.id].sort(),
    'the house quote and the maker’s latest quote, nothing else',
  );
  const sock = await TradeClient.open(`${b.replace(/^http/, 'ws')}/trade`, maker.token);
  const q3 = await sock.request('parlayQuote', {
    requestId: id,
    price: best,
    maxQty: 10_000,
    expiresInMs: 3_600_000,
  });
  sock.close();
  assert.equal(q3.type, 'parlayQuote', JSON.stringify(q3));
  assert.equal(q3.result.price, best);
  const quoted = await readRequest(b, id, q3.seq);
  assert.deepEqual(
    (quoted.quotes as WireQuote[]).map((q) => q.id).sort(),
    [hq.id, q3.result.id].sort(),
    'the socket quote replaced the REST one',
  );
  // The makers' list of open requests on the replica shows the maker its own quote only.
  const toQuote = ok(await readAt(b, '/nbx/v1/parlay/requests/open', maker.token, q3.seq)).body;
  assert.deepEqual(
    (toQuote.find((r: { id: string }) => r.id === id)?.quotes as WireQuote[]).map((q) => q.id),
    [q3.result.id],
  );
  for (const qid of [q1.body.id, q2.body.id, q3.result.id])
    await takerTape.next(isEvent('parlayQuote', (d) => d.id === qid));
  // The relay carries the leader's refusals as they are, and relays once at most.
  const badToken = await TradeClient.open(`${b.replace(/^http/, 'ws')}/trade`, 'not-a-token').catch(
    (e: { status: number; body: string }) => e,
  );
  assert.equal((badToken as { status: number }).status, 401);
  assert.equal(JSON.parse((badToken as { body: string }).body).code, 'INVALID_TOKEN');
  const looped = await new Promise<{ status: number; retryAfter: unknown }>((res, rej) => {
    const ws = new WebSocket(`${b.replace(/^http/, 'ws')}/trade`, {
      headers: { authorization: `Bearer ${maker.token}`, 'x-tickbook-forwarded': 'elsewhere' },
    });
    ws.once('unexpected-response', (_q, r) =>
      res({ status: r.statusCode!, retryAfter: r.headers['retry-after'] }),
    );
    ws.once('open', () => rej(new Error('a relayed upgrade was relayed again')));
    ws.once('error', () => {});
  });
  assert.deepEqual(looped, { status: 503, retryAfter: '1' });

  // 4. The wager through the replica fills at the best quote (the maker's latest).
  const w = ok(
    await req(b, 'POST', `/nbx/v1/parlay/request/${id}/wager`, {
      token: taker.token,
      body: { stake: 10, maxPrice: best, clientOrderId: 'rep-1' },
    }),
    201,
  );
  assert.equal(w.body.price, best);
  assert.equal(w.body.role, 'TAKER');
  const ws = seqOf(w);
  firstFillSeq = ws;
  // Idempotent through the replica too.
  const again = ok(
    await req(b, 'POST', `/nbx/v1/parlay/request/${id}/wager`, {
      token: taker.token,
      body: { stake: 10, maxPrice: best, clientOrderId: 'rep-1' },
    }),
    201,
  );
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body.id, w.body.id);
  const filled = await readRequest(b, id, ws);
  assert.equal(filled.status, 'Filled');
  const mine = ok(await readAt(b, '/nbx/v1/parlays', taker.token, ws)).body;
  assert.deepEqual(
    mine.find((p: { id: string }) => p.id === w.body.id),
    w.body,
  );
  const theirs = ok(await readAt(b, '/nbx/v1/parlays?status=OPEN', maker.token, ws)).body;
  assert.equal(theirs.find((p: { id: string }) => p.id === w.body.id)?.role, 'MAKER');
  const tf = await takerTape.next(isEvent('parlayFill', (d) => d.id === w.body.id));
  assert.equal(tf.data.role, 'TAKER');
  const mf = await makerTape.next(isEvent('parlayFill', (d) => d.id === w.body.id));
  assert.equal(mf.data.role, 'MAKER');
  await makerTape.next(isEvent('parlayRequest', (d) => d.id === id && d.status === 'Filled'));

  // 5. A request only the house quotes, filled at the house's price.
  const second = await request(b, { stake: 5 });
  const hq2 = await houseQuote(b, second.r.id);
  const hw = ok(
    await req(b, 'POST', `/nbx/v1/parlay/request/${second.r.id}/wager`, {
      token: taker.token,
      body: { stake: 5, maxPrice: hq2.price, clientOrderId: 'rep-2' },
    }),
    201,
  );
  assert.equal(hw.body.price, hq2.price);
  const housePos = ok(await readAt(b, '/nbx/v1/parlays', house.token, seqOf(hw))).body;
  assert.equal(housePos.find((p: { id: string }) => p.id === hw.body.id)?.role, 'MAKER');

  // 6. A boost created, listed, claimed and used through the replica; the house funds it.
  const boost = ok(
    await req(b, 'POST', '/admin/v1/boosts', {
      token: admin,
      body: {
        kind: 'MULTIPLIER',
        value: 1.25,
        validTo: '2100-01-01T00:00:00.000Z',
        fundingAccountId: house.accountId,
      },
    }),
    201,
  );
  const listed = ok(await readAt(b, '/nbx/v1/boosts', taker.token, seqOf(boost))).body;
  assert.equal(listed.find((x: { id: string }) => x.id === boost.body.id)?.claimed, 0);
  const claim = ok(
    await req(b, 'POST', `/nbx/v1/boosts/${boost.body.id}/claim`, { token: taker.token }),
    200,
  );
  assert.equal(claim.body.claimed, 1);
  const claimedNow = ok(await readAt(b, '/nbx/v1/boosts', taker.token, seqOf(claim))).body;
  assert.equal(claimedNow.find((x: { id: string }) => x.id === boost.body.id)?.available, 1);
  const boosted = await request(b, { boostId: boost.body.id, stake: 20 });
  assert.equal(boosted.r.boostId, boost.body.id);
  assert.ok(Number(boosted.r.price) < Number(boosted.r.unboostedPrice), JSON.stringify(boosted.r));
  const bhq = await houseQuote(b, boosted.r.id);
  const bq = ok(
    await req(b, 'POST', '/nbx/v1/parlay/quotes', {
      token: maker.token,
      body: {
        requestId: boosted.r.id,
        price: under(bhq.price, 0.01),
        maxQty: 10_000,
        expiresInMs: 3_600_000,
      },
    }),
    201,
  );
  const bquote = (
    (await readRequest(b, boosted.r.id, seqOf(bq))).quotes as (WireQuote & {
      boostedPrice: number;
    })[]
  ).find((q) => q.id === bq.body.id)!;
  assert.ok(bquote.boostedPrice < bquote.price);
  const bw = ok(
    await req(b, 'POST', `/nbx/v1/parlay/request/${boosted.r.id}/wager`, {
      token: taker.token,
      body: { stake: 20, maxPrice: bquote.boostedPrice, clientOrderId: 'rep-3' },
    }),
    201,
  );
  assert.deepEqual(
    [bw.body.price, bw.body.unboostedPrice, bw.body.boostId],
    [bquote.boostedPrice, bquote.price, boost.body.id],
  );
  assert.ok(bw.body.boostCost > 0);
  const houseRows = ok(
    await readAt(b, '/nbx/v2/emm/transactions?currency=CASH&limit=1000', house.token, seqOf(bw)),
  ).body as { kind: string; amount: string }[];
  assert.deepEqual(
    houseRows.filter((t) => t.kind === 'FILL_PARLAY_BOOST_FUNDS').map((t) => money(t.amount)),
    [-units(bw.body.boostCost)],
  );

  // 7. A request cancelled through the replica.
  const third = await request(b);
  await houseQuote(b, third.r.id);
  const del = ok(await req(b, 'DELETE', `/nbx/v1/parlay/request/${third.r.id}`, { token: taker.token }), 200);
  assert.equal(del.body.status, 'Cancelled');
  assert.equal((await readRequest(b, third.r.id, seqOf(del))).status, 'Cancelled');
  await makerTape.next(isEvent('parlayRequest', (d) => d.id === third.r.id && d.status === 'Cancelled'));

  // The house quoted each request once, no more: still one house quote a scheduler pass later.
  await sleep(600);
  for (const r of [made.r, second.r, boosted.r, third.r]) {
    const seen = await readRequest(b, r.id, 0);
    assert.equal(
      (seen.quotes as WireQuote[]).filter((q) => q.id.startsWith('house:')).length,
      1,
      `house quotes on ${r.id}`,
    );
  }
  const top = seqOf(del);
  for (const who of [taker, maker, house]) await ledgerMatchesWallet(b, who, top, 'after the bets');
  await converged([a, b], admin);
});

test('failover with open parlay requests and positions; settlement on the new leader pays', {
  skip,
}, async () => {
  const [a, b] = procs.map((p) => p.url) as [string, string];
  const { taker, maker, house } = people;

  // An open position (the maker's) and an open request with both quotes on it.
  const filled = await request(b, { stake: 10 });
  const fhq = await houseQuote(b, filled.r.id);
  const fp = under(fhq.price, 0.01);
  ok(
    await req(b, 'POST', '/nbx/v1/parlay/quotes', {
      token: maker.token,
      body: { requestId: filled.r.id, price: fp, maxQty: 10_000, expiresInMs: 3_600_000 },
    }),
    201,
  );
  ok(
    await req(b, 'POST', `/nbx/v1/parlay/request/${filled.r.id}/wager`, {
      token: taker.token,
      body: { stake: 10, maxPrice: fp, clientOrderId: 'fo-1' },
    }),
    201,
  );
  const pending = await request(b, { stake: 4 });
  const pendingHouse = await houseQuote(b, pending.r.id);
  const pendingMaker = ok(
    await req(b, 'POST', '/nbx/v1/parlay/quotes', {
      token: maker.token,
      body: { requestId: pending.r.id, price: 0.9, maxQty: 1_000, expiresInMs: 3_600_000 },
    }),
    201,
  );

  // What every reader sees before the kill, on the replica, at the state the leader has.
  const [sa, sb] = await converged([a, b], admin);
  assert.equal(sa!.mode, 'leader');
  const views = async (u: string, seq: number) => ({
    takerParlays: ok(await readAt(u, '/nbx/v1/parlays', taker.token, seq)).body,
    makerParlays: ok(await readAt(u, '/nbx/v1/parlays', maker.token, seq)).body,
    houseParlays: ok(await readAt(u, '/nbx/v1/parlays', house.token, seq)).body,
    requests: ok(await readAt(u, '/nbx/v1/parlay/requests', taker.token, seq)).body,
    boosts: ok(await readAt(u, '/admin/v1/boosts', admin, seq)).body,
    traderBoosts: ok(await readAt(u, '/nbx/v1/boosts', taker.token, seq)).body,
  });
  const before = await views(b, sb!.seq);
  assert.ok(before.takerParlays.length >= 1);
  assert.ok(before.requests.some((r: { id: string; status: string }) => r.id === pending.r.id));
  // Clients of the replica's stream that stay connected through its promotion.
  const takerTape = await tape(b, taker.token);
  const makerTape = await tape(b, maker.token);
  makerTape.send({ event: 'subscribe', data: 'parlayRequests' });
  await makerTape.next(isEvent('subscribed'));
  // An order-entry socket on the replica, relayed to the leader: it ends with the leader.
  const relayed = await TradeClient.open(`${b.replace(/^http/, 'ws')}/trade`, maker.token);
  const relayEnded = new Promise<number>((res) => relayed.ws.once('close', (code) => res(code)));

  procs[0]!.proc.kill('SIGKILL');
  await procs[0]!.exited;
  const promoted = await until(
    async () => {
      const s = await status(b, admin);
      return s.mode === 'leader' ? s : undefined;
    },
    10_000,
    'the replica leads',
  );
  // The promoted replica journaled nothing of its own: same seq, same state hash as the old leader.
  assert.equal(promoted.seq, sa!.seq);
  assert.equal(promoted.hash, sa!.hash);
  assert.deepEqual(await views(b, sa!.seq), before);
  await relayEnded;

  // The old leader's process comes back as a replica of the new one, from a snapshot taken after
  // parlays were filled, plus the journal.
  const store = await PostgresStore.open(place.env.DATABASE_URL!, 1);
  try {
    const snap = await store.query<{ s: string | null }>('SELECT max(seq) AS s FROM snapshots');
    assert.ok(Number(snap.rows[0]?.s ?? 0) >= firstFillSeq, 'a snapshot holds filled parlays');
  } finally {
    await store.close();
  }
  procs.splice(0, 1);
  procs.push(await startProc(place, `pc-${process.pid}`, { PARLAY_HOUSE_ACCOUNT: house.accountId }));
  const c = procs[1]!.url;
  const [, sc] = await converged([b, c], admin, 20_000);
  assert.equal(sc!.mode, 'replica');
  assert.deepEqual(await views(c, sa!.seq), before);
  const takerTapeC = await tape(c, taker.token);

  // The open request is still live on the new leader: the taker bets it through the new replica
  // at the house's quote (the best one); the maker's quote is still there too.
  const still = await readRequest(c, pending.r.id, 0);
  assert.deepEqual(
    (still.quotes as WireQuote[]).map((q) => q.id).sort(),
    [pendingHouse.id, pendingMaker.body.id].sort(),
  );
  const late = ok(
    await req(c, 'POST', `/nbx/v1/parlay/request/${pending.r.id}/wager`, {
      token: taker.token,
      body: { stake: 4, maxPrice: pendingHouse.price, clientOrderId: 'fo-2' },
    }),
    201,
  );
  assert.equal(late.body.price, pendingHouse.price);
  const fill = await takerTape.next(isEvent('parlayFill', (d) => d.id === late.body.id));
  assert.equal(fill.journalSeq, seqOf(late));
  await makerTape.next(isEvent('parlayRequest', (d) => d.id === pending.r.id && d.status === 'Filled'));
  // The new leader's house quotes a new request once.
  const fresh = await request(c);
  await houseQuote(c, fresh.r.id);
  // A maker's socket on the new replica is relayed to the new leader.
  const sock = await TradeClient.open(`${c.replace(/^http/, 'ws')}/trade`, maker.token);
  const sq = await sock.request('parlayQuote', {
    requestId: fresh.r.id,
    price: 0.5,
    maxQty: 100,
    expiresInMs: 60_000,
  });
  sock.close();
  assert.equal(sq.type, 'parlayQuote', JSON.stringify(sq));
  assert.ok(
    ((await readRequest(c, fresh.r.id, sq.seq)).quotes as WireQuote[]).some((q) => q.id === sq.result.id),
  );
  ok(await req(c, 'DELETE', `/nbx/v1/parlay/request/${fresh.r.id}`, { token: taker.token }), 200);
  await sleep(600);
  assert.equal(
    ((await readRequest(c, fresh.r.id, 0)).quotes as WireQuote[]).filter((q) => q.id.startsWith('house:'))
      .length,
    1,
  );

  // Settlement through the replica (forwarded to the new leader): both legs win for the takers.
  const balance = async (who: Who, seq: number) =>
    units(ok(await readAt(c, '/nbx/v2/emm/account/balance?currency=CASH', who.token, seq)).body.balance);
  const seq0 = seqOf(late);
  const before$ = {
    taker: await balance(taker, seq0),
    maker: await balance(maker, seq0),
    house: await balance(house, seq0),
  };
  const openTaker = ok(await readAt(c, '/nbx/v1/parlays?status=OPEN', taker.token, seq0)).body as {
    id: string;
    qty: number;
  }[];
  assert.ok(openTaker.length >= 5, `open parlays of the taker: ${openTaker.length}`);
  let last = 0;
  for (const [m, winner] of [
    [markets[0]!, markets[0]!.outcomeIds[0]],
    [markets[1]!, markets[1]!.outcomeIds[1]],
  ] as const) {
    ok(
      await req(c, 'POST', `/admin/v1/markets/${m.id}/status`, { token: admin, body: { status: 'CLOSED' } }),
    );
    const s = ok(
      await req(c, 'POST', `/admin/v1/markets/${m.id}/settle`, {
        token: admin,
        body: { winningOutcomeId: winner },
      }),
    );
    last = seqOf(s);
  }
  type Settled = { id: string; status: string; qty: number; payout: number; legs: { status: string }[] };
  // A market's parlays may settle in journaled chunks after the settle's ack: wait for the last.
  const settled = await until(
    async () => {
      const r = ok(await readAt(c, '/nbx/v1/parlays', taker.token, last));
      const all = r.body as Settled[];
      if (!openTaker.every((o) => all.find((x) => x.id === o.id)?.status === 'SETTLED')) return undefined;
      last = seqOf(r);
      return all;
    },
    10_000,
    'every parlay of the taker settled',
  );
  let paid = 0;
  for (const o of openTaker) {
    const p = settled.find((x) => x.id === o.id)!;
    assert.equal(p.status, 'SETTLED');
    assert.deepEqual(
      p.legs.map((l) => l.status),
      ['WIN', 'WIN'],
    );
    // CASH: qty is the payout in cents
    assert.equal(units(p.payout), o.qty * 1000);
    paid += o.qty * 1000;
  }
  assert.equal((await balance(taker, last)) - before$.taker, paid, 'the taker is paid every payout');
  // The makers lose their collateral, which was already out of their balance.
  assert.equal(await balance(maker, last), before$.maker);
  assert.equal(await balance(house, last), before$.house);
  const makerSide = ok(await readAt(c, '/nbx/v1/parlays', maker.token, last)).body as {
    status: string;
    payout: number;
  }[];
  assert.ok(makerSide.every((p) => p.status === 'SETTLED' && p.payout === 0));
  for (const who of [taker, maker, house]) {
    await ledgerMatchesWallet(c, who, last, 'settled');
    await ledgerMatchesWallet(b, who, last, 'settled');
  }
  await converged([b, c], admin);

  // Both streams (the promoted leader's, kept through the failover, and the new replica's) told the
  // taker of every settlement, in the same frames with the same journal seqs; the leader's client
  // saw each private frame once, in seq order, across the promotion.
  const settledFrames = (cl: Client) =>
    until(
      async () => {
        const fs = cl.frames.filter((f) => f.event === 'parlayUpdate' && f.data.status === 'SETTLED');
        return fs.length >= openTaker.length ? fs : undefined;
      },
      5000,
      'the settlement frames',
    );
  const onB = await settledFrames(takerTape);
  const onC = await settledFrames(takerTapeC);
  assert.deepEqual(onC, onB);
  assert.deepEqual(new Set(onB.map((f) => f.data.id)), new Set(openTaker.map((o) => o.id)));
  const seqs = takerTape.frames.filter((f) => typeof f.journalSeq === 'number').map((f) => f.journalSeq);
  assert.ok(
    seqs.every((q, i) => i === 0 || q >= seqs[i - 1]!),
    `private journal seqs in order: ${seqs.join(',')}`,
  );
});
