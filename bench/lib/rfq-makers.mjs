// Worker thread of bench/parlay-rfq.ts: the maker sockets, off the thread that runs the server, so
// their parsing does not sit on the event loop whose fan-out is measured (a maker is another
// machine). Opens N `ws` clients with a token, subscribes each to the given channels, and records
// per key the time (performance.timeOrigin + now(), comparable across threads) each socket
// received the frame: `r:<requestId>` for a parlay request when made, `o:<orderId>` for a PLACE
// tick on the followed market. `wait` answers with the N times once all N sockets have it.
// Plain JavaScript: workers do not inherit tsx's loader.

import { parentPort } from 'node:worker_threads';
import { WebSocket } from 'ws';

const now = () => performance.timeOrigin + performance.now();
let n = 0;
let marketId = '';
const sockets = [];
const arrivals = new Map();
const waiting = new Set();

function arrived(key) {
  const t = now();
  let a = arrivals.get(key);
  if (a === undefined) {
    a = [];
    arrivals.set(key, a);
  }
  a.push(t);
  if (a.length === n && waiting.has(key)) answer(key);
}

function answer(key) {
  parentPort.postMessage({ op: 'arrivals', key, times: arrivals.get(key) });
  arrivals.delete(key);
  waiting.delete(key);
}

parentPort.on('message', async (m) => {
  if (m.op === 'open') {
    n = m.n;
    marketId = m.marketId;
    for (let i = 0; i < n; i++) {
      const ws = new WebSocket(m.url, { headers: { authorization: `Bearer ${m.token}` } });
      await new Promise((res, rej) => {
        ws.once('open', res);
        ws.once('error', rej);
      });
      let acks = 0;
      const subscribed = new Promise((res) => {
        ws.on('message', (d) => {
          const f = JSON.parse(d.toString());
          if (f.event === 'subscribed' && ++acks === m.channels.length) res();
          else if (f.event === 'parlayRequest' && f.data.status === 'Unfilled') arrived(`r:${f.data.id}`);
          else if (f.type === 'PLACE' && f.order.marketId === marketId) arrived(`o:${f.order.id}`);
        });
      });
      for (const ch of m.channels) ws.send(JSON.stringify({ event: 'subscribe', data: ch }));
      await subscribed;
      sockets.push(ws);
    }
    parentPort.postMessage({ op: 'opened' });
  } else if (m.op === 'wait') {
    if ((arrivals.get(m.key)?.length ?? 0) === n) answer(m.key);
    else waiting.add(m.key);
  } else if (m.op === 'close') {
    for (const ws of sockets) ws.terminate();
    parentPort.postMessage({ op: 'closed' });
  }
});
