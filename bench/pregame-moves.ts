// What the living demo's pre-game line moves cost an idle server (src/demo/live-lines.ts
// `pregameLine`, docs/ui.md "The board"): two real servers side by side in child processes, the
// same demo slate and living demo, one with the moves (`DEMO_PREGAME_MOVES`, default 6 an hour a
// game) and one without (0), no client connected. Both are sampled over the same windows, so load
// from elsewhere on the machine falls on both alike: process CPU (user + system, from
// /proc/<pid>/stat) as a percentage of one core over each window, and the resident set at its end.
//
//   npm run bench:pregame-moves -- [windows=6] [seconds=30] [moves=6]
//
// The first 20 s after both are ready (the slate's quotes, the JIT) are not counted.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bootChild, type Child } from '../test/helpers/child-server.ts';
import { serverPlace } from '../test/helpers/server.ts';

const [windowsArg = '6', secondsArg = '30', movesArg = '6'] = process.argv.slice(2);
const WINDOWS = Number(windowsArg);
const SECONDS = Number(secondsArg);
const child = fileURLToPath(new URL('./lib/server-child.ts', import.meta.url));
const TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) and resident set (MB) of a process, from /proc. */
function sample(pid: number): { cpu: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpu = (Number(f[11]) + Number(f[12])) / TICKS; // utime, stime (fields 14 and 15)
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpu, rssMb: Number(rss?.[1] ?? 0) / 1024 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const places = await Promise.all([0, 1].map(() => serverPlace('pglite')));
const servers: Child[] = [];
process.on('exit', () => {
  for (const s of servers) s.proc.kill();
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(1));
const env = (moves: string, i: number): Record<string, string> => ({
  ...places[i]!.env,
  TICKBOOK_DEMO: 'true',
  DEMO_LIVE: 'true',
  UI: 'false',
  DEMO_PREGAME_MOVES: moves,
});
// Started one after the other (the slate's creation is the heavy part), then measured together.
servers.push(await bootChild(child, env(movesArg, 0)));
servers.push(await bootChild(child, env('0', 1)));
const [on, off] = servers as [Child, Child];
await sleep(20_000);

const rows: { w: number; on: number; off: number; rssOn: number; rssOff: number }[] = [];
for (let w = 1; w <= WINDOWS; w++) {
  const a0 = sample(on.proc.pid!);
  const b0 = sample(off.proc.pid!);
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const dt = (performance.now() - t0) / 1000;
  const a1 = sample(on.proc.pid!);
  const b1 = sample(off.proc.pid!);
  const row = {
    w,
    on: ((a1.cpu - a0.cpu) / dt) * 100,
    off: ((b1.cpu - b0.cpu) / dt) * 100,
    rssOn: a1.rssMb,
    rssOff: b1.rssMb,
  };
  rows.push(row);
  console.log(
    `window ${w}: moves on ${row.on.toFixed(1)} % CPU ${row.rssOn.toFixed(0)} MB; off ${row.off.toFixed(1)} % CPU ${row.rssOff.toFixed(0)} MB`,
  );
}

const load = readFileSync('/proc/loadavg', 'utf8').trim();
console.log(
  `\n${WINDOWS} windows of ${SECONDS} s, moves on = ${movesArg} a game an hour, load average ${load}`,
);
console.log('| window | CPU % moves on | CPU % moves off | ratio | RSS MB on | RSS MB off |');
console.log('|---:|---:|---:|---:|---:|---:|');
for (const r of rows)
  console.log(
    `| ${r.w} | ${r.on.toFixed(1)} | ${r.off.toFixed(1)} | ${(r.on / r.off).toFixed(2)} | ${r.rssOn.toFixed(0)} | ${r.rssOff.toFixed(0)} |`,
  );
const [mOn, mOff] = [median(rows.map((r) => r.on)), median(rows.map((r) => r.off))];
const ratios = rows.map((r) => r.on / r.off);
console.log(
  `| median | ${mOn.toFixed(1)} | ${mOff.toFixed(1)} | ${median(ratios).toFixed(2)} | ${median(rows.map((r) => r.rssOn)).toFixed(0)} | ${median(rows.map((r) => r.rssOff)).toFixed(0)} |`,
);

for (const s of servers) s.proc.kill('SIGTERM');
await Promise.all(servers.map((s) => s.exited));
await Promise.all(places.map((p) => p.destroy()));
