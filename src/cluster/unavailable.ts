// The 503s a process answers commands with when it cannot write (docs/cluster.md "Writes go to the
// leader"): not the leader now, or the journal write failed with an unknown outcome.

import { ApiError } from '../errors.ts';
import { SequencerStoppedError } from '../journal/sequencer.ts';

export function notLeader(): ApiError {
  return new ApiError(
    'SERVICE_UNAVAILABLE',
    'This process is not the leader right now; retry (docs/cluster.md)',
    undefined,
    { 'retry-after': '1' },
  );
}

/** A command that could not be made durable answers 503 (outcome unknown, like a lost connection). */
export function unavailable(err: unknown): unknown {
  if (err instanceof SequencerStoppedError) {
    return new ApiError(
      'SERVICE_UNAVAILABLE',
      'The journal could not be written (the database is unreachable or this process lost the leadership); the command may or may not have been recorded: retry with the same clientOrderId',
      undefined,
      { 'retry-after': '1' },
    );
  }
  return err;
}
