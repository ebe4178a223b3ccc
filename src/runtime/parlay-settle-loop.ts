// The chunks of a parlay settlement, issued back to back (docs/parlays.md "Settlement in chunks").
// A market that many open parlays share settles in one SettleMarket that advances at most a chunk
// of them; the rest are due. This loop submits one SettleParlays per turn of the event loop
// (setImmediate: after the poll phase, so requests that arrived meanwhile are served between two
// chunks) until none is due. Like the scheduler it runs only where commands are issued (the
// embedded process, the cluster's leader); replicas apply the journaled chunks.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { CommandInput, CommandResult } from '../exchange/types.ts';
import { parlaySettleCommands } from './scheduler.ts';

export interface SettleLoopPort {
  reader(): ExchangeReader;
  submit(cmd: CommandInput): Promise<CommandResult>;
}

export class ParlaySettleLoop {
  private next: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(
    private readonly port: SettleLoopPort,
    readonly chunk: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** True while a chunk is scheduled: the settlement goes on. */
  get settling(): boolean {
    return this.next !== undefined;
  }

  /** Schedules the next chunk when parlays are due and none is scheduled. */
  kick(): void {
    if (this.next !== undefined || this.stopped) return;
    if (this.port.reader().parlaySettlementsDue().length === 0) return;
    this.next = setImmediate(() => this.step());
  }

  stop(): void {
    this.stopped = true;
    if (this.next !== undefined) clearImmediate(this.next);
    this.next = undefined;
  }

  private step(): void {
    this.next = undefined;
    const [cmd] = parlaySettleCommands(this.port.reader(), this.chunk);
    if (cmd === undefined) return;
    const before = this.port.reader().lastSeq;
    // The sequencer applies the command now and resolves once it is durable; the next chunk does
    // not wait for that (commits batch chunks like any other commands).
    this.port.submit(cmd).then(
      (r) => {
        if (!r.ok) this.onError(new Error(`SettleParlays rejected: ${r.code} ${r.message}`));
      },
      (err: unknown) => this.onError(err),
    );
    // Applied (the state moved): go on. Not applied (held during a snapshot's serialization,
    // stopped): the apply listener kicks again when it applies, the scheduler's tick otherwise.
    if (this.port.reader().lastSeq !== before) this.kick();
  }
}
