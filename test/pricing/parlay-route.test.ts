// POST /nbx/v1/parlay/request/unauthenticated through Fastify's inject: the production wire format
// (docs/http.md "Parlay price"), the decline envelope, malformed bodies, the rate
// limit, and a fuzz of arbitrary bodies that must never produce a 5xx.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { type Config, loadConfig } from '../../src/config.ts';
import parlayRoutes, { PARLAY_PATH } from '../../src/http/routes/parlay.ts';
import { marketToWire } from '../../src/wire/catalog.ts';
import { FakeBooks, modelGame } from './fake-books.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FIVE = /^0\.\d{5}$/;
const NOW = Date.UTC(2026, 10, 21, 17, 0, 0);

function config(over: Partial<Config> = {}): Config {
  return { ...loadConfig({}), parlayRateLimit: 0, ...over };
}

async function build(books: FakeBooks, over: Partial<Config> = {}): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(parlayRoutes, { reader: () => books.asReader(), config: config(over), now: () => NOW });
  await app.ready();
  return app;
}

function slate() {
  const books = new FakeBooks();
  const g = modelGame(books, {
    muM: 3,
    muT: 46,
    sdM: 13.5,
    sdT: 13.5,
    spreads: [-3.5, -7.5],
    totals: [46.5],
  });
  const h = modelGame(books, { muM: -2, muT: 41, sdM: 13.5, sdT: 13.5, spreads: [2.5], totals: [41.5] });
  return { books, g, h };
}

const post = (app: FastifyInstance, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: PARLAY_PATH,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });

describe('parlay route: success wire format', () => {
  const { books, g, h } = slate();
  let app: FastifyInstance;
  before(async () => {
    app = await build(books, { parlayQuoteTtlSeconds: 7, parlayMargin: 0.05 });
  });
  after(() => app.close());

  test('201 with exactly one offer in the production shape', async () => {
    const ids = [g.money.outcomeIds[0], g.totals.get(46.5)!.outcomeIds[0], h.money.outcomeIds[1]];
    const res = await post(app, { outcomes: ids.map((id) => ({ id })), boostId: null });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'max-age=7');
    const body = res.json();
    // Canonical JSON: exactly what JSON.stringify writes for the parsed value, key order included.
    assert.equal(res.body, JSON.stringify(body));
    assert.ok(Array.isArray(body));
    assert.equal(body.length, 1);
    const offer = body[0];
    assert.deepEqual(Object.keys(offer).sort(), [
      'americanOdds',
      'currency',
      'decimalOdds',
      'expiresAt',
      'id',
      'legs',
      'maxQty',
      'price',
      'status',
    ]);
    assert.match(offer.id, UUID);
    assert.match(offer.price, FIVE);
    assert.ok(Number(offer.price) > 0 && Number(offer.price) < 1);
    assert.equal(offer.status, 'Unfilled');
    assert.equal(offer.currency, 'CASH');
    assert.equal(offer.expiresAt, new Date(NOW + 7000).toISOString());
    assert.equal(offer.maxQty, 1000);
    assert.equal(offer.decimalOdds, Math.round(1e5 / Number(offer.price)) / 1e5);
    assert.ok(Number.isInteger(offer.americanOdds));
    assert.equal(offer.legs.length, 3);
    for (const [i, leg] of offer.legs.entries()) {
      const o = books.outcome(ids[i]!)!;
      const m = books.market(o.marketId)!;
      assert.deepEqual(leg, {
        outcomeId: ids[i],
        price: leg.price,
        vendor: 'tickbook',
        outcome: {
          id: o.id,
          description: o.description,
          market: marketToWire(books.asReader(), m, 'CASH'),
        },
      });
      assert.match(leg.price, FIVE);
      const other = books.bestBid(m.outcomeIds[o.index === 0 ? 1 : 0], 'CASH')!;
      assert.equal(leg.price, ((1000 - other.price) / 1000).toFixed(5));
    }
    // Same-game legs share legs[].outcome.market.event.game.id, as one client checks.
    assert.equal(offer.legs[0].outcome.market.event.game.id, offer.legs[1].outcome.market.event.game.id);
  });

  test('independent legs: the price is the product of the leg prices times (1 + margin)', async () => {
    const ids = [g.money.outcomeIds[0], h.money.outcomeIds[0]];
    const res = await post(app, { outcomes: ids.map((id) => ({ id })), currency: 'CASH' });
    assert.equal(res.statusCode, 201);
    const [offer] = res.json();
    const product = offer.legs.reduce((p: number, l: { price: string }) => p * Number(l.price), 1);
    assert.equal(offer.price, (Math.round(product * 1.05 * 1e5 + 1e-9) / 1e5).toFixed(5));
  });

  test('a game-less event embeds its event without game', async () => {
    const e = books.addEvent({ type: 'Future', game: false });
    const m = books.addMarket(e, 'YES_NO', null, {
      bid0: { price: 100, qty: 50 },
      bid1: { price: 850, qty: 50 },
    });
    const res = await post(app, { outcomes: [{ id: m.outcomeIds[0] }, { id: g.money.outcomeIds[0] }] });
    assert.equal(res.statusCode, 201, res.body);
    // The market object is the one every route shows: a future's embedded event has no game.
    assert.equal('game' in res.json()[0].legs[0].outcome.market.event, false);
    assert.equal(res.json()[0].legs[0].outcome.market.type, 'YES_NO');
    assert.equal(res.json()[0].legs[0].price, '0.15000');
  });
});

describe('parlay route: declines and malformed bodies', () => {
  const { books, g } = slate();
  let app: FastifyInstance;
  before(async () => {
    app = await build(books);
  });
  after(() => app.close());

  async function expect400(payload: unknown, code: string, headers?: Record<string, string>) {
    const res = await post(app, payload, headers);
    assert.equal(res.statusCode, 400, `${JSON.stringify(payload)} → ${res.statusCode} ${res.body}`);
    const body = res.json();
    assert.equal(body.statusCode, 400);
    assert.equal(body.error, 'Bad Request');
    assert.equal(body.message, 'Cannot price parlay');
    assert.equal(body.code, code, res.body);
    assert.ok(Array.isArray(body.details) && body.details.length >= 1);
    for (const d of body.details) {
      assert.deepEqual(Object.keys(d).sort(), ['code', 'message', 'outcomeId']);
    }
    assert.equal(res.headers['cache-control'], 'no-store');
    return body;
  }

  test('decline envelope names each offending leg', async () => {
    const body = await expect400(
      { outcomes: [{ id: g.money.outcomeIds[0] }, { id: g.money.outcomeIds[1] }] },
      'SAME_MARKET',
    );
    assert.deepEqual(
      body.details.map((d: { outcomeId: string; code: string }) => [d.outcomeId, d.code]),
      [
        [g.money.outcomeIds[0], 'SAME_MARKET'],
        [g.money.outcomeIds[1], 'SAME_MARKET'],
      ],
    );
  });

  test('every request-level and leg-level decline code reaches the wire', async () => {
    const ml = g.money.outcomeIds[0];
    await expect400({ outcomes: [{ id: ml }] }, 'TOO_FEW_LEGS');
    await expect400({ outcomes: [] }, 'TOO_FEW_LEGS');
    await expect400({ outcomes: Array.from({ length: 13 }, () => ({ id: randomUUID() })) }, 'TOO_MANY_LEGS');
    await expect400({ outcomes: [{ id: ml }, { id: 'nope' }] }, 'INVALID_OUTCOME_ID');
    await expect400({ outcomes: [{ id: ml }, { id: randomUUID() }] }, 'OUTCOME_NOT_FOUND');
    await expect400({ outcomes: [{ id: ml }, { id: ml }] }, 'DUPLICATE_OUTCOME');
    await expect400(
      { outcomes: [{ id: g.spreads.get(-7.5)!.outcomeIds[0] }, { id: g.spreads.get(-3.5)!.outcomeIds[1] }] },
      'CONFLICTING_LEGS',
    );
    const tt = books.addMarket(g.event, 'TEAM_TOTAL', 24.5, {
      bid0: { price: 450, qty: 5 },
      bid1: { price: 450, qty: 5 },
    });
    await expect400({ outcomes: [{ id: ml }, { id: tt.outcomeIds[0] }] }, 'UNSUPPORTED_COMBINATION');
    const other = modelGame(books, { muM: 0, muT: 40, sdM: 13.5, sdT: 13.5 });
    books.setBid(other.money.outcomeIds[1], null);
    await expect400({ outcomes: [{ id: ml }, { id: other.money.outcomeIds[0] }] }, 'NO_LIQUIDITY');
    books.markets.get(other.money.id)!.status = 'CLOSED';
    await expect400({ outcomes: [{ id: ml }, { id: other.money.outcomeIds[0] }] }, 'MARKET_NOT_OPEN');
    other.event.status = 'CLOSED_PREGAME';
    await expect400(
      { outcomes: [{ id: ml }, { id: other.totals.get(44.5)!.outcomeIds[0] }] },
      'EVENT_NOT_TRADABLE',
    );
  });

  test('malformed bodies get the same envelope with a 400', async () => {
    const ml = g.money.outcomeIds[0];
    const tot = g.totals.get(46.5)!.outcomeIds[0];
    await expect400('{"outcomes": [', 'MALFORMED_JSON');
    await expect400('{"outcomes": []} trailing junk', 'MALFORMED_JSON');
    await expect400('not json at all', 'MALFORMED_JSON');
    await expect400('{"__proto__": {"x": 1}, "outcomes": []}', 'MALFORMED_JSON');
    await expect400('', 'MALFORMED_JSON');
    // Fastify parses text/plain as a string, which is no JSON object; other types have no parser.
    await expect400({ outcomes: [{ id: ml }, { id: tot }] }, 'VALIDATION_FAILED', {
      'content-type': 'text/plain',
    });
    await expect400({ outcomes: [{ id: ml }, { id: tot }] }, 'MALFORMED_JSON', {
      'content-type': 'application/xml',
    });
    await expect400({}, 'VALIDATION_FAILED');
    await expect400(null, 'VALIDATION_FAILED');
    await expect400([], 'VALIDATION_FAILED');
    await expect400({ outcomes: 'x' }, 'VALIDATION_FAILED');
    await expect400({ outcomes: [ml, tot] }, 'VALIDATION_FAILED');
    await expect400({ outcomes: [{ id: 1 }, { id: 2 }] }, 'VALIDATION_FAILED');
    await expect400({ outcomes: [{ id: ml }, { id: tot, extra: 1 }] }, 'VALIDATION_FAILED');
    await expect400({ outcomes: [{ id: ml }, { id: tot }], junk: true }, 'VALIDATION_FAILED');
    await expect400({ outcomes: [{ id: ml }, { id: tot }], currency: 'USD' }, 'VALIDATION_FAILED');
    await expect400({ outcomes: [{ id: ml }, { id: tot }], boostId: 'b-1' }, 'VALIDATION_FAILED');
  });

  test('oversized bodies are 413 in the envelope, never 5xx', async () => {
    const res = await post(app, { outcomes: [{ id: 'x'.repeat(20_000) }, { id: 'y' }] });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'BODY_TOO_LARGE');
  });

  test('fuzz: no body, content type or outcome list produces a 5xx', async () => {
    const known = [...books.outcomes.keys()];
    const outcomeId = fc.oneof(
      fc.constantFrom(...known),
      fc.uuid(),
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.object(),
    );
    const body = fc.oneof(
      fc
        .record(
          {
            outcomes: fc.oneof(
              fc.array(fc.record({ id: outcomeId }), { maxLength: 14 }),
              fc.array(fc.oneof(fc.record({ id: outcomeId }, { requiredKeys: [] }), fc.anything()), {
                maxLength: 5,
              }),
              fc.anything(),
            ),
            boostId: fc.oneof(fc.constant(null), fc.anything()),
            currency: fc.oneof(fc.constantFrom('CASH', 'COIN'), fc.anything()),
          },
          { requiredKeys: [] },
        )
        .map((b) => JSON.stringify(b)),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string(),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    );
    await fc.assert(
      fc.asyncProperty(body, contentType, async (payload, ct) => {
        const res = await app.inject({
          method: 'POST',
          url: PARLAY_PATH,
          headers: { 'content-type': ct },
          payload,
        });
        assert.ok(res.statusCode < 500, `${ct} ${payload} → ${res.statusCode} ${res.body}`);
        assert.ok(
          res.statusCode === 201 || res.statusCode === 400 || res.statusCode === 413,
          `${res.statusCode}`,
        );
        const json = res.json();
        if (res.statusCode === 201) {
          assert.equal(json.length, 1);
          assert.match(json[0].price, FIVE);
        } else {
          assert.equal(json.statusCode, res.statusCode);
          assert.equal(typeof json.code, 'string');
        }
      }),
      { seed: 42, numRuns: 400 },
    );
  });
});

test('offer ids are distinct UUID-shaped strings', async () => {
  const { offerIdSource } = await import('../../src/ids.ts');
  const next = offerIdSource();
  const other = offerIdSource();
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    const id = next();
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    seen.add(id);
  }
  assert.equal(seen.size, 10_000);
  assert.ok(!seen.has(other()));
});

describe('parlay route: rate limit', () => {
  test('per-address limit → 429 with Retry-After and x-ratelimit-* headers, in the envelope', async () => {
    const { books, g, h } = slate();
    const app = await build(books, { parlayRateLimit: 3, parlayRateWindowMs: 60_000 });
    const payload = { outcomes: [{ id: g.money.outcomeIds[0] }, { id: h.money.outcomeIds[0] }] };
    for (let i = 0; i < 3; i++) {
      const res = await post(app, payload);
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers['x-ratelimit-limit'], '3');
      assert.equal(res.headers['x-ratelimit-remaining'], String(2 - i));
    }
    const res = await post(app, payload);
    assert.equal(res.statusCode, 429);
    assert.ok(Number(res.headers['retry-after']) > 0);
    assert.equal(res.headers['x-ratelimit-remaining'], '0');
    const body = res.json();
    assert.equal(body.statusCode, 429);
    assert.equal(body.error, 'Too Many Requests');
    assert.equal(body.code, 'RATE_LIMITED');
    // Another address has its own budget.
    const other = await app.inject({
      method: 'POST',
      url: PARLAY_PATH,
      remoteAddress: '10.0.0.9',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });
    assert.equal(other.statusCode, 201);
    await app.close();
  });

  test('0 lifts the limit', async () => {
    const { books, g, h } = slate();
    const app = await build(books, { parlayRateLimit: 0 });
    const payload = { outcomes: [{ id: g.money.outcomeIds[0] }, { id: h.money.outcomeIds[0] }] };
    for (let i = 0; i < 80; i++) assert.equal((await post(app, payload)).statusCode, 201);
    assert.equal((await post(app, payload)).headers['x-ratelimit-limit'], undefined);
    await app.close();
  });

  test('the route schema is published for OpenAPI', async () => {
    const { books } = slate();
    const app = Fastify();
    await app.register(import('@fastify/swagger'), { openapi: { info: { title: 't', version: '1' } } });
    await app.register(parlayRoutes, { reader: () => books.asReader(), config: config() });
    await app.ready();
    const doc = app.swagger() as {
      paths: Record<string, { post: { responses: Record<string, unknown>; requestBody: unknown } }>;
    };
    const op = doc.paths[PARLAY_PATH]!.post;
    assert.ok(op.requestBody);
    assert.deepEqual(Object.keys(op.responses).sort(), ['201', '400', '413', '429', '500']);
    await app.close();
  });
});
