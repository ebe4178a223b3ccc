// CPU per projected command of the history projection (docs/journal.md "Projector"): the one
// statement the projector writes (src/runtime/history-write.ts) against the former one statement
// per table inside a transaction (test/helpers/history-reference.ts), on batches of 16, 64 and 256
// commands of a trading workload, the two writers interleaved on two stores of the same kind.
// Process CPU (user + system) per command, medians; on PostgreSQL only the client's share.
//
//   node --import tsx bench/projection.ts [pglite|postgres]

import { projectionStatement } from '../src/runtime/history-write.ts';
import { projectSeparately, TradingHistory } from '../test/helpers/history-reference.ts';
import { openTestStore } from '../test/helpers/store.ts';

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
