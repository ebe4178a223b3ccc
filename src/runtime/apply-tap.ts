// A state machine wrapper that reports every accepted command right after the engine applied it,
// with the state exactly as that command left it. The stream (src/stream/) builds its frames here,
// so a tick describes its own command's state, not a later one's; the frames are then held until
// the sequencer reports the command durable (docs/stream.md).

import type { Exchange } from '../exchange/exchange.ts';
import type { Command, CommandResult, StateMachine } from '../exchange/types.ts';

export type ApplyListener = (
  cmd: Command,
  events: Extract<CommandResult, { ok: true }>['events'],
  seq: number,
) => void;

export interface TappedMachine extends StateMachine<Command, CommandResult> {
  readonly lastSeq: number;
}

/**
 * Wraps the exchange. A listener's error is passed to `onError` and never reaches the sequencer:
 * a throwing apply would stop it (fail-stop), and a read model's bug must not stop the writer.
 */
export function tapMachine(
  exchange: Exchange,
  listeners: readonly ApplyListener[],
  onError: (err: unknown) => void,
): TappedMachine {
  return {
    apply(cmd: Command): CommandResult {
      const r = exchange.apply(cmd);
      if (r.ok && listeners.length > 0) {
        const seq = exchange.lastSeq;
        for (const l of listeners) {
          try {
            l(cmd, r.events, seq);
          } catch (err) {
            onError(err);
          }
        }
      }
      return r;
    },
    hash: () => exchange.hash(),
    snapshot: () => exchange.snapshot(),
    snapshotSlices: () => exchange.snapshotSlices(),
    restore: (s: Uint8Array) => exchange.restore(s),
    get lastSeq() {
      return exchange.lastSeq;
    },
  };
}
