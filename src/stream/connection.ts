// One /tape client connection as the hub sees it (docs/stream.md): the socket it writes to, the
// principal it authenticated as, and its subscriptions. The hub (hub.ts) owns the channel indexes
// and decides what is sent; a connection only holds its own state and applies the buffer bound.
// It reaches the hub only through `ConnectionOwner`, declared here, so the two files do not import
// each other.

import type { Scope } from '../auth/scopes.ts';
import type { Currency, Id } from '../exchange/types.ts';
import type { ByteBudget } from './budget.ts';
import type { ChannelSpec } from './channel-types.ts';
import type { StreamLog } from './log.ts';

/** What the hub needs of a WebSocket. */
export interface StreamSocket {
  send(frame: string): void;
  /** Bytes accepted by send() and not yet handed to the kernel. */
  readonly bufferedAmount: number;
  close(code: number, reason: string): void;
}

export interface Principalish {
  accountId: Id | null;
  scopes: ReadonlySet<Scope>;
  /** The published viewer credential (src/http/ui-viewer.ts): anyone has it, so the strictest budgets. */
  public?: boolean;
}

export interface BookSub {
  conn: Connection;
  key: string;
  marketId: Id;
  currency: Currency;
  /** Last book seq delivered (or covered by the snapshot). */
  seq: number;
  /** A snapshot waiting for the commit of its seq. */
  held?: { seq: number; frame: string };
  /** Catching up from the log (replay.ts): live frames skip it until the replay ends. */
  replaying?: boolean;
}

/** A subscription to a channel of the table (channels.ts); positions are journal seqs. */
export interface ChannelSub {
  spec: ChannelSpec;
  /** Last journal seq delivered (for heartbeats and resync_required). */
  seq: number;
  /** Still catching up from its log (live frames skip it meanwhile). */
  catchingUp: boolean;
}

/** A resume being sent from a log in chunks (replay.ts). */
export interface Replay {
  conn: Connection;
  /** The book subscription, or the channel subscription, that catches up. */
  book: BookSub | undefined;
  channel: ChannelSub | undefined;
  /** Book key or channel name: the key of `conn.replays`. */
  key: string;
  log: StreamLog;
  /** Last seq sent (book seq or journal seq): where a resync_required tells the client to resume. */
  cursor: number;
  /** When this replay last sent something (or began): a client that stops reading is dropped. */
  progressAt: number;
}

/** What a connection asks of the hub that owns it. */
export interface ConnectionOwner {
  handle(c: Connection, raw: string): void;
  disconnect(c: Connection): void;
}

/** One client connection's subscriptions. */
export class Connection {
  readonly books = new Map<string, BookSub>();
  /** Channel name → its subscription. */
  readonly channels = new Map<string, ChannelSub>();
  /** Replays in progress, by book key or channel name. */
  readonly replays = new Map<string, Replay>();
  closed = false;

  constructor(
    private readonly owner: ConnectionOwner,
    readonly socket: StreamSocket,
    readonly principal: Principalish,
    /** This connection's replay budget (bytes per second). */
    readonly budget: ByteBudget,
  ) {}

  /** A client text frame. Never throws: bad input answers an error frame. */
  message(raw: string): void {
    this.owner.handle(this, raw);
  }

  /** The socket closed: forget every subscription. */
  close(): void {
    this.owner.disconnect(this);
  }

  /** Sends regardless of the buffer (acks, errors, resync notices: small and bounded in count). */
  sendControl(frame: string): void {
    if (!this.closed) this.socket.send(frame);
  }

  /**
   * Sends a command's frames all or none: false when they would take the buffer past its bound, so
   * a client never holds part of a seq it is told to resume after. A group larger than the bound
   * itself goes out when the buffer is empty (else it could never be sent).
   */
  trySendAll(frames: readonly string[], bound: number): boolean {
    if (this.closed) return true;
    const buffered = this.socket.bufferedAmount;
    if (frames.length === 1) {
      const f = frames[0]!;
      if (buffered > 0 && buffered + f.length > bound) return false;
      this.socket.send(f);
      return true;
    }
    if (buffered > 0) {
      let size = buffered;
      for (const f of frames) size += f.length;
      if (size > bound) return false;
    }
    for (const f of frames) this.socket.send(f);
    return true;
  }
}
