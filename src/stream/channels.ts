// The /tape channel table (docs/stream.md "Channels"): every channel a client may subscribe to by
// name, who may, how long it is kept for resume, what builds its frames and which published
// messages it carries. The hub, the client-message checks, the AsyncAPI document, docs/stream.md
// and the UI's channel list (ui/src/stream-channels.ts) all read this table; a test holds the docs
// and the UI list to it. Adding a channel is one entry here and its frame builder
// (docs/contributing.md "A stream channel").
//
// Market channels (`<marketId>`, one per book) are not entries: they carry a snapshot and the book
// seq shared with REST, which the hub handles itself; MARKET_CHANNEL describes them for the same
// readers.

import { boostFrames } from './boost-frames.ts';
import type { ChannelSpec } from './channel-types.ts';
import { concatFrames } from './lazy-frames.ts';
import { lifecycleFrames } from './lifecycle-frames.ts';
import { parlayRequestFrames } from './parlay-frames.ts';
import { privateFrames } from './private-frames.ts';

/** The automatic channel of a trader's own events; the dead-man switch reports on it. */
export const PRIVATE_CHANNEL = 'private';

export const CHANNELS: readonly ChannelSpec[] = [
  {
    name: 'tape',
    kind: 'shared',
    summary: 'Every book tick of every market and currency, no snapshot',
    scope: 'read:tape',
    scopeMessage: 'Market channels require the scope read:tape',
    retention: 'retainFrames',
    messages: ['bookTick'],
    build: ({ books }) => (books.length === 0 ? undefined : concatFrames(books.map((g) => g.frames))),
  },
  {
    name: 'lifecycle',
    kind: 'shared',
    summary: 'Market and event status changes, one tick per market',
    scope: 'read:tape',
    scopeMessage: 'Market channels require the scope read:tape',
    retention: 'retainFrames',
    beforeBooks: true,
    messages: ['lifecycleTick'],
    build: lifecycleFrames,
  },
  {
    name: PRIVATE_CHANNEL,
    kind: 'account',
    automatic: true,
    summary: "The caller's own orders and fills; subscribed automatically",
    scope: 'read:trader',
    scopeMessage: 'The private channel requires the scope read:trader',
    retention: 'privateRetainFrames',
    messages: [
      'place',
      'fill',
      'cancel',
      'deadman',
      'mmp',
      'parlayQuote',
      'parlayFill',
      'parlayUpdate',
      'boostClaim',
    ],
    build: privateFrames,
  },
  {
    name: 'parlayRequests',
    kind: 'shared',
    summary: 'Every parlay request to quote when it is made, then its end (makers)',
    scope: 'make:parlay',
    scopeMessage: 'The parlayRequests channel requires the scope make:parlay',
    retention: 'retainFrames',
    messages: ['parlayRequest'],
    build: parlayRequestFrames,
  },
  {
    name: 'boosts',
    kind: 'shared',
    summary: 'Every parlay boost when an operator creates it or ends it early (traders)',
    scope: 'read:trader',
    scopeMessage: 'The boosts channel requires the scope read:trader',
    retention: 'retainFrames',
    messages: ['boost'],
    build: boostFrames,
  },
];

/** The per-book channels, named by market id (the hub's own; described here for the same readers). */
export const MARKET_CHANNEL = {
  name: '<marketId>',
  summary: 'One book (market × currency, default CASH): a snapshot, then its ticks',
  scope: 'read:tape',
  scopeMessage: 'Market channels require the scope read:tape',
  messages: ['book', 'bookTick'],
} as const;

/** The table as a lookup by name. */
export function channelIndex(table: readonly ChannelSpec[]): ReadonlyMap<string, ChannelSpec> {
  const m = new Map<string, ChannelSpec>();
  for (const ch of table) {
    if (m.has(ch.name)) throw new Error(`stream channel ${ch.name} is declared twice`);
    m.set(ch.name, ch);
  }
  return m;
}
