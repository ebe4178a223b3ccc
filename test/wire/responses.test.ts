// The wire shapes are declared once, as schemas in src/wire/ (their types derived from them): the
// main routes declare those very schema objects as their responses, and their real answers, over a
// catalog with books, orders, fills and positions, validate against them with Ajv.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { bookSchema } from '../../src/wire/book.ts';
import {
  eventSchema,
  locksSchema,
  marketSchema,
  marketWithBookSchema,
} from '../../src/wire/catalog-schemas.ts';
import { fillSchema, orderSchema, orderWithFillsSchema, positionSchema } from '../../src/wire/trading.ts';
import {
  ACCOUNT_A,
  eventId,
  marketId,
  outcomeId,
  seedAccounts,
  seedCatalog,
  seedLiquidity,
} from '../http/fixture.ts';
import { type Harness, makeHarness, trader } from '../http/harness.ts';

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

let h: Harness;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
  seedLiquidity(h.port, 0);
});
after(() => h.close());

const A = trader(ACCOUNT_A);
const list = (items: object) => ({ type: 'array', items });

/** GETs `url`, asserts status 200 (or `status`), and that the body is valid against `schema`. */
async function valid(
  url: string,
  schema: object,
  opts: { method?: 'GET' | 'POST'; payload?: object; status?: number } = {},
): Promise<unknown> {
  const res = await h.app.inject({ method: opts.method ?? 'GET', url, headers: A, payload: opts.payload });
  assert.equal(res.statusCode, opts.status ?? 200, `${url}: ${res.body.slice(0, 300)}`);
  const body: unknown = res.json();
  const check = ajv.compile(schema);
  assert.ok(check(body), `${url}: ${ajv.errorsText(check.errors)}\n${res.body.slice(0, 500)}`);
  return body;
}

/** The route's declared response for `status` is the wire schema itself (or an array of it). */
function declares(method: string, route: string, status: number, schema: object, asList = false): void {
  const declared = h.schemaOf(method, route).response?.[String(status)] as { items?: unknown } | undefined;
  assert.ok(declared !== undefined, `${method} ${route} declares no ${status}`);
  assert.equal(
    asList ? declared.items : declared,
    schema,
    `${method} ${route} ${status}: not the src/wire/ schema`,
  );
}

describe('routes answer with the src/wire/ schemas', () => {
  test('catalog and market data', async () => {
    const events = (await valid('/nbx/v2/emm/events', list(eventSchema))) as unknown[];
    assert.ok(events.length > 0);
    declares('GET', '/nbx/v2/emm/events', 200, eventSchema, true);
    await valid(`/nbx/v2/emm/events/${eventId(0)}`, eventSchema);
    declares('GET', '/nbx/v2/emm/events/:eventId', 200, eventSchema);

    const withBooks = (await valid(
      `/nbx/v2/emm/events/getMarketsByEvent/${eventId(0)}?currency=CASH`,
      list(marketWithBookSchema),
    )) as { book: { bids: unknown[] } }[];
    assert.ok(
      withBooks.some((m) => m.book.bids.length > 0),
      'a book with levels was checked',
    );
    declares('GET', '/nbx/v2/emm/events/getMarketsByEvent/:eventId', 200, marketWithBookSchema, true);

    await valid('/nbx/v2/emm/markets/open?currency=CASH', list(marketSchema));
    declares('GET', '/nbx/v2/emm/markets/open', 200, marketSchema, true);
    await valid(`/nbx/v2/emm/markets/${marketId(0, 'SPREAD')}?currency=CASH`, marketSchema);
    declares('GET', '/nbx/v2/emm/markets/:marketId', 200, marketSchema);
    await valid(`/nbx/v2/emm/book/${marketId(0, 'MONEY')}?currency=CASH`, bookSchema);
    declares('GET', '/nbx/v2/emm/book/:marketId', 200, bookSchema);
    await valid('/nbx/v2/emm/locks', locksSchema);
    declares('GET', '/nbx/v2/emm/locks', 200, locksSchema);
  });

  test('orders, fills and positions', async () => {
    // Crosses the market maker's best offer: the answer carries fills.
    const placed = (await valid('/nbx/v2/emm/orders/place', orderWithFillsSchema, {
      method: 'POST',
      status: 201,
      payload: { outcomeId: outcomeId(0, 'MONEY', 0), price: 0.52, qty: 200, currency: 'CASH', tif: 'GTC' },
    })) as { id: string; fills: unknown[] };
    assert.ok(placed.fills.length > 0, 'the placement filled');
    declares('POST', '/nbx/v2/emm/orders/place', 201, orderWithFillsSchema);

    await valid(`/nbx/v2/emm/orders/${placed.id}`, orderSchema);
    declares('GET', '/nbx/v2/emm/orders/:orderId', 200, orderSchema);
    await valid('/nbx/v2/emm/orders/all', list(orderSchema));
    declares('GET', '/nbx/v2/emm/orders/all', 200, orderSchema, true);
    const fills = (await valid('/nbx/v2/emm/fills/all', list(fillSchema))) as unknown[];
    assert.ok(fills.length > 0);
    declares('GET', '/nbx/v2/emm/fills/all', 200, fillSchema, true);
    const positions = (await valid('/nbx/v2/emm/positions/all', list(positionSchema))) as unknown[];
    assert.ok(positions.length > 0);
    declares('GET', '/nbx/v2/emm/positions/all', 200, positionSchema, true);
  });
});
