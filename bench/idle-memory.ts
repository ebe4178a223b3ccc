// Resident memory of the living demo under V8 flags: the built server with the demo on, started as
// `npm start` starts it (bench/lib/order-servers.ts bootBuilt, MALLOC_ARENA_MAX=2), once per value
// of --node-options (comma-separated; an empty value: none, as `npm start`), all of them started
// together so they see the same load. Per server: RSS `--idle` seconds after ready; then, one server
// at a time, `--seconds` of order placement (32 connections, the body of bench/orders-http.ts) and
// its peak RSS (VmHWM) after it; then RSS `--idle` / 2 seconds after the last load.
//
//   node --import tsx bench/idle-memory.ts [--node-options FLAGS[,FLAGS…]] [--idle 60] [--seconds 8]
//     [--runs 1]

import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BASE_ENV, bootBuilt, placeBody, setupGame } from './lib/order-servers.ts';

const { values } = parseArgs({
  options: {
    'node-options': { type: 'string', default: '' },
    idle: { type: 'string', default: '60' },
    seconds: { type: 'string', default: '8' },
    runs: { type: 'string', default: '1' },
  },
});
const IDLE = Number(values.idle);
const SECONDS = Number(values.seconds);
const root = fileURLToPath(new URL('..', import.meta.url));
const configs = values['node-options'].split(',');

/** A field of /proc/<pid>/status in MB (VmRSS, VmHWM). */
function statusMb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

console.log(
  `\nLiving demo memory, idle ${IDLE} s, ${SECONDS} s of orders; load average at start ${load()}\n`,
);
console.log(
  `| round | NODE_OPTIONS | ready s | RSS ${IDLE} s after ready MB | peak RSS after load MB | RSS ${IDLE / 2} s after load MB |`,
);
console.log('|---:|---|---:|---:|---:|---:|');
const tmp = join(tmpdir(), `tickbook-bench-memory-${randomBytes(4).toString('hex')}`);
for (let round = 0; round < Number(values.runs); round++) {
  const t0 = performance.now();
  const servers = await Promise.all(
    configs.map(async (opt, i) => {
      const dir = `${tmp}/${round}-${i}`;
      mkdirSync(dir, { recursive: true });
      const child = await bootBuilt(root, {
        ...BASE_ENV,
        TICKBOOK_DEMO: 'true',
        DEMO_LIVE: 'true',
        MALLOC_ARENA_MAX: '2',
        NODE_OPTIONS: opt,
        DATA_DIR: dir,
      });
      return { opt, dir, child, readyS: (performance.now() - t0) / 1000 };
    }),
  );
  try {
    await sleep(IDLE * 1000);
    const idle = servers.map((s) => statusMb(s.child.proc.pid!, 'VmRSS'));
    const peak: number[] = [];
    for (const s of servers) {
      const game = await setupGame(s.child.url, 2, 'BNCH');
      let n = 0;
      await autocannon({
        url: `${s.child.url}/nbx/v2/emm/orders/place`,
        connections: 32,
        duration: SECONDS,
        method: 'POST',
        requests: [
          {
            setupRequest: (req) => {
              const { token, body } = placeBody(game, n++);
              return {
                ...req,
                headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
                body,
              };
            },
          },
        ],
      });
      peak.push(statusMb(s.child.proc.pid!, 'VmHWM'));
    }
    await sleep((IDLE / 2) * 1000);
    servers.forEach((s, i) => {
      const after = statusMb(s.child.proc.pid!, 'VmRSS');
      console.log(
        `| ${round + 1} | ${s.opt || '(none)'} | ${s.readyS.toFixed(1)} | ${idle[i]} | ${peak[i]} | ${after} |`,
      );
    });
  } finally {
    for (const s of servers) {
      s.child.proc.kill('SIGTERM');
      await s.child.exited;
      rmSync(s.dir, { recursive: true, force: true });
    }
  }
}
console.log(`\nload average at end ${load()}`);
