// Bytes the engine allocates per command, this tree against another checkout (docs/bench-engine.md
// "Building events"). A count of bytes does not move with the machine's load, where CPU ratios on
// a shared machine do; and at 1M commands/s the allocation rate sets how often a young-generation
// collection pauses every command queued behind it.
//
// Each (stream, engine, events mode) runs in a child of its own, started with a young generation
// large enough that no collection runs in the measured half: heap used after − before, over the
// commands, after the first half warmed the code up. A collection in the window (reported) voids
// the row. Streams: bench/engine.ts's (300,000 commands, ids as the edge sends them, handles
// recorded as the server records them) and, with `--mix <file>`, exchange-core's mix as
// `bench:engine-mix -- --before <checkout> --ab-only --stream-file <file>` wrote it.
//
//   node --import tsx bench/engine-alloc.ts --before <checkout> [--mix <stream.json>] [--n 300000] [--per-ms k]

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import type { Exchange } from '../src/exchange/exchange.ts';
import type { Command } from '../src/exchange/types.ts';
import { CHUNK, Stream, setupCommands } from './engine.ts';
import { arg, numArg, requiredArg } from './lib/args.ts';

const N = numArg('n', 300_000);
/**
 * `--per-ms k`: stamp k consecutive commands with the same time, as the sequencer does at k
 * commands per millisecond (Date.now() at 1M commands/s: k = 1,000). The streams give each command
 * (or operation) a millisecond of its own, so every command's records hold a time no command before
 * it held; with k > 1, what the engine shares between commands of one millisecond shows.
 */
const PER_MS = numArg('per-ms', 0);
const here = fileURLToPath(new URL('..', import.meta.url));

/**
 * Bytes of the heap's objects: every space but the code spaces. Functions optimized (or optimized
 * again after a deoptimization) inside the window put their code there, which is no allocation of
 * the commands: counted, it moved a row by ±10–20 bytes per command from run to run.
 */
function objectBytes(): number {
  let n = 0;
  for (const sp of getHeapSpaceStatistics()) if (!sp.space_name.startsWith('code')) n += sp.space_used_size;
  return n;
}

/** The child: one engine, one stream, one mode; prints { bytes, gcs, events } as JSON. */
async function child(dir: string, stream: string, events: boolean): Promise<void> {
  const { Exchange: Ctor } = (await import(
    pathToFileURL(join(resolve(dir), 'src/exchange/exchange.ts')).href
  )) as {
    Exchange: typeof Exchange;
  };
  let x: Exchange;
  const cmds: Command[] = [];
  if (stream === 'full') {
    x = new Ctor({ events, recordHandles: true });
    for (const c of setupCommands()) x.apply(c);
    const s = new Stream(N, 42);
    for (let chunk = s.next(CHUNK); chunk.length > 0; chunk = s.next(CHUNK))
      for (const c of chunk) cmds.push(c);
  } else {
    const { snap, warm, ops } = JSON.parse(readFileSync(stream, 'utf8')) as {
      snap: string;
      warm: Command[];
      ops: Command[][];
    };
    x = new Ctor({ events });
    x.restore(new Uint8Array(Buffer.from(snap, 'base64')));
    for (const c of warm) x.apply(c);
    for (const op of ops) for (const c of op) cmds.push(c);
  }
  if (PER_MS > 0) {
    const t0 = cmds[0]?.ts ?? 0;
    for (let i = 0; i < cmds.length; i++) cmds[i]!.ts = t0 + Math.floor(i / PER_MS);
  }
  let gcs = 0;
  const obs = new PerformanceObserver((l) => {
    gcs += l.getEntries().length;
  });
  obs.observe({ entryTypes: ['gc'] });
  let seen = 0;
  const run = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const r = x.apply(cmds[i]!);
      // every event is read, as the server's consumers read each one (its kind at least)
      if (!r.ok) continue;
      const evs = r.events; // an index loop: for-of's iterator would be the bench's own allocation
      for (let j = 0; j < evs.length; j++) if (evs[j]!.kind !== 'LocksChanged') seen++;
    }
  };
  const half = cmds.length >> 1;
  run(0, half);
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  await new Promise((r) => setTimeout(r, 50));
  gcs = 0;
  const before = objectBytes();
  run(half, cmds.length);
  const after = objectBytes();
  await new Promise((r) => setTimeout(r, 10));
  obs.disconnect();
  console.log(JSON.stringify({ bytes: (after - before) / (cmds.length - half), gcs, events: seen }));
}

function measure(
  dir: string,
  stream: string,
  events: boolean,
): { bytes: number; gcs: number; events: number } {
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--expose-gc',
      '--max-semi-space-size=512',
      '--min-semi-space-size=512',
      fileURLToPath(import.meta.url),
      '--child',
      dir,
      '--stream',
      stream,
      '--events',
      String(events),
      '--n',
      String(N),
      '--per-ms',
      String(PER_MS),
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (r.status !== 0) throw new Error(`child failed (${dir}, ${stream})`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}');
}

const childDir = arg('child');
if (childDir !== undefined) await child(childDir, arg('stream') ?? 'full', arg('events') === 'true');
else {
  const beforeDir = requiredArg('before', 'bench/engine-alloc.ts --before <checkout> [--mix <stream.json>]');
  const mix = arg('mix');
  const streams = [
    { name: `bench/engine.ts stream, ${N} commands`, file: 'full' },
    ...(mix === undefined ? [] : [{ name: "exchange-core's mix", file: mix }]),
  ];
  console.log(
    '\n| stream | events | this tree B/command | before B/command | ratio | collections in the window |',
  );
  console.log('|---|---|---:|---:|---:|---|');
  for (const st of streams) {
    for (const events of [true, false]) {
      const a = measure(here, st.file, events);
      const b = measure(beforeDir, st.file, events);
      if (a.events !== b.events) throw new Error(`the engines' events differ: ${a.events} vs ${b.events}`);
      console.log(
        `| ${st.name} | ${events ? 'on' : 'off'} | ${a.bytes.toFixed(0)} | ${b.bytes.toFixed(0)} | ${(a.bytes / b.bytes).toFixed(3)} | ${a.gcs} / ${b.gcs} |`,
      );
    }
  }
}
