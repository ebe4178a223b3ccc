// The house desk in the running exchange (docs/parlays.md "The house quote"): with a house
// configured and the timers started, a request's submit resolves — its 201 is built — with the
// house's quote already applied and durable, committed with the request rather than at the next
// scheduler pass; without the timers (a replica, a process that does not write) no quote is made.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { CommandInput } from '../../src/exchange/types.ts';
import { FileJournal } from '../../src/journal/file-journal.ts';
import { ExchangeRuntime } from '../../src/runtime/exchange-runtime.ts';
import { openTestStore } from '../helpers/store.ts';

const quiet = { info() {}, warn() {}, error() {} };
const T = 1_900_000_000_000;

function catalog(house: string, taker: string) {
  const [home, away, event, m1, m2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const outcome = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const market = (id: string, type: 'MONEY' | 'TOTAL', strike: number | null, o: [string, string]) => ({
    id,
    type,
    strike,
    description: `${type}`,
    outcomes: [
      { id: o[0], description: 'a' },
      { id: o[1], description: 'b' },
    ],
  });
  const cmds: CommandInput[] = [
    { type: 'CreateLeague', code: 'NFL', name: 'National Football League' },
    {
      type: 'CreateTeam',
      team: { id: home, league: 'NFL', name: 'H', shortName: 'H', symbol: 'HOM', mascot: 'H' },
    },
    {
      type: 'CreateTeam',
      team: { id: away, league: 'NFL', name: 'A', shortName: 'A', symbol: 'AWY', mascot: 'A' },
    },
    {
      type: 'CreateEvent',
      event: {
        id: event,
        type: 'Game',
        status: 'OPEN_PREGAME',
        description: 'A @ H',
        league: 'NFL',
        scheduledStart: T + 3_600_000,
      },
      game: { id: randomUUID(), homeTeamId: home, awayTeamId: away },
      markets: [
        market(m1, 'MONEY', null, [outcome[0]!, outcome[1]!]),
        market(m2, 'TOTAL', 47.5, [outcome[2]!, outcome[3]!]),
      ],
    },
  ] as CommandInput[];
  for (const accountId of [house, taker]) {
    cmds.push({ type: 'CreateAccount', accountId });
    cmds.push({ type: 'Deposit', accountId, currency: 'CASH', amount: 1_000_000_000 });
  }
  return { cmds, legs: [outcome[0]!, outcome[3]!] };
}

async function runtime(house: string, timers: boolean) {
  const store = await openTestStore('pglite');
  const dir = mkdtempSync(join(tmpdir(), 'tickbook-house-desk-'));
  const journal = await FileJournal.open(join(dir, 'journal'));
  const config = loadConfig({ LOG_LEVEL: 'silent', TICKBOOK_DEMO: 'false', PARLAY_HOUSE_ACCOUNT: house });
  const rt = await ExchangeRuntime.open({ config, store, log: quiet, journal });
  if (timers) rt.startTimers();
  return {
    rt,
    async close() {
      await rt.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const request = (taker: string, legs: string[]): CommandInput => ({
  type: 'ParlayRequest',
  requestId: randomUUID(),
  accountId: taker,
  currency: 'CASH',
  legs: [
    { outcomeId: legs[0]!, price: 500_000 },
    { outcomeId: legs[1]!, price: 400_000 },
  ],
  refPrice: 220_000,
  stake: null,
  expiresAt: Date.now() + 30_000,
});

test('the request resolves with the house quote applied and durable in the same commit', async () => {
  const [house, taker] = [randomUUID(), randomUUID()];
  const { rt, close } = await runtime(house, true);
  try {
    const { cmds, legs } = catalog(house, taker);
    for (const r of await rt.submitMany(cmds)) assert.equal(r.ok, true);
    for (let i = 0; i < 3; i++) {
      const cmd = request(taker, legs);
      const seqs: number[] = [];
      const r = await rt.submit(cmd, seqs);
      assert.equal(r.ok, true);
      const id = (cmd as { requestId: string }).requestId;
      const quotes = rt.reader().parlayRequest(id)!.quotes;
      assert.deepEqual(
        quotes.map((q) => [q.quoteId, q.accountId, q.price]),
        [[`house:${id}`, house, 220_000]],
        'the house quoted at the reference price before the request was answered',
      );
      // The quote is the command right after the request, and durable with it.
      assert.ok(rt.sequencer.appliedSeq >= seqs[0]! + 1);
      assert.ok(rt.sequencer.committedSeq >= seqs[0]! + 1, 'the quote joined the request’s commit');
    }
  } finally {
    await close();
  }
});

test('without the timers (a process that does not write) the house does not quote', async () => {
  const [house, taker] = [randomUUID(), randomUUID()];
  const { rt, close } = await runtime(house, false);
  try {
    const { cmds, legs } = catalog(house, taker);
    for (const r of await rt.submitMany(cmds)) assert.equal(r.ok, true);
    const cmd = request(taker, legs);
    assert.equal((await rt.submit(cmd)).ok, true);
    await new Promise((res) => setImmediate(res));
    assert.deepEqual(rt.reader().parlayRequest((cmd as { requestId: string }).requestId)!.quotes, []);
  } finally {
    await close();
  }
});
