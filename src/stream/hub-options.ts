// The stream hub's settings and their defaults (docs/stream.md: retention, replays and budgets,
// back-pressure, heartbeats). src/config.ts reads the ones an operator may set.

import type { ExchangeReader } from '../exchange/reader.ts';
import type { ChannelSpec } from './channel-types.ts';

export interface HubOptions {
  reader: () => ExchangeReader;
  /** Journal seq when the hub starts (everything up to it is durable). */
  startSeq: number;
  /** The channel table (channels.ts); tests add entries of their own. */
  channels?: readonly ChannelSpec[];
  now?: () => number;
  /** Per-connection send-buffer bound, bytes. */
  maxBufferBytes?: number;
  retainFrames?: number;
  retainMs?: number;
  privateRetainFrames?: number;
  heartbeatMs?: number;
  maxSubscriptions?: number;
  /** Bytes every log together may retain (docs/stream.md "Retention"). */
  retainBytes?: number;
  /** Replay budget of one signed-in connection, bytes per second. */
  replayBytesPerSec?: number;
  /** Replay budget of one connection of the public viewer credential, bytes per second. */
  publicReplayBytesPerSec?: number;
  /** Replay budget of all connections together, bytes per second. */
  globalReplayBytesPerSec?: number;
  /** Replay budget of all public-viewer connections together, bytes per second. */
  publicGlobalReplayBytesPerSec?: number;
  /**
   * A resume whose replay (with the connection's replays already under way) would take longer than
   * this at the connection's budget is answered as one beyond retention.
   */
  replayHorizonMs?: number;
  /** A replay the client does not read for this long is dropped with resync_required. */
  replayStallMs?: number;
  /** Bytes one replay sends per step of the pump. */
  replayChunkBytes?: number;
  /** Clock of the budgets and the stall bound (ms, monotonic); `now` stamps retention. */
  clock?: () => number;
  /** Runs the replay pump later: `soon` in the next turn, else after a short wait (tests drive it). */
  schedule?: (run: () => void, soon: boolean) => void;
  /** Called once per resync_required sent (metrics): `book` or the channel's name. */
  onResync?: (channel: string) => void;
}

export const STREAM_DEFAULTS = {
  maxBufferBytes: 1 << 20,
  retainFrames: 100_000,
  retainMs: 10 * 60_000,
  privateRetainFrames: 10_000,
  heartbeatMs: 5_000,
  maxSubscriptions: 256,
  retainBytes: 64 * 1_048_576,
  replayBytesPerSec: 4 * 1_048_576,
  publicReplayBytesPerSec: 256 * 1024,
  globalReplayBytesPerSec: 16 * 1_048_576,
  publicGlobalReplayBytesPerSec: 1_048_576,
  replayHorizonMs: 10_000,
  replayStallMs: 30_000,
  replayChunkBytes: 64 * 1024,
} as const;

export type HubLimits = { -readonly [K in keyof typeof STREAM_DEFAULTS]: number };

/** The options with every default filled in. */
export function hubLimits(o: HubOptions): HubLimits {
  const out = { ...STREAM_DEFAULTS } as HubLimits;
  for (const k of Object.keys(STREAM_DEFAULTS) as (keyof HubLimits)[]) {
    const v = o[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
