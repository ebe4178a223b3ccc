// One WebSocket to `GET /tape` for a page, with the set of channels the page wants kept
// subscribed across reconnects (docs/stream.md). The token travels as the `access_token` query
// parameter: a browser cannot set headers on an upgrade. A dropped socket is reopened after
// `retryMs`; `onState` tells the page whether the stream is up so it can fall back to polling.

import { marketDataToken } from './api.ts';

/** Well under the server's default of 100 client messages a second per connection. */
const MESSAGES_PER_SECOND = 40;

export class TapeSocket {
  private ws: WebSocket | undefined;
  private readonly wanted = new Set<string>();
  private readonly sent = new Set<string>();
  private retry: ReturnType<typeof setTimeout> | undefined;
  private paced: ReturnType<typeof setTimeout> | undefined;
  private outbox: string[] = [];
  private stopped = false;
  up = false;

  constructor(
    private readonly onFrame: (frame: unknown) => void,
    private readonly onState: (up: boolean) => void,
    private readonly retryMs = 30_000,
    /** The market-data token by default; the trader's for the account's private channel. */
    private readonly token: () => Promise<string | undefined> = marketDataToken,
  ) {}

  start(): void {
    if (typeof WebSocket !== 'undefined') void this.open();
    else this.onState(false);
  }

  stop(): void {
    this.stopped = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    if (this.paced !== undefined) clearTimeout(this.paced);
    this.ws?.close();
  }

  /** Make these the subscribed channels: new ones are subscribed, dropped ones unsubscribed. */
  want(channels: Iterable<string>): void {
    const next = new Set(channels);
    for (const ch of this.wanted) if (!next.has(ch)) this.drop(ch);
    for (const ch of next) this.wanted.add(ch);
    this.flush();
  }

  /**
   * Subscribe again, which brings the channel's snapshot anew: after `resync_required` (the server
   * already dropped it) or a gap the page saw itself (still subscribed: unsubscribe first).
   */
  resubscribe(channel: string, stillSubscribed: boolean): void {
    if (stillSubscribed && this.sent.has(channel)) this.send({ event: 'unsubscribe', data: channel });
    this.sent.delete(channel);
    this.flush();
  }

  private drop(ch: string): void {
    this.wanted.delete(ch);
    if (this.sent.delete(ch)) this.send({ event: 'unsubscribe', data: ch });
  }

  private flush(): void {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    for (const ch of this.wanted) {
      if (this.sent.has(ch)) continue;
      this.sent.add(ch);
      this.send({ event: 'subscribe', data: ch });
    }
  }

  private send(msg: unknown): void {
    this.outbox.push(JSON.stringify(msg));
    this.drain();
  }

  /**
   * At most MESSAGES_PER_SECOND client messages a second: the server closes a connection that
   * sends faster than its limit (docs/stream.md), and a board subscribes to a hundred channels.
   */
  private drain(): void {
    const ws = this.ws;
    if (ws?.readyState !== WebSocket.OPEN || this.paced !== undefined) return;
    for (let n = 0; n < MESSAGES_PER_SECOND && this.outbox.length > 0; n++) ws.send(this.outbox.shift()!);
    if (this.outbox.length === 0) return;
    this.paced = setTimeout(() => {
      this.paced = undefined;
      this.drain();
    }, 1000);
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    let token: string | undefined;
    try {
      token = await this.token();
    } catch {
      token = undefined;
    }
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${proto}//${location.host}/tape${token ? `?access_token=${encodeURIComponent(token)}` : ''}`;
    let ws: WebSocket;
    try {
      ws = new WebSocket(url);
    } catch {
      this.down();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      // A new connection has no subscriptions: whatever was queued for the old one is moot.
      this.outbox = [];
      this.sent.clear();
      this.up = true;
      this.onState(true);
      this.flush();
    };
    ws.onmessage = (msg) => {
      if (typeof msg.data !== 'string') return;
      let f: unknown;
      try {
        f = JSON.parse(msg.data);
      } catch {
        return;
      }
      this.onFrame(f);
    };
    ws.onclose = () => {
      if (this.ws === ws) this.ws = undefined;
      this.down();
    };
  }

  private down(): void {
    const was = this.up;
    this.up = false;
    if (this.stopped) return;
    if (was || this.retry === undefined) this.onState(false);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.open();
    }, this.retryMs);
  }
}
