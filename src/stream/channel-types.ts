// What a /tape channel is (docs/stream.md "Channels"): the shape of one entry of the channel table
// (channels.ts) and of the frames one command produces for the books and for each channel. Kept
// apart from the table so the frame builders (frames.ts) and the hub read the types without
// importing the table that imports them.

import type { Scope } from '../auth/scopes.ts';
import type { ExchangeReader } from '../exchange/reader.ts';
import type { Command, Currency, DomainEvent, Id } from '../exchange/types.ts';
import type { Frames } from './lazy-frames.ts';

/** One book's (market × currency) ticks of one command. */
export interface BookGroup {
  key: string;
  marketId: Id;
  currency: Currency;
  /** Book seq after the command. */
  seq: number;
  /** Its ticks, serialized when first read (lazy-frames.ts). */
  frames: Frames;
}

/** What a channel's frame builder reads: the applied command, its events, and its book ticks. */
export interface FrameInput {
  /** The state right after this command was applied. */
  reader: ExchangeReader;
  cmd: Command;
  events: readonly DomainEvent[];
  journalSeq: number;
  /** The command's book ticks, already built (the `tape` channel carries them again). */
  books: readonly BookGroup[];
}

/**
 * The frames of one command for one channel: one list, or one list per account. A builder may
 * return them serialized or as LazyFrames (serialized when first read, lazy-frames.ts).
 */
export type ChannelFrames = Frames | Map<Id, Frames>;

export interface CommandFrames {
  journalSeq: number;
  ts: number;
  books: BookGroup[];
  /** Channel name → its frames (channels the command sends nothing on are absent). */
  channels: Map<string, ChannelFrames>;
}

/** Which retention bound of the hub's options holds a channel's log (docs/stream.md "Retention"). */
export type ChannelRetention = 'retainFrames' | 'privateRetainFrames';

interface ChannelBase {
  /** The name a client subscribes with. */
  name: string;
  /** What arrives on it, in a line (the AsyncAPI document and docs/stream.md say the same). */
  summary: string;
  /** The scope a token needs to subscribe. */
  scope: Scope;
  /** The refusal a token without `scope` gets. */
  scopeMessage: string;
  /** Frames per log kept for resume (the age and byte budget are shared by every log). */
  retention: ChannelRetention;
  /**
   * Released before the command's book ticks (lifecycle: a go-live's EVENT_GOLIVE precedes its
   * drain's CANCEL ticks); the others after them, in table order.
   */
  beforeBooks?: boolean;
  /** AsyncAPI message names (message-schemas.ts) of the frames this channel carries. */
  messages: readonly string[];
}

/** A channel every subscriber reads alike, one log, positions in journal seqs. */
export interface SharedChannel extends ChannelBase {
  kind: 'shared';
  build(x: FrameInput): Frames | undefined;
}

/**
 * A channel of one account's own events: a log per account; a connection receives its principal's.
 * `automatic`: every connection whose token has the scope and an account is subscribed at connect
 * (and it does not count against the subscription bound).
 */
export interface AccountChannel extends ChannelBase {
  kind: 'account';
  automatic: boolean;
  build(x: FrameInput): Map<Id, Frames> | undefined;
}

export type ChannelSpec = SharedChannel | AccountChannel;

/** Whether a subscription to this channel counts against the per-connection bound. */
export const counted = (ch: ChannelSpec): boolean => ch.kind === 'shared' || !ch.automatic;
