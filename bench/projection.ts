// CPU per projected command of the history projection (docs/journal.md "Projector"): the one
// statement the projector writes (src/runtime/history-write.ts) against the former one statement
// per table inside a transaction (test/helpers/history-reference.ts), on batches of 16, 64 and 256
// commands of a trading workload, the two writers interleaved on two stores of the same kind.
// Process CPU (user + system) per command, medians; on PostgreSQL only the client's share.
//
//
//   node --import tsx bench/projection.ts [pglite|postgres|threads]
//
// `threads` compares where the embedded store's projection costs the server's main thread
// (docs/decisions.md "PGlite runs on a worker thread by default"): the same statement on PGlite in
// this thread and on PGlite on its worker thread, interleaved, at 16 to 4,096 commands per
// projection. Per projected command: the main thread's CPU (/proc/self/task/<pid>/stat, the event
// loop's thread; 10 ms ticks, so summed over all repetitions) and the process's (all threads),
// the batch's construction from the engine's events excluded (the same work on either thread).

import { readFileSync } from 'node:fs';
import { projectionStatement } from '../src/runtime/history-write.ts';
import { projectSeparately, TradingHistory } from '../test/helpers/history-reference.ts';
import { openTestStore } from '../test/helpers/store.ts';

if (process.argv[2] === 'threads') {
  await threads();
  process.exit(0);
}
const kind = process.argv[2] === 'postgres' ? 'postgres' : 'pglite';
const [a, b] = [await openTestStore(kind), await openTestStore(kind)];
const history = new TradingHistory({ events: 2, marketsPerEvent: 5, accounts: 20 }, 1);
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;

console.log(`\nProjection CPU per command, ${kind}\n`);
console.log('| commands per projection | one statement µs | separate statements µs | ratio |');
console.log('|---:|---:|---:|---:|');
for (const size of [16, 64, 256]) {
  const us = { one: [] as number[], separate: [] as number[] };
  for (let rep = 0; rep < Math.max(8, 6144 / size); rep++) {
    for (const w of rep % 2 === 0 ? (['separate', 'one'] as const) : (['one', 'separate'] as const)) {
      const h = history.next(size);
      const seq = history.seq;
      const c0 = process.cpuUsage();
      if (w === 'one') {
        const st = projectionStatement(h, 'history', seq);
        await b.query(st.sql, st.params);
      } else {
        await projectSeparately(a, h, seq);
      }
      const d = process.cpuUsage(c0);
      us[w].push((d.user + d.system) / size);
    }
  }
  const [one, sep] = [median(us.one), median(us.separate)];
  console.log(`| ${size} | ${one.toFixed(0)} | ${sep.toFixed(0)} | ${(one / sep).toFixed(2)} |`);
}
await a.close();
await b.close();

/** CPU seconds of this process's main thread (Linux /proc; clock ticks of 10 ms). */
function mainThreadSeconds(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function threads(): Promise<void> {
  const stores = {
    main: await openTestStore('pglite', { thread: 'main' }),
    worker: await openTestStore('pglite', { thread: 'worker' }),
  };
  const gens = {
    main: new TradingHistory({ events: 2, marketsPerEvent: 5, accounts: 20 }, 1),
    worker: new TradingHistory({ events: 2, marketsPerEvent: 5, accounts: 20 }, 1),
  };
  console.log('\nProjection CPU per command on PGlite, by where its SQL runs\n');
  console.log(
    '| commands per projection | in-thread: main thread µs | in-thread: process µs | worker: main thread µs | worker: process µs | main thread, worker ÷ in-thread |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|');
  for (const size of [16, 64, 256, 1024, 4096]) {
    const sum = { main: { mainS: 0, procUs: 0, n: 0 }, worker: { mainS: 0, procUs: 0, n: 0 } };
    for (let rep = 0; rep < Math.max(6, 16384 / size); rep++) {
      for (const w of rep % 2 === 0 ? (['main', 'worker'] as const) : (['worker', 'main'] as const)) {
        const h = gens[w].next(size);
        const m0 = mainThreadSeconds();
        const c0 = process.cpuUsage();
        const st = projectionStatement(h, 'history', gens[w].seq);
        await stores[w].query(st.sql, st.params);
        const d = process.cpuUsage(c0);
        sum[w].mainS += mainThreadSeconds() - m0;
        sum[w].procUs += d.user + d.system;
        sum[w].n += size;
      }
    }
    const us = (w: 'main' | 'worker') => ({
      main: (sum[w].mainS * 1e6) / sum[w].n,
      proc: sum[w].procUs / sum[w].n,
    });
    const [a, b] = [us('main'), us('worker')];
    console.log(
      `| ${size} | ${a.main.toFixed(0)} | ${a.proc.toFixed(0)} | ${b.main.toFixed(0)} | ${b.proc.toFixed(0)} | ${(b.main / a.main).toFixed(2)} |`,
    );
  }
  await stores.main.close();
  await stores.worker.close();
}
