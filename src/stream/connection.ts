// One /tape client connection as the hub sees it (docs/stream.md): the socket it writes to, the
// principal it authenticated as, and its subscriptions. The hub (hub.ts) owns the channel indexes
// and decides what is sent; a connection only holds its own state and applies the buffer bound.

import type { Scope } from '../auth/scopes.ts';
import type { Currency, Id } from '../exchange/types.ts';
import type { StreamHub } from './hub.ts';

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
  closed = false;

  constructor(
    readonly hub: StreamHub,
    readonly socket: StreamSocket,
    readonly principal: Principalish,
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
}
