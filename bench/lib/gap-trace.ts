// Where a server's event loop stalls (bench/parlay-settle.ts --trace): a 2 ms interval notes every
// gap between its ticks over `minMs`, with how much of the gap this thread was on a core and how
// much it was runnable but waiting for one (Linux /proc/thread-self/schedstat: run and wait time in
// ns), so a stall the process caused is told apart from one the shared machine's other processes
// caused; and every GC pause over `minMs` / 4 (perf_hooks 'gc' entries). Times are ms from start().

import { readFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';

const SCHEDSTAT = '/proc/thread-self/schedstat';
const GC_KIND: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/** This thread's time on a core and runnable waiting for one since it started, ms (Linux). */
export function schedstat(): [run: number, wait: number] | undefined {
  try {
    const [run, wait] = readFileSync(SCHEDSTAT, 'utf8').split(' ');
    return [Number(run) / 1e6, Number(wait) / 1e6];
  } catch {
    return undefined;
  }
}

export interface GapTrace {
  /** The gaps and GC pauses, and the most CPU this thread spent between two ticks, ms (an upper
   * bound of one event-loop turn's own work, whatever the machine's load; NaN without schedstat). */
  stop(): { lines: string[]; maxOnCoreMs: number };
}

export function startGapTrace(minMs = 30): GapTrace {
  const out: string[] = [];
  const t0 = performance.now();
  let last = t0;
  let stat = schedstat();
  let maxOnCoreMs = stat === undefined ? Number.NaN : 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const next = schedstat();
    if (stat !== undefined && next !== undefined) maxOnCoreMs = Math.max(maxOnCoreMs, next[0] - stat[0]);
    const gap = now - last;
    if (gap > minMs) {
      const cpu =
        stat !== undefined && next !== undefined
          ? `, on a core ${(next[0] - stat[0]).toFixed(0)} ms, waiting for one ${(next[1] - stat[1]).toFixed(0)} ms`
          : '';
      out.push(`@${(last - t0).toFixed(0)} ms: loop gap ${gap.toFixed(0)} ms${cpu}`);
    }
    last = now;
    stat = next;
  }, 2);
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.duration > minMs / 4)
        out.push(
          `@${(e.startTime - t0).toFixed(0)} ms: GC ${GC_KIND[(e as unknown as { detail: { kind: number } }).detail.kind] ?? '?'} ${e.duration.toFixed(0)} ms`,
        );
  });
  gc.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      clearInterval(timer);
      gc.disconnect();
      return { lines: out, maxOnCoreMs };
    },
  };
}
