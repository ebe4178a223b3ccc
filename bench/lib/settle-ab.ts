// The interleaved A/B of bench/parlay-settle.ts (docs/bench-parlay-trading.md): each side is a fresh
// process of the same command run from its own checkout (its bench file against its own src/),
// alternating which side goes first in each pair, so both see the same stretch of a shared
// machine. The round lines each process prints are read back, and the figures that do not depend
// on how long the main thread waited for a core are compared pair by pair: the main thread's time
// on a core for the settlement and the settling commands' applies (µs a parlay), the server's
// longest turn, and the engine half's CPU in chunks.

import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

export interface ServerRound {
  appliedMs: number;
  mainCpuMs: number;
  mainWaitMs: number;
  appliesUsPerParlay: number;
  readMaxMs: number;
  orderMaxMs: number;
  /** The process's CPU for the settlement (every thread's), ms. */
  cpuMs: number;
  turnCpuMs: number;
  baseTurnCpuMs: number;
  load: number;
}
export interface SideRun {
  side: string;
  at: string;
  /** The engine half's chunked settlement, process CPU, ms (one per engine round). */
  engineChunksCpuMs: number[];
  server: ServerRound[];
}

const num = (re: RegExp, line: string): number => {
  const m = re.exec(line);
  return m === null ? Number.NaN : Number(m[1]);
};

/** The figures of one process's output (the round lines of bench/parlay-settle.ts). */
export function parseRun(side: string, at: string, out: string): SideRun {
  const run: SideRun = { side, at, engineChunksCpuMs: [], server: [] };
  for (const line of out.split('\n')) {
    if (!line.startsWith('round ')) continue;
    if (line.includes('| chunks of ')) {
      run.engineChunksCpuMs.push(num(/\| chunks of \d+ [\d.]+ ms wall, ([\d.]+) ms CPU/, line));
    } else if (line.includes('| settle: applied')) {
      const [during = '', base = ''] = line.split('| baseline:');
      run.server.push({
        appliedMs: num(/applied ([\d.]+) ms/, line),
        mainCpuMs: num(/main thread on a core ([\d.]+)/, line),
        mainWaitMs: num(/waiting for one ([\d.]+)\)/, line),
        appliesUsPerParlay: num(/all applies [\d.]+ ms CPU \(([\d.]+) µs a parlay\)/, line),
        readMaxMs: num(/during: read max ([\d.]+)/, line),
        orderMaxMs: num(/order max ([\d.]+)/, during),
        cpuMs: num(/ms, CPU ([\d.]+) ms/, line),
        turnCpuMs: num(/server's longest turn ([\d.]+) ms CPU/, during),
        baseTurnCpuMs: num(/server's longest turn ([\d.]+) ms CPU/, base),
        load: num(/\| load ([\d.]+)\s*$/, line),
      });
    }
  }
  return run;
}

function runSide(side: string, dir: string, args: string[]): Promise<SideRun> {
  const at = new Date().toISOString().slice(11, 19);
  console.log(`--- ${side} (${dir}), ${at} UTC, load ${loadavg()[0]!.toFixed(1)}`);
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--expose-gc', 'bench/parlay-settle.ts', ...args],
      { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s: string) => {
      out += s;
      process.stdout.write(s.replace(/^(?=.)/gm, `[${side}] `));
    });
    child.on('error', fail);
    child.on('exit', (code) =>
      code === 0 ? done(parseRun(side, at, out)) : fail(new Error(`${side}: exit ${code}`)),
    );
  });
}

const f1 = (x: number) => x.toFixed(1);
const ratio = (a: number, b: number) => (a / b).toFixed(2);
const median = (xs: number[]) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Runs `pairs` pairs of processes, this checkout (`branchDir`) and `baseDir`, with `args` (the
 * bench's own options less --ab), branch first in odd pairs, and prints the comparison.
 */
export async function settleAb(
  branchDir: string,
  baseDir: string,
  pairs: number,
  args: string[],
  parlays: number,
): Promise<void> {
  const runs: { branch: SideRun; base: SideRun }[] = [];
  for (let k = 1; k <= pairs; k++) {
    const first = k % 2 === 1 ? 'branch' : 'base';
    const a = await runSide(first, first === 'branch' ? branchDir : baseDir, args);
    const second = first === 'branch' ? 'base' : 'branch';
    const b = await runSide(second, second === 'branch' ? branchDir : baseDir, args);
    runs.push(first === 'branch' ? { branch: a, base: b } : { branch: b, base: a });
  }
  reportAb(branchDir, baseDir, runs, parlays);
}

/** Prints the rounds of `runs` and their per-round ratios, branch ÷ base. */
export function reportAb(
  branchDir: string,
  baseDir: string,
  runs: { branch: SideRun; base: SideRun }[],
  parlays: number,
): void {
  const pairs = runs.length;
  const us = (ms: number) => (ms * 1000) / parlays;
  console.log(`\nA/B: branch ${resolve(branchDir)} against base ${resolve(baseDir)}, ${pairs} pairs`);
  console.log(
    '| side | started (UTC) | server round | applied ms | main thread on a core ms (µs a parlay) | waiting for one ms | applies µs a parlay | longest turn ms CPU (baseline window) | read max ms | order max ms | process CPU ms | load | engine chunks CPU ms |',
  );
  console.log('|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const { branch, base } of runs)
    for (const r of [branch, base])
      for (const [i, s] of r.server.entries())
        console.log(
          `| ${r.side} | ${r.at} | ${i + 1} | ${f1(s.appliedMs)} | ${f1(s.mainCpuMs)} (${f1(us(s.mainCpuMs))}) | ${f1(s.mainWaitMs)} | ${f1(s.appliesUsPerParlay)} | ${f1(s.turnCpuMs)} (${f1(s.baseTurnCpuMs)}) | ${f1(s.readMaxMs)} | ${f1(s.orderMaxMs)} | ${f1(s.cpuMs)} | ${f1(s.load)} | ${r.engineChunksCpuMs.map(f1).join(', ')} |`,
        );
  const per = (g: (s: ServerRound) => number) =>
    runs.flatMap(({ branch, base }) =>
      branch.server.map((s, i) => (base.server[i] === undefined ? 'n/a' : ratio(g(s), g(base.server[i]!)))),
    );
  console.log('\nPer round (k-th round of a pair), branch ÷ base:');
  console.log(`  main thread on a core: ${per((s) => s.mainCpuMs).join(', ')}`);
  console.log(`  applies (µs a parlay): ${per((s) => s.appliesUsPerParlay).join(', ')}`);
  console.log(`  longest turn: ${per((s) => s.turnCpuMs).join(', ')}`);
  console.log(`  applied (wall): ${per((s) => s.appliedMs).join(', ')}`);
  console.log(`  main thread waiting for a core: ${per((s) => s.mainWaitMs).join(', ')}`);
  console.log(`  process CPU: ${per((s) => s.cpuMs).join(', ')}`);
  console.log(`  worst read wait: ${per((s) => s.readMaxMs).join(', ')}`);
  console.log(`  worst order wait: ${per((s) => s.orderMaxMs).join(', ')}`);
  console.log(
    `  engine half, chunked CPU: ${runs.flatMap(({ branch, base }) => branch.engineChunksCpuMs.map((c, i) => ratio(c, base.engineChunksCpuMs[i]!))).join(', ')}`,
  );
  const med = (side: 'branch' | 'base', g: (s: ServerRound) => number) =>
    f1(median(runs.flatMap((r) => r[side].server.map(g))));
  for (const side of ['branch', 'base'] as const)
    console.log(
      `median ${side}: main thread on a core ${med(side, (s) => s.mainCpuMs)} ms (${med(side, (s) => us(s.mainCpuMs))} µs a parlay), applies ${med(side, (s) => s.appliesUsPerParlay)} µs a parlay, longest turn ${med(side, (s) => s.turnCpuMs)} ms, applied ${med(side, (s) => s.appliedMs)} ms, waiting ${med(side, (s) => s.mainWaitMs)} ms, read max ${med(side, (s) => s.readMaxMs)} ms, order max ${med(side, (s) => s.orderMaxMs)} ms, process CPU ${med(side, (s) => s.cpuMs)} ms, load ${med(side, (s) => s.load)}`,
    );
}
