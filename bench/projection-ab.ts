// CPU per projected command of the history projection on both sides of the embedded store's
// thread boundary (docs/bench-projection.md), this checkout against another one in the same
// process, interleaved: each side projects the same trading workload (bench:projection's) with
// its own code — its HistoryBatch, its projection statement, its store (PGlite on its worker
// thread, as the server runs it, with that checkout's start parameters) — into a store of its own.
//
//   node --import tsx bench/projection-ab.ts --ab CHECKOUT [--size 1024] [--rounds 5] [--reps 8]
//     [--thread worker|main]
//
// CHECKOUT is a clone of the base commit with node_modules linked (its TypeScript is imported as
// is, no build needed). Per command: the event loop thread's CPU (building the statement's
// parameters and handing them to the SQL thread: the structured clone) and every other thread's
// (the SQL worker, and V8's helpers), from /proc/self/task/*/schedstat (nanoseconds). Gathering
// the rows from the engine's events is outside the measured window (bench:projection's
// TradingHistory applies the commands and gathers them; the same work on either side). Each round
// runs --reps projections of --size commands per side, alternating which side goes first; the
// table prints each round's medians and the ratio this ÷ base, then the medians of the rounds.

import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, numArg, requiredArg } from './lib/args.ts';

const USAGE = 'node --import tsx bench/projection-ab.ts --ab CHECKOUT [--size 1024] [--rounds 5] [--reps 8]';
const base = resolve(requiredArg('ab', USAGE));
const SIZE = numArg('size', 1024);
const ROUNDS = numArg('rounds', 5);
const REPS = numArg('reps', 8);
const THREAD = (arg('thread') ?? 'worker') as 'worker' | 'main';
const here = resolve(import.meta.dirname, '..');

interface Batch {
  readonly empty: boolean;
}
interface Side {
  label: string;
  gen: { seq: number; next(n: number): Batch };
  statement: (b: Batch, name: string, toSeq: number) => { sql: string; params: unknown[] };
  store: { query(sql: string, params?: readonly unknown[]): Promise<unknown>; close(): Promise<void> };
}

async function side(label: string, checkout: string): Promise<Side> {
  const load = (p: string) => import(pathToFileURL(join(checkout, p)).href);
  const ref = await load('test/helpers/history-reference.ts');
  const write = await load('src/runtime/history-write.ts');
  const stores = await load('test/helpers/store.ts');
  return {
    label,
    gen: new ref.TradingHistory({ events: 2, marketsPerEvent: 5, accounts: 20 }, 1),
    statement: write.projectionStatement,
    store: await stores.openTestStore('pglite', { thread: THREAD }),
  };
}

/** CPU nanoseconds of this process's threads: the event loop's, and all others summed. */
function threadNs(): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const t of readdirSync('/proc/self/task')) {
    let ns: number;
    try {
      ns = Number(readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      continue; // a thread that ended meanwhile
    }
    if (Number(t) === process.pid) main = ns;
    else others += ns;
  }
  return { main, others };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const sides = [await side('this checkout', here), await side('base', base)];
// Untimed first projections: PGlite's first statements compile and plan, V8 warms the code up.
for (let i = 0; i < 4; i++) {
  for (const s of sides) {
    const st = s.statement(s.gen.next(SIZE), 'history', s.gen.seq);
    await s.store.query(st.sql, st.params);
  }
}

console.log(
  `\nHistory projection, PGlite ${THREAD === 'worker' ? 'on its worker thread' : 'in the main thread'}, ${SIZE} commands per projection, ${ROUNDS} rounds of ${REPS} per side; load average at start ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}; base ${base}\n`,
);
console.log(
  '| round | this: main thread µs/cmd | base: main thread µs/cmd | ratio | this: other threads µs/cmd | base: other threads µs/cmd | ratio | this: all µs/cmd | base: all µs/cmd | ratio |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const perRound: { main: number[]; others: number[]; all: number[] }[] = sides.map(() => ({
  main: [],
  others: [],
  all: [],
}));
const ratios = { main: [] as number[], others: [] as number[], all: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  const us = sides.map(() => ({ main: [] as number[], others: [] as number[], all: [] as number[] }));
  for (let rep = 0; rep < REPS; rep++) {
    const order = (rep + round) % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const s = sides[i]!;
      const batch = s.gen.next(SIZE);
      const t0 = threadNs();
      const st = s.statement(batch, 'history', s.gen.seq);
      await s.store.query(st.sql, st.params);
      const t1 = threadNs();
      const main = (t1.main - t0.main) / 1000 / SIZE;
      const others = (t1.others - t0.others) / 1000 / SIZE;
      us[i]!.main.push(main);
      us[i]!.others.push(others);
      us[i]!.all.push(main + others);
    }
  }
  const m = us.map((u) => ({ main: median(u.main), others: median(u.others), all: median(u.all) }));
  for (const k of ['main', 'others', 'all'] as const) {
    ratios[k].push(m[0]![k] / m[1]![k]);
    for (let i = 0; i < m.length; i++) perRound[i]![k].push(m[i]![k]);
  }
  const f = (x: number) => x.toFixed(1);
  console.log(
    `| ${round + 1} | ${f(m[0]!.main)} | ${f(m[1]!.main)} | ${ratios.main.at(-1)!.toFixed(2)} | ${f(m[0]!.others)} | ${f(m[1]!.others)} | ${ratios.others.at(-1)!.toFixed(2)} | ${f(m[0]!.all)} | ${f(m[1]!.all)} | ${ratios.all.at(-1)!.toFixed(2)} |`,
  );
}
const f = (x: number) => x.toFixed(1);
const [a, b] = perRound;
console.log(
  `| median | ${f(median(a!.main))} | ${f(median(b!.main))} | ${median(ratios.main).toFixed(2)} | ${f(median(a!.others))} | ${f(median(b!.others))} | ${median(ratios.others).toFixed(2)} | ${f(median(a!.all))} | ${f(median(b!.all))} | ${median(ratios.all).toFixed(2)} |`,
);
console.log(`\nload average at end ${loadavg()[0]!.toFixed(1)}`);
for (const s of sides) await s.store.close();
