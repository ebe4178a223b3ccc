// The lockstep A/B of bench/engine-mix.ts (docs/bench-engine.md "The engine on exchange-core's
// mix"), in a process of its own: the stream comes from a file the parent wrote, and both engines
// are loaded the same way (a dynamic import of each checkout's src/exchange/exchange.ts), so
// neither has run anything else. With this tree's engine imported statically and the other
// dynamically, two identical engines differed by 1.1–1.4×; see `lockstep` for the rest of it.
//
//   node --import tsx --expose-gc bench/lib/engine-mix-lockstep.ts --after <checkout> --before <checkout>
//        --file <stream.json> [--runs 9]
// `--runs` should be even. Prints one row per events mode: median CPU ms of each, the median of
// the pairs' ratios (after ÷ before), each pair's, each round's.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Exchange } from '../../src/exchange/exchange.ts';
import type { Command } from '../../src/exchange/types.ts';
import { numArg, requiredArg } from './args.ts';

const usage = 'engine-mix-lockstep.ts --after <checkout> --before <checkout> --file <stream.json> [--runs 9]';
const RUNS = numArg('runs', 9);
const CHUNK = 1_000;
const gc = (globalThis as { gc?: () => void }).gc;
const load = async (dir: string) =>
  (
    (await import(pathToFileURL(join(resolve(dir), 'src/exchange/exchange.ts')).href)) as {
      Exchange: typeof Exchange;
    }
  ).Exchange;
const After = await load(requiredArg('after', usage));
const Before = await load(requiredArg('before', usage));
type Op = Command[];
const { snap, warm, ops } = JSON.parse(readFileSync(requiredArg('file', usage), 'utf8')) as {
  snap: string;
  warm: Command[];
  ops: Op[];
};
const bytes = new Uint8Array(Buffer.from(snap, 'base64'));

function fresh(Ctor: typeof Exchange, events: boolean): Exchange {
  const x = new Ctor({ events });
  x.restore(bytes);
  for (const c of warm) x.apply(structuredClone(c));
  return x;
}
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/**
 * CPU ms of [after, before] on the stream, chunk by chunk. `swap` puts the before engine in the
 * first place (built first, its command copies made first, slot 0 of every array): in one order
 * only, two identical engines read 1.1–1.5× apart, the one in slot 0 slower, whichever it was;
 * rounds alternate the order and pairs of rounds are averaged (geometric mean), which cancels it.
 */
function lockstep(events: boolean, swap: boolean): [number, number] {
  const order = swap ? [Before, After] : [After, Before];
  const engines = order.map((Ctor) => fresh(Ctor, events));
  // each engine its own copies (an engine may write into commands); built before timing
  const todo = [0, 1].map(() => ops.map((op) => op.map((c) => ({ ...c })) as Op));
  const cpu = [0, 0];
  gc?.();
  for (let from = 0, k = 0; from < ops.length; from += CHUNK, k++) {
    const to = Math.min(ops.length, from + CHUNK);
    for (const e of k % 2 === 0 ? [0, 1] : [1, 0]) {
      const x = engines[e]!;
      const mine = todo[e]!;
      const c0 = cpuMs();
      for (let i = from; i < to; i++) for (const c of mine[i]!) x.apply(c);
      cpu[e]! += cpuMs() - c0;
    }
  }
  return swap ? [cpu[1]!, cpu[0]!] : [cpu[0]!, cpu[1]!];
}

for (const events of [true, false]) {
  const mine: number[] = [];
  const prev: number[] = [];
  const ratios: number[] = [];
  const pairs: number[] = [];
  for (let round = 0; round < RUNS; round++) {
    const [a, b] = lockstep(events, round % 2 === 1);
    mine.push(a);
    prev.push(b);
    ratios.push(a / b);
    if (round % 2 === 1) pairs.push(Math.sqrt(ratios[round]! * ratios[round - 1]!));
  }
  console.log(
    `| ${events ? 'on' : 'off'} | ${median(mine).toFixed(0)} | ${median(prev).toFixed(0)} | ${median(pairs).toFixed(3)} | ${pairs.map((x) => x.toFixed(3)).join(' ')} | ${ratios.map((x) => x.toFixed(3)).join(' ')} |`,
  );
}
