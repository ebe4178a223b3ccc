// A StreamSocket that records what the hub sends, for hub tests without a WebSocket server.
import type { StreamSocket } from '../../src/stream/hub.ts';

export class FakeSocket implements StreamSocket {
  sent: string[] = [];
  bufferedAmount = 0;
  /** The close code the hub gave, if it closed this socket. */
  closed: number | undefined;
  send(frame: string) {
    this.sent.push(frame);
  }
  close(code: number) {
    this.closed = code;
  }
  json() {
    return this.sent.map((s) => JSON.parse(s));
  }
  /** The frames of the given types, in the order they were sent. */
  frames(...types: string[]) {
    return this.json().filter((f) => types.includes(f.type));
  }
}
