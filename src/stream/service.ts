// Wires the stream to the running exchange: frames built right after each accepted command is
// applied (ExchangeRuntime.onApplied), released when the sequencer reports the commit
// (Sequencer.onCommitted), and the dead-man switch submitting through the same sequencer.

import type { ExchangeRuntime } from '../runtime/exchange-runtime.ts';
import { type DeadmanPersistence, DeadmanSwitch } from './deadman.ts';
import { commandFrames } from './frames.ts';
import { type HubOptions, StreamHub } from './hub.ts';

export interface Stream {
  hub: StreamHub;
  deadman: DeadmanSwitch;
  close(): void;
}

export function createStream(
  runtime: Pick<ExchangeRuntime, 'onApplied' | 'sequencer' | 'reader' | 'submit'>,
  options: Omit<HubOptions, 'reader' | 'startSeq'> & { persist?: DeadmanPersistence } = {},
): Stream {
  const hub = new StreamHub({
    ...options,
    reader: () => runtime.reader(),
    startSeq: runtime.sequencer.committedSeq,
  });
  const offApplied = runtime.onApplied((cmd, events, seq) => {
    hub.applied(commandFrames(runtime.reader(), cmd, events, seq));
  });
  const offCommitted = runtime.sequencer.onCommitted((b) => hub.committed(b.lastSeq));
  const deadman = new DeadmanSwitch({
    submit: (cmd) => runtime.submit(cmd),
    appliedSeq: () => runtime.sequencer.appliedSeq,
    now: options.now,
    report: (accountId, frame) => hub.sendPrivate(accountId, frame),
    persist: options.persist,
  });
  return {
    hub,
    deadman,
    close() {
      offApplied();
      offCommitted();
      deadman.close();
      hub.stop();
    },
  };
}
