// The `/trade` session without a server (docs/order-entry.md "Back-pressure", "Tokens"): a token
// that expires mid-connection answers INVALID_TOKEN until an `auth` message brings a fresh one;
// a connection at its in-flight bound is not read until an answer frees a place, and the frames
// already read wait in order (nothing is refused); a client that does not read stops being read
// once unwritten answers pass the high-water mark, and is read again when they drain.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Parser } from '@asyncapi/parser';
import type { Principal } from '../../src/auth/scopes.ts';
import { InvalidTokenError } from '../../src/auth/verifier.ts';
import { tradeChannel } from '../../src/http/order-socket/messages.ts';
import { TradeSession, type Transport } from '../../src/http/order-socket/session.ts';
import { tradeSessionDeps } from '../../src/http/routes/trade.ts';
import type { OrderEntry } from '../../src/runtime/order-entry.ts';
import { asyncApiDocument } from '../../src/stream/asyncapi.ts';
import { MemoryPort } from '../helpers/memory-port.ts';
import type { Frame } from '../helpers/trade-client.ts';

const ACCOUNT = '01a20c00-0424-7006-9390-6b6596b47148';
const principal: Principal = {
  clientId: 'c1',
  accountId: ACCOUNT,
  scopes: new Set(['execute:trader']),
  tokenId: 'j1',
};

class FakeSocket implements Transport {
  readonly frames: Frame[] = [];
  readonly unwritten: (() => void)[] = [];
  paused = 0;
  resumed = 0;
  constructor(private readonly writes = true) {}
  send(text: string, written: () => void): void {
    this.frames.push(JSON.parse(text));
    if (this.writes) written();
    else this.unwritten.push(written);
  }
  pause(): void {
    this.paused++;
  }
  resume(): void {
    this.resumed++;
  }
}

const settle = () => new Promise((r) => setImmediate(r));

describe('/trade session', () => {
  test('a token expiring mid-connection: INVALID_TOKEN, then usable again after auth', async () => {
    let expired = false;
    const auth = {
      verifyCached: (t: string) =>
        t === 'old' && !expired ? principal : t === 'fresh' ? principal : undefined,
      verifyAccessToken: async (t: string): Promise<Principal> => {
        throw new InvalidTokenError(t === 'old' ? 'expired' : 'malformed', 'The access token expired');
      },
    };
    const sock = new FakeSocket();
    const s = new TradeSession(sock, tradeSessionDeps({ port: new MemoryPort(), auth }), principal, 'old');
    s.message(JSON.stringify({ type: 'cancelAll', id: 1 }));
    await settle();
    assert.deepEqual(sock.frames.at(-1), { type: 'cancelAll', id: 1, seq: null, result: [] });
    expired = true;
    s.message(JSON.stringify({ type: 'cancelAll', id: 2 }));
    await settle();
    const err = sock.frames.at(-1);
    assert.equal(err.type, 'error');
    assert.equal(err.id, 2);
    assert.equal(err.error.code, 'INVALID_TOKEN');
    assert.equal(err.error.statusCode, 401);
    s.message(JSON.stringify({ type: 'auth', id: 3, data: { token: 'fresh' } }));
    await settle();
    assert.equal(sock.frames.at(-1).type, 'auth');
    s.message(JSON.stringify({ type: 'cancelAll', id: 4 }));
    await settle();
    assert.equal(sock.frames.at(-1).type, 'cancelAll');
  });

  /**
   * A session at `maxInFlight` whose cancelAll commands become durable only when the test calls the
   * next function of `durable`, in order.
   */
  function heldSession(maxInFlight: number) {
    const auth = { verifyCached: () => principal, verifyAccessToken: async () => principal };
    const deps = tradeSessionDeps({ port: new MemoryPort(), auth, maxInFlight });
    const durable: (() => void)[] = [];
    const held = {
      cancelScope: () => new Promise((resolve) => durable.push(() => resolve({ orders: [], seq: null }))),
    } as unknown as OrderEntry;
    const sock = new FakeSocket();
    return { s: new TradeSession(sock, { ...deps, entry: held }, principal, 't'), sock, durable };
  }

  test('in-flight bound: reading pauses at it, waiting frames run in order as answers free places', async () => {
    const { s, sock, durable } = heldSession(4);
    for (let i = 0; i < 10; i++) s.message(JSON.stringify({ type: 'cancelAll', id: i }));
    await settle();
    assert.equal(s.inFlight, 4);
    assert.equal(s.backlog, 6);
    assert.equal(sock.paused, 1, 'reading stopped once, at the bound');
    assert.equal(sock.frames.length, 0, 'nothing refused, nothing answered yet');
    // A frame read meanwhile (from the same socket read) waits behind the others.
    s.message(JSON.stringify({ type: 'cancelAll', id: 10 }));
    assert.equal(s.backlog, 7);
    durable.shift()!();
    await settle();
    assert.deepEqual(
      sock.frames.map((f) => f.id),
      [0],
    );
    assert.equal(s.inFlight, 4, 'the freed place went to the next waiting frame');
    assert.equal(s.backlog, 6);
    assert.equal(sock.resumed, 0, 'still at the bound: still not read');
    while (durable.length > 0) {
      durable.shift()!();
      await settle();
    }
    assert.deepEqual(
      sock.frames.map((f) => [f.type, f.id]),
      Array.from({ length: 11 }, (_, i) => ['cancelAll', i]),
      'every frame answered, in the order sent',
    );
    assert.equal(s.inFlight, 0);
    assert.equal(s.backlog, 0);
    assert.equal(sock.resumed, 1, 'read again once under the bound');
    assert.equal(sock.paused, 1);
  });

  test('at the bound, waiting requests refused at once are each answered once, in order', async () => {
    // A refusal that needs no commit (a place body failing its schema, a placement the engine
    // rejects) is answered inside the loop that handles waiting frames, which frees its place
    // again while that loop runs: every waiting frame must still run exactly once.
    const { s, sock, durable } = heldSession(2);
    s.message(JSON.stringify({ type: 'cancelAll', id: 0 }));
    s.message(JSON.stringify({ type: 'cancelAll', id: 1 }));
    for (let i = 2; i < 8; i++) s.message(JSON.stringify({ type: 'place', id: i, data: { price: 'x' } }));
    assert.equal(s.backlog, 6);
    durable.shift()!();
    await settle();
    assert.deepEqual(
      sock.frames.map((f) => [f.type, f.id]),
      [['cancelAll', 0], ...Array.from({ length: 6 }, (_, i) => ['error', i + 2])],
    );
    assert.equal(s.inFlight, 1);
    assert.equal(s.backlog, 0);
    while (durable.length > 0) {
      durable.shift()!();
      await settle();
    }
    assert.deepEqual(
      sock.frames.map((f) => f.id),
      [0, 2, 3, 4, 5, 6, 7, 1],
    );
    assert.equal(s.inFlight, 0);
    assert.equal(sock.resumed, 1);
  });

  test('both pauses at once: reading resumes only when the bound and the unwritten answers allow', async () => {
    const auth = { verifyCached: () => principal, verifyAccessToken: async () => principal };
    const deps = tradeSessionDeps({ port: new MemoryPort(), auth, maxInFlight: 2, highWaterBytes: 300 });
    const durable: (() => void)[] = [];
    const held = {
      cancelScope: () => new Promise((resolve) => durable.push(() => resolve({ orders: [], seq: null }))),
    } as unknown as OrderEntry;
    const sock = new FakeSocket(false);
    const s = new TradeSession(sock, { ...deps, entry: held }, principal, 't');
    for (let i = 0; i < 4; i++) s.message(JSON.stringify({ type: 'cancelAll', id: i }));
    for (let i = 0; i < 10; i++) s.message('{not json'); // wait behind the bound too
    assert.equal(sock.paused, 1);
    while (durable.length > 0) {
      durable.shift()!();
      await settle();
    }
    // All answered, but unwritten: the high-water mark keeps the connection paused.
    assert.equal(s.backlog, 0);
    assert.equal(sock.frames.length, 14);
    assert.ok(s.unwritten > 300);
    assert.equal(sock.resumed, 0);
    for (const w of sock.unwritten.splice(0)) w();
    assert.equal(sock.resumed, 1);
    assert.equal(sock.paused, 1);
  });

  test('a client that does not read is not read either once answers pile up; read again on drain', async () => {
    const auth = { verifyCached: () => principal, verifyAccessToken: async () => principal };
    const sock = new FakeSocket(false);
    const s = new TradeSession(
      sock,
      tradeSessionDeps({ port: new MemoryPort(), auth, highWaterBytes: 1000 }),
      principal,
      't',
    );
    for (let i = 0; i < 30; i++) s.message('{not json');
    assert.equal(sock.paused, 1);
    assert.ok(s.unwritten > 1000);
    for (const w of sock.unwritten.splice(0)) w();
    assert.equal(s.unwritten, 0);
    assert.equal(sock.resumed, 1);
  });

  test('the AsyncAPI document with the /trade channel is valid AsyncAPI 3.0', async () => {
    const doc = asyncApiDocument('http://localhost:8080', tradeChannel());
    const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
    assert.deepEqual(
      diagnostics.filter((d) => d.severity === 0),
      [],
    );
    const ids = document!
      .messages()
      .all()
      .map((m) => m.id());
    for (const n of ['trade_place', 'trade_batch', 'trade_cancelAll', 'trade_place_result', 'trade_error'])
      assert.ok(ids.includes(n), n);
  });
});
