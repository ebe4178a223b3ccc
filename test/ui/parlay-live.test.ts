// The parlay views kept current from the private stream (ui/src/parlay-live.ts): quotes and parlays
// applied from frames with no read; a read only when frames were lost (the stream came up again,
// `resync_required` on private) or while the stream is down; frames arriving during a read applied on
// top of its answer; an older state of a parlay never replacing a newer one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ParlayWire, RequestWire } from '../../ui/src/parlay-bet.ts';
import {
  Follow,
  ParlaysWatch,
  type PrivateFrame,
  type PrivateStream,
  progress,
  RequestWatch,
  readPrivateFrame,
  withParlay,
  withQuote,
} from '../../ui/src/parlay-live.ts';

const T0 = Date.parse('2026-11-26T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function request(over: Partial<RequestWire> = {}): RequestWire {
  return {
    id: 'req-1',
    status: 'Unfilled',
    price: '0.25',
    unboostedPrice: '0.25',
    expiresAt: iso(T0 + 5000),
    stake: 10,
    quotes: [],
    wager: null,
    ...over,
  };
}

const quoteFrame = (id: string, price: number, requestId = 'req-1') => ({
  event: 'parlayQuote',
  data: { id, requestId, price, maxQty: 50_000, createdAt: iso(T0 + 100), expiresAt: iso(T0 + 4000) },
  journalSeq: 41,
});

function parlay(id: string, over: Partial<ParlayWire> = {}): ParlayWire {
  return {
    id,
    requestId: `r-${id}`,
    role: 'TAKER',
    currency: 'CASH',
    price: 0.25,
    qty: 1000,
    stake: 2.5,
    fee: 0.02,
    status: 'OPEN',
    payout: null,
    legs: [
      { outcomeId: 'o-1', price: 0.5, status: 'TBD' },
      { outcomeId: 'o-2', price: 0.5, status: 'TBD' },
    ],
    createdAt: iso(T0),
    ...over,
  };
}

/** A stream the test drives: frames and state changes, as account-stream.ts delivers them. */
class FakeStream implements PrivateStream {
  up = true;
  private f = new Set<(f: PrivateFrame) => void>();
  private s = new Set<(up: boolean) => void>();
  listen(onFrame: (f: PrivateFrame) => void, onState: (up: boolean) => void) {
    this.f.add(onFrame);
    this.s.add(onState);
    onState(this.up);
    return () => {
      this.f.delete(onFrame);
      this.s.delete(onState);
    };
  }
  send(raw: unknown): void {
    const p = readPrivateFrame(raw);
    if (p !== undefined) for (const l of this.f) l(p);
  }
  state(up: boolean): void {
    this.up = up;
    for (const l of this.s) l(up);
  }
  get listeners(): number {
    return this.f.size;
  }
}

/** A read that fails the test. */
const noError = (e: unknown): void => assert.fail(String(e));

const tick = () => new Promise((r) => setImmediate(r));

/** A REST read the test answers by hand, counting the calls. */
function manual<T>() {
  const calls: { resolve: (v: T) => void }[] = [];
  const read = () => new Promise<T>((resolve) => calls.push({ resolve }));
  return { calls, read };
}

describe('private frames', () => {
  it('reads parlayQuote, parlayFill, parlayUpdate and resync_required on private only', () => {
    assert.equal(readPrivateFrame(quoteFrame('q1', 0.2))?.kind, 'quote');
    assert.equal(
      readPrivateFrame({ event: 'parlayFill', data: parlay('p1'), journalSeq: 3 })?.kind,
      'parlay',
    );
    assert.equal(
      readPrivateFrame({ event: 'parlayUpdate', data: parlay('p1'), journalSeq: 4 })?.kind,
      'parlay',
    );
    assert.deepEqual(
      readPrivateFrame({ event: 'resync_required', data: { channel: 'private', fromSeq: 9 } }),
      {
        kind: 'resync',
      },
    );
    assert.equal(
      readPrivateFrame({ event: 'resync_required', data: { channel: 'tape', fromSeq: 9 } }),
      undefined,
    );
    assert.equal(readPrivateFrame({ event: 'fill', data: { id: 'f' } }), undefined);
    assert.equal(
      readPrivateFrame({ event: 'parlayQuote', data: { id: 'q' } }),
      undefined,
      'no requestId, no price',
    );
    assert.equal(
      readPrivateFrame({ event: 'parlayFill', data: { id: 'p' } }),
      undefined,
      'no status, no legs',
    );
    assert.equal(readPrivateFrame(null), undefined);
  });

  it('a quote joins its own request once, whatever the number of times it arrives', () => {
    const r = request();
    const q = readPrivateFrame(quoteFrame('q1', 0.2));
    assert.ok(q?.kind === 'quote');
    const once = withQuote(r, q.quote);
    assert.deepEqual(
      once.quotes.map((x) => [x.id, x.price]),
      [['q1', 0.2]],
    );
    assert.equal(withQuote(once, q.quote), once, 'a duplicate changes nothing');
    const other = readPrivateFrame(quoteFrame('q9', 0.1, 'req-2'));
    assert.ok(other?.kind === 'quote');
    assert.equal(withQuote(once, other.quote), once, "another request's quote is not this one's");
  });

  it('a parlay moves forward only: an older state never replaces a newer one', () => {
    const open = parlay('p1');
    const oneLeg = parlay('p1', { legs: [{ ...open.legs[0]!, status: 'WIN' }, open.legs[1]!] });
    const settled = parlay('p1', {
      status: 'SETTLED',
      payout: 10,
      legs: open.legs.map((l) => ({ ...l, status: 'WIN' })),
    });
    assert.ok(progress(open) < progress(oneLeg) && progress(oneLeg) < progress(settled));
    let l = withParlay([], open, '');
    l = withParlay(l, settled, '');
    assert.equal(withParlay(l, oneLeg, ''), l, 'the late leg update is older than the settlement');
    assert.equal(l[0]!.status, 'SETTLED');
    // Filters: an open-only list drops the parlay once it settles, and never adds a settled one.
    const openOnly = withParlay([], open, 'OPEN');
    assert.deepEqual(withParlay(openOnly, settled, 'OPEN'), []);
    assert.deepEqual(withParlay([], settled, 'OPEN'), []);
    // Newest first.
    const later = parlay('p2', { createdAt: iso(T0 + 60_000) });
    assert.deepEqual(
      withParlay(withParlay([], open, ''), later, '').map((p) => p.id),
      ['p2', 'p1'],
    );
  });
});

describe('RequestWatch: quotes from the stream', () => {
  it('ordered quote frames show with no read; the stream coming back reads once', async () => {
    const stream = new FakeStream();
    const { calls, read } = manual<RequestWire>();
    const shown: RequestWire[] = [];
    const w = new RequestWatch(
      request(),
      stream,
      (r) => shown.push(r),
      noError,
      read,
      () => T0,
    );
    stream.send(quoteFrame('q1', 0.22));
    stream.send(quoteFrame('q2', 0.21));
    stream.send({ event: 'heartbeat', data: { channel: 'private', journalSeq: 50 } });
    assert.equal(calls.length, 0, 'ordered frames: no request');
    assert.deepEqual(
      shown.at(-1)!.quotes.map((q) => q.id),
      ['q1', 'q2'],
    );
    // Frames were lost while the socket was down: one read, and a quote arriving meanwhile is
    // applied on top of its answer.
    stream.state(false);
    stream.state(true);
    assert.equal(calls.length, 1, 'gap: a read');
    stream.send(quoteFrame('q4', 0.2));
    calls[0]!.resolve(
      request({
        quotes: [{ id: 'q3', price: 0.23, maxQty: 1, createdAt: iso(T0), expiresAt: iso(T0 + 4000) }],
      }),
    );
    await tick();
    assert.deepEqual(
      shown.at(-1)!.quotes.map((q) => q.id),
      ['q3', 'q4'],
    );
    w.stop();
    assert.equal(stream.listeners, 0);
  });

  it('resync_required on private reads the request again; a closed request is never read', async () => {
    const stream = new FakeStream();
    const { calls, read } = manual<RequestWire>();
    let now = T0;
    const w = new RequestWatch(
      request(),
      stream,
      () => {},
      noError,
      read,
      () => now,
    );
    stream.send({ event: 'resync_required', data: { channel: 'private', fromSeq: 40 } });
    assert.equal(calls.length, 1, 'resync: a read');
    calls[0]!.resolve(request());
    await tick();
    now = T0 + 6000; // past expiresAt
    stream.send({ event: 'resync_required', data: { channel: 'private', fromSeq: 40 } });
    stream.state(false);
    stream.state(true);
    assert.equal(calls.length, 1, 'closed: no read');
    w.stop();
  });

  it('while the stream is down the request is read about once a second, never two at a time', async () => {
    const stream = new FakeStream();
    stream.up = false;
    const { calls, read } = manual<RequestWire>();
    const w = new RequestWatch(
      request({ expiresAt: iso(Date.now() + 60_000) }),
      stream,
      () => {},
      noError,
      read,
      Date.now,
      20,
    );
    await new Promise((r) => setTimeout(r, 75));
    assert.equal(calls.length, 1, 'one read in flight, the next polls skip');
    calls[0]!.resolve(request({ expiresAt: iso(Date.now() + 60_000) }));
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(calls.length >= 2, `reads: ${calls.length}`);
    const before = calls.length;
    // Up: the frames before the subscription were lost. The read in flight started before it, so
    // one more read follows its answer.
    stream.state(true);
    assert.equal(calls.length, before, 'never two reads at a time');
    for (const c of calls) c.resolve(request({ expiresAt: iso(Date.now() + 60_000) }));
    await tick();
    assert.equal(calls.length, before + 1, 'the read after the subscription');
    calls.at(-1)!.resolve(request({ expiresAt: iso(Date.now() + 60_000) }));
    await new Promise((r) => setTimeout(r, 60));
    const settled = calls.length;
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(calls.length, settled, 'stream up: polling stopped');
    w.stop();
  });
});

describe('ParlaysWatch: My parlays from parlayFill and parlayUpdate', () => {
  it('loads once, then frames change the list with no read', async () => {
    const stream = new FakeStream();
    const { calls, read } = manual<ParlayWire[]>();
    const shown: ParlayWire[][] = [];
    const w = new ParlaysWatch('', stream, (l) => shown.push(l), noError, read);
    assert.equal(calls.length, 1, 'the load on open');
    calls[0]!.resolve([parlay('p0')]);
    await tick();
    stream.send({ event: 'parlayFill', data: parlay('p1', { createdAt: iso(T0 + 1000) }), journalSeq: 7 });
    stream.send({
      event: 'parlayUpdate',
      data: parlay('p1', {
        createdAt: iso(T0 + 1000),
        legs: [
          { outcomeId: 'o-1', price: 0.5, status: 'WIN' },
          { outcomeId: 'o-2', price: 0.5, status: 'TBD' },
        ],
      }),
      journalSeq: 90,
    });
    w.placed(); // the trader's own wager: the stream brings it, no read
    assert.equal(calls.length, 1, 'ordered frames: no request');
    const last = shown.at(-1)!;
    assert.deepEqual(
      last.map((p) => p.id),
      ['p1', 'p0'],
    );
    assert.deepEqual(
      last[0]!.legs.map((l) => l.status),
      ['WIN', 'TBD'],
    );
    w.stop();
  });

  it('a resync reads again and a frame during the read stays applied', async () => {
    const stream = new FakeStream();
    const { calls, read } = manual<ParlayWire[]>();
    const shown: ParlayWire[][] = [];
    const w = new ParlaysWatch('', stream, (l) => shown.push(l), noError, read);
    calls[0]!.resolve([]);
    await tick();
    stream.send({ event: 'resync_required', data: { channel: 'private', fromSeq: 12 } });
    assert.equal(calls.length, 2, 'resync: a read');
    stream.send({ event: 'parlayFill', data: parlay('p5'), journalSeq: 13 });
    calls[1]!.resolve([]); // answered from a state before the fill
    await tick();
    assert.deepEqual(
      shown.at(-1)!.map((p) => p.id),
      ['p5'],
    );
    // Stream down: the trader's own placement is read at once (no frame will bring it).
    stream.state(false);
    w.placed();
    assert.equal(calls.length, 3);
    w.stop();
  });
});

describe('Follow', () => {
  it('a load asked during a load runs once more after it', async () => {
    const { calls, read } = manual<number[]>();
    const f = new Follow<number[], number>(
      read,
      (v, x) => (v.includes(x) ? v : [...v, x]),
      () => {},
    );
    f.reload();
    f.reload();
    f.reload();
    assert.equal(calls.length, 1);
    calls[0]!.resolve([1]);
    await tick();
    assert.equal(calls.length, 2, 'the second load');
    f.poll();
    assert.equal(calls.length, 2, 'a poll while one is in flight is skipped');
    calls[1]!.resolve([1, 2]);
    await tick();
    assert.deepEqual(f.value, [1, 2]);
    assert.equal(f.reads, 2);
  });
});
