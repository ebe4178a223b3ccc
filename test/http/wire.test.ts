// The edge's pure pieces: wire names and times, the response cache (LRU bound, versions, ETags),
// and the OpenAPI document generated from the route schemas.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MARKET_TYPES } from '../../src/exchange/types.ts';
import {
  cachedBody,
  etagMatches,
  LruCache,
  VersionedBody,
  VersionedCache,
} from '../../src/http/response-cache.ts';
import { orderedLeagueCodes } from '../../src/http/routes/metadata.ts';
import {
  isoMillis,
  MARKET_TYPE_LABELS,
  marketTypeName,
  outcomeTypeName,
  parseMarketType,
  WIRE_MAX_MS,
  WIRE_MIN_MS,
} from '../../src/wire/names.ts';
import { fillToWire, orderToWire } from '../../src/wire/trading.ts';
import { makeHarness, TAPE } from './harness.ts';

describe('wire names', () => {
  test('market types: codes on the wire, one table of human names, filters take both', () => {
    assert.equal(marketTypeName('SPREAD'), 'SPREAD');
    assert.equal(marketTypeName('MONEY'), 'MONEY');
    assert.equal(marketTypeName('MONEY_1H'), 'MONEY_1H');
    assert.equal(new Set(Object.values(MARKET_TYPE_LABELS)).size, MARKET_TYPES.length);
    for (const code of MARKET_TYPES) {
      assert.equal(marketTypeName(code), code);
      assert.equal(parseMarketType(code), code);
      assert.equal(parseMarketType(code.toLowerCase()), code);
      assert.equal(parseMarketType(MARKET_TYPE_LABELS[code]), code);
      assert.equal(parseMarketType(MARKET_TYPE_LABELS[code].toUpperCase()), code);
    }
    assert.equal(parseMarketType('Cricket'), undefined);
  });
  test('outcome types by market kind and index', () => {
    assert.equal(outcomeTypeName('TOTAL', 0), 'OVER');
    assert.equal(outcomeTypeName('TOTAL_1H', 1), 'UNDER');
    assert.equal(outcomeTypeName('YES_NO', 1), 'NO');
    assert.equal(outcomeTypeName('SPREAD', 0), 'HOME');
    assert.equal(outcomeTypeName('MONEY', 1), 'AWAY');
  });
  test('ISO 8601 with milliseconds, UTC', () => {
    assert.equal(isoMillis(Date.UTC(2025, 0, 26, 18, 30)), '2025-01-26T18:30:00.000Z');
    assert.equal(isoMillis(1), '1970-01-01T00:00:00.001Z');
  });
  test('times: exactly Date#toISOString across seconds, years and the epoch; clamped outside', () => {
    const times = [
      Date.UTC(2026, 10, 21, 17, 0, 0),
      Date.UTC(2026, 10, 21, 17, 0, 0) + 1,
      Date.UTC(2026, 10, 21, 17, 0, 0) + 999,
      Date.UTC(2026, 10, 21, 17, 0, 1),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
      0,
      -1,
      -1001,
      1.9,
      -1.5,
      WIRE_MIN_MS,
      WIRE_MAX_MS,
    ];
    for (const ms of times) assert.equal(isoMillis(ms), new Date(ms).toISOString(), String(ms));
    for (let ms = Date.UTC(2026, 0, 1) - 2500; ms < Date.UTC(2026, 0, 1) + 2500; ms += 7)
      assert.equal(isoMillis(ms), new Date(ms).toISOString());
    // Interleaved seconds (quote expiries beside order times), in and out of the two slots.
    const now = Date.UTC(2026, 10, 24, 15, 0, 0, 123);
    for (let i = 0; i < 50; i++) {
      for (const ms of [now + i * 37, now + 30_000 + i * 41, now - 999 + i, now + 5_000_000 * (i % 3)])
        assert.equal(isoMillis(ms), new Date(ms).toISOString(), String(ms));
    }
    // Past the RFC 3339 range (docs/http.md): clamped, never a six-digit year, never a throw.
    assert.equal(isoMillis(Date.UTC(10000, 0, 1, 0, 0, 0, 5)), '9999-12-31T23:59:59.999Z');
    assert.equal(isoMillis(Date.UTC(-1, 5, 1)), '0000-01-01T00:00:00.000Z');
    assert.equal(isoMillis(Number.POSITIVE_INFINITY), '9999-12-31T23:59:59.999Z');
    assert.equal(isoMillis(Number.NEGATIVE_INFINITY), '0000-01-01T00:00:00.000Z');
    assert.equal(isoMillis(Number.NaN), '1970-01-01T00:00:00.000Z');
  });
  test('times: the date arithmetic agrees with Date over every year of the range', () => {
    // Each year's month ends and leap days (1900, 2000, 2100 among them), a second apart so every
    // one misses the two slots; then a pseudo-random spread of the whole range.
    for (let year = 0; year <= 9999; year++) {
      const jan1 = new Date(Date.UTC(2000, 0, 1));
      jan1.setUTCFullYear(year);
      const t = jan1.getTime();
      for (const day of [0, 58, 59, 60, 180, 364, 365]) {
        const ms = Math.min(t + day * 86_400_000 + ((year * 7 + day) % 86_400) * 1000 + 999, WIRE_MAX_MS);
        assert.equal(isoMillis(ms), new Date(ms).toISOString(), String(ms));
      }
    }
    let x = 12345;
    for (let i = 0; i < 20_000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      const ms = WIRE_MIN_MS + Math.floor((x / 2 ** 32) * (WIRE_MAX_MS - WIRE_MIN_MS));
      assert.equal(isoMillis(ms), new Date(ms).toISOString(), String(ms));
    }
  });
  test('leagues: production order, then the others in catalog order', () => {
    assert.deepEqual(orderedLeagueCodes(['ZZZ', 'PGA', 'NFL', 'AAA', 'NBA']), [
      'NFL',
      'NBA',
      'PGA',
      'ZZZ',
      'AAA',
    ]);
  });
  test('orders and fills: ticks → prices, Money → units, MCU stays integer', () => {
    const o = orderToWire({
      id: 'o',
      accountId: 'a',
      outcomeId: 'x',
      marketId: 'm',
      currency: 'CASH',
      price: 667,
      qty: 40,
      originalQty: 110,
      tif: 'GTC',
      expiresAt: null,
      flags: null,
      clientOrderId: null,
      status: 'CANCELED',
      createdAt: 0,
      updatedAt: 1,
    });
    assert.equal(o.price, 0.667);
    assert.equal(o.filledQty, 70);
    assert.equal(o.created_at, '1970-01-01T00:00:00.000Z');
    const f = fillToWire({
      id: 'f',
      seq: 1,
      accountId: 'a',
      orderId: 'o',
      outcomeId: 'x',
      marketId: 'm',
      currency: 'COIN',
      price: 610,
      qty: 200,
      isTaker: true,
      isWash: false,
      fee: 142_740,
      feeCoefficient: 0.03,
      ts: 0,
    });
    // COIN: 1 MCU = 1 Coin; 0.61 × 200 = 122 Coin; fee 1.4274 Coin.
    assert.deepEqual(f.transactions, [
      { kind: 'TRADE', amount: -122 },
      { kind: 'FEE', amount: -1.4274 },
    ]);
    assert.equal(f.fee, 1.4274);
    assert.deepEqual(
      fillToWire({ ...f, id: 'w', seq: 2, accountId: 'a', isWash: true, fee: 0, price: 610, ts: 0 } as never)
        .transactions,
      [],
    );
  });
});

describe('response cache', () => {
  test('LRU keeps at most its capacity and evicts the least recently used', () => {
    const lru = new LruCache<string, number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    assert.equal(lru.get('a'), 1); // a is now the most recent
    lru.set('d', 4);
    assert.equal(lru.size, 3);
    assert.equal(lru.get('b'), undefined);
    assert.equal(lru.get('a'), 1);
    for (let i = 0; i < 1000; i++) lru.set(`k${i}`, i);
    assert.equal(lru.size, 3);
  });
  test('versioned entries build once per version', () => {
    const c = new VersionedCache<string>(10);
    let builds = 0;
    const build = () => {
      builds++;
      return { n: builds };
    };
    const a = c.get('k', 1, build);
    assert.equal(c.get('k', 1, build), a);
    assert.equal(builds, 1);
    const b = c.get('k', 2, build);
    assert.notEqual(b.etag, a.etag);
    assert.equal(builds, 2);
    const body = new VersionedBody();
    const x = body.get('v', () => [1]);
    assert.equal(
      body.get('v', () => [2]),
      x,
    );
    assert.equal(body.get('w', () => [2]).body.toString(), '[2]');
  });
  test('ETag: strong, derived from the bytes; If-None-Match lists, weak tags and *', () => {
    const a = cachedBody({ x: 1 });
    assert.equal(a.etag, cachedBody({ x: 1 }).etag);
    assert.notEqual(a.etag, cachedBody({ x: 2 }).etag);
    assert.equal(a.body.toString(), '{"x":1}');
    assert.ok(etagMatches(a.etag, a.etag));
    assert.ok(etagMatches(`"zz", W/${a.etag}`, a.etag));
    assert.ok(etagMatches('*', a.etag));
    assert.ok(!etagMatches('"zz"', a.etag));
    assert.ok(!etagMatches(undefined, a.etag));
  });
});

describe('OpenAPI', () => {
  test('every exchange route is documented with tags, summary and its responses', async () => {
    const h = await makeHarness();
    try {
      const res = await h.app.inject({ method: 'GET', url: '/openapi.json', headers: TAPE });
      assert.equal(res.statusCode, 200);
      const doc = JSON.parse(res.body) as {
        paths: Record<
          string,
          Record<string, { tags?: string[]; summary?: string; responses?: Record<string, unknown> }>
        >;
      };
      const expected: [string, string, string[]][] = [
        ['/nbx/v2/emm/event-metadata/leagues', 'get', ['200', '401', '403']],
        ['/nbx/v2/emm/events', 'get', ['200', '304', '400']],
        ['/nbx/v2/emm/events/{eventId}', 'get', ['200', '400', '404']],
        ['/nbx/v2/emm/events/getMarketsByEvent/{eventId}', 'get', ['200', '400', '404']],
        ['/nbx/v2/emm/events/getMarketsByEvents', 'post', ['200', '400']],
        ['/nbx/v2/emm/book/{marketId}', 'get', ['200', '404']],
        ['/nbx/v2/emm/markets/open', 'get', ['200']],
        ['/nbx/v2/emm/markets/{marketId}', 'get', ['200', '404']],
        ['/nbx/v2/emm/ticks', 'get', ['200']],
        ['/nbx/v2/emm/locks', 'get', ['200']],
        ['/nbx/v2/emm/orders/place', 'post', ['201', '400', '404', '409']],
        ['/nbx/v2/emm/orders/batch', 'post', ['201', '400']],
        ['/nbx/v2/emm/orders/batch', 'delete', ['200', '400']],
        ['/nbx/v2/emm/orders/{orderId}', 'delete', ['200', '404']],
        ['/nbx/v2/emm/orders/{orderId}', 'get', ['200', '404']],
        ['/nbx/v2/emm/kill', 'delete', ['200']],
        ['/nbx/v2/emm/orders/event/{eventId}', 'delete', ['200', '404']],
        ['/nbx/v2/emm/orders/market/{marketId}', 'delete', ['200', '404']],
        ['/nbx/v2/emm/orders/all', 'get', ['200', '400']],
        ['/emm/v2/account/balance', 'get', ['200', '400']],
        ['/nbx/v2/emm/account/balance', 'get', ['200']],
        ['/nbx/v2/emm/account/open-costs-and-credit', 'get', ['200']],
        ['/nbx/v2/emm/positions/all', 'get', ['200']],
        ['/nbx/v2/emm/fills/all', 'get', ['200']],
        ['/admin/v1/accounts/{accountId}/deposits', 'post', ['201', '400', '404']],
        ['/admin/v1/accounts/{accountId}/withdrawals', 'post', ['201', '409']],
        ['/admin/v1/leagues', 'post', ['201', '409']],
        ['/admin/v1/teams', 'post', ['201']],
        ['/admin/v1/events', 'post', ['201', '400']],
        ['/admin/v1/events/{eventId}/status', 'post', ['200', '409']],
        ['/admin/v1/markets/{marketId}/status', 'post', ['200']],
        ['/admin/v1/markets/{marketId}/settle', 'post', ['200', '409']],
        ['/admin/v1/locks', 'post', ['201']],
        ['/admin/v1/locks/{lockId}', 'delete', ['204', '404']],
      ];
      for (const [path, method, statuses] of expected) {
        const op = doc.paths[path]?.[method];
        assert.ok(op, `${method} ${path} missing from OpenAPI`);
        assert.ok(op.tags?.length, `${method} ${path} has no tags`);
        assert.ok(op.summary, `${method} ${path} has no summary`);
        for (const s of statuses) assert.ok(op.responses?.[s], `${method} ${path} documents no ${s}`);
      }
    } finally {
      await h.close();
    }
  });
});
