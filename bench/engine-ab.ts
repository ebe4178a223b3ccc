// A/B of the matching engine against another checkout of it, in one process per mode
// (docs/bench-engine.md "A/B against another checkout"). Both engines run bench/engine.ts's stream in
// interleaved rounds, the order alternating each round; CPU time per run; the median of the
// per-round ratios is the figure, which a busy shared machine disturbs far less than two separate
// runs. Each mode (live path, replay of a journal with handles, replay of records without) runs in
// a child process of its own: the command objects of one mode have other shapes (with or without
// `ah`/`oh`), and in one process they made the next mode's property reads polymorphic in both
// engines, which moved the ratios by more than the changes being measured.
//
//   git worktree add /tmp/engine-before <commit>
//   node --import tsx --expose-gc bench/engine-ab.ts --before /tmp/engine-before [--n 300000] [--runs 9] [--lockstep]

import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Exchange as After } from '../src/exchange/exchange.ts';
import { CHUNK, Stream, type Stream as StreamT, setupCommands } from './engine.ts';
import { arg, numArg, requiredArg } from './lib/args.ts';

const beforeDir = requiredArg('before', 'bench/engine-ab.ts --before <checkout> [--n 300000] [--runs 9]');
const N = numArg('n', 300_000);
const RUNS = numArg('runs', 9);
const gc = (globalThis as { gc?: () => void }).gc;
const { Exchange: Before } = (await import(
  pathToFileURL(join(resolve(beforeDir), 'src/exchange/exchange.ts')).href
)) as { Exchange: typeof After };

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU milliseconds of the stream through one engine (setup and chunk generation excluded). */
function run(Ctor: typeof After, stream: StreamT, events: boolean, handles: boolean): number {
  // recordHandles as the server runs it (an engine from before handles ignores the option and the
  // commands' ah/oh fields)
  const x = new Ctor({ events, recordHandles: true });
  for (const c of setupCommands()) if (!x.apply(c).ok) throw new Error('setup failed');
  gc?.();
  const s = stream.again(handles);
  let cpu = 0;
  for (let chunk = s.next(CHUNK); chunk.length > 0; chunk = s.next(CHUNK)) {
    const c0 = cpuMs();
    for (let i = 0; i < chunk.length; i++) x.apply(chunk[i]!);
    cpu += cpuMs() - c0;
  }
  return cpu;
}

/**
 * `--lockstep`: both engines take the stream chunk by chunk (1,000 commands, ~1 ms), the one going
 * first alternating each chunk, each from its own copy of the chunk: load that changes within a run
 * hits both alike, which alternating whole runs cannot promise on a machine shared with other jobs.
 */
function lockstep(stream: StreamT, events: boolean, handles: boolean): [number, number] {
  const make = (Ctor: typeof After) => {
    const x = new Ctor({ events, recordHandles: true });
    for (const c of setupCommands()) if (!x.apply(c).ok) throw new Error('setup failed');
    return x;
  };
  const engines = [make(Before), make(After)];
  const streams = [stream.again(handles), stream.again(handles)];
  const cpu = [0, 0];
  gc?.();
  for (let k = 0; ; k++) {
    const chunks = [streams[0]!.next(CHUNK), streams[1]!.next(CHUNK)];
    if (chunks[0]!.length === 0) break;
    for (const e of k % 2 === 0 ? [0, 1] : [1, 0]) {
      const x = engines[e]!;
      const chunk = chunks[e]!;
      const c0 = cpuMs();
      for (let i = 0; i < chunk.length; i++) x.apply(chunk[i]!);
      cpu[e]! += cpuMs() - c0;
    }
  }
  return [cpu[0]!, cpu[1]!];
}
const LOCKSTEP = process.argv.includes('--lockstep');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const stream = new Stream(N, 42);
const rows = [];
const MODES = {
  events: [true, false],
  replay: [false, true],
  'replay-old': [false, false],
} as const;
const only = arg('mode') as keyof typeof MODES | undefined;
if (only === undefined) {
  // the parent: one child per mode, each printing its row as JSON on its last line
  for (const mode of Object.keys(MODES)) {
    const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1), '--mode', mode], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`mode ${mode} failed`);
    rows.push(JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}'));
  }
  console.table(rows);
  process.exit(0);
}
// Live path (ids as the edge sends them), replay of a journal with handles, or replay of records
// written before handles.
for (const [events, handles] of [MODES[only]]) {
  const before: number[] = [];
  const after: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    let b: number;
    let a: number;
    if (LOCKSTEP) [b, a] = lockstep(stream, events, handles);
    else {
      const first = r % 2 === 0;
      const x1 = run(first ? Before : After, stream, events, handles);
      const x2 = run(first ? After : Before, stream, events, handles);
      b = first ? x1 : x2;
      a = first ? x2 : x1;
    }
    before.push(b);
    after.push(a);
    ratios.push(a / b);
  }
  rows.push({
    mode: events
      ? 'events (live path)'
      : handles
        ? 'replay, journal with handles'
        : 'replay, records without handles',
    commands: N,
    rounds: RUNS,
    'before median CPU ms': median(before).toFixed(0),
    'this tree median CPU ms': median(after).toFixed(0),
    'median per-round ratio (this / before)': median(ratios).toFixed(3),
    'per-round ratios': ratios.map((r) => r.toFixed(3)).join(' '),
  });
}
console.log(JSON.stringify(rows[0]));
