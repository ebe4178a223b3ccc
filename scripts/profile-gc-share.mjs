// The share of a V8 CPU profile's samples (node --cpu-prof: the main thread) spent in the garbage
// collector, per profile file given, in the order given.
//
//   node scripts/profile-gc-share.mjs DIR/*.cpuprofile
import { readFileSync } from 'node:fs';

for (const file of process.argv.slice(2)) {
  const p = JSON.parse(readFileSync(file, 'utf8'));
  const gcIds = new Set(
    p.nodes.filter((n) => n.callFrame.functionName === '(garbage collector)').map((n) => n.id),
  );
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let gc = 0;
  let busy = 0;
  let all = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    all += dt;
    if (idle.has(p.samples[i])) continue;
    busy += dt;
    if (gcIds.has(p.samples[i])) gc += dt;
  }
  console.log(
    `${file}\tGC ${((100 * gc) / busy).toFixed(1)} % of non-idle samples (${(gc / 1e6).toFixed(2)} of ${(busy / 1e6).toFixed(2)} s; ${((100 * gc) / all).toFixed(1)} % of all samples)`,
  );
}
