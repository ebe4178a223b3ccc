// Stream fan-out (docs/stream.md): one server process, N subscribers (default 1,000) to one busy
// market plus `tape`, while HTTP order flow runs against that market. Baseline in the same run: a
// bare `ws` server broadcasting the SAME frames (captured from the previous stream round, at their
// recorded times) to the same number of clients, with the same order flow running against the
// server. Rounds alternate stream/bare; the table shows medians and the per-round ratio.
// Also: p50/p99 from an order's HTTP acknowledgement to its PLACE tick at a client, and memory per
// idle connection (stream vs bare ws).
//
//   node --import tsx --expose-gc bench/stream.ts [--clients 1000] [--seconds 5] [--rounds 3] [--flow 16]

import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { WebSocket, WebSocketServer } from 'ws';
import { ADMIN_ID, ADMIN_SECRET, Api, serverPlace, start } from '../test/helpers/server.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    flow: { type: 'string', default: '16' },
  },
});
const N = Number(values.clients);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const FLOW = Number(values.flow);
const now = () => performance.timeOrigin + performance.now();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

// ---------------------------------------------------------------- server and market

const place = await serverPlace('pglite', { STREAM_MAX_BUFFER_BYTES: String(8 * 1_048_576) });
const srv = await start(place);
const admin = new Api(srv);
admin.token = await admin.tokenFor(ADMIN_ID, ADMIN_SECRET);
await admin.call('POST', '/admin/v1/leagues', { code: 'BEN', name: 'Bench League' });
const home = await admin.call('POST', '/admin/v1/teams', { league: 'BEN', name: 'Home Team', symbol: 'HOM' });
const away = await admin.call('POST', '/admin/v1/teams', { league: 'BEN', name: 'Away Team', symbol: 'AWY' });
const ev = await admin.call('POST', '/admin/v1/events', {
  type: 'Game',
  status: 'OPEN_PREGAME',
  description: 'Away Team @ Home Team',
  league: 'BEN',
  scheduledStart: '2030-01-26T18:30:00.000Z',
  game: { homeTeamId: home.body.id, awayTeamId: away.body.id },
  markets: [
    {
      type: 'MONEY',
      description: 'AWY @ HOM Moneyline',
      outcomes: [{ description: 'HOM' }, { description: 'AWY' }],
    },
  ],
});
const market = ev.body.markets[0] as { id: string; outcomeIds: [string, string] };
const traders: string[] = [];
for (const name of ['maker', 'taker']) {
  const c = await admin.call('POST', '/admin/v1/clients', { name });
  await admin.call('POST', `/admin/v1/accounts/${c.body.accountId}/deposits`, {
    currency: 'CASH',
    amount: 1e9,
  });
  traders.push(await admin.tokenFor(c.body.clientId, c.body.clientSecret));
}
const readerClient = await admin.call('POST', '/admin/v1/clients', { name: 'reader', scopes: ['read:tape'] });
const readerToken = await admin.tokenFor(readerClient.body.clientId, readerClient.body.clientSecret);
const tapeUrl = `${srv.url.replace('http', 'ws')}/tape`;

// ---------------------------------------------------------------- bare ws baseline server

const bare = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
await new Promise<void>((r) => bare.once('listening', () => r()));
const bareUrl = `ws://127.0.0.1:${(bare.address() as { port: number }).port}`;
bare.on('connection', (ws) => ws.on('message', () => {}));

// ---------------------------------------------------------------- clients (worker thread)

const worker = new Worker(new URL('./lib/ws-clients.mjs', import.meta.url));
function ask<T>(msg: unknown, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { op: string }) => {
      if (m.op === reply) {
        worker.off('message', on);
        resolve(m as T);
      }
    };
    worker.on('message', on);
    worker.postMessage(msg);
  });
}

// ---------------------------------------------------------------- order flow

const prices = [0.46, 0.47, 0.48, 0.49, 0.5, 0.51, 0.52];
async function orderFlow(ms: number): Promise<{ acks: Map<string, number>; orders: number }> {
  const acks = new Map<string, number>();
  const end = Date.now() + ms;
  let k = 0;
  const loop = async () => {
    while (Date.now() < end) {
      const i = k++;
      const side = (i >> 3) & 1;
      const r = await fetch(`${srv.url}/nbx/v2/emm/orders/place`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${traders[side]}` },
        body: JSON.stringify({
          outcomeId: market.outcomeIds[side],
          price: prices[(i * 7) % prices.length],
          qty: 100 * (1 + (i % 5)),
          currency: 'CASH',
          tif: 'GTC',
        }),
      });
      const t = now();
      const body = (await r.json()) as { id?: string };
      if (r.status === 201 && body.id) acks.set(body.id, t);
    }
  };
  await Promise.all(Array.from({ length: FLOW }, loop));
  return { acks, orders: acks.size };
}

// A recorder in this process captures the exact frames (and their times) a stream subscriber got.
function recorder(): Promise<{ ws: WebSocket; frames: { t: number; s: string }[] }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(tapeUrl, { headers: { authorization: `Bearer ${readerToken}` } });
    const frames: { t: number; s: string }[] = [];
    ws.on('message', (d) => frames.push({ t: now(), s: d.toString() }));
    ws.once('open', () => {
      ws.send(JSON.stringify({ event: 'subscribe', data: market.id }));
      ws.send(JSON.stringify({ event: 'subscribe', data: 'tape' }));
      resolve({ ws, frames });
    });
  });
}

interface Round {
  kind: 'stream' | 'bare';
  deliveriesPerSec: number;
  frames: number;
  latencies: number[];
  orders: number;
}

async function settleFrames(): Promise<{ frames: number; lastAt: number; arrivals: [string, number][] }> {
  // Wait until no frame arrived for 300 ms (the fan-out drained).
  let prev = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const s = await ask<{ frames: number; lastAt: number; arrivals: [string, number][] }>(
      { op: 'stats' },
      'stats',
    );
    if (s.frames === prev) return s;
    prev = s.frames;
  }
}

let captured: { t: number; s: string }[] = [];

async function streamRound(): Promise<Round> {
  await ask(
    {
      op: 'open',
      url: tapeUrl,
      n: N,
      token: readerToken,
      subscribe: [
        { event: 'subscribe', data: market.id },
        { event: 'subscribe', data: 'tape' },
      ],
    },
    'opened',
  );
  const rec = await recorder();
  await new Promise((r) => setTimeout(r, 500));
  await ask({ op: 'reset' }, 'reset');
  rec.frames.length = 0;
  const t0 = now();
  const { acks, orders } = await orderFlow(SECONDS * 1000);
  const s = await settleFrames();
  const latencies: number[] = [];
  for (const [id, at] of s.arrivals) {
    const ack = acks.get(id);
    if (ack !== undefined) latencies.push(at - ack);
  }
  captured = rec.frames.filter((f) => f.s.startsWith('{"type"'));
  for (const f of captured) f.t -= t0;
  rec.ws.close();
  await ask({ op: 'close' }, 'closed');
  return {
    kind: 'stream',
    deliveriesPerSec: s.frames / ((s.lastAt - t0) / 1000),
    frames: s.frames,
    latencies,
    orders,
  };
}

async function bareRound(): Promise<Round> {
  await ask({ op: 'open', url: bareUrl, n: N, subscribe: [] }, 'opened');
  await new Promise((r) => setTimeout(r, 500));
  await ask({ op: 'reset' }, 'reset');
  const t0 = now();
  // The same bytes on the same schedule, while the same order flow loads the server.
  const replay = (async () => {
    let i = 0;
    while (i < captured.length) {
      const due = t0 + captured[i]!.t;
      const wait = due - now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      while (i < captured.length && t0 + captured[i]!.t <= now()) {
        const s = captured[i++]!.s;
        for (const c of bare.clients) c.send(s);
      }
    }
  })();
  const flow = orderFlow(SECONDS * 1000);
  await replay;
  const { orders } = await flow;
  const s = await settleFrames();
  await ask({ op: 'close' }, 'closed');
  return {
    kind: 'bare',
    deliveriesPerSec: s.frames / ((s.lastAt - t0) / 1000),
    frames: s.frames,
    latencies: [],
    orders,
  };
}

// ---------------------------------------------------------------- memory per idle connection

const gc = (globalThis as { gc?: () => void }).gc;
async function memoryPerConnection(url: string, token?: string): Promise<{ rss: number; heap: number }> {
  gc?.();
  await new Promise((r) => setTimeout(r, 200));
  gc?.();
  const before = process.memoryUsage();
  await ask({ op: 'open', url, n: N, token, subscribe: [] }, 'opened');
  await new Promise((r) => setTimeout(r, 500));
  gc?.();
  await new Promise((r) => setTimeout(r, 200));
  gc?.();
  const after = process.memoryUsage();
  await ask({ op: 'close' }, 'closed');
  return {
    rss: (after.rss - before.rss) / N,
    heap:
      (after.heapUsed +
        after.external +
        after.arrayBuffers -
        (before.heapUsed + before.external + before.arrayBuffers)) /
      N,
  };
}

// ---------------------------------------------------------------- run

const rounds: Round[] = [];
for (let i = 0; i < ROUNDS; i++) {
  rounds.push(await streamRound());
  rounds.push(await bareRound());
}
const memStream = await memoryPerConnection(tapeUrl, readerToken);
const memBare = await memoryPerConnection(bareUrl);

const streams = rounds.filter((r) => r.kind === 'stream');
const bares = rounds.filter((r) => r.kind === 'bare');
const ratios = streams.map((s, i) => s.deliveriesPerSec / bares[i]!.deliveriesPerSec);
const lat = streams.flatMap((r) => r.latencies);
const f0 = (x: number) => Math.round(x).toLocaleString('en-US');
console.log(
  `\nStream fan-out: ${N} clients on one market + tape, ${FLOW} order-flow connections, ${SECONDS} s rounds, ${ROUNDS} rounds each (interleaved)\n`,
);
console.log(
  '| round | stream deliveries/s | bare ws deliveries/s | ratio | frames (stream) | orders acked |',
);
console.log('|---|--:|--:|--:|--:|--:|');
streams.forEach((s, i) => {
  console.log(
    `| ${i + 1} | ${f0(s.deliveriesPerSec)} | ${f0(bares[i]!.deliveriesPerSec)} | ${ratios[i]!.toFixed(2)} | ${f0(s.frames)} | ${f0(s.orders)} |`,
  );
});
console.log(
  `| **median** | ${f0(median(streams.map((r) => r.deliveriesPerSec)))} | ${f0(median(bares.map((r) => r.deliveriesPerSec)))} | ${median(ratios).toFixed(2)} | | |`,
);
console.log(
  `\nOrder HTTP ack → PLACE tick at a client: p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms (${lat.length} orders; negative = tick before the ack)`,
);
console.log(
  `Memory per idle connection (server process, ${N} connections): stream rss ${f0(memStream.rss)} B, heap+external ${f0(memStream.heap)} B; bare ws rss ${f0(memBare.rss)} B, heap+external ${f0(memBare.heap)} B`,
);

await worker.terminate();
bare.close();
await srv.close();
await place.destroy();
