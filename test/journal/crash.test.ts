// Kill -9 durability test (principle 6 of docs/architecture.md "Principles", docs/journal.md). Five SIGKILL cycles of a
// child process running the sequencer with the real Exchange on a PGlite data directory; longer
// runs: `node --import tsx test/journal/crash-harness.ts 25`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCrashCycles } from './crash-harness.ts';

test('every acknowledged command survives SIGKILL and recovery equals a replay of the journal', {
  timeout: 600_000,
}, async () => {
  const rep = await runCrashCycles(5, undefined, (s) => console.log(s));
  assert.equal(rep.lost, 0, `acknowledged commands lost (seed ${rep.seed})`);
  assert.equal(rep.cycles.length, 5);
  assert.ok(rep.totalAcked > 0, 'the child acknowledged nothing: the test proved nothing');
  // The journal may hold more than was acknowledged (acks in flight when killed), never less.
  const maxAcked = Math.max(...rep.cycles.map((c) => c.maxAcked));
  assert.ok(rep.journalTail >= maxAcked);
  // Each restart recovered at least everything acknowledged before it (checked per cycle inside
  // the harness too) and the final recovery's snapshot+tail hash equals the journal-only hash.
});
