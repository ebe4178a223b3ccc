// The feed of a process's state changes, whatever its role (docs/cluster.md "Streams"): every
// command applied to the state this process answers from, with its events, in seq order, and the
// seq up to which those commands are durable. A replica applies only committed commands, so it
// reports each page of the journal as durable right after applying it; a leader reports its
// runtime's applies and its sequencer's commits. The stream hub (src/stream/) is the consumer: it
// builds its frames from the applies and releases them at the commits, so one hub lives across
// promotions without a gap or a duplicate in its sequence numbers.

import type { ApplyListener } from '../runtime/apply-tap.ts';

/** The state was rebuilt at `seq`; `continuous`: every command up to `seq` was reported before. */
export type RewindListener = (seq: number, continuous: boolean) => void;

export class StateFeed {
  private readonly applied: ApplyListener[] = [];
  private readonly committed: ((seq: number) => void)[] = [];
  private readonly rewound: RewindListener[] = [];
  /** Highest seq reported applied. */
  appliedSeq: number;
  /** Highest seq reported durable. */
  committedSeq: number;

  constructor(
    seq: number,
    private readonly onError: (err: unknown) => void,
  ) {
    this.appliedSeq = seq;
    this.committedSeq = seq;
  }

  /** True when some consumer builds something from the applies (else the apply loop skips it). */
  get listening(): boolean {
    return this.applied.length > 0;
  }

  onApplied(l: ApplyListener): () => void {
    return add(this.applied, l);
  }

  onCommitted(l: (seq: number) => void): () => void {
    return add(this.committed, l);
  }

  onRewind(l: RewindListener): () => void {
    return add(this.rewound, l);
  }

  /** One command applied at `seq`. A seq already reported is ignored: no consumer sees it twice. */
  apply(...args: Parameters<ApplyListener>): void {
    const seq = args[2];
    if (seq <= this.appliedSeq) return;
    this.appliedSeq = seq;
    for (const l of this.applied) {
      try {
        l(...args);
      } catch (err) {
        // A consumer's bug must not stop the apply loop (the same rule as apply-tap.ts).
        this.onError(err);
      }
    }
  }

  /** Everything applied up to `seq` is durable. */
  commit(seq: number): void {
    if (seq <= this.committedSeq) return;
    this.committedSeq = seq;
    if (seq > this.appliedSeq) this.appliedSeq = seq;
    for (const l of this.committed) {
      try {
        l(seq);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  /**
   * The state was rebuilt from the store at `seq`. Continuous when `seq` is the durable seq
   * reported last: only applies that never became durable are void. Otherwise commands between
   * were never reported and consumers must start over at `seq`.
   */
  rewind(seq: number, continuous: boolean): void {
    this.appliedSeq = seq;
    this.committedSeq = seq;
    for (const l of this.rewound) {
      try {
        l(seq, continuous);
      } catch (err) {
        this.onError(err);
      }
    }
  }
}

function add<T>(list: T[], l: T): () => void {
  list.push(l);
  return () => {
    const i = list.indexOf(l);
    if (i >= 0) list.splice(i, 1);
  };
}
