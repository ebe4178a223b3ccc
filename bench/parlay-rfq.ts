// Parlay RFQ fan-out (docs/bench-parlay-rfq.md): the real server on the embedded store, 100 maker
// sockets on `/tape`, each subscribed to `parlayRequests` and to one market. A taker makes parlay
// requests over HTTP one at a time; for each, the time from its 201 acknowledgement reaching the
// taker to the `parlayRequest` frame reaching each of the 100 sockets (negative: the frame came
// first). Baseline in the same run and the same process: an order placed over HTTP on that market,
// from its 201 to its PLACE tick at each of the same 100 sockets. Rounds interleave RFQ/book; the
// table shows per-round p50/p99 and the median over rounds, and the per-round ratio of p99s.
// The maker sockets run on a worker thread by default (bench/lib/rfq-makers.mjs: their parsing is
// not on the server's event loop, as makers on other machines); --clients main keeps them on the
// server's thread, as the first version of this bench did.
//
//   node --import tsx bench/parlay-rfq.ts [--makers 100] [--per-round 50] [--rounds 5]
//     [--clients worker|main]

import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { ADMIN_ID, ADMIN_SECRET, Api, serverPlace, start } from '../test/helpers/server.ts';

const { values } = parseArgs({
  options: {
    makers: { type: 'string', default: '100' },
    'per-round': { type: 'string', default: '50' },
    rounds: { type: 'string', default: '5' },
    clients: { type: 'string', default: 'worker' },
  },
});
const ON_WORKER = values.clients !== 'main';
const N = Number(values.makers);
const PER = Number(values['per-round']);
const ROUNDS = Number(values.rounds);
// One time base for both threads (the worker's performance.now() starts at its own origin).
const now = () => performance.timeOrigin + performance.now();
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const median = (xs: number[]) => pct(xs, 50);

const place = await serverPlace('pglite', { TICKBOOK_DEMO: 'false', PARLAY_MAX_OPEN_REQUESTS: '10000' });
const srv = await start(place);
const admin = new Api(srv);
admin.token = await admin.tokenFor(ADMIN_ID, ADMIN_SECRET);
await admin.call('POST', '/admin/v1/leagues', { code: 'NFL', name: 'National Football League' });
const team = async (name: string, symbol: string) =>
  (await admin.call('POST', '/admin/v1/teams', { league: 'NFL', name, symbol })).body.id as string;
const ev = await admin.call('POST', '/admin/v1/events', {
  type: 'Game',
  status: 'OPEN_PREGAME',
  description: 'Away Team @ Home Team',
  league: 'NFL',
  scheduledStart: '2030-01-26T18:30:00.000Z',
  game: { homeTeamId: await team('Home Team', 'HOM'), awayTeamId: await team('Away Team', 'AWY') },
  markets: [
    {
      type: 'MONEY',
      description: 'AWY @ HOM Moneyline',
      outcomes: [{ description: 'HOM' }, { description: 'AWY' }],
    },
    {
      type: 'TOTAL',
      strike: 47.5,
      description: 'AWY @ HOM Total 47.5',
      outcomes: [{ description: 'Over' }, { description: 'Under' }],
    },
  ],
});
const markets = ev.body.markets as { id: string; outcomeIds: [string, string] }[];
const client = async (name: string, scopes?: string[]) => {
  const c = await admin.call('POST', '/admin/v1/clients', { name, ...(scopes ? { scopes } : {}) });
  await admin.call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
    currency: 'CASH',
    amount: 1e6,
  });
  return new Api(srv, await admin.tokenFor(c.body.clientId, c.body.clientSecret));
};
const taker = await client('taker');
for (const m of markets)
  for (const o of m.outcomeIds)
    await taker.call('POST', '/nbx/v2/emm/orders/place', {
      outcomeId: o,
      price: 0.45,
      qty: 1000,
      currency: 'CASH',
      tif: 'GTC',
    });
const outcomes = [markets[0]!.outcomeIds[0], markets[1]!.outcomeIds[1]].map((id) => ({ id }));
const book = markets[0]!;

// ---------------------------------------------------------------- makers' sockets

const maker = await client('maker', ['make:parlay', 'read:tape', 'read:trader']);
const wsUrl = `${srv.url.replace('http', 'ws')}/tape`;
/** Arrival times by key ("r:<requestId>" or "o:<orderId>"), one per socket (--clients main). */
const arrivals = new Map<string, number[]>();
const waiters = new Map<string, () => void>();
function arrived(key: string) {
  const t = now();
  const a = arrivals.get(key) ?? [];
  if (a.length === 0) arrivals.set(key, a);
  a.push(t);
  if (a.length === N) waiters.get(key)?.();
}
const sockets: WebSocket[] = [];
/** The worker's answers: the N arrival times of a key. */
const answers = new Map<string, (times: number[]) => void>();
let worker: Worker | undefined;
if (ON_WORKER) {
  const w = new Worker(new URL('./lib/rfq-makers.mjs', import.meta.url));
  worker = w;
  const opened = new Promise<void>((res) => {
    w.on('message', (m: { op: string; key?: string; times?: number[] }) => {
      if (m.op === 'opened') res();
      else if (m.op === 'arrivals') answers.get(m.key!)?.(m.times!);
    });
  });
  w.postMessage({
    op: 'open',
    n: N,
    url: wsUrl,
    token: maker.token,
    channels: ['parlayRequests', book.id],
    marketId: book.id,
  });
  await opened;
} else {
  for (let i = 0; i < N; i++) {
    const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${maker.token}` } });
    await new Promise((res, rej) => {
      ws.once('open', res);
      ws.once('error', rej);
    });
    let acks = 0;
    const subscribed = new Promise<void>((res) => {
      ws.on('message', (d) => {
        const f = JSON.parse(d.toString());
        if (f.event === 'subscribed' && ++acks === 2) res();
        else if (f.event === 'parlayRequest' && f.data.status === 'Unfilled') arrived(`r:${f.data.id}`);
        else if (f.type === 'PLACE' && f.order.marketId === book.id) arrived(`o:${f.order.id}`);
      });
    });
    ws.send(JSON.stringify({ event: 'subscribe', data: 'parlayRequests' }));
    ws.send(JSON.stringify({ event: 'subscribe', data: book.id }));
    await subscribed;
    sockets.push(ws);
  }
}

/** The N arrival times of the frame keyed `key`, from the worker or from this thread's sockets. */
function allArrived(key: string): Promise<number[]> {
  if (worker !== undefined) {
    return new Promise((res) => {
      answers.set(key, (times) => {
        answers.delete(key);
        res(times);
      });
      worker!.postMessage({ op: 'wait', key });
    });
  }
  return new Promise((res) => {
    const done = () => {
      const times = arrivals.get(key)!;
      arrivals.delete(key);
      waiters.delete(key);
      res(times);
    };
    if ((arrivals.get(key)?.length ?? 0) === N) done();
    else waiters.set(key, done);
  });
}

/** Latencies (ms) from the ack to each socket's arrival of the frame keyed by the ack's id. */
async function measure(kind: 'r' | 'o'): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < PER; i++) {
    const res =
      kind === 'r'
        ? await taker.call('POST', '/nbx/v1/parlay/request', { outcomes })
        : await taker.call('POST', '/nbx/v2/emm/orders/place', {
            outcomeId: book.outcomeIds[0],
            price: 0.3,
            qty: 1,
            currency: 'CASH',
            tif: 'GTC',
          });
    const ack = now();
    if (res.status !== 201) throw new Error(`${kind}: ${res.status} ${JSON.stringify(res.body)}`);
    const id: string = kind === 'r' ? res.body[0].id : res.body.id;
    for (const t of await allArrived(`${kind}:${id}`)) out.push(t - ack);
    if (kind === 'r') await taker.call('DELETE', `/nbx/v1/parlay/request/${id}`);
    else await taker.call('DELETE', `/nbx/v2/emm/orders/${id}`);
  }
  return out;
}

await measure('r'); // warm-up
await measure('o');
const rows: { rfq: number[]; book: number[] }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const first = r % 2 === 0 ? 'r' : 'o';
  const a = await measure(first);
  const b = await measure(first === 'r' ? 'o' : 'r');
  rows.push(first === 'r' ? { rfq: a, book: b } : { rfq: b, book: a });
}

const f = (x: number) => x.toFixed(2);
console.log(
  `makers ${N} (sockets on ${ON_WORKER ? 'a worker thread' : "the server's thread"}), ${PER} frames per kind per round, ${ROUNDS} rounds, load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log('| round | RFQ p50 ms | RFQ p99 ms | book p50 ms | book p99 ms | p99 ratio RFQ/book |');
console.log('|---|---|---|---|---|---|');
for (const [i, x] of rows.entries())
  console.log(
    `| ${i + 1} | ${f(pct(x.rfq, 50))} | ${f(pct(x.rfq, 99))} | ${f(pct(x.book, 50))} | ${f(pct(x.book, 99))} | ${f(pct(x.rfq, 99) / pct(x.book, 99))} |`,
  );
const med = (g: (x: (typeof rows)[number]) => number) => f(median(rows.map(g)));
console.log(
  `| median | ${med((x) => pct(x.rfq, 50))} | ${med((x) => pct(x.rfq, 99))} | ${med((x) => pct(x.book, 50))} | ${med((x) => pct(x.book, 99))} | ${med((x) => pct(x.rfq, 99) / pct(x.book, 99))} |`,
);
const allRfq = rows.flatMap((x) => x.rfq);
console.log(
  `RFQ over all rounds: p99 ${f(pct(allRfq, 99))} ms (target ≤ 10 ms), max ${f(Math.max(...allRfq))} ms`,
);
for (const ws of sockets) ws.terminate();
if (worker !== undefined) await worker.terminate();
await srv.close();
await place.destroy();
