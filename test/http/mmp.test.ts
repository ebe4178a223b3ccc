// Market-maker protection routes (docs/http.md "Market-maker protection"): GET, PUT and reset of
// the caller's protection, protected orders on place, a breach that cancels and freezes, and bad
// input — each a 4xx envelope that submits nothing.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addOpenGame, eventId, outcomeId, seedAccounts, seedCatalog } from './fixture.ts';
import { assertError, type Harness, json, makeHarness, trader } from './harness.ts';

let h: Harness;
const G = 2000;
let A: Record<string, string>;
let B: Record<string, string>;
before(async () => {
  h = await makeHarness();
  seedCatalog(h.port);
  seedAccounts(h.port);
  A = freshAccount();
  B = freshAccount();
  addOpenGame(h.port, G);
});
after(() => h.close());

function freshAccount(): Record<string, string> {
  const id = h.port.newId();
  assert.ok(h.port.applyNow({ type: 'CreateAccount', accountId: id }).ok);
  assert.ok(
    h.port.applyNow({ type: 'Deposit', accountId: id, currency: 'CASH', amount: 10_000 * 100_000 }).ok,
  );
  return trader(id);
}

interface State {
  configs: { eventId: string | null; currency: string; qtyLimit: number }[];
  frozen: { eventId: string; frozenUntil: string | null; active: boolean }[];
}

const put = (body: unknown, headers = A) =>
  h.app.inject({ method: 'PUT', url: '/nbx/v2/emm/mmp', headers, payload: body as object });
const reset = (body: unknown, headers = A) =>
  h.app.inject({ method: 'POST', url: '/nbx/v2/emm/mmp/reset', headers, payload: body as object });
const get = (headers = A) => h.app.inject({ method: 'GET', url: '/nbx/v2/emm/mmp', headers });
const place = (body: Record<string, unknown>, headers = A) =>
  h.app.inject({
    method: 'POST',
    url: '/nbx/v2/emm/orders/place',
    headers,
    payload: {
      outcomeId: outcomeId(G, 'MONEY', 0),
      price: 0.4,
      qty: 100,
      currency: 'CASH',
      tif: 'GTC',
      ...body,
    },
  });
const config = {
  eventId: eventId(G),
  currency: 'CASH',
  intervalMs: 60_000,
  qtyLimit: 100,
  netLimit: 0,
  freezeMs: 0,
};

describe('market-maker protection routes', () => {
  test('bad input is a 4xx and submits nothing', async () => {
    const applied = h.port.applied.length;
    const cases: [unknown, number, string][] = [
      [{ ...config, currency: undefined }, 400, 'VALIDATION_FAILED'],
      [{ ...config, currency: 'EUR' }, 400, 'INVALID_CURRENCY'],
      [{ ...config, eventId: 'nope' }, 400, 'INVALID_ID'],
      [{ ...config, intervalMs: 0 }, 400, 'VALIDATION_FAILED'],
      [{ ...config, freezeMs: 86_400_001 }, 400, 'VALIDATION_FAILED'],
      [{ ...config, qtyLimit: -1 }, 400, 'VALIDATION_FAILED'],
      [{ ...config, qtyLimit: 1.5 }, 400, 'VALIDATION_FAILED'],
      [{ ...config, colour: 'red' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await put(body);
      assertError(res, status, code);
      h.checkShape('PUT', '/nbx/v2/emm/mmp', status, json(res));
    }
    assertError(await reset({ eventId: 'nope' }), 400, 'INVALID_ID');
    assert.equal(h.port.applied.length, applied);
    // the engine's own refusals
    assertError(await put({ ...config, qtyLimit: 0, netLimit: 0 }), 400, 'VALIDATION_FAILED');
    assertError(
      await put({ ...config, eventId: '00000000-0000-4000-8000-000000000000' }),
      404,
      'EVENT_NOT_FOUND',
    );
    assertError(await reset({ eventId: '00000000-0000-4000-8000-000000000000' }), 404, 'EVENT_NOT_FOUND');
    assertError(await place({ mmp: true }), 409, 'MMP_NOT_CONFIGURED');
    assertError(await place({ mmp: 'yes' }), 400, 'VALIDATION_FAILED');
    // scopes
    const readOnly = { ...A, 'x-test-scopes': 'read:trader' };
    assert.equal((await put(config, readOnly)).statusCode, 403);
    assert.equal((await reset({}, readOnly)).statusCode, 403);
    assert.equal(h.port.applied.length, applied);
  });

  test('set, breach in the filling command, frozen, reset', async () => {
    const empty = await get();
    assert.equal(empty.statusCode, 200, empty.body);
    assert.deepEqual(json(empty), { configs: [], frozen: [] });
    const set = await put(config);
    assert.equal(set.statusCode, 200, set.body);
    h.checkShape('PUT', '/nbx/v2/emm/mmp', 200, json(set));
    assert.deepEqual(json<State>(set).configs, [{ ...config }]);
    const p1 = await place({ mmp: true });
    assert.equal(p1.statusCode, 201, p1.body);
    const p2 = await place({ mmp: true, outcomeId: outcomeId(G, 'SPREAD', 0) });
    const p2id = json<{ id: string }>(p2).id;
    // B takes all 100 of p1: A's limit is reached in that command, p2 is cancelled
    const take = await place({ outcomeId: outcomeId(G, 'MONEY', 1), price: 0.6, tif: 'IOC' }, B);
    assert.equal(take.statusCode, 201, take.body);
    const order = await h.app.inject({ method: 'GET', url: `/nbx/v2/emm/orders/${p2id}`, headers: A });
    assert.equal(json<{ status: string }>(order).status, 'CANCELED');
    const frozen = json<State>(await get());
    assert.deepEqual(frozen.frozen, [{ eventId: eventId(G), frozenUntil: null, active: true }]);
    assertError(await place({ mmp: true }), 409, 'MMP_FROZEN');
    assert.equal((await place({})).statusCode, 201, 'unprotected orders still go');
    const r = await reset({ eventId: eventId(G) });
    assert.equal(r.statusCode, 200, r.body);
    h.checkShape('POST', '/nbx/v2/emm/mmp/reset', 200, json(r));
    assert.deepEqual(json<State>(r).frozen, []);
    assert.equal((await place({ mmp: true })).statusCode, 201);
    assert.equal((await reset({})).statusCode, 200, 'a reset of every event, with nothing frozen');
  });
});
