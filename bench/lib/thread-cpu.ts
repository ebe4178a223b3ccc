// Where a process's CPU goes, thread by thread (bench/parlay-settle.ts): every thread's time on a
// core from Linux /proc/self/task/<tid>/schedstat (ns), grouped by the thread's name (`comm`: V8's
// helper threads, GC among them, are "V8 DefaultWorke"; libuv's pool "libuv-worker"; a worker
// thread is named by Node as "node" or its own name), the main thread apart. Threads that ended
// between two samples are lost, which a server's long-lived threads are not.

import { readdirSync, readFileSync } from 'node:fs';

/** tid → [name, ms on a core since it started]; empty where /proc has no schedstat. */
function sample(): Map<string, [string, number]> {
  const out = new Map<string, [string, number]>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const run = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      out.set(tid, [tid === String(process.pid) ? 'main' : name, run]);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

export interface ThreadCpu {
  /** ms on a core since start(), by thread name, and each thread's in creation order
   * ("+offset:ms", offset = tid − the process's pid; Node 20 names its threads alike, so the order
   * tells them apart: V8's platform threads first, then libuv's pool, then worker threads). */
  stop(): { byName: Map<string, number>; line: string };
}

export function startThreadCpu(): ThreadCpu {
  const s0 = sample();
  return {
    stop() {
      const s1 = sample();
      const byName = new Map<string, number>();
      const count = new Map<string, number>();
      for (const [tid, [name, run]] of s1) {
        const ms = run - (s0.get(tid)?.[1] ?? 0);
        byName.set(name, (byName.get(name) ?? 0) + ms);
        if (ms > 0.5) count.set(name, (count.get(name) ?? 0) + 1);
      }
      const each = [...s1]
        .map(([tid, [, run]]) => [Number(tid) - process.pid, run - (s0.get(tid)?.[1] ?? 0)] as const)
        .filter(([, ms]) => ms >= 1)
        .sort((a, b) => a[0] - b[0])
        .map(([off, ms]) => `+${off}:${ms.toFixed(0)}`)
        .join(' ');
      const line = `${[...byName]
        .sort((a, b) => b[1] - a[1])
        .filter(([, ms]) => ms >= 1)
        .map(([name, ms]) => `${name} ×${count.get(name) ?? 0} ${ms.toFixed(0)}`)
        .join(', ')}; each ${each}`;
      return { byName, line };
    },
  };
}
