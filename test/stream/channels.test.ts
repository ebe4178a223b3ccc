// The channel table (src/stream/channels.ts) is the one place a /tape channel is declared: a
// test-only entry added to it is subscribed, received, resumed, heartbeated and unsubscribed like
// the built-in ones, with nothing else registered; docs/stream.md, the AsyncAPI document and the
// UI's channel list name exactly the table's channels.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { uiChannelModule } from '../../scripts/stream-channels.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import type { Command, Id } from '../../src/exchange/types.ts';
import { asyncApiDocument, channelList } from '../../src/stream/asyncapi.ts';
import type { ChannelSpec, FrameInput } from '../../src/stream/channel-types.ts';
import { CHANNELS } from '../../src/stream/channels.ts';
import { commandFrames } from '../../src/stream/frames.ts';
import { StreamHub } from '../../src/stream/hub.ts';
import { serverMessages } from '../../src/stream/message-schemas.ts';
import { bid, market, ok, setup, T0 } from '../exchange/fixtures.ts';
import { FakeSocket } from '../helpers/fake-socket.ts';

const MID = '0190a000-0000-7000-8000-000000000001';

/** A shared channel of this test only: one frame per order of at least 10 contracts. */
const bigOrders: ChannelSpec = {
  name: 'big-orders',
  kind: 'shared',
  summary: 'Orders of 10 contracts or more',
  scope: 'read:tape',
  scopeMessage: 'The big-orders channel requires the scope read:tape',
  retention: 'retainFrames',
  messages: [],
  build: ({ events, journalSeq }: FrameInput) => {
    const out: string[] = [];
    for (const e of events) {
      if (e.kind === 'OrderPlaced' && e.order.qty >= 10) {
        out.push(JSON.stringify({ type: 'BIG', orderId: e.order.id, qty: e.order.qty, journalSeq }));
      }
    }
    return out;
  },
};

/** An account channel of this test only (the shape a request-for-quote channel would have). */
const myOrders: ChannelSpec = {
  name: 'my-orders',
  kind: 'account',
  automatic: false,
  summary: 'The ids of your own new orders',
  scope: 'read:trader',
  scopeMessage: 'The my-orders channel requires the scope read:trader',
  retention: 'privateRetainFrames',
  messages: [],
  build: ({ events, journalSeq }: FrameInput) => {
    const out = new Map<Id, string[]>();
    for (const e of events) {
      if (e.kind === 'OrderPlaced')
        out.set(e.order.accountId, [JSON.stringify({ mine: e.order.id, journalSeq })]);
    }
    return out;
  },
};

function world() {
  const table = [...CHANNELS, bigOrders, myOrders];
  const x = setup();
  ok(x.apply({ type: 'AddMarkets', ts: T0, eventId: 'E1', markets: [market(MID)] } as Command));
  const hub = new StreamHub({ reader: () => x, startSeq: x.lastSeq, now: () => T0, channels: table });
  const place = (account: string, qty: number) => {
    const c = bid(account, `${MID}-a`, 400, qty);
    const events = ok(x.apply(c));
    hub.applied(commandFrames(x, c, events, x.lastSeq, table));
    hub.committed(x.lastSeq);
    return x.lastSeq;
  };
  return { hub, place };
}

const tapeReader = { accountId: null, scopes: new Set<Scope>(['read:tape']) };
const alice = { accountId: 'alice', scopes: new Set<Scope>(['read:trader']) };

describe('stream channel table', () => {
  test('a channel added to the table is subscribed, received, resumed and unsubscribed', () => {
    const { hub, place } = world();
    const s = new FakeSocket();
    const c = hub.connect(s, tapeReader);
    c.message(JSON.stringify({ event: 'subscribe', data: 'big-orders' }));
    assert.deepEqual(s.json().at(-1), { event: 'subscribed', data: { channel: 'big-orders', replayed: 0 } });
    const j1 = place('alice', 10);
    place('bob', 3);
    const j3 = place('bob', 12);
    const live = s.json().filter((f) => f.type === 'BIG');
    assert.deepEqual(
      live.map((f) => f.journalSeq),
      [j1, j3],
    );
    // Gone, and back with fromSeq: the replay is the frames it missed, byte for byte.
    c.close();
    const j4 = place('carol', 20);
    place('carol', 1);
    const s2 = new FakeSocket();
    const c2 = hub.connect(s2, tapeReader);
    c2.message(JSON.stringify({ event: 'subscribe', data: 'big-orders', fromSeq: j3 }));
    assert.deepEqual(s2.json()[0], { event: 'subscribed', data: { channel: 'big-orders', replayed: 1 } });
    const replayed = s2.sent.filter((f) => f.includes('"BIG"'));
    assert.equal(replayed.length, 1);
    assert.equal(JSON.parse(replayed[0]!).journalSeq, j4);
    // Heartbeats name it with its position; unsubscribing stops it.
    hub.heartbeat();
    const hb = s2.json().find((f) => f.event === 'heartbeat' && f.data.channel === 'big-orders');
    assert.ok(hb, 'heartbeat on the new channel');
    c2.message(JSON.stringify({ event: 'unsubscribe', data: 'big-orders' }));
    assert.deepEqual(s2.json().at(-1), { event: 'unsubscribed', data: { channel: 'big-orders' } });
    const before = s2.sent.length;
    place('carol', 50);
    assert.equal(s2.sent.length, before);
    // Its scope is its own entry's: a token without it is refused.
    const s3 = new FakeSocket();
    hub.connect(s3, alice).message(JSON.stringify({ event: 'subscribe', data: 'big-orders' }));
    assert.equal(s3.json().at(-1).data.code, 'INSUFFICIENT_SCOPE');
    // An unknown channel's refusal lists it.
    c2.message(JSON.stringify({ event: 'subscribe', data: 'nope' }));
    assert.match(s2.json().at(-1).data.message, /big-orders, my-orders or a market id/);
  });

  test('an account channel added to the table reaches only its account and resumes', () => {
    const { hub, place } = world();
    const s = new FakeSocket();
    const c = hub.connect(s, alice);
    assert.equal(s.sent.length, 0, 'not automatic: nothing until subscribed');
    c.message(JSON.stringify({ event: 'subscribe', data: 'my-orders' }));
    const j1 = place('alice', 1);
    place('bob', 1);
    const mine = s.json().filter((f) => f.mine !== undefined);
    assert.deepEqual(
      mine.map((f) => f.journalSeq),
      [j1],
    );
    c.close();
    const j3 = place('alice', 2);
    const s2 = new FakeSocket();
    hub.connect(s2, alice).message(JSON.stringify({ event: 'subscribe', data: 'my-orders', fromSeq: j1 }));
    assert.deepEqual(s2.json()[0], { event: 'subscribed', data: { channel: 'my-orders', replayed: 1 } });
    assert.equal(s2.json()[1].journalSeq, j3);
    const s3 = new FakeSocket();
    hub.connect(s3, tapeReader).message(JSON.stringify({ event: 'subscribe', data: 'my-orders' }));
    assert.equal(s3.json().at(-1).data.code, 'INSUFFICIENT_SCOPE');
  });

  test('docs/stream.md, the AsyncAPI document and the UI list name exactly the table', () => {
    const names = channelList().map((c) => c.name);
    assert.deepEqual(
      names.slice(0, -1),
      CHANNELS.map((c) => c.name),
    );
    // docs/stream.md "Channels": one row per channel, its scope in the second column.
    const doc = readFileSync(new URL('../../docs/stream.md', import.meta.url), 'utf8');
    const section = doc.split('\n## Channels\n')[1]!.split('\n## ')[0]!;
    const rows = section
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => l.split('|').map((cell) => cell.trim()));
    assert.deepEqual(
      rows.map((r) => r[1]),
      names.map((n) => `\`${n}\``),
    );
    // Every column says what the entry says, so a row copied from another channel and left half
    // edited fails here: the scope, "automatic", the log and its count, the messages.
    const backquoted = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    for (const [i, entry] of channelList().entries()) {
      const [, , who = '', log = '', messages = ''] = rows[i]!;
      assert.match(who, new RegExp(`\`${entry.scope}\``), `${entry.name}: scope`);
      assert.equal(/\bautomatic\b/.test(who), entry.automatic, `${entry.name}: automatic`);
      const kind = entry.log === 'shared' ? 'one,' : `one ${entry.log},`;
      assert.ok(log.startsWith(kind), `${entry.name}: the log is "${kind}…", the row says "${log}"`);
      assert.ok(
        log.includes(`${entry.retainFrames.toLocaleString('en-US')} frames`),
        `${entry.name}: ${entry.retainFrames} frames kept, the row says "${log}"`,
      );
      assert.deepEqual(backquoted(messages), entry.messages, `${entry.name}: messages`);
    }
    // docs/stream.md "Messages": what arrives on each channel, one row per channel (any order).
    const messagesSection = doc.split('\n## Messages\n')[1]!.split('\n## ')[0]!;
    const arrives = messagesSection
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .map((l) => backquoted(l.split('|')[1]!)[0]);
    assert.deepEqual(
      [...arrives].sort(),
      [...names].sort(),
      'docs/stream.md "Messages": one row per channel',
    );
    // AsyncAPI: every channel listed, every message it names is published.
    const listed = (asyncApiDocument('http://localhost').channels as Record<string, Record<string, unknown>>)
      .tape!['x-tickbook-channels'] as { name: string; messages: string[] }[];
    assert.deepEqual(
      listed.map((c) => c.name),
      names,
    );
    for (const c of listed) for (const m of c.messages) assert.ok(m in serverMessages, `${c.name}: ${m}`);
    // The UI's list is the generated one (scripts/stream-channels.ts writes it).
    const ui = readFileSync(new URL('../../ui/src/stream-channels.ts', import.meta.url), 'utf8');
    assert.equal(ui, uiChannelModule(), 'run: node --import tsx scripts/stream-channels.ts');
  });
});
