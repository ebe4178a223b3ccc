// The stream's central promise, tested at random: ≥100,000 commands go through the engine and the
// journal while `ws` clients follow several books; every client rebuilds each book from its
// snapshot and ticks (BookReplica) and must equal the REST book byte for byte at the same seq.
// Clients drop their connection at random points and resume with fromSeq: no gap, and no
// duplicate beyond the parts of the one group a client was in the middle of when it dropped.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TICKS } from '../../src/exchange/ticks.ts';
import type { Currency } from '../../src/exchange/types.ts';
import type { CommandInput } from '../../src/runtime/exchange-port.ts';
import { BookReplica } from '../../src/stream/book-replica.ts';
import { Client, type Frame, type World, world } from './helpers.ts';

const TOTAL_COMMANDS = Number(process.env.STREAM_REBUILD_COMMANDS ?? 100_000);
const CHUNK = 500;

/** Deterministic PRNG (mulberry32), so a failure reproduces with its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Follow {
  marketId: string;
  currency: Currency;
}

/** A client following some books, rebuilding each, reconnecting with fromSeq. */
class Follower {
  client: Client | undefined;
  readonly replicas = new Map<string, BookReplica>();
  gaps: string[] = [];
  duplicates = 0;
  allowedDuplicates = 0;
  resets = 0;
  connects = 0;

  constructor(
    readonly w: World,
    readonly token: string,
    readonly follows: Follow[],
  ) {}

  key(f: { marketId: string; currency: string }) {
    return `${f.marketId}:${f.currency}`;
  }

  async connect(): Promise<void> {
    const c = await Client.open(this.w.wsUrl, { token: this.token });
    this.connects++;
    this.client = c;
    c.ws.on('message', (d) => this.onFrame(c, JSON.parse(d.toString())));
    for (const f of this.follows) {
      const r = this.replicas.get(this.key(f));
      c.send({
        event: 'subscribe',
        data: f.marketId,
        currency: f.currency,
        ...(r ? { fromSeq: r.seq } : {}),
      });
    }
    // Resubscribing mid-group replays the whole group: those parts arrive again, expectedly.
    for (const r of this.replicas.values()) this.allowedDuplicates += r.partInProgress;
  }

  private onFrame(c: Client, f: Frame): void {
    if (c !== this.client) return; // frames of a connection this follower already dropped
    if (f.event === 'book') {
      if (this.replicas.has(this.key(f.data))) this.resets++;
      this.replicas.set(this.key(f.data), new BookReplica(f.data));
      return;
    }
    if (f.event === 'resync_required') {
      this.gaps.push(`unexpected resync_required ${JSON.stringify(f.data)}`);
      return;
    }
    if (f.type !== 'PLACE' && f.type !== 'CANCEL') return;
    const r = this.replicas.get(this.key({ marketId: f.market.id, currency: f.order.currency }));
    if (r === undefined) {
      this.gaps.push(`tick before snapshot ${f.seq}`);
      return;
    }
    const out = r.apply(f);
    if (out === 'gap')
      this.gaps.push(`gap at ${r.marketId}: have ${r.seq}, got ${f.seq} part ${f.part}/${f.parts}`);
    else if (out === 'duplicate') this.duplicates++;
  }

  drop(): void {
    const c = this.client;
    this.client = undefined;
    c?.ws.terminate();
  }
}

describe('stream rebuild (randomized)', () => {
  let w: World;
  before(async () => {
    w = await world({}, 4);
  });
  after(async () => {
    await w.close();
  });

  test(`${TOTAL_COMMANDS} commands: replicas equal the REST books, resumes have no gap`, {
    timeout: 600_000,
  }, async () => {
    const rand = rng(Number(process.env.STREAM_REBUILD_SEED ?? 12345));
    const rt = w.srv.runtime;
    const reader = await w.trader('reader', ['read:tape']);
    // Accounts straight through the sequencer (the command flow under test does not need HTTP).
    const accounts: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = rt.newId();
      accounts.push(id);
      await rt.submitMany([
        { type: 'CreateAccount', accountId: id },
        { type: 'Deposit', accountId: id, currency: 'CASH', amount: 1e13 },
        { type: 'Deposit', accountId: id, currency: 'COIN', amount: 1e13 },
      ]);
    }
    const books: Follow[] = [
      ...w.markets.map((m) => ({ marketId: m.id, currency: 'CASH' as Currency })),
      { marketId: w.markets[0]!.id, currency: 'COIN' },
    ];
    const followers = [
      new Follower(w, reader.token, [books[0]!, books[1]!, books[4]!]),
      new Follower(w, reader.token, [books[1]!, books[2]!]),
      new Follower(w, reader.token, [books[2]!, books[3]!, books[0]!]),
      new Follower(w, reader.token, books),
    ];
    for (const f of followers) await f.connect();
    const prices = TICKS.filter((t) => t >= 380 && t <= 620);
    const recent: { id: string; account: string }[] = [];
    const downUntil = new Map<Follower, number>();
    let submitted = 0;
    let accepted = 0;
    let chunkNo = 0;
    let compared = 0;

    const settle = async () => {
      // Every follower that is connected catches up to the REST seq of each book it follows.
      for (const f of followers) {
        if (f.client === undefined) continue;
        for (const b of f.follows) {
          const rest = await reader.api.call('GET', `/nbx/v2/emm/book/${b.marketId}?currency=${b.currency}`);
          assert.equal(rest.status, 200);
          const deadline = Date.now() + 10_000;
          let r = f.replicas.get(f.key(b));
          while ((r === undefined || r.seq < rest.body.seq || !r.complete) && Date.now() < deadline) {
            await new Promise((res) => setTimeout(res, 5));
            r = f.replicas.get(f.key(b));
          }
          assert.ok(r, 'no replica');
          assert.equal(r.seq, rest.body.seq, 'replica did not reach the REST seq');
          const { asOf: _asOf, ...restBook } = rest.body;
          assert.equal(JSON.stringify(r.toWire()), JSON.stringify(restBook));
          compared++;
        }
      }
    };

    while (submitted < TOTAL_COMMANDS) {
      const cmds: CommandInput[] = [];
      for (let i = 0; i < CHUNK; i++) {
        const x = rand();
        const account = accounts[Math.floor(rand() * accounts.length)]!;
        const m = w.markets[Math.floor(rand() * w.markets.length)]!;
        if (x < 0.55 || recent.length === 0) {
          const id = rt.newId();
          const currency: Currency = rand() < 0.15 && m === w.markets[0] ? 'COIN' : 'CASH';
          cmds.push({
            type: 'PlaceOrder',
            orderId: id,
            accountId: account,
            outcomeId: m.outcomeIds[rand() < 0.5 ? 0 : 1],
            currency,
            price: prices[Math.floor(rand() * prices.length)]!,
            qty: 1 + Math.floor(rand() * 50),
            tif: rand() < 0.8 ? 'GTC' : 'IOC',
          });
          recent.push({ id, account });
          if (recent.length > 3000) recent.splice(0, 1000);
        } else if (x < 0.985) {
          const o = recent[Math.floor(rand() * recent.length)]!;
          cmds.push({ type: 'CancelOrder', accountId: o.account, orderId: o.id });
        } else if (x < 0.995) {
          cmds.push({ type: 'CancelOrders', accountId: account, scope: 'market', scopeId: m.id });
        } else {
          // Close and reopen a market: the close drains its books (multi-part groups).
          cmds.push({ type: 'SetMarketStatus', marketId: m.id, status: 'CLOSED' });
          cmds.push({ type: 'SetMarketStatus', marketId: m.id, status: 'OPEN' });
        }
      }
      const rs = await rt.submitMany(cmds);
      submitted += cmds.length;
      accepted += rs.filter((r) => r.ok).length;
      chunkNo++;
      // Random disconnects, and reconnects a few chunks later with fromSeq.
      for (const f of followers) {
        const until = downUntil.get(f);
        if (until !== undefined && chunkNo >= until) {
          downUntil.delete(f);
          await f.connect();
        } else if (until === undefined && rand() < 0.08) {
          f.drop();
          downUntil.set(f, chunkNo + 1 + Math.floor(rand() * 3));
        }
      }
      if (chunkNo % 20 === 0) await settle();
    }
    for (const f of followers) if (f.client === undefined) await f.connect();
    await settle();
    for (const f of followers) {
      assert.deepEqual(f.gaps, []);
      assert.equal(f.resets, 0, 'a resume inside the retention window must not reset');
      assert.equal(f.duplicates, f.allowedDuplicates);
      f.drop();
    }
    assert.ok(submitted >= TOTAL_COMMANDS);
    assert.ok(accepted > TOTAL_COMMANDS / 2, `only ${accepted} accepted`);
    assert.ok(compared > 20);
    assert.ok(
      followers.reduce((n, f) => n + f.connects, 0) > followers.length + chunkNo / 10,
      'too few reconnects',
    );
  });
});
