// The signed-in parlay slip's calls (ui/src/parlay-bet.ts) against a mocked fetch: the authenticated
// request with the stake in currency units and the boost, the wager at the best quote with maxPrice
// and a fresh clientOrderId, a 409 read as "request again", the boosts route absent (404) read as
// nothing, and boosts read defensively. Quotes arriving from the stream: test/ui/parlay-live.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, signIn, signOut } from '../../ui/src/api.ts';
import {
  bestQuote,
  cancelRequest,
  claimBoost,
  createRequest,
  isClaimed,
  isOpen,
  listBoosts,
  myParlays,
  needsNewRequest,
  newClientOrderId,
  type RequestWire,
  readBoost,
  readRequest,
  stakeCents,
  wager,
} from '../../ui/src/parlay-bet.ts';

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

const seen: Seen[] = [];
let answer: { status: number; body: unknown } = { status: 200, body: {} };
const realFetch = globalThis.fetch;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

before(async () => {
  globalThis.fetch = (async (url: string, init: RequestInit = {}) => {
    if (url === '/nbx/v1/auth/emm-token')
      return json(200, { access_token: 'tok-1', expires_in: 3600, token_type: 'Bearer', scope: '' });
    seen.push({
      url,
      method: init.method ?? 'GET',
      headers: (init.headers ?? {}) as Record<string, string>,
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    return json(answer.status, answer.body);
  }) as typeof fetch;
  await signIn('client-1', 'secret-1');
});

after(() => {
  signOut();
  globalThis.fetch = realFetch;
});

const T0 = Date.parse('2026-11-26T05:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const quote = (id: string, price: number, createdAt: number, expiresAt = T0 + 30_000) => ({
  id,
  requestId: 'req-1',
  price,
  maxQty: 10_000,
  createdAt: iso(createdAt),
  expiresAt: iso(expiresAt),
  mine: false,
});
const request = (o: Partial<RequestWire> = {}): RequestWire => ({
  id: 'req-1',
  status: 'Unfilled',
  price: '0.25000',
  unboostedPrice: '0.25000',
  expiresAt: iso(T0 + 30_000),
  stake: 10,
  quotes: [],
  wager: null,
  ...o,
});

describe('parlay bet: stake', () => {
  it('reads a typed stake exactly to the cent', () => {
    assert.equal(stakeCents('10'), 1000);
    assert.equal(stakeCents('2.5'), 250);
    assert.equal(stakeCents('2.50'), 250);
    assert.equal(stakeCents(' 0,07 '), 7);
    assert.equal(stakeCents('19.99'), 1999);
    for (const bad of ['', '0', '0.00', '-1', '1.234', 'abc', '1e3', '.5'])
      assert.equal(stakeCents(bad), undefined, bad);
  });
});

describe('parlay bet: request and wager', () => {
  it('asks with the trader token, the legs, the stake in units and the boost', async () => {
    answer = { status: 201, body: [request()] };
    const r = await createRequest(['o-1', 'o-2'], 250, null);
    assert.equal(r.id, 'req-1');
    const s = seen.at(-1)!;
    assert.equal(s.method, 'POST');
    assert.equal(s.url, '/nbx/v1/parlay/request');
    assert.equal(s.headers.authorization, 'Bearer tok-1');
    assert.deepEqual(s.body, { outcomes: [{ id: 'o-1' }, { id: 'o-2' }], boostId: null, stake: 2.5 });

    await createRequest(['o-1', 'o-2'], undefined, 'boost-9');
    assert.deepEqual(seen.at(-1)!.body, { outcomes: [{ id: 'o-1' }, { id: 'o-2' }], boostId: 'boost-9' });
  });

  it('reads one request by id, escaped', async () => {
    answer = { status: 200, body: request() };
    await readRequest('a/b');
    assert.equal(seen.at(-1)!.url, '/nbx/v1/parlay/request/a%2Fb');
    assert.equal(seen.at(-1)!.method, 'GET');
  });

  it('cancels a request left behind', async () => {
    answer = { status: 200, body: request({ status: 'Cancelled' }) };
    await cancelRequest('req-1');
    assert.equal(seen.at(-1)!.method, 'DELETE');
    assert.equal(seen.at(-1)!.url, '/nbx/v1/parlay/request/req-1');
    assert.equal(seen.at(-1)!.headers.authorization, 'Bearer tok-1');
  });

  it('wagers with maxPrice = the shown price and the given clientOrderId', async () => {
    answer = { status: 201, body: { id: 'par-1', stake: 2.5, price: 0.25, qty: 1000 } };
    const id = newClientOrderId();
    const p = await wager('req-1', 250, 0.25, id);
    assert.equal(p.id, 'par-1');
    const s = seen.at(-1)!;
    assert.equal(s.method, 'POST');
    assert.equal(s.url, '/nbx/v1/parlay/request/req-1/wager');
    assert.equal(s.headers.authorization, 'Bearer tok-1');
    assert.deepEqual(s.body, { stake: 2.5, maxPrice: 0.25, clientOrderId: id });
  });

  it('makes a fresh clientOrderId every time', () => {
    const ids = new Set(Array.from({ length: 100 }, newClientOrderId));
    assert.equal(ids.size, 100);
    for (const id of ids) assert.ok(id.length <= 64);
  });

  it('reads a 409 (price moved, no quote, closed) as "request again", nothing else', async () => {
    answer = {
      status: 409,
      body: { statusCode: 409, error: 'Conflict', code: 'PARLAY_PRICE_MOVED', message: 'moved' },
    };
    const e = await wager('req-1', 250, 0.25, newClientOrderId()).catch((x: unknown) => x);
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 'PARLAY_PRICE_MOVED');
    assert.equal(needsNewRequest(e), true);
    assert.equal(needsNewRequest(new ApiError(400, { code: 'INVALID_AMOUNT' })), false);
    assert.equal(needsNewRequest(new Error('x')), false);
  });

  it('picks the lowest live quote, the earliest on a tie, never an expired one', () => {
    const r = request({
      quotes: [
        quote('a', 0.26, T0 + 1),
        quote('b', 0.24, T0 + 3),
        quote('c', 0.24, T0 + 2),
        quote('d', 0.2, T0, T0 + 100),
      ],
    });
    assert.equal(bestQuote(r, T0 + 50)?.id, 'd');
    assert.equal(bestQuote(r, T0 + 100)?.id, 'c');
    assert.equal(bestQuote(request(), T0), undefined);
    assert.equal(isOpen(r, T0), true);
    assert.equal(isOpen(r, T0 + 30_000), false);
    assert.equal(isOpen(request({ status: 'Filled' }), T0), false);
  });

  it('lists my parlays, with the status filter', async () => {
    answer = { status: 200, body: [{ id: 'par-1', legs: [] }] };
    assert.equal((await myParlays()).length, 1);
    assert.equal(seen.at(-1)!.url, '/nbx/v1/parlays');
    await myParlays('OPEN');
    assert.equal(seen.at(-1)!.url, '/nbx/v1/parlays?status=OPEN');
  });
});

describe('parlay bet: boosts', () => {
  it('a server without the route (404) shows nothing', async () => {
    answer = {
      status: 404,
      body: { statusCode: 404, error: 'Not Found', message: 'Route GET:/nbx/v1/boosts not found' },
    };
    assert.equal(await listBoosts(), undefined);
  });

  it('reads boosts defensively and claims one', async () => {
    answer = {
      status: 200,
      body: [
        {
          id: 'b-1',
          kind: 'PRICE_BOOST',
          value: 0.1,
          leagues: ['NFL', 3],
          minLegs: 3,
          maxStake: 50,
          validFrom: '2026-11-26T00:00:00.000Z',
          validTo: '2026-11-27T00:00:00.000Z',
          claimLimit: 1,
          claimed: false,
          remaining: 7,
        },
        { id: 'b-2', claimed: true, value: { weird: 1 } },
        { kind: 'no id' },
        null,
      ],
    };
    const b = await listBoosts();
    assert.equal(b?.length, 2);
    assert.deepEqual(b![0], {
      id: 'b-1',
      kind: 'PRICE_BOOST',
      value: 0.1,
      leagues: ['NFL'],
      minLegs: 3,
      maxStake: 50,
      validTo: '2026-11-27T00:00:00.000Z',
      claimLimit: 1,
      claimed: false,
      available: null,
      remaining: 7,
    });
    assert.equal(b![1]!.claimed, true);
    assert.equal(isClaimed(b![1]!), true);
    // The server's own counts: a claim already used by a fill cannot boost another request.
    const used = readBoost({ id: 'b-3', claimed: 1, used: 1, available: 0, remainingClaims: 0 });
    assert.equal(used?.remaining, 0);
    assert.equal(isClaimed(used!), false);
    assert.equal(
      isClaimed(readBoost({ id: 'b-4', claimed: 1, used: 0, available: 1, remainingClaims: 0 })!),
      true,
    );
    assert.equal(b![1]!.value, null);
    assert.equal(readBoost('x'), undefined);
    answer = { status: 200, body: {} };
    await claimBoost('b-1');
    assert.equal(seen.at(-1)!.url, '/nbx/v1/boosts/b-1/claim');
    assert.equal(seen.at(-1)!.method, 'POST');
    assert.equal(seen.at(-1)!.headers.authorization, 'Bearer tok-1');
  });

  it('other failures are errors, not "absent"', async () => {
    answer = { status: 401, body: { statusCode: 401, code: 'UNAUTHORIZED', message: 'no' } };
    await assert.rejects(listBoosts(), ApiError);
  });
});
