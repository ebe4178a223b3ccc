// A `/trade` client for tests (docs/order-entry.md): requests with generated ids, answers matched
// by id, and raw frames for the bad-input cases (whose answers may carry no id).

import { WebSocket } from 'ws';

// biome-ignore lint/suspicious/noExplicitAny: frames are arbitrary JSON, checked field by field
export type Frame = any;

export class TradeClient {
  readonly frames: Frame[] = [];
  private readonly byId = new Map<string | number, (f: Frame) => void>();
  private readonly anon: ((f: Frame) => void)[] = [];
  private n = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString());
      this.frames.push(f);
      const w = f.id !== null && f.id !== undefined ? this.byId.get(f.id) : undefined;
      if (w) {
        this.byId.delete(f.id);
        w(f);
      } else this.anon.shift()?.(f);
    });
  }

  static open(url: string, token?: string): Promise<TradeClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      ws.once('open', () => resolve(new TradeClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () =>
          reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body })),
        );
      });
      ws.once('error', reject);
    });
  }

  /** Sends `{type, id, data}` and resolves with the frame answering that id. */
  request(type: string, data?: unknown, id: string | number = `r${++this.n}`): Promise<Frame> {
    const p = this.answer(id);
    this.ws.send(JSON.stringify(data === undefined ? { type, id } : { type, id, data }));
    return p;
  }

  /** The frame that will answer `id`. */
  answer(id: string | number, timeoutMs = 10_000): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer to ${id}`)), timeoutMs);
      this.byId.set(id, (f) => {
        clearTimeout(t);
        resolve(f);
      });
    });
  }

  /** Sends raw text (or bytes) and resolves with the next frame that answers no waiting id. */
  raw(data: string | Buffer): Promise<Frame> {
    const p = new Promise<Frame>((resolve) => this.anon.push(resolve));
    this.ws.send(data);
    return p;
  }

  close(): void {
    this.ws.close();
  }
}
