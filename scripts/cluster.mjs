#!/usr/bin/env node
// The docker-compose.yml topology with plain processes, for machines without Docker
// (docs/cluster.md): N Tickbook processes on DATABASE_URL (TICKBOOK_ROLE=auto, ports BASE+1..BASE+N)
// behind a small round-robin HTTP balancer on BASE that sends requests (and WebSocket upgrades:
// every process serves /tape) only to processes whose /readyz answers 200. A process that exits is started again after a second (as a follower: the
// writer lock has moved on), as a supervisor would.
//
//   DATABASE_URL=postgres://… node scripts/cluster.mjs [--processes 3] [--port 8080]
//
// Every other environment variable (TICKBOOK_ADMIN_CLIENT_ID, KEY_ENCRYPTION_SECRET, …) is passed
// to the processes. Ctrl-C stops everything.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { processes: { type: 'string', default: '3' }, port: { type: 'string', default: '8080' } },
});
const N = Number(values.processes);
const BASE = Number(values.port);
if (!process.env.DATABASE_URL) {
  console.error('scripts/cluster.mjs needs DATABASE_URL (the embedded store is single-process)');
  process.exit(2);
}
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const publicBase = process.env.PUBLIC_BASE_URL ?? `http://localhost:${BASE}`;
let stopping = false;

const nodes = Array.from({ length: N }, (_, i) => ({
  name: `tickbook${i + 1}`,
  port: BASE + 1 + i,
  ready: false,
  proc: undefined,
}));

function startNode(n) {
  n.proc = spawn(process.execPath, ['--import', 'tsx', main], {
    env: {
      ...process.env,
      PORT: String(n.port),
      PUBLIC_BASE_URL: publicBase,
      TICKBOOK_ROLE: 'auto',
      TICKBOOK_NODE_NAME: n.name,
      TICKBOOK_ADVERTISE_URL: `http://127.0.0.1:${n.port}`,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  n.proc.on('exit', (code, signal) => {
    n.ready = false;
    if (stopping) return;
    console.error(`[cluster] ${n.name} exited (${signal ?? code}); starting it again in 1 s`);
    setTimeout(() => startNode(n), 1000);
  });
}

async function check() {
  for (const n of nodes) {
    try {
      const r = await fetch(`http://127.0.0.1:${n.port}/readyz`, { signal: AbortSignal.timeout(900) });
      n.ready = r.status === 200;
    } catch {
      n.ready = false;
    }
  }
}

let next = 0;
const balancer = http.createServer((req, res) => {
  const ready = nodes.filter((n) => n.ready);
  if (ready.length === 0) {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(
      JSON.stringify({
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'SERVICE_UNAVAILABLE',
        message: 'No Tickbook process is ready',
      }),
    );
    return;
  }
  const n = ready[next++ % ready.length];
  const up = http.request(
    { host: '127.0.0.1', port: n.port, method: req.method, path: req.url, headers: req.headers },
    (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    },
  );
  up.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        statusCode: 502,
        error: 'Bad Gateway',
        code: 'BAD_GATEWAY',
        message: `${n.name} failed`,
      }),
    );
  });
  req.pipe(up);
});

// A WebSocket upgrade (/tape) goes to a ready process as raw bytes both ways; when that process
// dies the client's connection closes and it reconnects (through here) and resumes by seq.
balancer.on('upgrade', (req, socket, head) => {
  const ready = nodes.filter((n) => n.ready);
  if (ready.length === 0) {
    socket.end(
      'HTTP/1.1 503 Service Unavailable\r\nretry-after: 1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n',
    );
    return;
  }
  const n = ready[next++ % ready.length];
  const up = net.connect(n.port, '127.0.0.1', () => {
    const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    up.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) up.write(head);
    socket.pipe(up).pipe(socket);
  });
  const drop = () => {
    socket.destroy();
    up.destroy();
  };
  up.on('error', drop);
  socket.on('error', drop);
  up.on('close', drop);
  socket.on('close', drop);
});

for (const n of nodes) startNode(n);
setInterval(check, 1000).unref();
balancer.listen(BASE, process.env.HOST ?? '127.0.0.1', () => {
  console.error(
    `[cluster] ${N} processes on ports ${BASE + 1}-${BASE + N}, balancer on http://127.0.0.1:${BASE}`,
  );
});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    stopping = true;
    balancer.close();
    for (const n of nodes) n.proc?.kill('SIGTERM');
    setTimeout(() => process.exit(0), 3000).unref();
  });
}
