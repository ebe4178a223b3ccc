// No silent gaps (docs/stream.md "Back-pressure", "Resume"): random interleavings of commands,
// commits, replay pump turns, clock steps, readers that stop and start reading, and resubscribes.
// Three clients follow the protocol (on resync_required, resubscribe at once with its fromSeq): one on the
// tape, one on a book, one on its private channel. Each must end with exactly the frames released
// for its channel, in order, with no gap and no duplicate, and every resync_required and heartbeat
// must name a position the client really reached (no frame of the channel between the client's
// last frame and the seq named).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Scope } from '../../src/auth/scopes.ts';
import type { Command } from '../../src/exchange/types.ts';
import type { Connection } from '../../src/stream/connection.ts';
import { type CommandFrames, commandFrames } from '../../src/stream/frames.ts';
import { StreamHub } from '../../src/stream/hub.ts';
import { bid, market, ok, setup, T0 } from '../exchange/fixtures.ts';
import { FakeSocket } from '../helpers/fake-socket.ts';

const MID = '0190a000-0000-7000-8000-000000000001';
const BOUND = 4096;

/** A frame of a channel as released: its position (journal seq, or book seq) and its text. */
interface Released {
  pos: number;
  frame: string;
}

type Kind = 'tape' | 'book' | 'private';

class ProtocolClient {
  readonly sock = new FakeSocket();
  conn!: Connection;
  private read = 0;
  /** The last position reached (every frame of the channel up to it received). */
  pos: number;
  got: string[] = [];
  resyncAt: number | undefined;

  constructor(
    readonly kind: Kind,
    start: number,
    private readonly truth: Released[],
  ) {
    this.pos = start;
  }

  /** Nothing of the channel was released in (pos, to]: naming `to` skips nothing. */
  private assertNoGap(to: number, what: string): void {
    assert.ok(to >= this.pos, `${this.kind}: ${what} ${to} is behind the client's ${this.pos}`);
    const skipped = this.truth.filter((r) => r.pos > this.pos && r.pos <= to);
    assert.equal(skipped.length, 0, `${this.kind}: ${what} ${to} skips frames after ${this.pos}`);
  }

  /** Reads what arrived since the last call, as a client following docs/stream.md would. */
  process(): void {
    for (; this.read < this.sock.sent.length; this.read++) {
      const raw = this.sock.sent[this.read]!;
      const f = JSON.parse(raw);
      const data = f.type !== undefined || ['place', 'fill', 'cancel'].includes(f.event);
      if (data) {
        const want = this.truth[this.got.length];
        assert.ok(want !== undefined, `${this.kind}: a frame beyond what was released: ${raw}`);
        assert.equal(raw, want.frame, `${this.kind}: frame ${this.got.length} out of order or duplicated`);
        this.got.push(raw);
        this.pos = want.pos;
      } else if (f.event === 'resync_required') {
        assert.equal(this.resyncAt, undefined, 'a second resync without a resubscribe');
        this.assertNoGap(f.data.fromSeq, 'resync_required');
        this.pos = f.data.fromSeq;
        this.resyncAt = f.data.fromSeq;
      } else if (f.event === 'heartbeat') {
        this.assertNoGap(f.data.seq ?? f.data.journalSeq, 'heartbeat');
      } else if (f.event === 'subscribed') {
        assert.notEqual(f.data.reset, true, `${this.kind}: reset within retention`);
      } else if (f.event === 'book') {
        assert.equal(f.data.reset, false, 'book: a reset snapshot within retention');
      } else assert.fail(`unexpected frame ${raw}`);
    }
  }

  resubscribe(): void {
    if (this.resyncAt === undefined) return;
    const data = this.kind === 'book' ? MID : this.kind;
    this.resyncAt = undefined;
    this.conn.message(JSON.stringify({ event: 'subscribe', data, fromSeq: this.pos }));
  }
}

const action = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ op: fc.constant('place' as const), price: fc.integer({ min: 380, max: 420 }) }),
  },
  { weight: 4, arbitrary: fc.constant({ op: 'commit' as const }) },
  { weight: 3, arbitrary: fc.constant({ op: 'pump' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('time' as const), ms: fc.integer({ min: 1, max: 1500 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('buffer' as const),
      client: fc.integer({ min: 0, max: 2 }),
      bytes: fc.constantFrom(0, BOUND - 400, BOUND),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ op: 'heartbeat' as const }) },
);

type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

function run(actions: Action[]): void {
  const x = setup();
  ok(x.apply({ type: 'AddMarkets', ts: T0, eventId: 'E1', markets: [market(MID)] } as Command));
  let clock = 0;
  let pump: (() => void) | undefined;
  const hub = new StreamHub({
    reader: () => x,
    startSeq: x.lastSeq,
    now: () => T0,
    clock: () => clock,
    schedule: (f) => {
      pump = f;
    },
    maxBufferBytes: BOUND,
    replayChunkBytes: 600,
    replayBytesPerSec: 1000,
    globalReplayBytesPerSec: 1500,
    replayHorizonMs: 1e9,
    replayStallMs: 2000,
  });
  const truth: Record<Kind, Released[]> = { tape: [], book: [], private: [] };
  const pending: CommandFrames[] = [];
  const start = x.lastSeq;
  const clients = [
    new ProtocolClient('tape', start, truth.tape),
    new ProtocolClient('book', 0, truth.book),
    new ProtocolClient('private', start, truth.private),
  ];
  const scopes = (s: Scope[]) => new Set(s);
  const [tape, book, priv] = clients as [ProtocolClient, ProtocolClient, ProtocolClient];
  tape.conn = hub.connect(tape.sock, { accountId: null, scopes: scopes(['read:tape']) });
  tape.conn.message(JSON.stringify({ event: 'subscribe', data: 'tape' }));
  book.conn = hub.connect(book.sock, { accountId: null, scopes: scopes(['read:tape']) });
  book.conn.message(JSON.stringify({ event: 'subscribe', data: MID }));
  priv.conn = hub.connect(priv.sock, { accountId: 'alice', scopes: scopes(['read:trader']) });
  const commit = () => {
    hub.committed(x.lastSeq);
    for (const f of pending.splice(0)) {
      for (const g of f.books) {
        for (const fr of g.frames) {
          truth.tape.push({ pos: f.journalSeq, frame: fr });
          truth.book.push({ pos: g.seq, frame: fr });
        }
      }
      for (const fr of (f.channels.get('private') as Map<string, string[]> | undefined)?.get('alice') ?? [])
        truth.private.push({ pos: f.journalSeq, frame: fr });
    }
  };
  // A client resubscribes as soon as it reads resync_required.
  const step = () => {
    for (const c of clients) {
      c.process();
      c.resubscribe();
      c.process();
    }
  };
  let n = 0;
  for (const a of actions) {
    if (a.op === 'place') {
      const c = bid(n++ % 2 === 0 ? 'alice' : 'bob', `${MID}-${a.price % 2 === 0 ? 'a' : 'b'}`, a.price, 10);
      const r = x.apply(c);
      if (r.ok) {
        const f = commandFrames(x, c, r.events, x.lastSeq);
        pending.push(f);
        hub.applied(f);
      }
    } else if (a.op === 'commit') commit();
    else if (a.op === 'pump') {
      const p = pump;
      pump = undefined;
      p?.();
    } else if (a.op === 'time') clock += a.ms;
    else if (a.op === 'buffer') clients[a.client]!.sock.bufferedAmount = a.bytes;
    else hub.heartbeat();
    step();
  }
  // Everyone reads again; resubscribe and pump until nothing is left to send.
  commit();
  for (const c of clients) c.sock.bufferedAmount = 0;
  step();
  for (let i = 0; i < 10_000 && (pump !== undefined || clients.some((c) => c.resyncAt !== undefined)); i++) {
    step();
    for (const c of clients) c.resubscribe();
    const p = pump;
    pump = undefined;
    clock += 1000;
    p?.();
    step();
  }
  step();
  assert.equal(hub.replaysInFlight, 0, 'replays left over');
  for (const c of clients) {
    assert.equal(c.got.length, truth[c.kind].length, `${c.kind}: frames received`);
    assert.deepEqual(
      c.got,
      truth[c.kind].map((r) => r.frame),
    );
  }
}

describe('stream hub: no silent gaps (property)', () => {
  test('protocol-following clients end with exactly the frames released, in order', () => {
    fc.assert(
      fc.property(fc.array(action, { minLength: 1, maxLength: 160, size: 'max' }), (actions) => run(actions)),
      { numRuns: 400 },
    );
  });
});
