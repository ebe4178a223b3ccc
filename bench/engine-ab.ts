// A/B of the matching engine against another checkout of it, in one process (docs/bench-engine.md
// "A/B against another checkout"). Both engines run bench/engine.ts's stream in interleaved rounds,
// the order alternating each round; CPU time per run; the median of the per-round ratios is the
// figure, which a busy shared machine disturbs far less than two separate runs.
//
//   git worktree add /tmp/engine-before <commit>
//   node --import tsx --expose-gc bench/engine-ab.ts --before /tmp/engine-before [--n 300000] [--runs 9]

import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Exchange as After } from '../src/exchange/exchange.ts';
import { CHUNK, Stream, type Stream as StreamT, setupCommands } from './engine.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const beforeDir = arg('before');
if (!beforeDir) {
  console.error('usage: bench/engine-ab.ts --before <checkout> [--n 300000] [--runs 9]');
  process.exit(2);
}
const N = Number(arg('n') ?? 300_000);
const RUNS = Number(arg('runs') ?? 9);
const gc = (globalThis as { gc?: () => void }).gc;
const { Exchange: Before } = (await import(
  pathToFileURL(join(resolve(beforeDir), 'src/exchange/exchange.ts')).href
)) as { Exchange: typeof After };

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU milliseconds of the stream through one engine (setup and chunk generation excluded). */
function run(Ctor: typeof After, stream: StreamT, events: boolean): number {
  const x = new Ctor({ events });
  for (const c of setupCommands()) if (!x.apply(c).ok) throw new Error('setup failed');
  gc?.();
  const s = stream.again();
  let cpu = 0;
  for (let chunk = s.next(CHUNK); chunk.length > 0; chunk = s.next(CHUNK)) {
    const c0 = cpuMs();
    for (let i = 0; i < chunk.length; i++) x.apply(chunk[i]!);
    cpu += cpuMs() - c0;
  }
  return cpu;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const stream = new Stream(N, 42);
const rows = [];
for (const events of [true, false]) {
  const before: number[] = [];
  const after: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const first = r % 2 === 0;
    const x1 = run(first ? Before : After, stream, events);
    const x2 = run(first ? After : Before, stream, events);
    const b = first ? x1 : x2;
    const a = first ? x2 : x1;
    before.push(b);
    after.push(a);
    ratios.push(a / b);
  }
  rows.push({
    mode: events ? 'events' : 'replay (no events)',
    commands: N,
    rounds: RUNS,
    'before median CPU ms': median(before).toFixed(0),
    'this tree median CPU ms': median(after).toFixed(0),
    'median per-round ratio (this / before)': median(ratios).toFixed(3),
  });
}
console.table(rows);
