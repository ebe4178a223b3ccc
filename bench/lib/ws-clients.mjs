// Worker thread for bench/stream.ts: opens N `ws` clients to a URL, subscribes each, counts every
// frame each receives, and on client 0 records when each PLACE tick arrived (for ack→tick latency).
// Runs off the server's thread so the clients' CPU does not sit on the event loop under test.

import { parentPort } from 'node:worker_threads';
import { WebSocket } from 'ws';

// Plain JavaScript: Node 20 workers do not inherit tsx's loader.

let clients = [];
let frames = 0;
let lastAt = 0;
let arrivals = new Map();

const now = () => performance.timeOrigin + performance.now();

parentPort.on('message', async (m) => {
  if (m.op === 'open') {
    const opened = [];
    for (let i = 0; i < m.n; i++) {
      const ws = new WebSocket(m.url, { headers: m.token ? { authorization: `Bearer ${m.token}` } : {} });
      const first = i === 0;
      ws.on('message', (d) => {
        frames++;
        lastAt = now();
        if (first) {
          const s = d.toString();
          if (s.startsWith('{"type":"PLACE"')) {
            const id = s.slice(s.indexOf('"id":"') + 6, s.indexOf('"id":"') + 42);
            if (!arrivals.has(id)) arrivals.set(id, lastAt);
          }
        }
      });
      opened.push(
        new Promise((resolve, reject) => {
          ws.once('open', () => {
            for (const s of m.subscribe) ws.send(JSON.stringify(s));
            resolve();
          });
          ws.once('error', reject);
        }),
      );
      clients.push(ws);
      // Open in small waves: a burst of 1000 handshakes at once only measures the accept queue.
      if (i % 50 === 49) await Promise.all(opened.slice(-50));
    }
    await Promise.all(opened);
    parentPort.postMessage({ op: 'opened' });
  } else if (m.op === 'reset') {
    frames = 0;
    lastAt = 0;
    arrivals = new Map();
    parentPort.postMessage({ op: 'reset' });
  } else if (m.op === 'stats') {
    parentPort.postMessage({ op: 'stats', frames, lastAt, arrivals: [...arrivals] });
  } else if (m.op === 'close') {
    await Promise.all(
      clients.map(
        (ws) =>
          new Promise((resolve) => {
            if (ws.readyState === WebSocket.CLOSED) resolve();
            else {
              ws.once('close', () => resolve());
              ws.close();
            }
          }),
      ),
    );
    clients = [];
    parentPort.postMessage({ op: 'closed' });
  }
});
