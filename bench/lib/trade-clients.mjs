// Client process of bench/orders-ws.ts and bench/mass-quote.ts: `connections` `/trade` sockets
// placing orders (or sending another message type), in a process of its own (forked with an IPC
// channel) so its CPU is measured apart from the server's and the bench's, and reported per request.
// Socket i authenticates with tokens[i % tokens.length]. Placements by default; with `type` and
// `datas` (one list of serialized `data` per socket), socket i sends `type` frames whose data are
// datas[i] in turn (bench/mass-quote.ts's mass quotes). Two modes:
//   max:  each socket keeps `window` place requests in flight (a new one per answer);
//   rate: `rate` orders a second in all, on a fixed schedule; each latency is measured from the
//         order's scheduled send time, not from when the loop got to send it (no coordinated
//         omission: a stalled server or client shows as latency, not as fewer samples).
// The client is kept cheap, since it shares the machine's cores with the server: the frames' data
// is serialized once per (socket, price, qty, market) and only the request id is written per order;
// the frames a socket sends in one turn of the event loop leave in one write (the socket is corked
// for the turn); the fixed-rate schedule is driven by a 1 ms timer that sends every order due,
// instead of a loop polling the clock (which kept a whole core busy and starved the server).
// Answers are read without a full parse (the type and id lead every answer frame).
// Answers: durable acks (type place), errors by code, latency percentiles in ms, the client's own
// CPU time, and how late the client sent against the schedule.
// Plain JavaScript: run by plain node, without tsx's loader.

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
  for (let i = 0; i < m.connections; i++) socks.push(await open(m.url, m.tokens[i % m.tokens.length]));
  const type = m.type ?? 'place';
  const ACK_HEAD = `{"type":"${type}","id":`;
  /** Per socket, how many frames it sent (the index into its datas, when given). */
  const sentBy = new Array(m.connections).fill(0);
  // The `data` of every frame a socket may send, serialized once: the k-th order of socket i uses
  // the same mix as before (side by socket, market, price and qty by the order's id).
  const datas = [];
  const VARIANTS = m.outcomes.length * PRICES.length * 5;
  for (let side = 0; side < 2; side++) {
    const row = [];
    for (let v = 0; v < VARIANTS; v++) {
      row.push(
        JSON.stringify({
          outcomeId: m.outcomes[v % m.outcomes.length][side],
          price: PRICES[(v * 7) % PRICES.length],
          qty: 100 * (1 + (v % 5)),
          currency: 'CASH',
          tif: 'GTC',
        }),
      );
    }
    datas.push(row);
  }
  let sentAt = new Float64Array(1 << 16);
  let answered = new Uint8Array(1 << 16);
  let outstanding = 0;
  const lat = [];
  const lag = [];
  const errors = {};
  let acked = 0;
  let lastAck = 0;
  let k = 0;
  let measuring = true;
  // Corked sockets, uncorked once this turn's sends are queued: one write per socket per turn.
  const corked = [];
  const uncork = () => {
    for (const s of corked) s.uncork();
    corked.length = 0;
  };
  const send = (i, at, now) => {
    const id = k++;
    if (id >= sentAt.length) {
      const grown = new Float64Array(sentAt.length * 2);
      grown.set(sentAt);
      sentAt = grown;
      const a = new Uint8Array(answered.length * 2);
      a.set(answered);
      answered = a;
    }
    sentAt[id] = at;
    outstanding++;
    if (m.mode === 'rate') lag.push(now - at);
    const sock = socks[i];
    const raw = sock._socket;
    if (!raw.writableCorked) {
      raw.cork();
      if (corked.length === 0) process.nextTick(uncork);
      corked.push(raw);
    }
    const own = m.datas?.[i];
    const data = own === undefined ? datas[i % 2][id % VARIANTS] : own[sentBy[i] % own.length];
    sentBy[i]++;
    sock.send(`{"type":"${type}","id":${id},"data":${data}}`);
  };
  let onAnswer = () => {};
  socks.forEach((ws, i) => {
    ws.on('message', (d) => {
      const t = performance.now();
      const s = d.toString();
      let id;
      let ok = false;
      if (s.startsWith(ACK_HEAD)) {
        id = Number.parseInt(s.slice(ACK_HEAD.length, s.indexOf(',', ACK_HEAD.length)), 10);
        ok = true;
      } else {
        const f = JSON.parse(s);
        id = f.id;
        const code = f.error?.code ?? 'unknown';
        errors[code] = (errors[code] ?? 0) + 1;
      }
      if (typeof id === 'number' && id < k && answered[id] === 0) {
        answered[id] = 1;
        outstanding--;
        if (ok && measuring) {
          acked++;
          lastAck = t;
          lat.push(t - sentAt[id]);
        }
      }
      onAnswer(i);
    });
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + m.seconds * 1000;
  if (m.mode === 'max') {
    onAnswer = (i) => {
      const now = performance.now();
      if (now < end) send(i, now, now);
    };
    for (let w = 0; w < m.window; w++)
      for (let i = 0; i < socks.length; i++) send(i, performance.now(), performance.now());
    await new Promise((r) => setTimeout(r, m.seconds * 1000));
  } else {
    const gap = 1000 / m.rate;
    let due = 0;
    await new Promise((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (t0 + due * gap <= now && t0 + due * gap < end) {
          send(due % socks.length, t0 + due * gap, now);
          due++;
        }
        if (now >= end) resolve();
        else setTimeout(tick, 1);
      };
      tick();
    });
  }
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  measuring = m.mode === 'rate'; // a fixed-rate run waits for every answer of what it sent
  const acks = acked;
  // Let what is in flight drain before closing (bounded), so the server is idle for the next run.
  const drainEnd = performance.now() + 10_000;
  while (outstanding > 0 && performance.now() < drainEnd) await new Promise((r) => setTimeout(r, 20));
  for (const ws of socks) ws.close();
  lat.sort((a, b) => a - b);
  lag.sort((a, b) => a - b);
  return {
    acked: m.mode === 'rate' ? acked : acks,
    sent: k,
    missing: outstanding,
    // A fixed-rate run counts the answers that came after its sending ended too: over capacity its
    // rate is what was acknowledged until the last answer, not over the sending time alone.
    seconds: m.mode === 'rate' ? Math.max(elapsed, (lastAck - t0) / 1000) : elapsed,
    errors,
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    p999: pct(lat, 99.9),
    max: lat.length ? lat[lat.length - 1] : Number.NaN,
    /** Client CPU (user + system) during the load, µs per order sent. */
    cpuUsPerOrder: (cpu.user + cpu.system) / Math.max(1, k),
    /** How late the fixed-rate loop sent against the schedule, ms (rate mode). */
    lagP50: pct(lag, 50),
    lagP99: pct(lag, 99),
  };
}

process.on('message', async (m) => {
  try {
    process.send({ ok: true, result: await run(m) });
  } catch (err) {
    process.send({ ok: false, error: String(err?.stack ?? err) });
  }
});
