// Worker thread for bench/orders-ws.ts: `connections` `/trade` sockets placing orders, off the
// bench's main thread so the clients' CPU does not sit with the autocannon run's. Two modes:
//   max:  each socket keeps `window` place requests in flight (a new one per answer);
//   rate: `rate` orders a second in all, on a fixed schedule; each latency is measured from the
//         order's scheduled send time, not from when the loop got to send it (no coordinated
//         omission: a stalled server or client shows as latency, not as fewer samples).
// Answers: durable acks (type place), errors by code, and latency percentiles in ms.
// Plain JavaScript: Node 20 workers do not inherit tsx's loader.

import { parentPort } from 'node:worker_threads';
import { WebSocket } from 'ws';

const PRICES = [0.46, 0.47, 0.48, 0.49, 0.5, 0.51, 0.52];

function pct(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

function open(url, token) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer ${token}` },
      perMessageDeflate: false,
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function run(m) {
  const socks = [];
  for (let i = 0; i < m.connections; i++) socks.push(await open(m.url, m.tokens[i % 2]));
  const sentAt = new Map();
  const lat = [];
  const errors = {};
  let acked = 0;
  let k = 0;
  let measuring = true;
  const frame = (i, id) => {
    const side = i % 2;
    const outcomes = m.outcomes[id % m.outcomes.length];
    return JSON.stringify({
      type: 'place',
      id,
      data: {
        outcomeId: outcomes[side],
        price: PRICES[(id * 7) % PRICES.length],
        qty: 100 * (1 + (id % 5)),
        currency: 'CASH',
        tif: 'GTC',
      },
    });
  };
  const send = (i, at) => {
    const id = k++;
    sentAt.set(id, at);
    socks[i].send(frame(i, id));
  };
  let onAnswer = () => {};
  socks.forEach((ws, i) => {
    ws.on('message', (d) => {
      const t = performance.now();
      const s = d.toString();
      // The id and type are at the front of every answer: no full parse on the client.
      const cut = s.indexOf(',"result"');
      const f = JSON.parse(cut > 0 ? `${s.slice(0, cut)}}` : s);
      const at = sentAt.get(f.id);
      sentAt.delete(f.id);
      if (f.type === 'place') {
        if (measuring) {
          acked++;
          if (at !== undefined) lat.push(t - at);
        }
      } else {
        const code = JSON.parse(s).error?.code ?? 'unknown';
        errors[code] = (errors[code] ?? 0) + 1;
      }
      onAnswer(i);
    });
  });
  const t0 = performance.now();
  const end = t0 + m.seconds * 1000;
  if (m.mode === 'max') {
    onAnswer = (i) => {
      if (performance.now() < end) send(i, performance.now());
    };
    for (let w = 0; w < m.window; w++) for (let i = 0; i < socks.length; i++) send(i, performance.now());
    await new Promise((r) => setTimeout(r, m.seconds * 1000));
  } else {
    const gap = 1000 / m.rate;
    let due = 0;
    await new Promise((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (t0 + due * gap <= now && t0 + due * gap < end) {
          send(due % socks.length, t0 + due * gap);
          due++;
        }
        if (now >= end) resolve();
        else setImmediate(tick);
      };
      tick();
    });
  }
  const elapsed = (performance.now() - t0) / 1000;
  measuring = m.mode === 'rate'; // a fixed-rate run waits for every answer of what it sent
  const acks = acked;
  // Let what is in flight drain before closing (bounded), so the server is idle for the next run.
  const drainEnd = performance.now() + 10_000;
  while (sentAt.size > 0 && performance.now() < drainEnd) await new Promise((r) => setTimeout(r, 20));
  const missing = sentAt.size;
  for (const ws of socks) ws.close();
  lat.sort((a, b) => a - b);
  return {
    acked: m.mode === 'rate' ? acked : acks,
    sent: k,
    missing,
    seconds: elapsed,
    errors,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    p999: pct(lat, 99.9),
    max: lat.length ? lat[lat.length - 1] : Number.NaN,
  };
}

parentPort.on('message', async (m) => {
  try {
    parentPort.postMessage({ ok: true, result: await run(m) });
  } catch (err) {
    parentPort.postMessage({ ok: false, error: String(err?.stack ?? err) });
  }
});
