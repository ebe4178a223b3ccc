// Wires the stream to the running exchange: frames built right after each accepted command is
// applied, released when the command is reported durable, and the dead-man switch submitting
// through the writer. The source is either the embedded process's runtime (ExchangeRuntime.onApplied,
// Sequencer.onCommitted) or a PostgreSQL process's state feed, which is the same in both roles:
// a replica's apply loop (applied == committed there) or the leader's runtime, re-wired at
// promotion so the hub keeps its connections and its sequence numbers (docs/cluster.md "Streams").

import type { ClusterNode } from '../cluster/node.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { CommandResult } from '../exchange/types.ts';
import type { ApplyListener } from '../runtime/apply-tap.ts';
import type { CommandInput } from '../runtime/exchange-port.ts';
import type { ExchangeRuntime } from '../runtime/exchange-runtime.ts';
import { type DeadmanDeps, type DeadmanPersistence, DeadmanSwitch } from './deadman.ts';
import { commandFrames } from './frames.ts';
import { type HubOptions, StreamHub } from './hub.ts';

/** Where the hub's frames come from. */
export interface StreamSource {
  /** The state frames and snapshots are read from (the state the REST reads answer from). */
  reader(): ExchangeReader;
  /** Journal seq up to which everything is durable now (the hub starts there). */
  readonly committedSeq: number;
  onApplied(l: ApplyListener): () => void;
  onCommitted(l: (lastSeq: number) => void): () => void;
  /** The state was rebuilt from the store (docs/cluster.md "When PostgreSQL goes away"). */
  onRewind?(l: (seq: number, continuous: boolean) => void): () => void;
}

/** Where the dead-man switch sends its CancelOrders. */
export interface DeadmanTarget {
  submit(cmd: CommandInput): Promise<CommandResult>;
  /** Journal seq of the last applied command (read right after submit applied ours). */
  appliedSeq(): number;
}

export interface Stream {
  hub: StreamHub;
  deadman: DeadmanSwitch;
  close(): void;
}

/**
 * A PostgreSQL process (leader or replica) as a stream source and dead-man target: its state feed,
 * and its leader's sequencer while it leads (a replica's edge forwards commands; see `remote`).
 */
export function nodeSource(node: ClusterNode): StreamSource & DeadmanTarget {
  return {
    reader: () => node.reader(),
    get committedSeq() {
      return node.feed.committedSeq;
    },
    onApplied: (l) => node.feed.onApplied(l),
    onCommitted: (l) => node.feed.onCommitted(l),
    onRewind: (l) => node.feed.onRewind(l),
    submit: (cmd) => node.submit(cmd),
    appliedSeq: () => node.leaderRuntime?.sequencer.appliedSeq ?? node.seq,
  };
}

/** The embedded (single-process) runtime as a stream source and dead-man target. */
export function runtimeSource(
  runtime: Pick<ExchangeRuntime, 'onApplied' | 'sequencer' | 'reader' | 'submit'>,
): StreamSource & DeadmanTarget {
  return {
    reader: () => runtime.reader(),
    get committedSeq() {
      return runtime.sequencer.committedSeq;
    },
    onApplied: (l) => runtime.onApplied(l),
    onCommitted: (l) => runtime.sequencer.onCommitted((b) => l(b.lastSeq)),
    submit: (cmd) => runtime.submit(cmd),
    appliedSeq: () => runtime.sequencer.appliedSeq,
  };
}

export function createStream(
  source: StreamSource,
  target: DeadmanTarget,
  options: Omit<HubOptions, 'reader' | 'startSeq'> & {
    persist?: DeadmanPersistence;
    remote?: DeadmanDeps['remote'];
  } = {},
): Stream {
  const hub = new StreamHub({
    ...options,
    reader: () => source.reader(),
    startSeq: source.committedSeq,
  });
  const offApplied = source.onApplied((cmd, events, seq) => {
    hub.applied(commandFrames(source.reader(), cmd, events, seq, options.channels));
  });
  const offCommitted = source.onCommitted((seq) => hub.committed(seq));
  const offRewind = source.onRewind?.((seq, continuous) => hub.rewind(seq, continuous));
  const deadman = new DeadmanSwitch({
    submit: (cmd) => target.submit(cmd),
    appliedSeq: () => target.appliedSeq(),
    now: options.now,
    report: (accountId, frame) => hub.sendPrivate(accountId, frame),
    persist: options.persist,
    remote: options.remote,
  });
  return {
    hub,
    deadman,
    close() {
      offApplied();
      offCommitted();
      offRewind?.();
      deadman.close();
      hub.stop();
    },
  };
}
