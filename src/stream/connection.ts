// One /tape client connection as the hub sees it (docs/stream.md): the socket it writes to, the
// principal it authenticated as, and its subscriptions. The hub (hub.ts) owns the channel indexes
// and decides what is sent; a connection only holds its own state and applies the buffer bound.

import type { Scope } from '../auth/scopes.ts';
import type { Currency, Id } from '../exchange/types.ts';
import type { ByteBudget } from './budget.ts';
import type { StreamHub } from './hub.ts';
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
  /** Catching up from the log (hub.ts "Replays"): live frames skip it until the replay ends. */
  replaying?: boolean;
}

/** A resume being sent from a log in chunks (hub.ts "Replays"). */
export interface Replay {
  conn: Connection;
  /** The book subscription, or the global channel, that catches up. */
  book: BookSub | undefined;
  channel: Global | undefined;
  /** Book key or channel: the key of `conn.replays`. */
  key: string;
  log: StreamLog;
  /** Last seq sent (book seq or journal seq): where a resync_required tells the client to resume. */
  cursor: number;
  /** When this replay last sent something (or began): a client that stops reading is dropped. */
  progressAt: number;
}

export type Global = 'tape' | 'lifecycle' | 'private';

/** One client connection's subscriptions. */
export class Connection {
  readonly books = new Map<string, BookSub>();
  tape = false;
  lifecycle = false;
  private_ = false;
  /** Last journal seq delivered per global channel (for heartbeats and resync). */
  readonly globalSeq: Record<Global, number> = { tape: 0, lifecycle: 0, private: 0 };
  /** Global channels still catching up from their log (live frames skip them meanwhile). */
  readonly catchingUp: Record<Global, boolean> = { tape: false, lifecycle: false, private: false };
  /** Replays in progress, by book key or channel. */
  readonly replays = new Map<string, Replay>();
  closed = false;

  constructor(
    readonly hub: StreamHub,
    readonly socket: StreamSocket,
    readonly principal: Principalish,
    /** This connection's replay budget (bytes per second). */
    readonly budget: ByteBudget,
  ) {}

  /** A client text frame. Never throws: bad input answers an error frame. */
  message(raw: string): void {
    this.hub.handle(this, raw);
  }

  /** The socket closed: forget every subscription. */
  close(): void {
    this.hub.disconnect(this);
  }

  /** Sends regardless of the buffer (acks, errors, resync notices: small and bounded in count). */
  sendControl(frame: string): void {
    if (!this.closed) this.socket.send(frame);
  }

  /** Sends a data frame, or false when it would take the buffer past its bound. */
  trySend(frame: string, bound: number): boolean {
    if (this.closed) return true;
    if (this.socket.bufferedAmount + frame.length > bound) return false;
    this.socket.send(frame);
    return true;
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
