// Boosts on /tape against a real server (docs/stream.md "Messages", docs/parlays.md "Boosts"): a
// trader subscribed to `boosts` sees a boost when an operator creates it and when one ends it early;
// the account that claims it gets `boostClaim` on its private channel (no one else does), and again
// when a boosted fill uses the claim; a client
// that reconnects resumes the channel from a seq; a token without read:trader is refused; every
// frame matches its published schema.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { serverMessages } from '../../src/stream/message-schemas.ts';
import { Client, type Frame, isEvent, type Trader, type World, world } from './helpers.ts';

const Ajv = ((AjvModule as unknown as { default?: unknown }).default ??
  AjvModule) as typeof AjvModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as typeof addFormatsModule.default;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
function conforms(name: string, f: Frame): void {
  const v = ajv.compile(serverMessages[name]!.payload);
  assert.ok(v(f), `${name}: ${JSON.stringify(v.errors)} ${JSON.stringify(f)}`);
}

describe('boost frames on /tape', () => {
  let w: World;
  let funding: Trader;

  before(async () => {
    w = await world({ TICKBOOK_DEMO: 'false' });
    funding = await w.trader('funding');
  });
  after(async () => {
    await w.close();
  });

  const create = async (extra: Record<string, unknown> = {}) => {
    const r = await w.admin.call('POST', '/admin/v1/boosts', {
      kind: 'PERCENT',
      value: 0.2,
      validTo: new Date(Date.now() + 3_600_000).toISOString(),
      claimLimit: 2,
      fundingAccountId: funding.accountId,
      ...extra,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body as { id: string };
  };

  test('creation and early end reach every trader; a claim reaches only its account', async () => {
    const alice = await w.trader('alice');
    const bob = await w.trader('bob');
    const a = await Client.open(w.wsUrl, { token: alice.token });
    const b = await Client.open(w.wsUrl, { token: bob.token });
    for (const c of [a, b]) {
      c.send({ event: 'subscribe', data: 'boosts' });
      await c.next(isEvent('subscribed', (d) => d.channel === 'boosts'));
    }

    const boost = await create({ leagues: ['NFL'], minLegs: 3, maxStake: 50 });
    for (const c of [a, b]) {
      const f = await c.next(isEvent('boost', (d) => d.id === boost.id));
      conforms('boost', f);
      assert.equal(f.data.kind, 'PERCENT');
      assert.equal(f.data.value, 0.2);
      assert.deepEqual(f.data.leagues, ['NFL']);
      assert.equal(f.data.minLegs, 3);
      assert.equal(f.data.maxStake, 50);
      assert.equal(f.data.claimLimit, 2);
      assert.equal(f.data.active, true);
      assert.equal(f.data.endedAt, null);
      assert.ok(Number.isSafeInteger(f.journalSeq) && f.journalSeq > 0);
      assert.equal('fundingAccountId' in f.data, false, 'the funding account is the operator’s');
    }

    const claim = await alice.api.call('POST', `/nbx/v1/boosts/${boost.id}/claim`);
    assert.equal(claim.status, 200, JSON.stringify(claim.body));
    const mine = await a.next(isEvent('boostClaim', (d) => d.id === boost.id));
    conforms('boostClaim', mine);
    assert.deepEqual(
      { claimed: mine.data.claimed, used: mine.data.used, remaining: mine.data.remainingClaims },
      { claimed: 1, used: 0, remaining: 1 },
    );
    assert.equal(mine.data.available, 1);
    // The same counts as the REST list.
    const listed = await alice.api.call('GET', '/nbx/v1/boosts');
    const row = (listed.body as { id: string; claimed: number; available: number }[]).find(
      (x) => x.id === boost.id,
    );
    assert.deepEqual({ claimed: row?.claimed, available: row?.available }, { claimed: 1, available: 1 });

    const ended = await w.admin.call('POST', `/admin/v1/boosts/${boost.id}/end`);
    assert.ok(ended.status === 200 || ended.status === 201, JSON.stringify(ended.body));
    for (const c of [a, b]) {
      const f = await c.next(isEvent('boost', (d) => d.id === boost.id && d.endedAt !== null));
      conforms('boost', f);
      assert.equal(f.data.active, false);
    }
    // Bob never claimed: nothing of alice's claim reached him.
    assert.equal(
      b.frames.some((f) => f.event === 'boostClaim'),
      false,
    );
    a.close();
    b.close();
  });

  test('a boosted fill uses a claim: its account gets boostClaim with the claim used', async () => {
    // Two games (legs on different games price as a product, with no same-game model for the
    // test's league): the world's first market and a market of a second game.
    const code = 'BST';
    assert.equal(
      (await w.admin.call('POST', '/admin/v1/leagues', { code, name: 'Boost League' })).status,
      201,
    );
    const team = async (name: string, symbol: string) => {
      const r = await w.admin.call('POST', '/admin/v1/teams', { league: code, name, symbol });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.id as string;
    };
    const ev = await w.admin.call('POST', '/admin/v1/events', {
      type: 'Game',
      status: 'OPEN_PREGAME',
      description: 'Visitors @ Locals',
      league: code,
      scheduledStart: '2030-01-27T18:30:00.000Z',
      game: { homeTeamId: await team('Locals', 'LOC'), awayTeamId: await team('Visitors', 'VIS') },
      markets: [
        {
          type: 'TOTAL',
          strike: 44.5,
          description: 'VIS @ LOC Total 44.5',
          outcomes: [{ description: 'Over 44.5' }, { description: 'Under 44.5' }],
        },
      ],
    });
    assert.equal(ev.status, 201, JSON.stringify(ev.body));
    const second = ev.body.markets[0] as { outcomeIds: [string, string] };
    const liquidity = await w.trader('liquidity');
    for (const m of [w.markets[0]!, second])
      for (const outcomeId of m.outcomeIds) {
        const r = await liquidity.api.call('POST', '/nbx/v2/emm/orders/place', {
          outcomeId,
          price: 0.45,
          qty: 1000,
          currency: 'CASH',
          tif: 'GTC',
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
    const dave = await w.trader('dave');
    const maker = await w.trader('parlay-maker', ['make:parlay', 'read:trader', 'execute:trader']);
    const boost = await create();
    assert.equal((await dave.api.call('POST', `/nbx/v1/boosts/${boost.id}/claim`)).status, 200);
    const d = await Client.open(w.wsUrl, { token: dave.token });
    const req = await dave.api.call('POST', '/nbx/v1/parlay/request', {
      outcomes: [{ id: w.markets[0]!.outcomeIds[0] }, { id: second.outcomeIds[0] }],
      boostId: boost.id,
    });
    assert.equal(req.status, 201, JSON.stringify(req.body));
    const requestId: string = req.body[0].id;
    const q = await maker.api.call('POST', '/nbx/v1/parlay/quotes', {
      requestId,
      price: 0.3,
      maxQty: 10_000,
      expiresInMs: 60_000,
    });
    assert.equal(q.status, 201, JSON.stringify(q.body));
    const wager = await dave.api.call('POST', `/nbx/v1/parlay/request/${requestId}/wager`, {
      stake: 1,
      maxPrice: 0.24, // 0.3 less the 20 % boost
      clientOrderId: 'boosted-1',
    });
    assert.equal(wager.status, 201, JSON.stringify(wager.body));
    assert.equal(wager.body.boostId, boost.id);
    const used = await d.next(isEvent('boostClaim', (x) => x.id === boost.id && x.used === 1));
    conforms('boostClaim', used);
    assert.deepEqual(
      { claimed: used.data.claimed, available: used.data.available },
      { claimed: 1, available: 0 },
    );
    // In the same command as the fill, after it.
    const fill = d.frames.find((f) => f.event === 'parlayFill' && f.data.requestId === requestId);
    assert.equal(fill?.journalSeq, used.journalSeq);
    d.close();
  });

  test('a reconnecting trader resumes the channel from a seq', async () => {
    const carol = await w.trader('carol');
    const first = await Client.open(w.wsUrl, { token: carol.token });
    first.send({ event: 'subscribe', data: 'boosts' });
    await first.next(isEvent('subscribed', (d) => d.channel === 'boosts'));
    const one = await create();
    const f1 = await first.next(isEvent('boost', (d) => d.id === one.id));
    first.close();
    // Two boosts while carol is away.
    const two = await create();
    const three = await create({ validFrom: new Date(Date.now() + 600_000).toISOString() });

    const again = await Client.open(w.wsUrl, { token: carol.token });
    again.send({ event: 'subscribe', data: 'boosts', fromSeq: f1.journalSeq });
    const ack = await again.next(isEvent('subscribed', (d) => d.channel === 'boosts'));
    assert.ok(ack.data.replayed >= 2, JSON.stringify(ack));
    const f2 = await again.next(isEvent('boost', (d) => d.id === two.id));
    const f3 = await again.next(isEvent('boost', (d) => d.id === three.id));
    conforms('boost', f3);
    assert.equal(f3.data.active, false, 'not valid yet');
    assert.ok(f2.journalSeq > f1.journalSeq && f3.journalSeq > f2.journalSeq);
    assert.equal(
      again.frames.some((f) => f.event === 'boost' && f.data.id === one.id),
      false,
      'nothing at or before fromSeq is sent again',
    );
    again.close();
  });

  test('the channel needs read:trader', async () => {
    const viewer = await w.trader('viewer', ['read:tape']);
    const c = await Client.open(w.wsUrl, { token: viewer.token });
    c.send({ event: 'subscribe', data: 'boosts' });
    const e = await c.next(isEvent('error'));
    assert.equal(e.data.code, 'INSUFFICIENT_SCOPE');
    assert.match(e.data.message, /boosts/);
    c.close();
  });
});
