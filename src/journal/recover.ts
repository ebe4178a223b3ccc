// Start-up recovery (principle 2 of docs/architecture.md "Principles"): newest usable snapshot + replay of the journal
// tail. The journal is the source of truth; a snapshot is only a shortcut, so a snapshot that
// fails to restore or whose hash disagrees is skipped (the older one, or a full replay, is used)
// rather than trusted. A journaled command that the machine rejects on replay, or a gap in the
// sequence numbers, means determinism is broken: recovery throws instead of serving a state that
// differs from the one the acknowledged commands produced.

import type { StateMachine } from '../exchange/types.ts';
import type { Store } from '../store/types.ts';
import { type JournalBackend, SqlJournal } from './backend.ts';

export interface RecoverOptions<R, C = unknown> {
  /** Journal rows fetched per query. */
  pageSize?: number;
  /** When given, every replayed command must be accepted (it was, when journaled). */
  isAccepted?: (r: R) => boolean;
  /** Ignore snapshots and replay the whole journal (tests, audits). */
  fromScratch?: boolean;
  /** Stop after this seq (point-in-time state; replicas, tests). */
  toSeq?: number;
  /** Read the journal and snapshots from here instead of the store's tables. */
  journal?: JournalBackend;
  /**
   * Use no snapshot newer than this seq: a projection that is behind (the history projector's
   * watermark) needs the results of the commands after it, which only a replay produces.
   */
  maxSnapshotSeq?: number;
  /** Called with every replayed command and its result, in seq order. */
  onReplay?: (seq: number, cmd: C, result: R) => void;
  /**
   * Called once, before the first replayed command with seq ≥ `seq` is applied: the runtime
   * replays what its projection already holds without events and turns them on here.
   */
  atSeq?: { seq: number; run: () => void };
}

export interface RecoveryResult<M> {
  machine: M;
  /** Seq of the last replayed (or snapshotted) command: pass to the Sequencer as lastSeq. */
  lastSeq: number;
  /** ts of that command: pass to the Sequencer as lastTs. */
  lastTs: number;
  /** Seq of the snapshot restored, 0 when none. */
  snapshotSeq: number;
  /** Snapshots skipped because they failed to restore or verify (with the reason). */
  skippedSnapshots: { seq: number; reason: string }[];
  replayed: number;
  snapshotLoadMs: number;
  replayMs: number;
}

export class RecoveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecoveryError';
  }
}

export async function recover<C extends { ts: number }, R, M extends StateMachine<C, R>>(
  store: Store,
  machineFactory: () => M,
  options: RecoverOptions<R, C> = {},
): Promise<RecoveryResult<M>> {
  const pageSize = options.pageSize ?? 10_000;
  const toSeq = options.toSeq;
  const journal = options.journal ?? new SqlJournal(store);
  const snapshotCap = Math.min(
    toSeq ?? Number.MAX_SAFE_INTEGER,
    options.maxSnapshotSeq ?? Number.MAX_SAFE_INTEGER,
  );
  let machine = machineFactory();
  let snapshotSeq = 0;
  const skippedSnapshots: { seq: number; reason: string }[] = [];

  const t0 = performance.now();
  if (options.fromScratch !== true) {
    for (const s of await journal.listSnapshots()) {
      if (s.seq > snapshotCap) continue;
      const row = await journal.readSnapshot(s.seq);
      if (row === undefined) continue; // pruned meanwhile
      try {
        machine.restore(row.state);
        const h = machine.hash();
        if (h !== row.hash) throw new Error(`hash ${h} after restore, ${row.hash} stored`);
        snapshotSeq = row.seq;
        break;
      } catch (err) {
        skippedSnapshots.push({ seq: row.seq, reason: err instanceof Error ? err.message : String(err) });
        machine = machineFactory(); // a failed restore may have left part of a state behind
      }
    }
  }
  const snapshotLoadMs = performance.now() - t0;

  const t1 = performance.now();
  let lastSeq = snapshotSeq;
  let lastTs = 0;
  let replayed = 0;
  let atSeq = options.atSeq;
  for (;;) {
    const rows = await journal.read<C>(lastSeq, pageSize, toSeq);
    for (const row of rows) {
      if (row.seq !== lastSeq + 1) {
        throw new RecoveryError(`journal gap: seq ${row.seq} follows ${lastSeq}`);
      }
      if (atSeq !== undefined && row.seq >= atSeq.seq) {
        atSeq.run();
        atSeq = undefined;
      }
      const r = machine.apply(row.cmd);
      if (options.isAccepted !== undefined && !options.isAccepted(r)) {
        throw new RecoveryError(
          `journaled command seq ${row.seq} (${describe(row.cmd)}) was rejected on replay: the state machine is not deterministic`,
        );
      }
      options.onReplay?.(row.seq, row.cmd, r);
      lastSeq = row.seq;
      lastTs = row.ts;
      replayed++;
    }
    if (rows.length < pageSize) break;
  }
  const replayMs = performance.now() - t1;

  if (replayed === 0 && snapshotSeq > 0) {
    // Nothing after the snapshot: the Sequencer still needs the ts floor of its last command,
    // and that command must exist (a snapshot is written only after its commands committed).
    const rows = await journal.read<C>(snapshotSeq - 1, 1, snapshotSeq);
    if (rows.length === 0) throw new RecoveryError(`snapshot at seq ${snapshotSeq} is ahead of the journal`);
    lastTs = rows[0]!.ts;
  }
  return { machine, lastSeq, lastTs, snapshotSeq, skippedSnapshots, replayed, snapshotLoadMs, replayMs };
}

function describe(cmd: unknown): string {
  const t = (cmd as { type?: unknown }).type;
  return typeof t === 'string' ? t : 'command';
}
