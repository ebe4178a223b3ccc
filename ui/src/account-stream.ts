// The signed-in trader's own WebSocket to `GET /tape` (docs/stream.md): opened with the trader's
// token, so the server subscribes it to the account's `private` channel by itself; it carries the
// parlay frames the slip and "My parlays" follow (parlay-live.ts). One per sign-in, closed at
// sign-out. Market data stays on the pages' own sockets, whose token may be the viewer's.

import { useEffect, useState } from 'preact/hooks';
import { traderToken } from './api.ts';
import { type PrivateFrame, type PrivateStream, readPrivateFrame } from './parlay-live.ts';
import { signedIn } from './state.ts';
import { Store, useStore } from './store.ts';
import { STREAM_CHANNELS } from './stream-channels.ts';
import { TapeSocket } from './tape-socket.ts';

/** Sooner than the market sockets' 30 s: while it is down the parlay views poll. */
const RETRY_MS = 10_000;

export class AccountStream implements PrivateStream {
  private readonly socket: TapeSocket;
  private up = false;
  private readonly frames = new Set<(f: PrivateFrame) => void>();
  private readonly states = new Set<(up: boolean) => void>();

  constructor() {
    this.socket = new TapeSocket(
      (f) => {
        const p = readPrivateFrame(f);
        if (p === undefined) return;
        // The server dropped the subscription: subscribe again (from now; the views read REST).
        if (p.kind === 'resync') this.socket.resubscribe(STREAM_CHANNELS.private, false);
        for (const l of this.frames) l(p);
      },
      (up) => {
        this.up = up;
        for (const l of this.states) l(up);
      },
      RETRY_MS,
      traderToken,
    );
  }

  start(): void {
    // Automatic on connect; wanted too, so a resync's resubscribe has something to send.
    this.socket.want([STREAM_CHANNELS.private]);
    this.socket.start();
  }

  stop(): void {
    this.socket.stop();
  }

  listen(onFrame: (f: PrivateFrame) => void, onState: (up: boolean) => void): () => void {
    this.frames.add(onFrame);
    this.states.add(onState);
    onState(this.up);
    return () => {
      this.frames.delete(onFrame);
      this.states.delete(onState);
    };
  }
}

/** The current sign-in's stream, or undefined when signed out. */
export const accountStream = new Store<AccountStream | undefined>(undefined);

signedIn.subscribe((who) => {
  accountStream.get()?.stop();
  const s = who === undefined ? undefined : new AccountStream();
  s?.start();
  accountStream.set(s);
});

/** Whether the signed-in trader's stream is up now (false signed out), re-rendering on changes. */
export function useAccountStreamUp(): boolean {
  const stream = useStore(accountStream);
  const [up, setUp] = useState(false);
  useEffect(() => {
    if (stream === undefined) {
      setUp(false);
      return;
    }
    return stream.listen(
      () => {},
      (u) => setUp(u),
    );
  }, [stream]);
  return up;
}
