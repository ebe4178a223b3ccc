// The operator metrics on /metrics (docs/operations.md, "Metrics"): journal seq, commit latency,
// books, resting orders, snapshot duration and event-loop delay appear, and move when the
// exchange does. The server runs the demo slate so that there are books and snapshots to count.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { RunningServer } from '../../src/main.ts';
import { countBooks } from '../../src/runtime/operator-metrics.ts';
import { type ServerPlace, serverPlace, start } from '../helpers/server.ts';

function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  assert.ok(line !== undefined, `${name}${labels} is exposed`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('operator metrics', () => {
  let place: ServerPlace;
  let srv: RunningServer;
  before(async () => {
    place = await serverPlace('pglite', {
      TICKBOOK_DEMO: 'true',
      DEMO_LIVE: 'false',
      SNAPSHOT_EVERY: '5000',
    });
    srv = await start(place);
  });
  after(async () => {
    await srv?.close();
    await place?.destroy();
  });
  const scrape = async () => (await srv.app.inject({ url: '/metrics' })).body;

  test('journal seq, commit latency, books, resting orders and snapshots appear and move', async () => {
    const a = await scrape();
    const seqA = sample(a, 'tickbook_journal_seq', '{state="committed"}');
    assert.ok(seqA > 1000, `the demo slate is journaled (seq ${seqA})`);
    assert.equal(sample(a, 'tickbook_journal_seq', '{state="applied"}'), seqA);
    const commitsA = sample(a, 'tickbook_command_commit_seconds_count');
    assert.ok(commitsA > 0);
    const restingCash = sample(a, 'tickbook_resting_orders', '{currency="CASH"}');
    const books = sample(a, 'tickbook_books');
    assert.ok(
      restingCash > 0 && books > 0,
      `the market maker's quotes rest (${restingCash} in ${books} books)`,
    );
    // The gauges agree with a direct count of the engine's books.
    const direct = countBooks(srv.runtime);
    assert.equal(books, direct.books);
    assert.equal(restingCash, direct.resting.CASH);
    // The demo slate passes SNAPSHOT_EVERY; the snapshot thread serializes and stores it while the
    // server goes on, so it may land a moment after start: wait for it (at most 20 s).
    let snap = a;
    for (let t = Date.now(); sample(snap, 'tickbook_snapshot_serialize_seconds_count') < 1; ) {
      assert.ok(Date.now() - t < 20_000, 'a snapshot was taken');
      await new Promise((r) => setTimeout(r, 50));
      snap = await scrape();
    }
    assert.ok(sample(snap, 'tickbook_snapshot_bytes') > 0);

    // One more command: the seq and the commit count move.
    const r = await srv.runtime.submit({ type: 'CreateAccount', accountId: srv.runtime.newId() });
    assert.equal(r.ok, true);
    const b = await scrape();
    assert.equal(sample(b, 'tickbook_journal_seq', '{state="committed"}'), seqA + 1);
    assert.equal(sample(b, 'tickbook_command_commit_seconds_count'), commitsA + 1);
  });

  test('event-loop delay shows a blocked loop', async () => {
    await scrape(); // resets the window
    // Block the loop inside a timer callback (a block in a promise continuation of the scrape can
    // fall between the monitor's samples).
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        const until = performance.now() + 150;
        while (performance.now() < until) {
          // block the event loop on purpose
        }
        setTimeout(resolve, 50);
      }, 20),
    );
    const max = sample(await scrape(), 'tickbook_nodejs_eventloop_lag_max_seconds');
    assert.ok(max >= 0.1, `max event-loop delay ${max}s after a 150 ms block`);
  });
});
