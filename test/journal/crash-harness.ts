// Kill -9 harness (principle 6 of docs/architecture.md "Principles"): a child process (crash-child.ts) runs the sequencer
// with the real Exchange on a PGlite data directory and prints every acknowledged seq; the parent
// SIGKILLs it at a random moment, restarts it, and after each restart checks that
//   1. every acknowledged command is in the journal, at the seq it was acknowledged with;
//   2. the state recovered by the child (snapshot + tail) has the same hash as replaying exactly
//      the journaled commands from scratch (nothing half-applied, snapshots consistent).
// Used by crash.test.ts (5 cycles) and runnable on its own for longer runs:
//   node --import tsx test/journal/crash-harness.ts [cycles=25] [seed]

import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { pgliteTemplate } from '../helpers/store.ts';
import { identity, journalDirOf } from './crash-child.ts';
import { rng } from './workload.ts';

const childScript = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

export interface CycleReport {
  cycle: number;
  /** ms from spawn to SIGKILL. */
  killedAfterMs: number;
  /** The child was killed before it finished recovering. */
  killedInRecovery: boolean;
  acked: number;
  /** Highest acknowledged seq seen before the kill. */
  maxAcked: number;
  /** What the next start recovered. */
  recoveredSeq: number;
  snapshotSeq: number;
  replayed: number;
}

export interface CrashRunReport {
  seed: number;
  cycles: CycleReport[];
  totalAcked: number;
  journalTail: number;
  /** Acked commands missing from the journal or journaled under another identity (must be 0). */
  lost: number;
}

interface ChildRun {
  lines: string[];
  exit: Promise<number | null>;
  waitFor(prefix: string, timeoutMs: number): Promise<string>;
  kill(): void;
  stderr(): string;
}

function startChild(dataDir: string, run: number, mode: 'run' | 'verify'): ChildRun {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, dataDir, String(run), mode], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  let err = '';
  const waiters: { prefix: string; resolve: (l: string) => void }[] = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const l of parts) {
      lines.push(l);
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (l.startsWith(waiters[i]!.prefix)) waiters.splice(i, 1)[0]!.resolve(l);
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => {
    err += c;
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    lines,
    exit,
    stderr: () => err,
    kill: () => child.kill('SIGKILL'),
    waitFor(prefix, timeoutMs) {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`child: no "${prefix}" within ${timeoutMs} ms; stderr: ${err}`)),
          timeoutMs,
        );
        waiters.push({
          prefix,
          resolve: (l) => {
            clearTimeout(t);
            resolve(l);
          },
        });
        void exit.then((code) => {
          clearTimeout(t);
          reject(new Error(`child exited (${code}) before "${prefix}"; stderr: ${err}`));
        });
      });
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `cycles` start/kill cycles on a fresh copy of the template data directory. */
export async function runCrashCycles(
  cycles: number,
  seed = Date.now() % 1_000_000,
  log: (s: string) => void = () => {},
): Promise<CrashRunReport> {
  const r = rng(seed);
  const root = fileURLToPath(new URL('../../.tmp/crash/', import.meta.url));
  mkdirSync(root, { recursive: true });
  const dataDir = join(root, `${process.pid}-${seed}`);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(journalDirOf(dataDir), { recursive: true, force: true });
  cpSync(await pgliteTemplate(), dataDir, { recursive: true });
  const acked = new Map<number, string>();
  const reports: CycleReport[] = [];
  let prevMaxAcked = 0;
  try {
    for (let cycle = 0; cycle <= cycles; cycle++) {
      const last = cycle === cycles;
      const child = startChild(dataDir, cycle, last ? 'verify' : 'run');
      const t0 = Date.now();
      if (last) {
        const line = await child.waitFor('verify ', 180_000);
        await child.exit;
        const [, lastSeq, hash, scratchHash, snapSeq] = line.split(' ');
        if (hash !== scratchHash) {
          throw new Error(`final state: snapshot+tail hash ${hash} != journal-only hash ${scratchHash}`);
        }
        if (Number(lastSeq) < prevMaxAcked)
          throw new Error(`final recovery at ${lastSeq} < acked ${prevMaxAcked}`);
        log(`final: recovered seq ${lastSeq} from snapshot ${snapSeq}; hashes agree`);
        break;
      }
      // 1 kill in 5 lands while the child is still starting or recovering; the others while it
      // is trading (between 0.3 and 3 s after it reported ready: the first commits of a freshly
      // opened PGlite are slow, and a busy 2-core machine needs the upper end to get trading going).
      const early = r() < 0.2 && cycle > 0;
      let ready: string | undefined;
      if (early) {
        await Promise.race([sleep(200 + r() * 1500), child.exit]);
      } else {
        ready = await child.waitFor('ready ', 180_000);
        await Promise.race([sleep(300 + r() * 2700), child.exit]);
      }
      child.kill();
      const code = await child.exit;
      const killedAfterMs = Date.now() - t0;
      if (code !== null && code !== 0) throw new Error(`child failed (exit ${code}): ${child.stderr()}`);
      if (ready === undefined) ready = child.lines.find((l) => l.startsWith('ready '));
      let n = 0;
      let maxAcked = 0;
      for (const l of child.lines) {
        if (!l.startsWith('ack ')) continue;
        const [, s, id] = l.split(' ');
        if (id === undefined) throw new Error(`malformed ack line from the child: ${l}`);
        const seq = Number(s);
        const prev = acked.get(seq);
        // A seq acknowledged twice (by two runs) would mean a lost command whose seq got reused.
        if (prev !== undefined) throw new Error(`seq ${seq} acknowledged twice: ${prev} and ${id}`);
        acked.set(seq, id);
        n++;
        if (seq > maxAcked) maxAcked = seq;
      }
      let recoveredSeq = -1;
      let snapshotSeq = -1;
      let replayed = -1;
      if (ready !== undefined) {
        const [, ls, , ss, rp] = ready.split(' ');
        recoveredSeq = Number(ls);
        snapshotSeq = Number(ss);
        replayed = Number(rp);
        if (recoveredSeq < prevMaxAcked) {
          throw new Error(`cycle ${cycle}: recovered seq ${recoveredSeq} < previously acked ${prevMaxAcked}`);
        }
      }
      prevMaxAcked = Math.max(prevMaxAcked, maxAcked);
      const rep: CycleReport = {
        cycle,
        killedAfterMs,
        killedInRecovery: ready === undefined,
        acked: n,
        maxAcked,
        recoveredSeq,
        snapshotSeq,
        replayed,
      };
      reports.push(rep);
      log(
        `cycle ${cycle}: start recovered seq ${recoveredSeq} (snapshot ${snapshotSeq} + ${replayed}); ` +
          `killed after ${killedAfterMs} ms${rep.killedInRecovery ? ' (during start)' : ''}; acked ${n} up to ${maxAcked}`,
      );
    }
    // Every acknowledged command is journaled at its seq, as the same command.
    const journal = await FileJournal.open(journalDirOf(dataDir));
    let lost = 0;
    let tail = 0;
    try {
      for (let after = 0; ; ) {
        const rows = await journal.read<Parameters<typeof identity>[0]>(after, 10_000);
        for (const row of rows) {
          const want = acked.get(row.seq);
          if (want !== undefined && want !== identity(row.cmd)) lost++;
          tail = row.seq;
        }
        if (rows.length < 10_000) break;
        after = tail;
      }
    } finally {
      await journal.close();
    }
    for (const seq of acked.keys()) if (seq > tail) lost++;
    return { seed, cycles: reports, totalAcked: acked.size, journalTail: tail, lost };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(journalDirOf(dataDir), { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cycles = Number(process.argv[2] ?? '25');
  const seed = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
  const t0 = Date.now();
  const rep = await runCrashCycles(cycles, seed, (s) => console.log(s));
  console.log(
    `seed ${rep.seed}: ${rep.cycles.length} kill -9 cycles, ${rep.totalAcked} acknowledged commands, ` +
      `journal tail ${rep.journalTail}, lost ${rep.lost}, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  process.exit(rep.lost === 0 ? 0 : 1);
}
