// Server-side diagnostics for bench/orders-ws.ts --diag, loaded into the bench's server child
// (orders-child.mjs) before the server starts, and for bench/parlay-wager.ts --diag (through
// NODE_OPTIONS=--import, so a base checkout's server is measured the same way). Measures, between
// SIGUSR2 (start) and SIGUSR1 (report, one `DIAG {json}` line on stdout, and an IPC message
// {kind: 'diag', report} when the server was forked):
//   - the event loop's delay (perf_hooks monitorEventLoopDelay, 1 ms resolution);
//   - GC pauses (perf_hooks 'gc' entries): count, total and longest;
//   - the journal's group commits as the file system sees them: fdatasync calls and their
//     durations, and the bytes and calls of synchronous writes (the journal appends a batch with
//     one writeSync), wrapped on node:fs before the server imports it;
//   - CPU time per thread from /proc/self/task: the main thread; the threads that existed before
//     the server started (V8's four platform workers: concurrent marking, parallel scavenges,
//     compilation; and libuv's pool, already started by the module loader: fdatasync, crypto);
//     and the threads started later (the embedded store's SQL worker thread), the largest alone.
// Bench use only: the wrapping adds a timer read per fdatasync and a counter per writeSync.

import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/** The counters of one load, zeroed at its start. */
const zeroed = () => ({
  syncMs: [],
  writes: 0,
  writeBytes: 0,
  gcMs: 0,
  gcN: 0,
  gcMax: 0,
  gcMinorN: 0,
  gcMinorMs: 0,
  gcMajorN: 0,
  gcMajorMs: 0,
});
const st = zeroed();
const fdatasync = fs.fdatasync;
fs.fdatasync = (fd, cb) => {
  const t = performance.now();
  fdatasync(fd, (e) => {
    st.syncMs.push(performance.now() - t);
    cb(e);
  });
};
const writeSync = fs.writeSync;
fs.writeSync = function (fd, buf, ...rest) {
  st.writes++;
  st.writeBytes += typeof buf === 'string' ? Buffer.byteLength(buf) : (buf.length ?? 0);
  return writeSync.call(this, fd, buf, ...rest);
};
syncBuiltinESMExports();

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    st.gcN++;
    st.gcMs += e.duration;
    // Scavenges (minor) cost what survives them; mark-compacts (major) what the old space holds.
    if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      st.gcMajorN++;
      st.gcMajorMs += e.duration;
    } else if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
      st.gcMinorN++;
      st.gcMinorMs += e.duration;
    }
    if (e.duration > st.gcMax) st.gcMax = e.duration;
  }
}).observe({ entryTypes: ['gc'] });
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

/** CPU ms of each thread of this process, by thread id. */
function threadCpu() {
  const out = new Map();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const s = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}
const early = new Set(threadCpu().keys());
let cpu0 = threadCpu();
/** Heap used at SIGUSR2: with no GC in the window, used now minus this is what was allocated. */
let heap0 = v8.getHeapStatistics().used_heap_size;

// BENCH_HEAP_PROF=DIR (bench/orders-ws.ts --heap-prof DIR): a sampling heap profile of the load,
// objects that scavenges and mark-compacts collected included, so it attributes the bytes
// allocated per order (not only what survives); written as DIR/heap-<pid>.heapprofile on SIGUSR1.
const heapDir = process.env.BENCH_HEAP_PROF;
const { Session } = heapDir ? await import('node:inspector') : {};
const heap = heapDir ? new Session() : undefined;
heap?.connect();
const post = (method, params) =>
  new Promise((res, rej) => heap.post(method, params, (e, r) => (e ? rej(e) : res(r))));

process.on('SIGUSR2', () => {
  if (heap)
    post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    }).catch((e) => process.stderr.write(`heap sampling: ${e.message}\n`));
  delay.reset();
  heap0 = v8.getHeapStatistics().used_heap_size;
  Object.assign(st, zeroed());
  cpu0 = threadCpu();
});
process.on('SIGUSR1', async () => {
  const cpu1 = threadCpu();
  const heapDelta = v8.getHeapStatistics().used_heap_size - heap0;
  if (heap) {
    const { profile } = await post('HeapProfiler.stopSampling', {});
    fs.mkdirSync(heapDir, { recursive: true });
    fs.writeFileSync(`${heapDir}/heap-${process.pid}.heapprofile`, JSON.stringify(profile));
  }
  let main = 0;
  let v8time = 0;
  let later = 0;
  let largestLater = 0;
  for (const [tid, ms] of cpu1) {
    const d = ms - (cpu0.get(tid) ?? 0);
    if (tid === String(process.pid)) main += d;
    else if (early.has(tid)) v8time += d;
    else {
      later += d;
      if (d > largestLater) largestLater = d;
    }
  }
  const s = [...st.syncMs].sort((a, b) => a - b);
  const q = (p) => (s.length ? s[Math.min(s.length - 1, Math.floor(s.length * p))] : Number.NaN);
  const report = {
    loopDelayMs: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
    gc: {
      count: st.gcN,
      ms: st.gcMs,
      maxMs: st.gcMax,
      minor: { count: st.gcMinorN, ms: st.gcMinorMs },
      major: { count: st.gcMajorN, ms: st.gcMajorMs },
    },
    fdatasync: { count: s.length, p50: q(0.5), p99: q(0.99), max: q(1) },
    writes: st.writes,
    writeBytes: st.writeBytes,
    cpuMs: { main, startThreads: v8time, laterThreads: later, largestLaterThread: largestLater },
    heapDelta,
  };
  process.stdout.write(`DIAG ${JSON.stringify(report)}\n`);
  // a forked server (bench/lib/app-child.mjs, whose stdout is not read) gets it over IPC as well
  process.send?.({ kind: 'diag', report });
});
