// The body of the snapshot thread (src/journal/shadow-snapshots.ts has the protocol; docs/journal.md
// "Snapshots: a shadow state on a worker thread"). It holds a second Exchange in replay mode (no
// events: the same state, the same bytes, as recovery's replay) and applies the durably committed
// commands it is sent, in seq order; asked for a snapshot it serializes the state in one go (no
// one waits on this thread's event loop) and hashes it here, off the server's thread.
//
// Any disagreement with the journal — a gap in the seqs, a journaled command the engine rejects, a
// throw — means this state is not the journal's: it says so and exits, and the sequencer goes back
// to snapshots in line. It never answers with a state it cannot vouch for.

import { createHash } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { Exchange } from '../exchange/exchange.ts';
import type { Command } from '../exchange/types.ts';
import type { ShadowReply, ShadowRequest } from '../journal/shadow-snapshots.ts';

const port = parentPort;
if (port === null) throw new Error('snapshot-worker.ts runs on a worker thread');

// This thread runs at a lower priority than the server's: a serialization is hundreds of ms of CPU
// at once, and on a busy machine the scheduler would otherwise take the server's thread off its
// core for tens of ms to run it (docs/bench-snapshots.md). On Linux a thread has an id of its own
// whose nice value is its own; elsewhere (no /proc/thread-self) it keeps the process's.
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, 10);
} catch {
  // not Linux, or not allowed: the same priority as the server's thread
}

let exchange = new Exchange({ events: false });
/** Set once this state disagreed with the journal: nothing more is applied or answered. */
let broken = false;

class Broken extends Error {}

function failed(message: string): never {
  throw new Broken(message);
}

function handle(m: ShadowRequest): void {
  if (m.op === 'seed') {
    exchange = new Exchange({ events: false });
    exchange.restore(m.bytes);
    if (exchange.lastSeq !== m.seq) failed(`seed bytes are at seq ${exchange.lastSeq}, not ${m.seq}`);
    return;
  }
  if (m.op === 'apply') {
    const cmds = JSON.parse(m.json) as Command[];
    for (let i = 0; i < cmds.length; i++) {
      const seq = m.firstSeq + i;
      if (seq <= exchange.lastSeq) continue; // already in the seed
      if (seq !== exchange.lastSeq + 1) failed(`journal gap: seq ${seq} follows ${exchange.lastSeq}`);
      const r = exchange.apply(cmds[i]!);
      if (!r.ok) failed(`journaled command seq ${seq} (${cmds[i]!.type}) was rejected: ${r.code}`);
    }
    return;
  }
  const t0 = performance.now();
  const bytes = exchange.snapshot();
  const hash = createHash('sha256').update(bytes).digest('hex');
  const reply: ShadowReply = {
    op: 'snapshot',
    id: m.id,
    seq: exchange.lastSeq,
    hash,
    bytes,
    ms: performance.now() - t0,
  };
  // Moved, not copied: a copy of a view clones its whole buffer, the writer's margin included. The
  // writer's buffer is its own once larger than Node's shared pool of small Buffers (never moved).
  const own = bytes.buffer.byteLength > Buffer.poolSize;
  port!.postMessage(reply, own ? [bytes.buffer as ArrayBuffer] : []);
}

port.on('message', (m: ShadowRequest) => {
  if (broken) return;
  try {
    handle(m);
  } catch (err) {
    broken = true;
    // The server's side ends this thread when it reads this (src/journal/shadow-snapshots.ts).
    const message =
      err instanceof Broken
        ? err.message
        : err instanceof Error
          ? `${err.name}: ${err.message}`
          : String(err);
    port.postMessage({ op: 'failed', message } satisfies ShadowReply);
  }
});
