// The stream of a PostgreSQL process whose leadership is fenced out (here by the CLI's writer
// fence, as `tickbook seed` or `import` run it): its command answers 503 and it steps down, rebuilds
// its state from the store at the seq the stream released, takes the lock again and leads on — and
// a /tape client connected all along sees every durable command once, with contiguous seqs, and no
// close. In-process (ClusterNode + the stream hub), needs DATABASE_URL.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pino from 'pino';
import { fenceOutLeader } from '../../src/cluster/leader-row.ts';
import { ClusterNode } from '../../src/cluster/node.ts';
import { loadConfig } from '../../src/config.ts';
import { ApiError } from '../../src/errors.ts';
import { PostgresStore } from '../../src/store/postgres-store.ts';
import { createStream, nodeSource } from '../../src/stream/service.ts';
import { market } from '../exchange/fixtures.ts';
import { FakeSocket } from '../helpers/fake-socket.ts';
import { createPostgresSchema, type PostgresSchema } from '../helpers/store.ts';
import { until } from './helpers.ts';

const skip = process.env.DATABASE_URL ? false : 'DATABASE_URL is not set (PostgreSQL only)';

let place: PostgresSchema | undefined;
const stores: PostgresStore[] = [];
after(async () => {
  for (const s of stores) await s.close().catch(() => {});
  await place?.drop();
});

test('a fenced leader rebuilds and leads again; its stream goes on without a gap', { skip }, async () => {
  place = await createPostgresSchema('srebuild_');
  const store = await PostgresStore.open(place.url, 4, `srebuild-${process.pid}`);
  stores.push(store);
  await store.migrate();
  const config = loadConfig({ DATABASE_URL: place.url, LOG_LEVEL: 'silent' });
  const node = await ClusterNode.open({
    config,
    store,
    log: pino({ level: process.env.TEST_LOG ?? 'silent' }),
  });
  const source = nodeSource(node);
  const stream = createStream(source, source);
  try {
    node.start('http://127.0.0.1:1');
    assert.equal(node.mode, 'leader');
    const must = async (cmd: Parameters<typeof node.submit>[0]) => {
      const r = await node.submit(cmd);
      assert.ok(r.ok, JSON.stringify(r));
    };
    await must({ type: 'CreateLeague', code: 'NFL', name: 'National Football League' });
    // Every id a uuid, as the history tables store them.
    const [home, away, eventId, gameId, marketId, outcome, outcome2] = Array.from({ length: 7 }, () =>
      node.newId(),
    ) as [string, string, string, string, string, string, string];
    for (const [id, sym] of [
      [home, 'HOM'],
      [away, 'AWY'],
    ] as const) {
      await must({
        type: 'CreateTeam',
        team: { id, league: 'NFL', name: sym, shortName: sym, symbol: sym, mascot: sym },
      });
    }
    await must({
      type: 'CreateEvent',
      event: {
        id: eventId,
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'A @ H',
        league: 'NFL',
        scheduledStart: Date.now() + 3_600_000,
      },
      game: { id: gameId, homeTeamId: home, awayTeamId: away },
      markets: [
        {
          ...market(marketId),
          outcomes: [
            { id: outcome, description: 'home' },
            { id: outcome2, description: 'away' },
          ],
        },
      ],
    });
    const alice = node.newId();
    await must({ type: 'CreateAccount', accountId: alice });
    await must({ type: 'Deposit', accountId: alice, currency: 'CASH', amount: 1_000_000_000 });
    const ids = Array.from({ length: 7 }, () => node.newId());
    const bid = (i: number) => ({
      type: 'PlaceOrder' as const,
      orderId: ids[i]!,
      accountId: alice,
      outcomeId: outcome,
      currency: 'CASH' as const,
      price: 400 + i * 10,
      qty: 10,
      tif: 'GTC' as const,
    });

    const s = new FakeSocket();
    stream.hub
      .connect(s, { accountId: null, scopes: new Set(['read:tape'] as const) })
      .message(JSON.stringify({ event: 'subscribe', data: 'tape' }));
    for (let i = 0; i < 3; i++) await must(bid(i));
    assert.equal(s.frames('PLACE').length, 3);

    // The fence a CLI writer sets: this leader's next commit is refused, and it steps down.
    const other = await PostgresStore.open(place.url, 1);
    stores.push(other);
    assert.equal(await fenceOutLeader(other, 'cli-test'), true);
    await assert.rejects(node.submit(bid(3)), (e: unknown) => e instanceof ApiError && e.statusCode === 503);
    assert.equal(node.mode, 'down');

    // The tick rebuilds from the store (where o3 never got) and takes the lock again.
    await until(async () => (node.mode === 'leader' ? true : undefined), 10_000, 'leading again');
    for (let i = 4; i < 7; i++) await must(bid(i));
    assert.equal(s.closed, undefined, 'the connection stayed open');
    const t = s.frames('PLACE');
    assert.deepEqual(
      t.map((f) => f.order.id),
      [0, 1, 2, 4, 5, 6].map((i) => ids[i]),
      'o3 never became durable: never sent',
    );
    assert.deepEqual(
      t.map((f) => f.seq),
      [1, 2, 3, 4, 5, 6],
    );
    for (let i = 1; i < t.length; i++) assert.equal(t[i].journalSeq, t[i - 1].journalSeq + 1);
  } finally {
    stream.close();
    await node.close();
  }
});
